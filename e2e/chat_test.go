package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestChat_ConversationLifecycle walks a conversation through every chat endpoint with the CLI:
// a first message with a persona, a follow-up that relies on context, the list, the history,
// a settings change, and the delete.
func TestChat_ConversationLifecycle(t *testing.T) {
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY=" + key)

	first := mustRun(t, env, "", "chat", "--persona", "a ship's navigator", "--temperature", "0.4",
		"--json", "My name is Ada and I like lighthouses.")
	var reply struct {
		ConversationID string `json:"conversation_id"`
		Reply          string `json:"reply"`
		PointsCharged  *int64 `json:"points_charged"`
		Balance        *int64 `json:"balance"`
	}
	if err := json.Unmarshal([]byte(first.Stdout), &reply); err != nil {
		t.Fatalf("chat --json printed %q: %v", first.Stdout, err)
	}
	if reply.ConversationID == "" || reply.Reply == "" {
		t.Fatalf("chat --json: want a conversation ID and a reply, got %+v", reply)
	}
	if !strings.Contains(reply.Reply, "navigator") {
		t.Errorf("the reply does not show the persona: %q", reply.Reply)
	}
	if reply.PointsCharged == nil || reply.Balance == nil || *reply.Balance != 100-*reply.PointsCharged {
		t.Errorf("points: charged %v, balance %v; want balance = 100 - charged", reply.PointsCharged, reply.Balance)
	}
	id := reply.ConversationID

	// A follow-up in plain output: the reply on stdout, the conversation on stderr.
	second := mustRun(t, env, "", "chat", "-c", id, "What did I say first?")
	if !strings.Contains(second.Stdout, "lighthouses") {
		t.Errorf("the follow-up lost the conversation's context: %q", second.Stdout)
	}
	if !strings.Contains(second.Stderr, id) {
		t.Errorf("chat did not name the conversation on stderr: %q", second.Stderr)
	}

	// Global flags after the subcommand, and --json before it.
	list := mustRun(t, env, "", "--json", "conversations")
	var items []map[string]any
	if err := json.Unmarshal([]byte(list.Stdout), &items); err != nil {
		t.Fatalf("conversations --json printed %q: %v", list.Stdout, err)
	}
	if len(items) != 1 || items[0]["id"] != id {
		t.Fatalf("conversations --json = %v, want one item with id %q", items, id)
	}
	if title, _ := items[0]["title"].(string); !strings.Contains(title, "Ada") {
		t.Errorf("the conversation's title %q does not come from its first message", title)
	}

	hist := mustRun(t, env, "", "history", id, "--json")
	var h struct {
		Config   map[string]any `json:"config"`
		Messages []struct {
			ID                       int64 // the reference service's message IDs are numbers, and stay so
			Role, Content, CreatedAt string
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(hist.Stdout), &h); err != nil {
		t.Fatalf("history --json printed %q: %v", hist.Stdout, err)
	}
	if len(h.Messages) != 4 {
		t.Fatalf("history has %d messages, want 4: %s", len(h.Messages), hist.Stdout)
	}
	if h.Messages[0].Role != "user" || !strings.Contains(h.Messages[0].Content, "Ada") || h.Messages[1].Role != "assistant" {
		t.Errorf("history messages out of order or mislabelled: %+v", h.Messages)
	}
	if h.Config["persona"] != "a ship's navigator" || h.Config["temperature"] != 0.4 {
		t.Errorf("the first call's settings were not saved: %v", h.Config)
	}

	mustRun(t, env, "", "config", id, "--persona", "a poet", "--max-tokens", "64")
	hist = mustRun(t, env, "", "history", id, "--json")
	h.Config = nil
	if err := json.Unmarshal([]byte(hist.Stdout), &h); err != nil {
		t.Fatal(err)
	}
	if h.Config["persona"] != "a poet" || h.Config["max_tokens"] != 64.0 || h.Config["temperature"] != 0.4 {
		t.Errorf("config saved %v; want persona changed, max_tokens 64, temperature kept", h.Config)
	}
	third := mustRun(t, env, "", "chat", "-c", id, "Hello again")
	if !strings.Contains(third.Stdout, "poet") {
		t.Errorf("the saved persona is not used on the next call: %q", third.Stdout)
	}

	mustRun(t, env, "", "delete", id)
	gone := run(t, env, "", "history", id)
	if gone.Code != 1 || !strings.Contains(gone.Stderr, "No conversation "+id) {
		t.Errorf("history of a deleted conversation: %s; want exit 1 saying there is no such conversation", gone)
	}
}

// TestChat_PointsRunOut checks that the service charges each call, that the CLI says clearly when
// the points are gone, and that the back office sees the same balance.
func TestChat_PointsRunOut(t *testing.T) {
	s := startService(t)
	s.admin(t, "price", "set", "2")
	key := s.newKey(t, 5)
	env := s.env("PARLEY_API_KEY=" + key)

	mustRun(t, env, "", "chat", "one")
	mustRun(t, env, "", "chat", "two")
	out := run(t, env, "", "chat", "three")
	if out.Code != 1 || !strings.Contains(strings.ToLower(out.Stderr), "points") {
		t.Fatalf("a chat with too few points: %s; want exit 1 naming the points", out)
	}
	if got := strings.TrimSpace(s.admin(t, "balance", "--key", key).Stdout); got != "1" {
		t.Errorf("admin balance = %q, want 1 (5 points, two calls at 2)", got)
	}
	s.admin(t, "points", "grant", "--key", key, "10")
	mustRun(t, env, "", "chat", "three")
}

// TestChat_BadInput checks the exit codes and messages for input a person gets wrong.
func TestChat_BadInput(t *testing.T) {
	s := startService(t)
	key := s.newKey(t, 10)
	env := s.env("PARLEY_API_KEY=" + key)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"temperature out of range", []string{"chat", "--temperature", "3", "hi"}, 2, "temperature"},
		{"top_p out of range", []string{"chat", "--top-p", "1.5", "hi"}, 2, "top"},
		{"max tokens zero", []string{"chat", "--max-tokens", "0", "hi"}, 2, "max"},
		{"unknown command", []string{"chatt", "hi"}, 2, "chatt"},
		{"unknown conversation", []string{"chat", "-c", "c_doesnotexist", "hi"}, 1, "no conversation c_doesnotexist"},
		{"wrong key", []string{"--api-key", "pk_wrong", "conversations"}, 1, "key"},
		{"plain http to a remote host", []string{"--base-url", "http://example.com", "conversations"}, 1, "https"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, env, "", tc.args...)
			if r.Code != tc.code || !strings.Contains(strings.ToLower(r.Stderr), tc.want) {
				t.Errorf("%s: want exit %d and stderr mentioning %q", r, tc.code, tc.want)
			}
			if strings.Contains(r.Stdout+r.Stderr, key) {
				t.Errorf("the API key appears in the output: %s", r)
			}
		})
	}
	if got := strings.TrimSpace(s.admin(t, "balance", "--key", key).Stdout); got != "10" {
		t.Errorf("balance after refused calls = %s, want 10 (nothing charged)", got)
	}
}
