package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/server/store"
)

// fakeUpstream is an OpenAI-compatible endpoint that answers with answer.
func fakeUpstream(t *testing.T, answer http.HandlerFunc) *httptest.Server {
	t.Helper()
	s := httptest.NewServer(answer)
	t.Cleanup(s.Close)
	return s
}

func TestOpenAIChat_SendsPersonaHistoryAndSettings(t *testing.T) {
	got := make(chan map[string]any, 1)
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer up-secret" {
			t.Errorf("upstream got %s with auth %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		got <- body
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"Aye, north it is."}}]}`)
	})
	e := newEnv(t, 10, func(c *Config) { c.LLM = NewOpenAIChat(up.URL+"/v1/", "tiny", "up-secret", nil) })
	first := e.chat(map[string]any{"message": "Which way?", "persona": "a navigator", "top_p": 0.5})
	<-got
	d := e.chat(map[string]any{"message": "Again?", "conversation_id": first["conversation_id"], "max_tokens": 9})
	if d["reply"] != "Aye, north it is." {
		t.Errorf("reply %v", d["reply"])
	}
	body := <-got
	if body["model"] != "tiny" || body["top_p"] != 0.5 || body["max_tokens"] != 9.0 {
		t.Errorf("settings sent: %v", body)
	}
	if _, ok := body["temperature"]; ok {
		t.Errorf("temperature sent though never set: %v", body)
	}
	msgs := body["messages"].([]any)
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, " ") != "system user assistant user" || msgs[0].(map[string]any)["content"] != "a navigator" {
		t.Errorf("messages sent: %v", msgs)
	}
}

func TestOpenAIChat_TrimsHistoryOldestFirst(t *testing.T) {
	c := NewOpenAIChat("http://x", "m", "", nil).(*openAIChat)
	c.context = 40 // room for two 10-byte messages: 40 - 10 (the reply) - 4 (no persona) - 6 ("hello") = 20 tokens, 8 a message
	hist := []store.Message{
		{Role: "user", Content: "0123456789"},
		{Role: "assistant", Content: "abcdefghij"},
		{Role: "user", Content: "ABCDEFGHIJ"},
	}
	msgs := c.messages(ChatRequest{History: hist, UserText: "hello"})
	if len(msgs) != 3 || msgs[0].Content != "abcdefghij" || msgs[2].Content != "hello" {
		t.Errorf("messages %v, want the two newest history messages and the user text", msgs)
	}
}

func TestOpenAIChat_UpstreamFailuresRefund(t *testing.T) {
	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		return "http://" + addr
	}()
	handler := func(h http.HandlerFunc) string { return fakeUpstream(t, h).URL }
	cases := map[string]string{
		"status 500": handler(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", 500)
		}),
		"timeout": handler(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}),
		"malformed": handler(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"choices": [`)
		}),
		"empty choices": handler(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"choices": []}`)
		}),
		"empty content": handler(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, `{"choices": [{"message": {"content": "  "}}]}`)
		}),
		"redirect": handler(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://example.invalid/", http.StatusTemporaryRedirect)
		}),
		"refused": refused,
	}
	for name, url := range cases {
		t.Run(name, func(t *testing.T) {
			hc := &http.Client{Timeout: 300 * time.Millisecond}
			e := newEnv(t, 10, func(c *Config) { c.LLM = NewOpenAIChat(url, "m", "up-secret", hc) })
			r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
			if r.Status != 502 || r.code() != codeUpstream {
				t.Fatalf("status %d %s", r.Status, r.Raw)
			}
			if b := r.Body["error"].(map[string]any)["balance"]; b != 10.0 {
				t.Errorf("error body balance %v, want 10", b)
			}
			if e.balance() != 10 {
				t.Errorf("balance %d after a failed call, want 10", e.balance())
			}
			list := e.do("GET", "/v1/chat/conversations", nil)
			if convs := list.data()["conversations"].([]any); len(convs) != 0 {
				t.Errorf("a failed call stored a conversation: %s", list.Raw)
			}
			if strings.Contains(e.logs.String(), "up-secret") {
				t.Errorf("the upstream key is in the log")
			}
			e.verify()
		})
	}
}

func TestChat_FailedContinuationStoresNothing(t *testing.T) {
	var fail atomic.Bool
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"content":"ok"}}]}`)
	})
	e := newEnv(t, 10, func(c *Config) { c.LLM = NewOpenAIChat(up.URL, "m", "", nil) })
	id := e.chat(map[string]any{"message": "one"})["conversation_id"]
	fail.Store(true)
	if r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "two", "conversation_id": id}); r.Status != 502 {
		t.Fatalf("status %d", r.Status)
	}
	h := e.do("GET", "/v1/chat/conversations/"+id.(string)+"/messages", nil)
	if n := len(h.data()["messages"].([]any)); n != 2 {
		t.Errorf("%d messages after a failed turn, want 2", n)
	}
	if e.balance() != 9 {
		t.Errorf("balance %d, want 9", e.balance())
	}
}

// TestChat_ReplyTooLongToSendIsRefunded: a model that writes ~6 MB of invalid UTF-8 (each byte
// grows to three as U+FFFD, and the answer holds the reply twice) is refused before the charge is
// kept: 502, the points refunded, nothing stored; the answer stays far inside a client's limit.
func TestChat_ReplyTooLongToSendIsRefunded(t *testing.T) {
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"`)
		w.Write(bytes.Repeat([]byte{0xff}, 6<<20))
		io.WriteString(w, `"}}]}`)
	})
	e := newEnv(t, 10, func(c *Config) {
		c.LLM = NewOpenAIChat(up.URL, "m", "", &http.Client{Timeout: 30 * time.Second})
	})
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
	if r.Status != 502 || r.code() != codeUpstream {
		t.Fatalf("status %d, body starts %.300s", r.Status, r.Raw)
	}
	if msg := r.Body["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "too long") || !strings.Contains(msg, "refunded") {
		t.Errorf("message %q, want it to say the reply was too long and the points refunded", msg)
	}
	if e.balance() != 10 {
		t.Errorf("balance %d, want 10: the call was refunded", e.balance())
	}
	list := e.do("GET", "/v1/chat/conversations", nil)
	if convs := list.data()["conversations"].([]any); len(convs) != 0 {
		t.Errorf("a refused reply stored a conversation: %s", list.Raw)
	}
	e.verify()
}

// TestChat_LongReplyUnderTheBoundIsSent: a reply just under the bound is charged and sent whole,
// and its answer is under a client's 32 MB.
func TestChat_LongReplyUnderTheBoundIsSent(t *testing.T) {
	reply := strings.Repeat("\u00e9", (maxReplyEncoded-16)/2) // two bytes each, not escaped
	e := newEnv(t, 10, func(c *Config) {
		c.LLM = chatFunc(func(context.Context, ChatRequest) (string, error) { return reply, nil })
	})
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
	if r.Status != 200 {
		t.Fatalf("status %d, body starts %.300s", r.Status, r.Raw)
	}
	if got := r.data()["reply"]; got != reply {
		t.Errorf("reply of %d bytes came back changed", len(reply))
	}
	if len(r.Raw) > 2*maxReplyEncoded+4096 {
		t.Errorf("answer of %d bytes, want at most twice the bound", len(r.Raw))
	}
	if e.balance() != 9 {
		t.Errorf("balance %d, want 9", e.balance())
	}
}

// FuzzEncodedLen: encodedLen is the length writeJSON gives a string, quotes excluded.
func FuzzEncodedLen(f *testing.F) {
	for _, s := range []string{"", "a", "\xff\xfe", "é\u2028\u2029", "\x00\x1f\"\\\n\r\t<>&", "\ufffd", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if want := buf.Len() - 3; encodedLen(s) != want { // the quotes and Encode's newline
			t.Errorf("encodedLen(%q) = %d, want %d (%s)", s, encodedLen(s), want, buf.Bytes())
		}
	})
}

// chatFunc is a ChatModel made of a function.
type chatFunc func(context.Context, ChatRequest) (string, error)

func (f chatFunc) Complete(ctx context.Context, req ChatRequest) (string, error) { return f(ctx, req) }

// A chat API that answers with a redirect is told by the error the client's CheckRedirect
// returns, whatever the words of the error around it: the person reads that it redirected.
func TestChat_RedirectIsSaid(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.invalid/v1/chat/completions", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(up.Close)
	m := NewOpenAIChatWith(OpenAIChatOptions{BaseURL: up.URL + "/v1", Model: "m", Where: "The model server"})
	_, err := m.Complete(t.Context(), ChatRequest{UserText: "hi"})
	var cf *ChatFailure
	if !errors.As(err, &cf) || !errors.Is(err, errRedirectRefused) {
		t.Fatalf("Complete = %v, want a ChatFailure for the refused redirect", err)
	}
	if want := "The model server answered with a redirect, which Parley does not follow: check the address."; cf.Sentence() != want {
		t.Errorf("Sentence = %q, want %q", cf.Sentence(), want)
	}
}
