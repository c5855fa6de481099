package export_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
	"parley/conversation/export"
)

func TestExport_MarkdownAndJSON(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	// A long persona of several lines, which the Markdown keeps whole, as the JSON does.
	persona := "a ship's navigator\n" + strings.Repeat("Name every lighthouse you pass. ", 20) + "\nEnd with the heading."
	temp, topP := 1.15, 0.9
	c := export.Conversation{ID: conversationtest.ID("c1"), Title: "Trip", Config: client.Config{Persona: &persona, Temperature: &temp, TopP: &topP}, Messages: []conversation.Message{
		{Role: conversation.User, Text: "Where to?", At: at},
		{Role: conversation.Assistant, Text: "West, to the **lighthouse**.", At: at},
	}}
	var md bytes.Buffer
	if err := export.Markdown(&md, c); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Trip", "> a ship's navigator\n> Name every", "> End with the heading.\n", "temperature 1.15, top p 0.9",
		"**You**", "Where to?", "**Assistant**", "West, to the **lighthouse**."} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var js bytes.Buffer
	if err := export.JSON(&js, c); err != nil {
		t.Fatal(err)
	}
	var out struct {
		ID       string `json:"conversation_id"`
		Title    string `json:"title"`
		Config   map[string]any
		Messages []struct{ Role, Content, CreatedAt string } `json:"messages"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil || out.ID != "c1" || out.Title != "Trip" || len(out.Messages) != 2 || out.Messages[1].Role != "assistant" || out.Config["persona"] != persona {
		t.Errorf("JSON export %s (%v)", js.String(), err)
	}
}

// TestExport_FromHistory: the CLI's export of what the service gave has the app's fields: the
// ID in the service's form, the title, the settings, the roles as the app shows them, and an ID
// and a time only where the service gave them.
func TestExport_FromHistory(t *testing.T) {
	var h client.History
	if err := json.Unmarshal([]byte(`{"conversation_id":7,"title":"Trip plans","config":{"persona":"a guide","temperature":0.3},"messages":[
		{"id":1,"role":"user","content":"Where to?","created_at":"2025-11-22T10:00:00Z"},
		{"id":null,"role":"Assistant","content":"Lisbon.","created_at":"0001-01-01T00:00:00Z"},
		{"id":"m3","role":"system","content":"Bring a coat."}]}`), &h); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := export.JSON(&js, export.FromHistory(&h)); err != nil {
		t.Fatal(err)
	}
	const want = `{
  "conversation_id": 7,
  "title": "Trip plans",
  "config": {
    "persona": "a guide",
    "temperature": 0.3
  },
  "messages": [
    {
      "id": 1,
      "role": "user",
      "content": "Where to?",
      "created_at": "2025-11-22T10:00:00Z"
    },
    {
      "role": "assistant",
      "content": "Lisbon."
    },
    {
      "id": "m3",
      "role": "assistant",
      "content": "Bring a coat."
    }
  ]
}
`
	if js.String() != want {
		t.Errorf("JSON export:\n%s\nwant:\n%s", js.String(), want)
	}
	var md bytes.Buffer
	if err := export.Markdown(&md, export.FromHistory(&h)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "# Trip plans\n\n_Persona:_\n\n> a guide\n\n_Settings: temperature 0.3._\n\n**You** · ") ||
		!strings.HasSuffix(md.String(), "**Assistant**\n\nLisbon.\n\n**Assistant**\n\nBring a coat.\n\n") {
		t.Errorf("Markdown export:\n%s", md.String())
	}
}

func TestExport_Title(t *testing.T) {
	first := []conversation.Message{{Role: conversation.User, Text: "What is the tallest lighthouse in the world today?"}}
	for _, tc := range []struct {
		name string
		c    export.Conversation
		want string
	}{
		{"its own", export.Conversation{Title: "Lighthouses", Messages: first}, "Lighthouses"},
		{"none: from the first message", export.Conversation{Messages: first}, "What is the tallest lighthouse in the world…"},
		{"the default: from the first message", export.Conversation{Title: conversation.DefaultTitle, Messages: first}, "What is the tallest lighthouse in the world…"},
		{"nothing to make one from", export.Conversation{Messages: []conversation.Message{{Text: " "}}}, conversation.DefaultTitle},
	} {
		if got := tc.c.DisplayTitle(); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
