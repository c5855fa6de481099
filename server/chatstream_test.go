package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// event is one server-sent event of a streamed answer.
type event struct {
	name string
	data map[string]any
}

// streamed is a streamed answer as a client read it.
type streamed struct {
	status int
	header http.Header
	events []event
	body   map[string]any // a plain JSON answer, when it was not a stream
}

// last is the final event (done or error).
func (s streamed) last() event {
	if len(s.events) == 0 {
		return event{}
	}
	return s.events[len(s.events)-1]
}

// text is the deltas joined.
func (s streamed) text() string {
	var b strings.Builder
	for _, ev := range s.events {
		if ev.name == "delta" {
			b.WriteString(ev.data["text"].(string))
		}
	}
	return b.String()
}

// readEvents reads named events until the end of r, calling each (if not nil) as it comes.
func readEvents(t *testing.T, r io.Reader, each func(event)) []event {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	var out []event
	var cur event
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.name != "" {
				out = append(out, cur)
				if each != nil {
					each(cur)
				}
			}
			cur = event{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Errorf("event %s: data is not a JSON object: %v: %.200s", cur.name, err, line)
			}
		case strings.HasPrefix(line, ":"):
		default:
			t.Errorf("unexpected line in the stream: %.200q", line)
		}
	}
	return out
}

// streamChat sends a chat call asking for a stream; each, if not nil, sees each event as it comes.
func (e *env) streamChat(body map[string]any, each func(event)) streamed {
	e.t.Helper()
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", e.base+"/v1/chat/messages", bytes.NewReader(j))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.key)
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	out := streamed{status: resp.StatusCode, header: resp.Header}
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		json.NewDecoder(resp.Body).Decode(&out.body)
		return out
	}
	out.events = readEvents(e.t, resp.Body, each)
	return out
}

// ledger is the account's ledger rows, as "kind amount status balance" lines.
func (e *env) ledger() []string {
	e.t.Helper()
	entries, err := e.store.Ledger(e.t.Context(), e.acct.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, l := range entries {
		out = append(out, fmt.Sprintf("%s %d %s %d", l.Kind, l.Amount, l.Status, l.BalanceAfter))
	}
	return out
}

// history is the conversation's messages as "role: content" lines.
func (e *env) history(id string) []string {
	e.t.Helper()
	r := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil)
	var out []string
	for _, m := range r.data()["messages"].([]any) {
		mm := m.(map[string]any)
		out = append(out, mm["role"].(string)+": "+mm["content"].(string))
	}
	return out
}

// upstreamStream is an OpenAI-compatible runtime that streams pieces, each after every; then,
// unless end is false, a finish_reason and [DONE].
func upstreamStream(t *testing.T, pieces []string, every time.Duration, end bool) *testUpstream {
	u := &testUpstream{}
	u.srv = fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		u.mu.Lock()
		u.streamAsked = append(u.streamAsked, body["stream"] == true)
		u.mu.Unlock()
		if body["stream"] != true {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": strings.Join(pieces, "")}}}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for _, p := range pieces {
			select {
			case <-time.After(every):
			case <-r.Context().Done():
				u.mu.Lock()
				u.gaveUp = true
				u.mu.Unlock()
				return
			}
			d, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}, "finish_reason": nil}}})
			fmt.Fprintf(w, "data: %s\n\n", d)
			rc.Flush()
		}
		if end {
			io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
		}
	})
	return u
}

type testUpstream struct {
	srv         *httptest.Server
	mu          sync.Mutex
	streamAsked []bool
	gaveUp      bool
}

func (u *testUpstream) model() ChatModel {
	return NewOpenAIChat(u.srv.URL, "m", "", &http.Client{Timeout: 5 * time.Second})
}

func pieces(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(" w%d", i)
	}
	return out
}

// TestStream_SameTurnAndLedgerAsPlain: a streamed answer and a plain one store the same turn and
// write the same ledger; the done event carries the plain answer's fields (and stopped: false);
// the deltas joined are the reply; the call event comes first.
func TestStream_SameTurnAndLedgerAsPlain(t *testing.T) {
	for _, model := range []string{"offline", "openai"} {
		t.Run(model, func(t *testing.T) {
			mk := func() *env {
				return newEnv(t, 10, func(c *Config) {
					if model == "openai" {
						up := upstreamStream(t, []string{"Hello", " there,", " sailor."}, 0, true)
						c.LLM = up.model()
					}
				})
			}
			plain, streamedEnv := mk(), mk()
			body := map[string]any{"message": "Which way is north?", "persona": "a navigator"}
			p := plain.chat(body)
			s := streamedEnv.streamChat(body, nil)
			if s.status != 200 || len(s.events) < 3 || s.events[0].name != "call" || s.last().name != "done" {
				t.Fatalf("streamed answer: status %d, events %v", s.status, s.events)
			}
			if !strings.HasPrefix(s.events[0].data["call_id"].(string), "call_") {
				t.Errorf("call event %v", s.events[0].data)
			}
			done := s.last().data
			convID, _ := done["conversation_id"].(string)
			if done["stopped"] != false {
				t.Errorf("done.stopped = %v, want false", done["stopped"])
			}
			delete(done, "stopped")
			for _, k := range []string{"conversation_id", "message", "user_message_id", "assistant_message_id"} {
				delete(done, k)
				delete(p, k)
			}
			// created_at and IDs differ between two services; the rest is the same.
			if fmt.Sprint(done) != fmt.Sprint(p) {
				t.Errorf("done event %v, plain answer %v", done, p)
			}
			if s.text() != p["reply"] {
				t.Errorf("deltas joined %q, reply %q", s.text(), p["reply"])
			}
			pl, sl := plain.ledger(), streamedEnv.ledger()
			if fmt.Sprint(pl) != fmt.Sprint(sl) {
				t.Errorf("ledger: plain %v, streamed %v", pl, sl)
			}
			ph := plain.history(plainConversation(t, plain))
			sh := streamedEnv.history(convID)
			if fmt.Sprint(ph) != fmt.Sprint(sh) {
				t.Errorf("history: plain %q, streamed %q", ph, sh)
			}
			streamedEnv.verify()
		})
	}
}

// plainConversation is the one conversation of e.
func plainConversation(t *testing.T, e *env) string {
	convs := e.do("GET", "/v1/chat/conversations", nil).data()["conversations"].([]any)
	if len(convs) != 1 {
		t.Fatalf("%d conversations", len(convs))
	}
	return convs[0].(map[string]any)["id"].(string)
}

// TestStream_OnlyWhenAsked: without text/event-stream in Accept (or with q=0) the answer is the
// plain JSON one; the service says it streams in a header and in /v1/account; failures before the
// price is reserved are plain JSON errors, charging nothing.
func TestStream_OnlyWhenAsked(t *testing.T) {
	e := newEnv(t, 1, nil)
	e.store.SetPrice(t.Context(), 0)
	for _, accept := range []string{"", "application/json", "text/event-stream;q=0", "text/*"} {
		req, _ := http.NewRequest("POST", e.base+"/v1/chat/messages", strings.NewReader(`{"message":"hi"}`))
		req.Header.Set("Authorization", "Bearer "+e.key)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		r := e.send(req)
		if r.Status != 200 || r.Header.Get(StreamHeader) != "chat" {
			t.Errorf("Accept %q: status %d, %s %q", accept, r.Status, StreamHeader, r.Header.Get(StreamHeader))
		}
	}
	if got := e.do("GET", "/v1/account", nil).data()["streams"]; fmt.Sprint(got) != "[chat]" {
		t.Errorf("account streams = %v", got)
	}
	// Out of points: a plain 402, before any stream.
	e.store.SetPrice(t.Context(), 2)
	s := e.streamChat(map[string]any{"message": "hi"}, nil)
	if s.status != 402 || s.events != nil || s.body["error"] == nil {
		t.Errorf("no points: status %d, events %v, body %v", s.status, s.events, s.body)
	}
	s = e.streamChat(map[string]any{"message": "hi", "conversation_id": "c_nope"}, nil)
	if s.status != 404 || s.events != nil {
		t.Errorf("no conversation: status %d, events %v", s.status, s.events)
	}
}

// TestStream_TextArrivesWhileTheModelWrites: the first delta reaches the client long before the
// model has finished.
func TestStream_TextArrivesWhileTheModelWrites(t *testing.T) {
	up := upstreamStream(t, pieces(20), 50*time.Millisecond, true)
	e := newEnv(t, 10, func(c *Config) { c.LLM = up.model() })
	start := time.Now()
	var first time.Duration
	s := e.streamChat(map[string]any{"message": "hi"}, func(ev event) {
		if ev.name == "delta" && first == 0 {
			first = time.Since(start)
		}
	})
	whole := time.Since(start)
	if s.last().name != "done" {
		t.Fatalf("events %v", s.events)
	}
	if deltas := len(s.events) - 2; deltas < 10 {
		t.Errorf("%d deltas for 20 pieces written 50 ms apart, want them as they come", deltas)
	}
	if first >= whole/2 {
		t.Errorf("first text after %v of %v: it waited for the model", first, whole)
	}
	if !up.streamAsked[0] {
		t.Error("the runtime was not asked to stream")
	}
}

// TestStream_ModelDiesMidStream: a runtime whose stream ends before its reply does is an upstream
// failure: refunded, the error event says so, nothing stored.
func TestStream_ModelDiesMidStream(t *testing.T) {
	up := upstreamStream(t, []string{"Half", " a"}, 0, false)
	e := newEnv(t, 10, func(c *Config) { c.LLM = up.model() })
	s := e.streamChat(map[string]any{"message": "hi"}, nil)
	ev := s.last()
	if ev.name != "error" || ev.data["status"] != float64(502) {
		t.Fatalf("last event %v", ev)
	}
	detail := ev.data["error"].(map[string]any)
	if detail["code"] != codeUpstream || detail["points_charged"] != float64(0) || detail["balance"] != float64(10) ||
		!strings.Contains(detail["message"].(string), "refunded") {
		t.Errorf("error %v", detail)
	}
	if s.text() != "Half a" {
		t.Errorf("deltas %q", s.text())
	}
	if e.balance() != 10 || len(e.do("GET", "/v1/chat/conversations", nil).data()["conversations"].([]any)) != 0 {
		t.Errorf("balance %d, or a conversation stored", e.balance())
	}
	e.verify()
}

// TestStream_Stall: a runtime that writes nothing for the chat timeout has failed: refunded.
func TestStream_Stall(t *testing.T) {
	up := upstreamStream(t, []string{"One", " two"}, 600*time.Millisecond, true)
	e := newEnv(t, 10, func(c *Config) {
		c.LLM = NewOpenAIChat(up.srv.URL, "m", "", &http.Client{Timeout: 300 * time.Millisecond})
	})
	s := e.streamChat(map[string]any{"message": "hi"}, nil)
	detail, _ := s.last().data["error"].(map[string]any)
	if s.last().name != "error" || detail["code"] != codeUpstream || e.balance() != 10 {
		t.Fatalf("events %v, balance %d", s.events, e.balance())
	}
	e.verify()
}

// TestStream_ClientGoesAway: a client that leaves mid-stream does not stop the call: the reply is
// stored whole and charged once.
func TestStream_ClientGoesAway(t *testing.T) {
	up := upstreamStream(t, pieces(10), 30*time.Millisecond, true)
	e := newEnv(t, 10, func(c *Config) { c.LLM = up.model() })
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/v1/chat/messages", strings.NewReader(`{"message":"hi"}`))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+e.key)
	resp, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, "event: delta") {
			break
		}
	}
	cancel()
	resp.Body.Close()
	waitFor(t, func() bool {
		convs := e.do("GET", "/v1/chat/conversations", nil).data()["conversations"].([]any)
		return len(convs) == 1
	}, nil)
	id := plainConversation(t, e)
	want := strings.TrimSpace(strings.Join(pieces(10), ""))
	if h := e.history(id); len(h) != 2 || h[1] != "assistant: "+want {
		t.Errorf("history %q", h)
	}
	if e.balance() != 9 {
		t.Errorf("balance %d, want 9", e.balance())
	}
	if up.gaveUp {
		t.Error("the runtime was given up when the client left")
	}
	e.verify()
}

// TestStream_TooLong: a runtime that streams 50 MB is stopped at the reply's bound: refunded as
// too long, and the service's memory stays bounded.
func TestStream_TooLong(t *testing.T) {
	chunk := strings.Repeat("x", 64<<10)
	up := &testUpstream{}
	up.srv = fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		d, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": chunk}}}})
		for range 50 << 20 / len(chunk) {
			if _, err := fmt.Fprintf(w, "data: %s\n\n", d); err != nil {
				return
			}
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	e := newEnv(t, 10, func(c *Config) { c.LLM = up.model() })
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peak uint64
	s := e.streamChat(map[string]any{"message": "hi"}, func(ev event) {
		if ev.name == "delta" {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
		}
	})
	detail, _ := s.last().data["error"].(map[string]any)
	if s.last().name != "error" || detail["code"] != codeUpstream || !strings.Contains(detail["message"].(string), "too long") {
		t.Fatalf("last event %v", s.last())
	}
	if e.balance() != 10 {
		t.Errorf("balance %d", e.balance())
	}
	if got := len(s.text()); got > maxReplyEncoded+len(chunk) {
		t.Errorf("%d bytes of deltas sent, want at most the bound", got)
	}
	if grew := int64(peak) - int64(before.HeapInuse); grew > 64<<20 {
		t.Errorf("heap grew %d MB while 50 MB streamed (test and service together)", grew>>20)
	}
	e.verify()
}

// TestStream_PersonStops: a person's Stop ends the model's stream; what it wrote is stored and
// charged as the reply (done with stopped: true). Stopped before any text: refunded, nothing
// stored. Another account cannot stop the call; a finished call cannot be stopped.
func TestStream_PersonStops(t *testing.T) {
	up := upstreamStream(t, pieces(200), 20*time.Millisecond, true)
	e := newEnv(t, 10, func(c *Config) { c.LLM = up.model() })
	other := e.newAccount(5)
	var callID string
	deltas := 0
	s := e.streamChat(map[string]any{"message": "hi"}, func(ev event) {
		switch ev.name {
		case "call":
			callID = ev.data["call_id"].(string)
			if r := other.do("POST", "/v1/chat/calls/"+callID+"/stop", nil); r.Status != 404 {
				t.Errorf("another account's stop: status %d", r.Status)
			}
		case "delta":
			deltas++
			if deltas == 3 {
				if r := e.do("POST", "/v1/chat/calls/"+callID+"/stop", nil); r.Status != 200 {
					t.Errorf("stop: status %d %s", r.Status, r.Raw)
				}
			}
		}
	})
	done := s.last()
	if done.name != "done" || done.data["stopped"] != true {
		t.Fatalf("last event %v", done)
	}
	reply := done.data["reply"].(string)
	if reply != strings.TrimSpace(s.text()) || deltas >= 200 || deltas < 3 {
		t.Errorf("reply %q after %d deltas (%q)", reply, deltas, s.text())
	}
	if h := e.history(done.data["conversation_id"].(string)); len(h) != 2 || h[1] != "assistant: "+reply {
		t.Errorf("history %q", h)
	}
	if e.balance() != 9 {
		t.Errorf("balance %d, want 9", e.balance())
	}
	if r := e.do("POST", "/v1/chat/calls/"+callID+"/stop", nil); r.Status != 404 {
		t.Errorf("stop after the end: status %d", r.Status)
	}

	// Stopped before the model wrote anything.
	slow := upstreamStream(t, []string{"late"}, 10*time.Second, true)
	e2 := newEnv(t, 10, func(c *Config) { c.LLM = slow.model() })
	s = e2.streamChat(map[string]any{"message": "hi"}, func(ev event) {
		if ev.name == "call" {
			e2.do("POST", "/v1/chat/calls/"+ev.data["call_id"].(string)+"/stop", nil)
		}
	})
	detail, _ := s.last().data["error"].(map[string]any)
	if s.last().name != "error" || detail["code"] != codeStopped || detail["points_charged"] != float64(0) || e2.balance() != 10 {
		t.Errorf("stopped before any text: events %v, balance %d", s.events, e2.balance())
	}
	e.verify()
	e2.verify()
}

// TestStream_RuntimeAnswersWhole: a runtime that ignores stream: true and answers one JSON reply
// is read whole, and sent as one delta.
func TestStream_RuntimeAnswersWhole(t *testing.T) {
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":" Whole reply. "}}]}`)
	})
	e := newEnv(t, 10, func(c *Config) { c.LLM = NewOpenAIChat(up.URL, "m", "", nil) })
	s := e.streamChat(map[string]any{"message": "hi"}, nil)
	if s.last().name != "done" || s.text() != "Whole reply." || s.last().data["reply"] != "Whole reply." {
		t.Errorf("events %v", s.events)
	}
}

// TestStream_UpstreamErrorEvent: an error event in the runtime's stream fails the call, refunded,
// with the runtime's words, and never the runtime's key.
func TestStream_UpstreamErrorEvent(t *testing.T) {
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n")
		io.WriteString(w, "data: {\"error\":{\"message\":\"out of memory for key up-secret-key\"}}\n\n")
	})
	e := newEnv(t, 10, func(c *Config) {
		c.LLM = NewOpenAIChat(up.URL, "m", "up-secret-key", nil)
		c.ExplainUpstream = true
	})
	s := e.streamChat(map[string]any{"message": "hi"}, nil)
	detail, _ := s.last().data["error"].(map[string]any)
	msg, _ := detail["message"].(string)
	if s.last().name != "error" || !strings.Contains(msg, "out of memory") || strings.Contains(msg, "up-secret") || e.balance() != 10 {
		t.Errorf("error %v, balance %d", detail, e.balance())
	}
}

// FuzzReadEventStream: any bytes read as an upstream event stream end without a panic, with
// every event's data no longer than the line bound, and a chunk's text found in its data.
func FuzzReadEventStream(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(": comment\nevent: x\ndata: a\ndata: b\n\ndata\n\n"))
	f.Add([]byte("data: {\"error\":\"boom\"}\r\n\r\n"))
	f.Add([]byte("data: {\"choices\":[{\"message\":{\"content\":null},\"finish_reason\":\"stop\"}]}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = readEventStream(bytes.NewReader(b), func(data []byte) error {
			if len(data) > maxStreamLine {
				t.Fatalf("event data of %d bytes", len(data))
			}
			ch, err := parseChunk(data, "k")
			if err == nil && ch.text != "" && !json.Valid(data) {
				t.Fatalf("text %q from invalid JSON %q", ch.text, data)
			}
			return nil
		})
	})
}

// TestStream_ClientThatDoesNotRead: a client that never reads its stream does not slow the model:
// the model's 2 MB reply is read at its own pace (the stall time is 1 s here), stored and charged.
func TestStream_ClientThatDoesNotRead(t *testing.T) {
	chunk := strings.Repeat("y", 32<<10)
	up := &testUpstream{}
	up.srv = fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		d, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]any{"content": chunk}}}})
		for range 64 {
			fmt.Fprintf(w, "data: %s\n\n", d)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	e := newEnv(t, 10, func(c *Config) {
		c.LLM = NewOpenAIChat(up.srv.URL, "m", "", &http.Client{Timeout: time.Second})
	})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetReadBuffer(4 << 10)
	}
	body := `{"message":"hi"}`
	fmt.Fprintf(conn, "POST /v1/chat/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nAccept: text/event-stream\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", e.key, len(body), body)
	waitFor(t, func() bool {
		return len(e.do("GET", "/v1/chat/conversations", nil).data()["conversations"].([]any)) == 1
	}, nil)
	id := plainConversation(t, e)
	if e.balance() != 9 {
		t.Errorf("balance %d, want 9", e.balance())
	}
	// A history page holds about 1 MB of text: the 2 MB reply comes alone.
	if h := e.history(id); len(h) == 0 || len(h[len(h)-1]) != len("assistant: ")+64*len(chunk) {
		t.Errorf("history of %d messages", len(h))
	}
	e.verify()
}
