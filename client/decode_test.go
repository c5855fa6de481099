package client

import (
	"strings"
	"testing"
	"unicode/utf8"
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
// they accept must hold the fields the callers rely on.
func FuzzDecodeResponse(f *testing.F) {
	for _, s := range []string{
		`{"conversation_id":"c1","reply":"hi","points_charged":3,"balance":97}`,
		`{"code":0,"msg":"ok","data":{"conversationId":7,"reply":"e"}}`,
		`{"code":1001,"msg":"insufficient balance"}`,
		`{"conversation":{"id":99},"message":{"id":8,"content":"mc"}}`,
		`{"choices":[{"message":{"content":"x"}}],"id":1}`,
		`[{"id":"a","title":"T","updated_at":"2024-05-07T08:09:10Z"}]`,
		`{"data":{"items":[{"id":5,"last_message":{"content":"x"}}],"nextCursor":6}}`,
		`{"data":{"config":{"persona":"p","temperature":"0.7","max_tokens":1e3},"messages":[{"id":1,"role":"user","content":[{"type":"text","text":"a"}],"created_at":1714979289000}]}}`,
		`{"text":"t","language":"en"}`,
		`{"audio":"data:audio/mpeg;base64,AAAA"}`,
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
		res := &response{status: 200, body: body}
		res.doc, res.isJSON = parseJSON(body)
		envelopeFailure(res.doc)
		code, msg := errorDetails(body, "")
		if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\n\r\x00") || utf8.RuneCountInString(msg) > maxMessage+1 {
			t.Fatalf("message %q is not one clean line", msg)
		}
		if len(code) > 200 {
			t.Fatalf("code too long: %d", len(code))
		}
		if !res.isJSON {
			return
		}
		if r, err := c.decodeSendMessage(res, ""); err == nil && r.ConversationID == "" {
			t.Fatal("a chat result without a conversation ID")
		}
		if l, err := c.decodeConversationList(res); err == nil {
			for _, conv := range l.Conversations {
				if conv.ID == "" {
					t.Fatal("a conversation without an ID")
				}
			}
		}
		if h, err := c.decodeHistory(res, "c"); err == nil && h.Messages == nil {
			t.Fatal("nil Messages")
		}
		_ = bodyStart(body)
		_ = c.idJSON(string(body))
	})
}
