package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"parley/internal/testenv"

	"github.com/google/go-cmp/cmp"
)

func TestSendMessage_TolerantShapes(t *testing.T) {
	tests := []struct {
		name string
		body string
		sent ConversationID // in the request
		want SendMessageResult
	}{
		{"bare conversation_id reply", `{"conversation_id":"c1","reply":"hi"}`, ConversationID{}, SendMessageResult{ConversationID: strID("c1"), Reply: "hi"}},
		{"camelCase id answer", `{"conversationId":"c2","answer":"yo"}`, ConversationID{}, SendMessageResult{ConversationID: strID("c2"), Reply: "yo"}},
		{"id and content", `{"id":"c3","content":"text here"}`, ConversationID{}, SendMessageResult{ConversationID: strID("c3"), Reply: "text here"}},
		{"numeric id text", `{"id":17,"text":"t"}`, ConversationID{}, SendMessageResult{ConversationID: numID("17"), Reply: "t"}},
		{"big numeric id exact", `{"conversation_id":12345678901234567890,"output":"o"}`, ConversationID{}, SendMessageResult{ConversationID: numID("12345678901234567890"), Reply: "o"}},
		{"conversation object", `{"conversation":{"id":99,"title":"x"},"response":"r"}`, ConversationID{}, SendMessageResult{ConversationID: numID("99"), Reply: "r"}},
		{"conversation as id", `{"conversation":"c9","response":"r"}`, ConversationID{}, SendMessageResult{ConversationID: strID("c9"), Reply: "r"}},
		{"message string", `{"conversation_id":"c4","message":"m"}`, ConversationID{}, SendMessageResult{ConversationID: strID("c4"), Reply: "m"}},
		{"message object", `{"conversation_id":"c5","message":{"id":8,"role":"assistant","content":"mc"}}`, ConversationID{}, SendMessageResult{ConversationID: strID("c5"), Reply: "mc", ReplyMessageID: numMsg("8")}},
		{"data envelope", `{"data":{"conversation_id":"c6","reply":"d"}}`, ConversationID{}, SendMessageResult{ConversationID: strID("c6"), Reply: "d"}},
		{"code envelope", `{"code":0,"msg":"ok","data":{"conversationId":7,"reply":"e"}}`, ConversationID{}, SendMessageResult{ConversationID: numID("7"), Reply: "e"}},
		{"code 200 envelope", `{"code":200,"message":"success","data":{"id":"c8","answer":"f"}}`, ConversationID{}, SendMessageResult{ConversationID: strID("c8"), Reply: "f"}},
		{"continuing without id", `{"reply":"again"}`, strID("c10"), SendMessageResult{ConversationID: strID("c10"), Reply: "again"}},
		{"continuing: id is a message's", `{"id":555,"reply":"again"}`, strID("c11"), SendMessageResult{ConversationID: strID("c11"), Reply: "again"}},
		{"points and balance", `{"conversation_id":"c12","reply":"p","points_charged":3,"balance":97}`, ConversationID{}, SendMessageResult{ConversationID: strID("c12"), Reply: "p", PointsCharged: ptr[int64](3), Balance: ptr[int64](97)}},
		{"points in usage, string balance", `{"data":{"conversation_id":"c13","reply":"p","usage":{"points":"2"},"remaining_points":"50"}}`, ConversationID{}, SendMessageResult{ConversationID: strID("c13"), Reply: "p", PointsCharged: ptr[int64](2), Balance: ptr[int64](50)}},
		{"message ids", `{"conversation_id":"c14","reply":"p","user_message_id":1,"reply_message_id":"2"}`, ConversationID{}, SendMessageResult{ConversationID: strID("c14"), Reply: "p", UserMessageID: numMsg("1"), ReplyMessageID: strMsg("2")}},
		{"both messages", `{"conversation_id":"c15","user_message":{"id":3,"role":"user","content":"q"},"assistant_message":{"id":4,"role":"assistant","content":"a"}}`, ConversationID{}, SendMessageResult{ConversationID: strID("c15"), Reply: "a", UserMessageID: numMsg("3"), ReplyMessageID: numMsg("4")}},
		{"user echo under message", `{"conversation_id":"c19","message":{"id":1,"role":"user","content":"q"},"assistant_message":{"id":2,"role":"assistant","content":"a3"}}`, ConversationID{}, SendMessageResult{ConversationID: strID("c19"), Reply: "a3", ReplyMessageID: numMsg("2")}},
		{"messages list", `{"conversation_id":"c16","messages":[{"role":"user","content":"q"},{"id":6,"role":"assistant","content":"a2"}]}`, ConversationID{}, SendMessageResult{ConversationID: strID("c16"), Reply: "a2", ReplyMessageID: numMsg("6")}},
		{"openai choices", `{"conversation_id":"c17","choices":[{"message":{"role":"assistant","content":"oa"}}]}`, ConversationID{}, SendMessageResult{ConversationID: strID("c17"), Reply: "oa"}},
		{"empty reply is a reply", `{"conversation_id":"c18","reply":""}`, ConversationID{}, SendMessageResult{ConversationID: strID("c18"), Reply: ""}},
		{"reference service", `{"data":{"conversation_id":"c_5f0c2a9e81d34b7a6c1e","reply":"R","message":{"id":2,"role":"assistant","content":"R","created_at":"2025-03-01T09:30:12.345Z"},"user_message_id":1,"assistant_message_id":2,"points_charged":1,"balance":999999}}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c_5f0c2a9e81d34b7a6c1e"), Reply: "R", UserMessageID: numMsg("1"), ReplyMessageID: numMsg("2"), PointsCharged: ptr[int64](1), Balance: ptr[int64](999999)}},

		// Names with more than one meaning: each is read only in the shape that has the meaning wanted.
		{"points is a billing object", `{"conversation_id":"c20","reply":"r","points":{"charged":3,"balance":97}}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c20"), Reply: "r", PointsCharged: ptr[int64](3), Balance: ptr[int64](97)}},
		{"bare points could be either", `{"conversation_id":"c21","reply":"r","points":97}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c21"), Reply: "r"}},
		{"billing object", `{"conversation_id":"c22","reply":"r","billing":{"charged":"2","balance":40}}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c22"), Reply: "r", PointsCharged: ptr[int64](2), Balance: ptr[int64](40)}},
		{"cost in money is not points", `{"conversation_id":"c23","reply":"r","cost":2,"currency":"USD"}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c23"), Reply: "r"}},
		{"token usage is not points", `{"conversation_id":"c24","reply":"r","usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21,"cost":2}}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c24"), Reply: "r"}},
		{"cost object is not read", `{"conversation_id":"c25","reply":"r","cost":{"points":3,"balance":97}}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c25"), Reply: "r"}},
		{"message string is a status beside choices", `{"conversation_id":"c26","message":"Reply generated","choices":[{"message":{"role":"assistant","content":"real"}}]}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c26"), Reply: "real"}},
		{"message string is a status beside answer", `{"conversation_id":"c27","message":"OK","answer":"real"}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c27"), Reply: "real"}},
		{"message object with content parts", `{"conversation_id":"c28","message":{"id":"m1","role":"assistant","content":[{"type":"text","text":"pa"},{"type":"text","text":"rts"}]}}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c28"), Reply: "parts", ReplyMessageID: strMsg("m1")}},
		{"answer that is a message", `{"conversation_id":"c29","id":8,"role":"assistant","content":"x"}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c29"), Reply: "x"}},
		{"response object is not the reply", `{"conversation_id":"c30","response":{"status":"ok"},"reply":"r"}`,
			ConversationID{}, SendMessageResult{ConversationID: strID("c30"), Reply: "r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			got, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: tt.sent, Message: "hello"})
			if err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpIDs); diff != "" {
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
		{"message object of the user only", `{"conversation_id":"c1","message":{"role":"user","content":"q"}}`, "reply"},
		{"openai id is the completion's", `{"id":"chatcmpl-1","choices":[{"message":{"role":"assistant","content":"x"}}]}`, "conversation_id"},
		{"id of a message with a role", `{"id":8,"role":"assistant","content":"x"}`, "conversation_id"},
		{"conversation of wrong type", `{"conversation":true,"reply":"x"}`, "conversation_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hello"})
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DecodeError", err)
			}
			if !errors.Is(err, ErrReplyUnreadable) || !errors.Is(err, ErrReplyLost) {
				t.Errorf("err = %v, want ErrReplyUnreadable and ErrReplyLost: a success answer was charged", err)
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
		{"a number from the service goes as a number", SendMessageRequest{ConversationID: numID("42"), Message: "hi"}, `{"message":"hi","conversation_id":42}`},
		{"a string from the service goes as a string", SendMessageRequest{ConversationID: strID("42"), Message: "hi"}, `{"message":"hi","conversation_id":"42"}`},
		{"typed text id goes as a string", SendMessageRequest{ConversationID: typedID(t, "c-42"), Message: "hi"}, `{"message":"hi","conversation_id":"c-42"}`},
		{"typed leading zero stays a string", SendMessageRequest{ConversationID: typedID(t, "007"), Message: "hi"}, `{"message":"hi","conversation_id":"007"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, `{"conversation_id":"x","reply":"ok"}`))
			c := newTestClient(t, ts.URL)
			if _, err := c.SendMessage(t.Context(), tt.req); err != nil {
				t.Fatalf("SendMessage: %v", err)
			}
			r := ts.Only(t)
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
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
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
			// The ID survives being saved as JSON and read back, as an app keeps it between runs.
			saved, err := json.Marshal(first)
			if err != nil {
				t.Fatal(err)
			}
			var restored SendMessageResult
			if err := json.Unmarshal(saved, &restored); err != nil {
				t.Fatal(err)
			}
			second, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: restored.ConversationID, Message: "two"})
			if err != nil {
				t.Fatal(err)
			}
			if second.ConversationID != first.ConversationID {
				t.Errorf("second ConversationID = %#v, want %#v", second.ConversationID, first.ConversationID)
			}
			reqs := ts.Requests()
			if len(reqs) != 2 {
				t.Fatalf("server saw %d requests, want 2", len(reqs))
			}
			jsonEqual(t, reqs[1].Body, `{"message":"two","conversation_id":`+tt.want+`}`)
		})
	}
}

// An all-digit ID typed by a person (a one-shot CLI run has seen no ID from the service) goes in
// the form the service's list shows, learned with one free GET before the charged POST, which is
// sent exactly once whatever the GET gave.
func TestSendMessage_TypedDigitsTakeTheServiceForm(t *testing.T) {
	tests := []struct {
		name       string
		listStatus int
		list       string
		want       string // conversation_id as sent
	}{
		{"list has numbers", 200, `{"data":{"conversations":[{"id":7,"title":"x"}],"next_cursor":null}}`, `42`},
		{"list has strings", 200, `{"data":{"conversations":[{"id":"7"}]}}`, `"42"`},
		{"list is empty", 200, `{"data":{"conversations":[]}}`, `"42"`},
		{"list refused", 404, `{"error":{"code":"not_found","message":"no such path"}}`, `"42"`},
		{"list unreadable", 200, `<html>hi</html>`, `"42"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodGet {
					reply(tt.listStatus, tt.list)(w, r)
					return
				}
				reply(200, `{"data":{"reply":"ok"}}`)(w, r)
			})
			c := newTestClient(t, ts.URL)
			for _, msg := range []string{"one", "two"} {
				res, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: typedID(t, "42"), Message: msg})
				if err != nil {
					t.Fatalf("SendMessage: %v", err)
				}
				if res.ConversationID.String() != "42" {
					t.Errorf("ConversationID = %q, want 42", res.ConversationID)
				}
			}
			reqs := ts.Requests()
			if len(reqs) != 3 || reqs[0].Method != http.MethodGet || reqs[0].Path != "/v1/chat/conversations" ||
				reqs[1].Method != http.MethodPost || reqs[2].Method != http.MethodPost {
				t.Fatalf("requests = %v, want one GET of the list, then the two POSTs", methods(reqs))
			}
			jsonEqual(t, reqs[1].Body, `{"message":"one","conversation_id":`+tt.want+`}`)
			jsonEqual(t, reqs[2].Body, `{"message":"two","conversation_id":`+tt.want+`}`)
		})
	}
}

// No lookup when the form is not in doubt: a typed ID that is not all digits, or a client that has
// already seen an ID from the service (here in a history answer).
func TestSendMessage_NoLookupWhenFormKnown(t *testing.T) {
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			reply(200, `{"data":{"id":41,"config":{},"messages":[]}}`)(w, r)
			return
		}
		reply(200, `{"data":{"reply":"ok"}}`)(w, r)
	})
	c := newTestClient(t, ts.URL)
	if _, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: typedID(t, "c_41"), Message: "hi"}); err != nil {
		t.Fatal(err)
	}
	h, err := c.History(t.Context(), typedID(t, "41"))
	if err != nil {
		t.Fatal(err)
	}
	if h.ConversationID != numID("41") {
		t.Errorf("History.ConversationID = %#v, want the number 41", h.ConversationID)
	}
	if _, err := c.SendMessage(t.Context(), SendMessageRequest{ConversationID: typedID(t, "42"), Message: "hi"}); err != nil {
		t.Fatal(err)
	}
	reqs := ts.Requests()
	if got := methods(reqs); fmt.Sprint(got) != "[POST GET POST]" {
		t.Fatalf("requests = %v, want [POST GET POST]", got)
	}
	jsonEqual(t, reqs[0].Body, `{"message":"hi","conversation_id":"c_41"}`)
	jsonEqual(t, reqs[2].Body, `{"message":"hi","conversation_id":42}`)
}

// Cancelled while learning the form: the chat message is not sent at all.
func TestSendMessage_CancelledLookupSendsNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		<-r.Context().Done()
	})
	c := newTestClient(t, ts.URL)
	_, err := c.SendMessage(ctx, SendMessageRequest{ConversationID: typedID(t, "42"), Message: "hi"})
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrReplyLost) {
		t.Fatalf("err = %v, want context.Canceled and not ErrReplyLost", err)
	}
	for _, r := range ts.Requests() {
		if r.Method == http.MethodPost {
			t.Errorf("a chat message was sent")
		}
	}
}

func methods(reqs []testenv.Recorded) []string {
	var m []string
	for _, r := range reqs {
		m = append(m, r.Method)
	}
	return m
}

func TestSendMessage_RefusesEmptyMessage(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(200, `{}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "  "}); err == nil {
		t.Fatal("an empty message was accepted")
	}
	if n := len(ts.Requests()); n != 0 {
		t.Errorf("server saw %d requests, want 0", n)
	}
}

// A connection reset after the chat POST was written: exactly one request reaches the server,
// nothing re-sends it (neither the client nor Go's transport), and the error says the reply was lost.
func TestSendMessage_ResetAfterWriteIsReplyLost(t *testing.T) {
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
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
	before := len(ts.Requests())

	_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "charged"})
	if !errors.Is(err, ErrReplyLost) {
		t.Fatalf("err = %v, want ErrReplyLost", err)
	}
	checkErrorText(t, err)
	posts := 0
	for _, r := range ts.Requests()[before:] {
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
	var ts *testenv.RecordingServer
	ts = testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		select {
		case <-r.Context().Done():
		case <-ts.Done:
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
	if n := len(ts.Requests()); n != 1 {
		t.Errorf("server saw %d requests, want 1", n)
	}
}

// The per-call timeout (Options.Timeout) counts as a timeout while waiting.
func TestSendMessage_DeadlineIsReplyLost(t *testing.T) {
	var ts *testenv.RecordingServer
	ts = testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-ts.Done:
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
	ts := testenv.NewRecordingServer(t, reply(200, `{"conversation_id":"c1","reply":"hi"}`))
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
	if n := len(ts.Requests()); n != 1 {
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
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
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
			if n := len(ts.Requests()); n != 1 {
				t.Errorf("server saw %d requests, want 1", n)
			}
		})
	}
}

// A gateway timeout on a chat call is ambiguous: the service behind the gateway may have charged.
func TestSendMessage_GatewayTimeoutIsReplyLost(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(504, `<html><title>504 Gateway Time-out</title></html>`))
	c := newTestClient(t, ts.URL)
	_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	var e *Error
	if !errors.Is(err, ErrReplyLost) || !errors.As(err, &e) || e.StatusCode != 504 {
		t.Fatalf("err = %v, want ErrReplyLost wrapping *Error 504", err)
	}
}

// A 200 whose body is cut off mid-way was charged, and its reply is lost.
func TestSendMessage_TruncatedSuccessIsReplyLost(t *testing.T) {
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
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
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
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

// TestSendMessage_SuccessUnreadableIsChargedNotRetryable: any 2xx answer to a chat call was
// charged, so one the client cannot use (over its limit, cut short, not JSON, no reply) matches
// ErrReplyUnreadable and ErrReplyLost, and the call is sent once.
func TestSendMessage_SuccessUnreadableIsChargedNotRetryable(t *testing.T) {
	big := func(w http.ResponseWriter, _ *http.Request) {
		// The service's answer to a model that wrote ~6 MB of invalid UTF-8: each byte became
		// U+FFFD (3 bytes), and the reply is in the answer twice: over the 32 MB limit.
		w.Header().Set("Content-Type", "application/json")
		reply := strings.Repeat("\uFFFD", maxSuccessBody/3/2+1024)
		fmt.Fprintf(w, `{"data":{"conversation_id":"c1","reply":"%s","message":{"role":"assistant","content":"%s"}}}`, reply, reply)
	}
	cut := func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", "1000")
		_, _ = io.WriteString(w, `{"data":{"conversation_id":"c1","reply":"par`)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // the connection ends before the rest
	}
	tests := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"over the limit", big},
		{"cut short", cut},
		{"invalid JSON", reply(200, `{"data":{"conversation_id":"c1","reply":"x"`)},
		{"not JSON", reply(200, "Created")},
		{"no reply", reply(201, `{"conversation_id":"c1"}`)},
		{"an envelope's error code", reply(200, `{"code":40001,"msg":"insufficient balance"}`)},
		{"an envelope's failed status", reply(200, `{"status":"failed","message":"model overloaded"}`)},
		{"the reference service's reply stored, then failed", reply(500, `{"error":{"code":"reply_stored","message":"The service failed after storing the reply; the call was charged and its reply is in the conversation's history."}}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, tt.h)
			c := newTestClient(t, ts.URL)
			_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hello"})
			if !errors.Is(err, ErrReplyUnreadable) || !errors.Is(err, ErrReplyLost) {
				t.Fatalf("err = %v, want ErrReplyUnreadable and ErrReplyLost", err)
			}
			if !strings.Contains(err.Error(), "charged") {
				t.Errorf("err = %q, want it to say the call was charged", err)
			}
			checkErrorText(t, err)
			ts.Only(t) // sent once, never again
		})
	}
}

// TestSendMessage_ErrorAnswerIsNotUnreadable: a refusal (4xx, 5xx, an envelope with an error
// code) charged nothing and is not a reply lost.
func TestSendMessage_ErrorAnswerIsNotUnreadable(t *testing.T) {
	for _, h := range []http.HandlerFunc{
		reply(422, `{"error":{"code":"invalid","message":"too long"}}`),
		reply(502, `not JSON at all`),
	} {
		ts := testenv.NewRecordingServer(t, h)
		c := newTestClient(t, ts.URL)
		_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hello"})
		if err == nil || errors.Is(err, ErrReplyUnreadable) || errors.Is(err, ErrReplyLost) {
			t.Errorf("err = %v, want a refusal that is not a reply lost", err)
		}
	}
}

// TestSendMessage_ReplyInAnEnvelopeWithAnOddCodeIsTaken: a 2xx chat answer whose envelope code
// looks like an error but carries a reply gives the reply (it was charged).
func TestSendMessage_ReplyInAnEnvelopeWithAnOddCodeIsTaken(t *testing.T) {
	for _, body := range []string{
		`{"code":1,"msg":"success","data":{"conversation_id":"c1","reply":"hi"}}`,
		`{"code":"0000","msg":"ok","data":{"conversation_id":"c1","reply":"hi"}}`,
	} {
		ts := testenv.NewRecordingServer(t, reply(200, body))
		c := newTestClient(t, ts.URL)
		got, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hello"})
		if err != nil || got.Reply != "hi" {
			t.Errorf("%s: %v %v, want the reply", body, got, err)
		}
	}
}
