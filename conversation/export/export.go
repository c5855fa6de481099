// Package export writes a conversation as a person keeps it: Markdown to read, JSON for other
// programs. The desktop app's Export (Markdown or JSON, to a file) and the CLI's
// `parley history ID --markdown` and `--json` all write through it, so both give the same
// fields:
//
//   - the title: the conversation's, or when it has none, one made from its first message;
//   - the settings that are set: the persona whole, the temperature, top_p and max_tokens;
//   - each message, oldest first: who wrote it (the person, "user", or the service,
//     "assistant", whatever other name the service gave), its text, and its ID and time when the
//     service gave them;
//   - in the JSON only, the conversation's ID.
//
// The JSON is one object, indented, IDs in the JSON type the service gave them (a number stays
// a number), times in RFC 3339 in UTC; "id" and "created_at" are left out of a message the
// service gave none:
//
//	{
//	  "conversation_id": 7,
//	  "title": "Trip plans",
//	  "config": {"persona": "a guide", "temperature": 0.3},
//	  "messages": [
//	    {"id": 1, "role": "user", "content": "Where to?", "created_at": "2025-11-22T10:00:00Z"},
//	    {"id": 2, "role": "assistant", "content": "Lisbon.", "created_at": "2025-11-22T10:00:01.5Z"}
//	  ]
//	}
//
// The Markdown is the title as a heading, the persona as a quote (each of its lines kept), the
// numbers on one line, then each message under its author ("You" or "Assistant") and its time in
// the reader's zone:
//
//	# Trip plans
//
//	_Persona:_
//
//	> a guide
//
//	_Settings: temperature 0.3._
//
//	**You** · 22 Nov 2025 10:00
//
//	Where to?
package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"parley/client"
	"parley/conversation"
	"parley/settings"
)

// Conversation is what an export holds.
type Conversation struct {
	// ID is the conversation's ID, in the form the service gave it.
	ID client.ConversationID
	// Title is the conversation's title: "" or conversation.DefaultTitle when it has none.
	Title string
	// Config is its saved settings.
	Config client.Config
	// Messages are its messages, oldest first.
	Messages []conversation.Message
}

// FromHistory is the export of a conversation's history as the service gave it.
func FromHistory(h *client.History) Conversation {
	c := Conversation{ID: h.ConversationID, Title: h.Title, Config: h.Config}
	for _, m := range h.Messages {
		c.Messages = append(c.Messages, conversation.MessageFrom(m))
	}
	return c
}

// DisplayTitle is the title the export gives c: its own, or one made from its first message,
// or conversation.DefaultTitle when neither says anything.
func (c Conversation) DisplayTitle() string {
	title := strings.TrimSpace(c.Title)
	if (title == "" || title == conversation.DefaultTitle) && len(c.Messages) > 0 {
		title = conversation.TitleFrom(c.Messages[0].Text)
	}
	if title == "" {
		title = conversation.DefaultTitle
	}
	return title
}

// Markdown writes c as Markdown: the title, the settings, then each message under its author
// and time.
func Markdown(w io.Writer, c Conversation) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", c.DisplayTitle())
	writeSettingsMarkdown(&b, c.Config)
	for _, m := range c.Messages {
		who := "Assistant"
		if m.Role == conversation.User {
			who = "You"
		}
		when := ""
		if !m.At.IsZero() {
			when = " · " + m.At.Local().Format("2 Jan 2006 15:04")
		}
		fmt.Fprintf(&b, "**%s**%s\n\n%s\n\n", who, when, strings.TrimSpace(m.Text))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSettingsMarkdown writes the conversation's settings, the persona whole (as a quote, each
// of its lines kept), the numbers as they were set.
func writeSettingsMarkdown(b *strings.Builder, c client.Config) {
	var nums []string
	if c.Temperature != nil {
		nums = append(nums, "temperature "+settings.Number(*c.Temperature))
	}
	if c.TopP != nil {
		nums = append(nums, "top p "+settings.Number(*c.TopP))
	}
	if c.MaxTokens != nil {
		nums = append(nums, "max tokens "+strconv.Itoa(*c.MaxTokens))
	}
	if c.Persona != nil && strings.TrimSpace(*c.Persona) != "" {
		b.WriteString("_Persona:_\n\n")
		for _, line := range strings.Split(strings.TrimSpace(*c.Persona), "\n") {
			b.WriteString(strings.TrimRight("> "+line, " ") + "\n")
		}
		b.WriteString("\n")
	}
	if len(nums) > 0 {
		fmt.Fprintf(b, "_Settings: %s._\n\n", strings.Join(nums, ", "))
	}
}

// conversationJSON is the JSON form of an export.
type conversationJSON struct {
	ConversationID client.ConversationID `json:"conversation_id"`
	Title          string                `json:"title"`
	Config         client.Config         `json:"config"`
	Messages       []messageJSON         `json:"messages"`
}

// messageJSON is a message of the JSON form.
type messageJSON struct {
	ID        client.MessageID `json:"id,omitzero"`
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	CreatedAt string           `json:"created_at,omitempty"`
}

// JSON writes c as JSON.
func JSON(w io.Writer, c Conversation) error {
	out := conversationJSON{ConversationID: c.ID, Title: c.DisplayTitle(), Config: c.Config, Messages: []messageJSON{}}
	for _, m := range c.Messages {
		e := messageJSON{ID: m.ID, Role: m.Role.String(), Content: m.Text}
		if !m.At.IsZero() {
			e.CreatedAt = m.At.UTC().Format(time.RFC3339Nano)
		}
		out.Messages = append(out.Messages, e)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
