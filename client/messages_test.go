package client

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSendMessage_TolerantShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		sent string // ConversationID in the request
		want SendMessageResult
	}{
		{"bare conversation_id reply", `{"conversation_id":"c1","reply":"hi"}`, "", SendMessageResult{ConversationID: "c1", Reply: "hi"}},
		{"camelCase id answer", `{"conversationId":"c2","answer":"yo"}`, "", SendMessageResult{ConversationID: "c2", Reply: "yo"}},
		{"id and content", `{"id":"c3","content":"text here"}`, "", SendMessageResult{ConversationID: "c3", Reply: "text here"}},
		{"numeric id text", `{"id":17,"text":"t"}`, "", SendMessageResult{ConversationID: "17", Reply: "t"}},
		{"big numeric id exact", `{"conversation_id":12345678901234567890,"output":"o"}`, "", SendMessageResult{ConversationID: "12345678901234567890", Reply: "o"}},
		{"conversation object", `{"conversation":{"id":99,"title":"x"},"response":"r"}`, "", SendMessageResult{ConversationID: "99", Reply: "r"}},
		{"conversation as id", `{"conversation":"c9","response":"r"}`, "", SendMessageResult{ConversationID: "c9", Reply: "r"}},
		{"message string", `{"conversation_id":"c4","message":"m"}`, "", SendMessageResult{ConversationID: "c4", Reply: "m"}},
		{"message object", `{"conversation_id":"c5","message":{"id":8,"role":"assistant","content":"mc"}}`, "", SendMessageResult{ConversationID: "c5", Reply: "mc", ReplyMessageID: "8"}},
		{"data envelope", `{"data":{"conversation_id":"c6","reply":"d"}}`, "", SendMessageResult{ConversationID: "c6", Reply: "d"}},
		{"code envelope", `{"code":0,"msg":"ok","data":{"conversationId":7,"reply":"e"}}`, "", SendMessageResult{ConversationID: "7", Reply: "e"}},
		{"code 200 envelope", `{"code":200,"message":"success","data":{"id":"c8","answer":"f"}}`, "", SendMessageResult{ConversationID: "c8", Reply: "f"}},
		{"continuing without id", `{"reply":"again"}`, "c10", SendMessageResult{ConversationID: "c10", Reply: "again"}},
		{"continuing: id is a message's", `{"id":555,"reply":"again"}`, "c11", SendMessageResult{ConversationID: "c11", Reply: "again"}},
		{"points and balance", `{"conversation_id":"c12","reply":"p","points_charged":3,"balance":97}`, "", SendMessageResult{ConversationID: "c12", Reply: "p", PointsCharged: ptr[int64](3), Balance: ptr[int64](97)}},
		{"points in usage, string balance", `{"data":{"conversation_id":"c13","reply":"p","usage":{"points":"2"},"remaining_points":"50"}}`, "", SendMessageResult{ConversationID: "c13", Reply: "p", PointsCharged: ptr[int64](2), Balance: ptr[int64](50)}},
		{"message ids", `{"conversation_id":"c14","reply":"p","user_message_id":1,"reply_message_id":"2"}`, "", SendMessageResult{ConversationID: "c14", Reply: "p", UserMessageID: "1", ReplyMessageID: "2"}},
		{"both messages", `{"conversation_id":"c15","user_message":{"id":3,"role":"user","content":"q"},"assistant_message":{"id":4,"role":"assistant","content":"a"}}`, "", SendMessageResult{ConversationID: "c15", Reply: "a", UserMessageID: "3", ReplyMessageID: "4"}},
		{"user echo under message", `{"conversation_id":"c19","message":{"id":1,"role":"user","content":"q"},"assistant_message":{"id":2,"role":"assistant","content":"a3"}}`, "", SendMessageResult{ConversationID: "c19", Reply: "a3", ReplyMessageID: "2"}},
		{"messages list", `{"conversation_id":"c16","messages":[{"role":"user","content":"q"},{"id":6,"role":"assistant","content":"a2"}]}`, "", SendMessageResult{ConversationID: "c16", Reply: "a2", ReplyMessageID: "6"}},
		{"openai choices", `{"conversation_id":"c17","choices":[{"message":{"role":"assistant","content":"oa"}}]}`, "", SendMessageResult{ConversationID: "c17", Reply: "oa"}},
		{"empty reply is a reply", `{"conversation_id":"c18","reply":""}`, "", SendMessageResult{ConversationID: "c18", Reply: ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			got, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: tt.sent, Message: "hello"})
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSendMessage_MissingFields(t *testing.T) {
	tests := []struct {
		name, body, field string
	}{
		{"no reply", `{"conversation_id":"c1"}`, "reply"},
		{"no conversation id", `{"reply":"hi"}`, "conversation_id"},
		{"not JSON", `<html>hello</html>`, "reply"},
		{"empty body", ``, "reply"},
		{"reply of wrong type", `{"conversation_id":"c1","reply":42}`, "reply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hello"})
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DecodeError", err)
			}
			if de.Field != tt.field {
				t.Errorf("Field = %q, want %q", de.Field, tt.field)
			}
			if want := bodyStart([]byte(tt.body)); de.BodyStart != want {
				t.Errorf("BodyStart = %q, want %q", de.BodyStart, want)
			}
		})
	}
}

func TestSendMessage_Request(t *testing.T) {
	tests := []struct {
		name string
		req  SendMessageRequest
		want string
	}{
		{"first call sends only the message", SendMessageRequest{Message: "hi"}, `{"message":"hi"}`},
		{"zero values differ from unset", SendMessageRequest{Message: "hi", Persona: ptr(""), Temperature: ptr(0.0), TopP: ptr(0.0), MaxTokens: ptr(0)},
			`{"message":"hi","persona":"","temperature":0,"top_p":0,"max_tokens":0}`},
		{"all settings", SendMessageRequest{Message: "hi", Persona: ptr("pirate"), Temperature: ptr(0.7), TopP: ptr(0.9), MaxTokens: ptr(256)},
			`{"message":"hi","persona":"pirate","temperature":0.7,"top_p":0.9,"max_tokens":256}`},
		{"unseen numeric id goes as a number", SendMessageRequest{ConversationID: "42", Message: "hi"}, `{"message":"hi","conversation_id":42}`},
		{"unseen text id goes as a string", SendMessageRequest{ConversationID: "c-42", Message: "hi"}, `{"message":"hi","conversation_id":"c-42"}`},
		{"leading zero stays a string", SendMessageRequest{ConversationID: "007", Message: "hi"}, `{"message":"hi","conversation_id":"007"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := newTestServer(t, reply(200, `{"conversation_id":"x","reply":"ok"}`))
			c := newTestClient(t, ts.URL)
			if _, err := c.SendMessage(t.Context(), tt.req); err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			r := ts.only(t)
			if r.Method != http.MethodPost || r.Path != "/v1/chat/messages" {
				t.Errorf("request = %s %s, want POST /v1/chat/messages", r.Method, r.Path)
			}
			checkCommonHeaders(t, r, true)
			jsonEqual(t, r.Body, tt.want)
		})
	}
}

// The conversation ID goes back to the service in the JSON form the service gave it.
func TestSendMessage_IDKeepsItsForm(t *testing.T) {
	tests := []struct {
		name, first, want string
	}{
		{"number stays a number", `{"conversation_id":42,"reply":"a"}`, `42`},
		{"numeric string stays a string", `{"conversation_id":"42","reply":"a"}`, `"42"`},
		{"uuid stays a string", `{"conversation_id":"6f1c0c56-1d1e-4b7e-9e0a-3f0e4c1a2b3c","reply":"a"}`, `"6f1c0c56-1d1e-4b7e-9e0a-3f0e4c1a2b3c"`},
		{"huge number stays exact", `{"conversation_id":123456789012345678901,"reply":"a"}`, `123456789012345678901`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n atomic.Int32
			ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if n.Add(1) == 1 {
					reply(200, tt.first)(w, r)
					return
				}
				reply(200, `{"reply":"b"}`)(w, r)
			})
			c := newTestClient(t, ts.URL)
			first, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "one"})
			if err != nil {
				t.Fatal(err)
			}
			second, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: first.ConversationID, Message: "two"})
			if err != nil {
				t.Fatal(err)
			}
			if second.ConversationID != first.ConversationID {
				t.Errorf("second ConversationID = %q, want %q", second.ConversationID, first.ConversationID)
			}
			reqs := ts.requests()
			jsonEqual(t, reqs[1].Body, `{"message":"two","conversation_id":`+tt.want+`}`)
		})
	}
}

func TestSendMessage_RefusesEmptyMessage(t *testing.T) {
	ts := newTestServer(t, reply(200, `{}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "  "}); err == nil {
		t.Fatal("an empty message was accepted")
	}
	if n := len(ts.requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

// A connection reset after the chat POST was written: exactly one request reaches the server,
// nothing re-sends it (neither the client nor Go's transport), and the error says the reply was lost.
func TestSendMessage_ResetAfterWriteIsReplyLost(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			reply(200, `[]`)(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // close with RST
		}
		_ = conn.Close()
	})
	c := newTestClient(t, ts.URL)
	// A pooled connection from an earlier call must not let the transport replay the POST either.
	if _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); err != nil {
		t.Fatal(err)
	}
	before := len(ts.requests())

	_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "charged"})
	if !errors.Is(err, ErrReplyLost) {
		t.Fatalf("err = %v, want ErrReplyLost", err)
	}
	checkErrorText(t, err)
	posts := 0
	for _, r := range ts.requests()[before:] {
		if r.Method == http.MethodPost {
			posts++
		}
	}
	if posts != 1 {
		t.Errorf("server saw %d chat POSTs, want exactly 1", posts)
	}
	if w := c.retryWaits(); len(w) != 0 {
		t.Errorf("client waited to retry %v, want no retry", w)
	}
}

// A chat call that times out while waiting for the answer is ambiguous too.
func TestSendMessage_TimeoutWhileWaitingIsReplyLost(t *testing.T) {
	arrived := make(chan struct{})
	var ts *testServer
	ts = newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-r.Context().Done():
		case <-ts.done:
		}
	})
	c := newTestClient(t, ts.URL)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go func() {
		<-arrived
		cancel()
	}()
	_, err := c.SendMessage(ctx, SendMessageRequest{Message: "slow"})
	if !errors.Is(err, ErrReplyLost) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrReplyLost and context.Canceled", err)
	}
	if n := len(ts.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// The per-call timeout (Options.Timeout) counts as a timeout while waiting.
func TestSendMessage_DeadlineIsReplyLost(t *testing.T) {
	var ts *testServer
	ts = newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-ts.done:
		}
	})
	c := newTestClient(t, ts.URL, func(o *Options) { o.Timeout = 50e6 }) // 50 ms
	_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "slow"})
	if !errors.Is(err, ErrReplyLost) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want ErrReplyLost and context.DeadlineExceeded", err)
	}
}

// Only a failure to connect at all may be retried for a chat call.
func TestSendMessage_DialFailureIsRetried(t *testing.T) {
	ts := newTestServer(t, reply(200, `{"conversation_id":"c1","reply":"hi"}`))
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return nil, errors.New("simulated dial failure")
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	c := newTestClient(t, ts.URL, func(o *Options) { o.HTTPClient = &http.Client{Transport: tr} })
	got, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if got.Reply != "hi" {
		t.Errorf("Reply = %q", got.Reply)
	}
	if n := len(ts.requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
	if w := c.retryWaits(); len(w) != 1 {
		t.Errorf("retry waits = %v, want one", w)
	}
}

// 429 and 503 are answers from the service: a chat call is not re-sent after them.
func TestSendMessage_NoRetryOnStatus(t *testing.T) {
	for _, status := range []int{429, 503, 500, 502} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				reply(status, `{"error":{"message":"busy"}}`)(w, r)
			})
			c := newTestClient(t, ts.URL)
			_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
			var e *Error
			if !errors.As(err, &e) || e.StatusCode != status {
				t.Fatalf("err = %v, want *Error %d", err, status)
			}
			if errors.Is(err, ErrReplyLost) {
				t.Errorf("a clear refusal matched ErrReplyLost: %v", err)
			}
			if n := len(ts.requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

// A gateway timeout on a chat call is ambiguous: the service behind the gateway may have charged.
func TestSendMessage_GatewayTimeoutIsReplyLost(t *testing.T) {
	ts := newTestServer(t, reply(504, `<html><title>504 Gateway Time-out</title></html>`))
	c := newTestClient(t, ts.URL)
	_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	var e *Error
	if !errors.Is(err, ErrReplyLost) || !errors.As(err, &e) || e.StatusCode != 504 {
		t.Fatalf("err = %v, want ErrReplyLost wrapping *Error 504", err)
	}
}

// A 200 whose body is cut off mid-way was charged, and its reply is lost.
func TestSendMessage_TruncatedSuccessIsReplyLost(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.WriteHeader(200)
		_, _ = w.Write([]byte(`{"conversation_id":"c1","re`))
	})
	c := newTestClient(t, ts.URL)
	_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	if !errors.Is(err, ErrReplyLost) {
		t.Fatalf("err = %v, want ErrReplyLost", err)
	}
}

// A reply that arrived whole is kept even if the connection fails right after it.
func TestSendMessage_WholeReplyThenReset(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			t.Errorf("hijack: %v", err)
			return
		}
		body := `{"conversation_id":"c1","reply":"complete"}`
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
		_, _ = fmt.Fprintf(buf, "%x\r\n%s\r\n", len(body), body)
		_ = buf.Flush()
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = conn.Close() // no final chunk
	})
	c := newTestClient(t, ts.URL)
	got, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	if err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	if got.Reply != "complete" {
		t.Errorf("Reply = %q", got.Reply)
	}
}
