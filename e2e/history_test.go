package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestHistory_PrintsEveryPageOldestFirst: a conversation longer than the service's page (100
// messages) comes out of `parley history` whole, oldest first, in text and in JSON.
func TestHistory_PrintsEveryPageOldestFirst(t *testing.T) {
	s := startService(t)
	key := s.newKey(t, 1000)
	const turns = 120
	conv := ""
	for i := range turns {
		conv = postChat(t, s.url, key, conv, fmt.Sprintf("question %03d", i))
	}
	env := s.env("PARLEY_API_KEY=" + key)

	r := mustRun(t, env, "", "history", conv, "--json")
	var h struct {
		Messages []struct {
			ID      int64  `json:"id"`
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &h); err != nil {
		t.Fatalf("history --json: %v", err)
	}
	if len(h.Messages) != 2*turns {
		t.Fatalf("history --json has %d messages, want %d", len(h.Messages), 2*turns)
	}
	for i, m := range h.Messages {
		if i > 0 && m.ID <= h.Messages[i-1].ID {
			t.Fatalf("message %d has ID %d after %d: not oldest first", i, m.ID, h.Messages[i-1].ID)
		}
		if i%2 == 0 && (m.Role != "user" || m.Content != fmt.Sprintf("question %03d", i/2)) {
			t.Fatalf("message %d is %s %q, want the user's question %03d", i, m.Role, m.Content, i/2)
		}
	}

	text := mustRun(t, env, "", "history", conv).Stdout
	first, last := strings.Index(text, "question 000"), strings.Index(text, fmt.Sprintf("question %03d", turns-1))
	if first < 0 || last < first {
		t.Errorf("parley history does not print the first question before the last one")
	}
}
