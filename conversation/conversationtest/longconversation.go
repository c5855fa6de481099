package conversationtest

import (
	"strings"
	"time"

	"parley/client"
)

// LongConversation is n messages of varied length, user and assistant in turn, some with
// Markdown (a list and a code block every tenth), as a service's history gives them: for the
// tests and benchmarks of long conversations.
func LongConversation(n int) []client.Message {
	words := strings.Fields("the tide turns at six and the wind is from the west force four so hold course two seven zero and keep a lookout for the ferry")
	msgs := make([]client.Message, n)
	t0 := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	for i := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		k := 5 + (i*37)%120
		var b strings.Builder
		for j := 0; j < k; j++ {
			b.WriteString(words[(i+j)%len(words)])
			b.WriteByte(' ')
		}
		text := b.String()
		if i%10 == 1 {
			text = "**Course:**\n\n- " + text + "\n- keep watch\n\n```\nbearing 270\n```"
		}
		msgs[i] = client.Message{Role: role, Content: text, CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
	}
	return msgs
}
