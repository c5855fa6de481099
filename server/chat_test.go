package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/server/store"
	"parley/settings"
)

func TestChat_RoundTripKeepsContext(t *testing.T) {
	e := newEnv(t, 100, nil)
	first := e.chat(map[string]any{"message": "My boat is called Wavedancer."})
	id, _ := first["conversation_id"].(string)
	if !strings.HasPrefix(id, "c_") {
		t.Fatalf("conversation_id %q", id)
	}
	if r, _ := first["reply"].(string); !strings.HasPrefix(r, "[offline] ") {
		t.Errorf("reply %q is not labelled offline", r)
	}
	if first["points_charged"] != 1.0 || first["balance"] != 99.0 {
		t.Errorf("charged %v balance %v, want 1 and 99", first["points_charged"], first["balance"])
	}
	msg, _ := first["message"].(map[string]any)
	if msg["role"] != "assistant" || msg["content"] != first["reply"] || msg["id"] != first["assistant_message_id"] {
		t.Errorf("message %v does not match the reply", msg)
	}
	ts, _ := msg["created_at"].(string)
	if _, err := time.Parse(time.RFC3339Nano, ts); err != nil || !strings.HasSuffix(ts, "Z") || len(ts) != len("2006-01-02T15:04:05.000Z") {
		t.Errorf("created_at %q is not RFC 3339 UTC with milliseconds", ts)
	}

	second := e.chat(map[string]any{"message": "What did I say first?", "conversation_id": id})
	if second["conversation_id"] != id {
		t.Errorf("second call went to %v, want %s", second["conversation_id"], id)
	}
	if r, _ := second["reply"].(string); !strings.Contains(r, "My boat is called Wavedancer.") {
		t.Errorf("reply %q does not recall the first message", r)
	}
	if second["balance"] != 98.0 {
		t.Errorf("balance %v, want 98", second["balance"])
	}

	h := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil)
	if h.Status != 200 {
		t.Fatalf("history: %d %s", h.Status, h.Raw)
	}
	msgs, _ := h.data()["messages"].([]any)
	if len(msgs) != 4 {
		t.Fatalf("history has %d messages, want 4: %s", len(msgs), h.Raw)
	}
	roles := ""
	for _, m := range msgs {
		roles += m.(map[string]any)["role"].(string) + " "
	}
	if roles != "user assistant user assistant " {
		t.Errorf("roles %q", roles)
	}
	if m0 := msgs[0].(map[string]any); m0["content"] != "My boat is called Wavedancer." || m0["id"] != first["user_message_id"] {
		t.Errorf("first message %v", m0)
	}
	e.verify()
}

func TestChat_PersonaSavedFromFirstCall(t *testing.T) {
	e := newEnv(t, 100, nil)
	first := e.chat(map[string]any{"message": "Where are we?", "persona": "a ship's navigator", "temperature": 0.3, "max_tokens": 200})
	id := first["conversation_id"].(string)
	if r := first["reply"].(string); !strings.Contains(r, "As a ship's navigator") {
		t.Errorf("first reply %q does not use the persona", r)
	}
	later := e.chat(map[string]any{"message": "Which way is north?", "conversation_id": id})
	if r := later["reply"].(string); !strings.Contains(r, "As a ship's navigator") {
		t.Errorf("later reply %q does not use the saved persona", r)
	}
	// Settings on a later call apply to it only.
	once := e.chat(map[string]any{"message": "And south?", "conversation_id": id, "persona": "a pirate"})
	if r := once["reply"].(string); !strings.Contains(r, "As a pirate") {
		t.Errorf("reply %q does not use the call's persona", r)
	}
	h := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil)
	cfg, _ := h.data()["config"].(map[string]any)
	if cfg["persona"] != "a ship's navigator" || cfg["temperature"] != 0.3 || cfg["max_tokens"] != 200.0 {
		t.Errorf("saved config %v", cfg)
	}
	if _, ok := cfg["top_p"]; ok {
		t.Errorf("config shows top_p, which was never set: %v", cfg)
	}
}

func TestChat_MaxTokensCutsOfflineReply(t *testing.T) {
	e := newEnv(t, 100, nil)
	d := e.chat(map[string]any{"message": "Tell me about lighthouses and harbours", "max_tokens": 3})
	r := d["reply"].(string)
	if got := len(strings.Fields(strings.TrimPrefix(r, "[offline] "))); got != 3 {
		t.Errorf("reply %q has %d words after the label, want 3", r, got)
	}
}

func TestChat_Statuses(t *testing.T) {
	e := newEnv(t, 100, nil)
	conv := e.chat(map[string]any{"message": "hello"})["conversation_id"].(string)
	other := e.newAccount(10)
	long := strings.Repeat("é", maxMessageRunes+1)
	cases := []struct {
		name, body string
		status     int
		code       string
	}{
		{"not json", `hello`, 400, codeBadJSON},
		{"truncated", `{"message": "hi"`, 400, codeBadJSON},
		{"array", `[{"message": "hi"}]`, 400, codeBadJSON},
		{"null", `null`, 400, codeBadJSON},
		{"empty body", ``, 400, codeBadJSON},
		{"trailing data", `{"message": "hi"} {}`, 400, codeBadJSON},
		{"missing message", `{}`, 400, codeInvalidField},
		{"null message", `{"message": null}`, 400, codeInvalidField},
		{"number message", `{"message": 5}`, 400, codeInvalidField},
		{"string temperature", `{"message": "hi", "temperature": "hot"}`, 400, codeInvalidField},
		{"fraction max_tokens", `{"message": "hi", "max_tokens": 1.5}`, 400, codeInvalidField},
		{"object conversation_id", `{"message": "hi", "conversation_id": {}}`, 400, codeInvalidField},
		{"blank message", `{"message": "  \n "}`, 422, codeOutOfRange},
		{"long message", `{"message": "` + long + `"}`, 422, codeOutOfRange},
		{"temperature high", `{"message": "hi", "temperature": 2.01}`, 422, codeOutOfRange},
		{"temperature negative", `{"message": "hi", "temperature": -0.1}`, 422, codeOutOfRange},
		{"top_p high", `{"message": "hi", "top_p": 1.5}`, 422, codeOutOfRange},
		{"max_tokens zero", `{"message": "hi", "max_tokens": 0}`, 422, codeOutOfRange},
		{"max_tokens high", `{"message": "hi", "max_tokens": 32769}`, 422, codeOutOfRange},
		{"max_tokens huge", `{"message": "hi", "max_tokens": 1e300}`, 422, codeOutOfRange},
		{"persona long", `{"message": "hi", "persona": "` + strings.Repeat("a", settings.MaxPersonaRunes+1) + `"}`, 422, codeOutOfRange},
		{"unknown conversation", `{"message": "hi", "conversation_id": "c_nope"}`, 404, codeNotFound},
		{"unknown fields ignored", `{"message": "hi", "colour": "blue"}`, 200, ""},
		{"edge values", `{"message": "hi", "temperature": 2, "top_p": 0, "max_tokens": 32768, "persona": ""}`, 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", "/v1/chat/messages", c.body)
			if r.Status != c.status || r.code() != c.code {
				t.Errorf("status %d code %q, want %d %q: %s", r.Status, r.code(), c.status, c.code, r.Raw)
			}
		})
	}
	t.Run("another account's conversation", func(t *testing.T) {
		before := other.balance()
		r := other.do("POST", "/v1/chat/messages", map[string]any{"message": "hi", "conversation_id": conv})
		if r.Status != 404 || r.code() != codeNotFound {
			t.Errorf("status %d %s", r.Status, r.Raw)
		}
		if got := other.balance(); got != before {
			t.Errorf("balance %d after a 404, want %d", got, before)
		}
	})
	e.verify()
}

func TestChat_InsufficientPoints(t *testing.T) {
	e := newEnv(t, 0, nil)
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
	if r.Status != 402 || r.code() != codeInsufficient {
		t.Fatalf("status %d %s", r.Status, r.Raw)
	}
	if e.balance() != 0 {
		t.Errorf("balance %d", e.balance())
	}
	list := e.do("GET", "/v1/chat/conversations", nil)
	if convs := list.data()["conversations"].([]any); len(convs) != 0 {
		t.Errorf("a refused call stored a conversation: %s", list.Raw)
	}
}

func TestChat_ConcurrentCallsNeverOverdraw(t *testing.T) {
	e := newEnv(t, 5, nil)
	var wg sync.WaitGroup
	statuses := make(chan int, 20)
	for i := range 20 {
		wg.Go(func() {
			r := e.do("POST", "/v1/chat/messages", map[string]any{"message": fmt.Sprintf("call %d", i)})
			statuses <- r.Status
		})
	}
	wg.Wait()
	close(statuses)
	count := map[int]int{}
	for s := range statuses {
		count[s]++
	}
	if count[200] != 5 || count[402] != 15 {
		t.Errorf("statuses %v, want 5 × 200 and 15 × 402", count)
	}
	if b := e.balance(); b != 0 {
		t.Errorf("balance %d, want 0", b)
	}
	e.verify()
}

func TestChat_PriceChangeAppliesToNextCall(t *testing.T) {
	e := newEnv(t, 100, nil)
	if err := e.store.SetPrice(t.Context(), 7); err != nil {
		t.Fatal(err)
	}
	d := e.chat(map[string]any{"message": "hi"})
	if d["points_charged"] != 7.0 || d["balance"] != 93.0 {
		t.Errorf("charged %v balance %v", d["points_charged"], d["balance"])
	}
}

func TestOfflineResponder_RecallNeedsAQuestionAboutTheUser(t *testing.T) {
	hist := []store.Message{{Role: "user", Content: "Ships float."}, {Role: "assistant", Content: "Yes."}}
	for text, recalls := range map[string]bool{
		"What did I say first?":               true,
		"what was the first thing i said":     true,
		"Remind me what I said earlier.":      true,
		"Tell me about the first world war":   false,
		"Say something about earlier empires": false,
	} {
		got, err := NewOfflineResponder().Complete(t.Context(), ChatRequest{History: hist, UserText: text})
		if err != nil || strings.Contains(got, "Ships float.") != recalls || !strings.HasPrefix(got, "[offline] ") {
			t.Errorf("%q: reply %q, want recall %v", text, got, recalls)
		}
	}
}
