package jsonscan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzObject checks the scanner against encoding/json: Object accepts the bodies encoding/json
// accepts as an object (within MaxDepth) with the same members; Members gives the same members
// of any valid object; and String reads every string member, and any valid input, as
// encoding/json does.
func FuzzObject(f *testing.F) {
	for _, s := range []string{
		// The service's request bodies, well- and ill-formed.
		`{}`, ` {"a":1} `, `{"message":"hi","temperature":0.5,"x":[1,{"y":null}],"t":true}`,
		`{"a":"\u00e9\n\"q\""}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":1,"a":2}`, `{"a":-0.5e+3}`,
		`{"a":01}`, `{"a":1.}`, `{"a":tru}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `[]`, `{"a":"b"}x`, `{"a":[1,]}`,
		"{\"a\":\"\t\"}", `{"a":"\x"}`, `{"a":{"b":}}`, `{"a":nul}`, `{"a":"\u12"}`,
		// The client's answers.
		`{"conversation_id":"c1","reply":"hi","points_charged":3,"balance":97}`,
		`{"data":{"conversation_id":"c_5f","reply":"r","message":{"id":2,"role":"assistant","content":"r","created_at":"2025-03-01T09:30:12.345Z"},"user_message_id":1,"assistant_message_id":2,"points_charged":1,"balance":9}}`,
		`{"code":0,"msg":"ok","data":{"conversationId":7,"reply":"e"}}`,
		`{"code":1001,"msg":"insufficient balance"}`,
		`{"conversations":[{"conversation_id":1e3,"time":1.5}],"next":"https://x/?cursor=a%20b"}`,
		`{"audio":"data:audio/mpeg;base64,AAAA"}`,
		`{"error":{"code":"x","message":"Cut`,
		`{"data":{"data":{"code":0,"data":[]}}}`,
		`null`, `""`, `0`, `[[[[]]]]`, ` "a\"b" `, `"\u00e9"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkObject(t, b)
		if !json.Valid(b) {
			return
		}
		checkString(t, b)
		if FirstByte(b) != '{' {
			if m := Members(b); m != nil {
				t.Fatalf("Members(%q) = %q, want nil for a value that is not an object", b, m)
			}
			return
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("encoding/json refuses the valid object %q: %v", b, err)
		}
		sameMembers(t, "Members", b, Members(b), want)
		for _, v := range want {
			checkString(t, v)
		}
	})
}

// checkObject compares Object with encoding/json on b: the same bodies accepted (but those
// deeper than MaxDepth), the same members, the same string values.
func checkObject(t *testing.T, b []byte) {
	t.Helper()
	got, err := Object(b)
	var want map[string]json.RawMessage
	wantErr := json.Unmarshal(b, &want)
	isObj := bytes.HasPrefix(bytes.TrimLeft(b, " \t\r\n"), []byte("{"))
	if wantErr != nil || !isObj {
		if err == nil {
			t.Fatalf("accepted %q, which encoding/json rejects as an object (%v)", b, wantErr)
		}
		return
	}
	if err != nil {
		if bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) > MaxDepth {
			return // deeper than Object accepts
		}
		t.Fatalf("rejected %q, which encoding/json accepts", b)
	}
	sameMembers(t, "Object", b, got, want)
	for k, v := range want {
		if len(v) > 0 && v[0] == '"' {
			var ws string
			_ = json.Unmarshal(v, &ws)
			if gs, ok := String(got[k]); !ok || gs != ws {
				t.Fatalf("%q: string %q decoded as %q, want %q", b, k, gs, ws)
			}
		}
	}
}

// sameMembers fails unless got, what the function named by what read from b, is want.
func sameMembers(t *testing.T, what string, b []byte, got, want map[string]json.RawMessage) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s(%q) = %q, encoding/json: %q", what, b, got, want)
	}
	for k, v := range want {
		if !bytes.Equal(got[k], v) {
			t.Fatalf("%s(%q): member %q = %s, encoding/json: %s", what, b, k, got[k], v)
		}
	}
}

// checkString compares String with encoding/json on v, valid JSON.
func checkString(t *testing.T, v []byte) {
	t.Helper()
	var ws string
	wok := FirstByte(v) == '"' && json.Unmarshal(v, &ws) == nil
	if s, ok := String(v); ok != wok || s != ws {
		t.Fatalf("String(%s) = %q, %v; encoding/json: %q, %v", v, s, ok, ws, wok)
	}
}

// TestObject_Decisions pins what the package doc decides for both entries.
func TestObject_Decisions(t *testing.T) {
	deep := `{"a":` + strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1) + `}`
	limit := `{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`
	for _, tc := range []struct {
		name, body string
		object     map[string]string // nil: Object refuses the body
		members    map[string]string // nil: Members gives nil
	}{
		{"a later duplicate wins", `{"a":1,"a":2}`, map[string]string{"a": "2"}, map[string]string{"a": "2"}},
		{"keys are kept as written", `{"Reply":"x","reply":"y"}`, map[string]string{"Reply": `"x"`, "reply": `"y"`}, map[string]string{"Reply": `"x"`, "reply": `"y"`}},
		{"escaped keys are decoded", `{"r\u00e9ply":"x"}`, map[string]string{"réply": `"x"`}, map[string]string{"réply": `"x"`}},
		{"white space is not part of a value", " {\n\"a\" :\t[ 1 ] , \"b\":\"c\" }\n", map[string]string{"a": "[ 1 ]", "b": `"c"`}, map[string]string{"a": "[ 1 ]", "b": `"c"`}},
		{"nested to the limit", limit, map[string]string{"a": limit[5 : len(limit)-1]}, map[string]string{"a": limit[5 : len(limit)-1]}},
		{"nested past the limit", deep, nil, map[string]string{"a": deep[5 : len(deep)-1]}},
		{"not an object", `[1]`, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Object([]byte(tc.body))
			if (err == nil) != (tc.object != nil) || !sameStrings(got, tc.object) {
				t.Errorf("Object = %q, %v; want %q", got, err, tc.object)
			}
			if m := Members([]byte(tc.body)); (m == nil) != (tc.members == nil) || !sameStrings(m, tc.members) {
				t.Errorf("Members = %q; want %q", m, tc.members)
			}
		})
	}
	for _, bad := range []string{`{"a":1}x`, `{"a":1,}`, `{"a":01}`, "{\"a\":\"\t\"}", `{"a":"\x"}`, ``, ` `} {
		if m, err := Object([]byte(bad)); err == nil {
			t.Errorf("Object(%q) = %q, want ErrSyntax", bad, m)
		}
	}
}

func sameStrings(got map[string]json.RawMessage, want map[string]string) bool {
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if string(got[k]) != v {
			return false
		}
	}
	return true
}
