package client

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// streamingService is a fake of the reference service's streamed replies: it says it streams
// (unless quiet), and answers a chat call that asks with the events script writes.
type streamingService struct {
	quiet  bool // never says it streams
	script func(w http.ResponseWriter, flush func(), stop <-chan struct{})

	mu       sync.Mutex
	accepts  []string // the Accept header of each chat call
	bodies   []string
	stops    []string // the paths of stop calls, with their Authorization
	stopOnce sync.Once
	stop     chan struct{}
}

func (s *streamingService) handler(t *testing.T) http.HandlerFunc {
	s.stop = make(chan struct{})
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.quiet {
			w.Header().Set("Parley-Streams", "chat")
		}
		switch {
		case r.URL.Path == "/v1/chat/conversations":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":{"conversations":[]}}`)
		case strings.HasSuffix(r.URL.Path, "/stop"):
			s.mu.Lock()
			s.stops = append(s.stops, r.URL.Path+" "+r.Header.Get("Authorization"))
			s.mu.Unlock()
			s.stopOnce.Do(func() { close(s.stop) })
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"data":{"stopping":true}}`)
		case r.URL.Path == "/v1/chat/messages":
			b, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.accepts = append(s.accepts, r.Header.Get("Accept"))
			s.bodies = append(s.bodies, string(b))
			s.mu.Unlock()
			if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"data":{"conversation_id":"c_1","reply":"Whole.","points_charged":1,"balance":9}}`)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			rc := http.NewResponseController(w)
			s.script(w, func() { rc.Flush() }, s.stop)
		default:
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		}
	}
}

const doneEvent = `event: done
data: {"conversation_id":"c_1","reply":"Hello there.","message":{"id":2,"role":"assistant","content":"Hello there."},"user_message_id":1,"assistant_message_id":2,"points_charged":1,"balance":9,"stopped":%v}

`

// TestSendMessageStream_NeverAsksAServiceThatDoesNotStream: from a service that has not said it
// streams, SendMessageStream sends exactly what SendMessage sends, and reads the plain answer.
func TestSendMessageStream_NeverAsksAServiceThatDoesNotStream(t *testing.T) {
	s := &streamingService{quiet: true}
	c := serveOnce(t, s.handler(t))
	if _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); err != nil {
		t.Fatal(err)
	}
	req := SendMessageRequest{Message: "hi", Persona: ptr("a navigator")}
	var pieces []string
	res, err := c.SendMessageStream(t.Context(), req, StreamOptions{OnText: func(p string) { pieces = append(pieces, p) }})
	if err != nil || res.Reply != "Whole." || fmt.Sprint(pieces) != "[Whole.]" {
		t.Fatalf("SendMessageStream = %+v, %v; pieces %q", res, err, pieces)
	}
	if _, err := c.SendMessage(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if s.accepts[0] != s.accepts[1] || s.bodies[0] != s.bodies[1] || s.accepts[0] != "application/json" {
		t.Errorf("requests differ: Accept %q and %q, bodies %s and %s", s.accepts[0], s.accepts[1], s.bodies[0], s.bodies[1])
	}
	if c.Streams() {
		t.Error("Streams() true for a service that never said so")
	}
}

// TestSendMessageStream_PiecesThenTheAnswer: from a service that said it streams, the pieces come
// to OnText as they arrive, before the end, and the result is the done event's answer.
func TestSendMessageStream_PiecesThenTheAnswer(t *testing.T) {
	release := make(chan struct{})
	s := &streamingService{script: func(w http.ResponseWriter, flush func(), _ <-chan struct{}) {
		io.WriteString(w, "event: call\ndata: {\"call_id\":\"call_1\"}\n\n: keep-alive\n\n")
		io.WriteString(w, "event: delta\ndata: {\"text\":\"Hello\"}\n\n")
		flush()
		<-release // the rest only once the client has shown the first piece
		io.WriteString(w, "event: delta\r\ndata: {\"text\":\" there.\"}\r\n\r\n")
		fmt.Fprintf(w, doneEvent, false)
	}}
	c := serveOnce(t, s.handler(t))
	if c.Streams() {
		t.Fatal("Streams() before any answer")
	}
	if _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); err != nil {
		t.Fatal(err)
	}
	if !c.Streams() {
		t.Fatal("Streams() false after an answer with Parley-Streams: chat")
	}
	var pieces []string
	res, err := c.SendMessageStream(t.Context(), SendMessageRequest{Message: "hi"}, StreamOptions{OnText: func(p string) {
		pieces = append(pieces, p)
		if len(pieces) == 1 {
			close(release)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pieces, "") != "Hello there." || res.Reply != "Hello there." || res.Stopped ||
		res.ConversationID.String() != "c_1" || *res.PointsCharged != 1 || *res.Balance != 9 || res.ReplyMessageID.String() != "2" {
		t.Errorf("result %+v, pieces %q", res, pieces)
	}
	if !strings.HasPrefix(s.accepts[0], "text/event-stream") {
		t.Errorf("Accept %q", s.accepts[0])
	}
}

// TestSendMessageStream_Stop: closing Stop asks the service to stop the call by its ID, with the
// key; the answer is the stopped reply.
func TestSendMessageStream_Stop(t *testing.T) {
	s := &streamingService{script: func(w http.ResponseWriter, flush func(), stop <-chan struct{}) {
		io.WriteString(w, "event: call\ndata: {\"call_id\":\"call_7\"}\n\nevent: delta\ndata: {\"text\":\"Hello\"}\n\n")
		flush()
		select {
		case <-stop:
		case <-time.After(10 * time.Second):
		}
		fmt.Fprintf(w, doneEvent, true)
	}}
	c := serveOnce(t, s.handler(t))
	c.ListConversations(t.Context(), ListConversationsRequest{})
	stop := make(chan struct{})
	res, err := c.SendMessageStream(t.Context(), SendMessageRequest{Message: "hi"}, StreamOptions{Stop: stop, OnText: func(string) {
		select {
		case <-stop:
		default:
			close(stop)
		}
	}})
	if err != nil || !res.Stopped {
		t.Fatalf("result %+v, %v", res, err)
	}
	if len(s.stops) != 1 || s.stops[0] != "/v1/chat/calls/call_7/stop Bearer "+canaryKey {
		t.Errorf("stop calls %q", s.stops)
	}
}

// TestSendMessageStream_Failures: an error event is the refusal the plain answer would have been
// (not a lost reply); reply_stored is a reply charged and unreadable; a stream that breaks off or
// falls silent after the service answered is unreadable too (charged, stored by the service).
func TestSendMessageStream_Failures(t *testing.T) {
	old := streamIdle
	streamIdle = 300 * time.Millisecond
	t.Cleanup(func() { streamIdle = old })
	tests := []struct {
		name, events string
		silent       bool
		check        func(error) bool
	}{
		{"refunded", `event: error
data: {"status":502,"error":{"code":"upstream_failed","message":"The chat model failed; refunded.","points_charged":0,"balance":10}}

`, false, func(err error) bool {
			var e *Error
			return errors.As(err, &e) && e.StatusCode == 502 && e.Code == "upstream_failed" && !errors.Is(err, ErrReplyLost) &&
				bytes.Contains(e.Body, []byte(`"balance":10`))
		}},
		{"stopped before any text", `event: error
data: {"status":409,"error":{"code":"stopped","message":"You stopped it; refunded."}}

`, false, func(err error) bool {
			var e *Error
			return errors.As(err, &e) && e.Code == CodeStopped && !errors.Is(err, ErrReplyLost)
		}},
		{"reply stored", `event: error
data: {"status":500,"error":{"code":"reply_stored","message":"Stored."}}

`, false, func(err error) bool { return errors.Is(err, ErrReplyUnreadable) }},
		{"broken off", "event: delta\ndata: {\"text\":\"Hel\"}\n\n", false, func(err error) bool {
			return errors.Is(err, ErrReplyUnreadable) && errors.Is(err, ErrStreamBroken)
		}},
		{"silent", "event: delta\ndata: {\"text\":\"Hel\"}\n\n", true, func(err error) bool {
			return errors.Is(err, ErrReplyUnreadable) && strings.Contains(err.Error(), "sent nothing")
		}},
		{"not JSON", "event: delta\ndata: Hel\n\n", false, func(err error) bool { return errors.Is(err, ErrReplyUnreadable) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &streamingService{script: func(w http.ResponseWriter, flush func(), _ <-chan struct{}) {
				io.WriteString(w, "event: call\ndata: {\"call_id\":\"call_1\"}\n\n"+tt.events)
				flush()
				if tt.silent {
					time.Sleep(2 * time.Second)
				}
			}}
			c := serveOnce(t, s.handler(t))
			c.ListConversations(t.Context(), ListConversationsRequest{})
			_, err := c.SendMessageStream(t.Context(), SendMessageRequest{Message: "hi"}, StreamOptions{})
			if err == nil || !tt.check(err) {
				t.Errorf("error %v", err)
			}
			if err != nil && strings.Contains(err.Error(), canaryKey) {
				t.Errorf("the key is in the error: %v", err)
			}
		})
	}
}

// FuzzReadStreamEvents: any bytes read as an event stream end without a panic, every event's
// data within the bound and its name on one line (a lone CR is not taken for a line end).
func FuzzReadStreamEvents(f *testing.F) {
	f.Add([]byte("event: call\ndata: {\"call_id\":\"c\"}\n\n: keep-alive\n\nevent: delta\r\ndata: {\"text\":\"a\"}\r\n\r\n"))
	f.Add([]byte("data: a\ndata: b\n\nevent: done\ndata: {}"))
	f.Add([]byte("event\ndata\n\nid: 1\nretry: 5\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = readStreamEvents(bytes.NewReader(b), func(ev streamEvent) error {
			if len(ev.data) > maxStreamEvent || strings.Contains(ev.name, "\n") || ev.name == "" {
				t.Fatalf("event %q with %d bytes", ev.name, len(ev.data))
			}
			return nil
		})
	})
}

// TestSendMessageStream_WholeAnswerFromAServiceThatStreams: a service that said it streams but
// answers a chat call whole (an older one behind the same address, a proxy) gives its reply to
// OnText once, and the answer is not bound by the stream's silence limit.
func TestSendMessageStream_WholeAnswerFromAServiceThatStreams(t *testing.T) {
	old := streamIdle
	streamIdle = 100 * time.Millisecond
	t.Cleanup(func() { streamIdle = old })
	c := serveOnce(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Parley-Streams", "chat")
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/v1/chat/messages" {
			time.Sleep(300 * time.Millisecond) // longer than the silence limit: not a stream yet
			io.WriteString(w, `{"data":{"conversation_id":"c_1","reply":"Whole."}}`)
			return
		}
		io.WriteString(w, `{"data":{"conversations":[]}}`)
	})
	c.ListConversations(t.Context(), ListConversationsRequest{})
	var pieces []string
	res, err := c.SendMessageStream(t.Context(), SendMessageRequest{Message: "hi"}, StreamOptions{OnText: func(p string) { pieces = append(pieces, p) }})
	if err != nil || res.Reply != "Whole." || fmt.Sprint(pieces) != "[Whole.]" {
		t.Fatalf("result %+v, %v; pieces %q", res, err, pieces)
	}
}
