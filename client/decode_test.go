package client

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"parley/internal/jsonscan"
)

func TestErrorDetails(t *testing.T) {
	tests := []struct {
		name, body, ct, code, msg string
	}{
		{"openai", `{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`, "", "invalid_api_key", "Incorrect API key"},
		{"error string", `{"error":"nope"}`, "", "", "nope"},
		{"errors list", `{"errors":[{"message":"first"},{"message":"second"}]}`, "", "", "first"},
		{"errors strings", `{"errors":["only this"]}`, "", "", "only this"},
		{"json string", `"just a string"`, "", "", "just a string"},
		{"numeric message ignored", `{"message":404}`, "", "", ""},
		{"html title entities", `<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>`, "", "", "502 Bad Gateway"},
		{"html body text", `<html><body><h1>Error</h1><p>Try   later</p><style>p{}</style></body></html>`, "text/html", "", "Error Try later"},
		{"text with controls", "line one\x00\x1b[31m\nline two", "text/plain", "", "line one [31m line two"},
		{"html with invalid utf-8", "<00000000\xbe0000000<title>Bad \xbegateway</title>", "", "", "Bad gateway"},
		{"long text is cut", strings.Repeat("word ", 200), "", "", strings.TrimSpace(strings.Repeat("word ", 60)) + "…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := errorDetails([]byte(tt.body), tt.ct)
			if code != tt.code || msg != tt.msg {
				t.Errorf("errorDetails = (%q, %q), want (%q, %q)", code, msg, tt.code, tt.msg)
			}
		})
	}
}

// FuzzDecodeResponse runs every response decoder on arbitrary bodies: none may panic, and what
// they accept must hold the fields the callers rely on. The splitting of objects is
// jsonscan.Members, fuzzed against encoding/json in its own package (FuzzObject).
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"conversation_id":"c1","reply":"hi","points_charged":3,"balance":97}`,
		`{"data":{"conversation_id":"c_5f","reply":"r","message":{"id":2,"role":"assistant","content":"r","created_at":"2025-03-01T09:30:12.345Z"},"user_message_id":1,"assistant_message_id":2,"points_charged":1,"balance":9}}`,
		`{"code":0,"msg":"ok","data":{"conversationId":7,"reply":"e"}}`,
		`{"code":1001,"msg":"insufficient balance"}`,
		`{"conversation":{"id":99},"message":{"id":8,"content":"mc"}}`,
		`{"choices":[{"message":{"content":"x"}}],"id":1}`,
		`{"conversation_id":"c","reply":"r","points":{"charged":3,"balance":97},"usage":{"cost":2}}`,
		`{"id":"c3","content":[{"type":"text","text":"a"}]}`,
		`[{"id":"a","title":"T","updated_at":"2024-05-07T08:09:10Z"}]`,
		`{"data":{"items":[{"id":5,"last_message":{"content":"x"}}],"nextCursor":6}}`,
		`{"conversations":[{"conversation_id":1e3,"time":1.5}],"next":"https://x/?cursor=a%20b"}`,
		`{"data":{"config":{"persona":"p","temperature":"0.7","max_tokens":1e3},"messages":[{"id":1,"role":"user","content":[{"type":"text","text":"a"}],"created_at":1714979289000}]}}`,
		`{"text":"t","language":"en"}`,
		`{"result":{"transcript":"t","language":{"code":"en"}}}`,
		`{"audio":"data:audio/mpeg;base64,AAAA"}`,
		`{"data":{"balance":5,"price":1,"chat_engine":"llama3.2, from Ollama\non this computer"}}`,
		`{"audio_base64":"AAAA","format":"wav"}`,
		`{"error":{"code":"x","message":"Cut`,
		`<html><title>oops</title></html>`,
		`{"data":{"data":{"code":0,"data":[]}}}`,
		`null`, `""`, `0`, `[[[[]]]]`,
	} {
		f.Add([]byte(s))
	}
	c, err := New(Options{BaseURL: "http://127.0.0.1:1", APIKey: canaryKey})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res := checkParseAnswer(t, body)
		envelopeFailure(res.top)
		checkErrorDetails(t, body)
		if res.isJSON {
			checkConversationDecoders(t, c, res)
			checkMediaDecoders(t, c, res)
		}
		_ = bodyStart(body)
	})
}

// checkParseAnswer reads body as an answer: JSON exactly when json.Valid says so, with members
// exactly when it is an object.
func checkParseAnswer(t *testing.T, body []byte) *response {
	t.Helper()
	res := &response{status: 200, body: body}
	res.top, res.payload, res.isJSON = parseAnswer(body)
	if res.isJSON != json.Valid(body) {
		t.Fatalf("parseAnswer ok = %v, json.Valid = %v", res.isJSON, !res.isJSON)
	}
	if (res.top != nil) != (res.isJSON && jsonscan.FirstByte(body) == '{') {
		// The members themselves are jsonscan's to get right (FuzzObject there).
		t.Fatalf("parseAnswer's members = %q for %q", res.top, body)
	}
	return res
}

// checkErrorDetails reads body as an error: one clean line of message, a bounded code.
func checkErrorDetails(t *testing.T, body []byte) {
	t.Helper()
	code, msg := errorDetails(body, "")
	if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\n\r\x00") || utf8.RuneCountInString(msg) > maxMessage+1 {
		t.Fatalf("message %q is not one clean line", msg)
	}
	if len(code) > 200 {
		t.Fatalf("code too long: %d", len(code))
	}
}

// checkConversationDecoders runs the decoders of a chat result, the list and a history on res:
// what they accept has conversation IDs that survive a round trip, and messages.
func checkConversationDecoders(t *testing.T, c *Client, res *response) {
	t.Helper()
	if r, err := c.decodeSendMessage(res, ConversationID{}); err == nil {
		if r.ConversationID.IsZero() {
			t.Fatal("a chat result without a conversation ID")
		}
		checkIDRoundTrip(t, r.ConversationID)
	}
	if l, err := c.decodeConversationList(res); err == nil {
		for _, conv := range l.Conversations {
			if conv.ID.IsZero() {
				t.Fatal("a conversation without an ID")
			}
			checkIDRoundTrip(t, conv.ID)
		}
	}
	if h, err := c.decodeHistory(res, strID("c")); err == nil && h.Messages == nil {
		t.Fatal("nil Messages")
	}
}

// checkMediaDecoders runs the decoders of a transcript, the account and speech on res: what they
// accept holds what its caller shows or plays.
func checkMediaDecoders(t *testing.T, c *Client, res *response) {
	t.Helper()
	if tr, err := c.decodeTranscript(res); err == nil && tr == nil {
		t.Fatal("nil transcript without an error")
	}
	if a, err := c.decodeAccount(res); err == nil && (a.Balance == nil && a.Price == nil ||
		strings.IndexFunc(a.ChatEngine, unicode.IsControl) >= 0 || utf8.RuneCountInString(a.ChatEngine) > 201) {
		t.Fatalf("account %+v", a)
	}
	if sp, err := c.decodeSpeech(res); err == nil && len(sp.Audio) == 0 {
		t.Fatal("speech without audio")
	}
}

// checkIDRoundTrip fails unless id survives MarshalJSON and UnmarshalJSON unchanged.
func checkIDRoundTrip(t *testing.T, id ConversationID) {
	t.Helper()
	b, err := json.Marshal(id)
	if err != nil {
		t.Fatalf("Marshal(%#v): %v", id, err)
	}
	var back ConversationID
	if err := json.Unmarshal(b, &back); err != nil || back != id {
		t.Fatalf("%#v became %s, read back as %#v (%v)", id, b, back, err)
	}
}
