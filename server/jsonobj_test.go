package server

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzSplitObject checks splitObject against encoding/json: the same bodies
// accepted, the same members, the same string values.
func FuzzSplitObject(f *testing.F) {
	for _, s := range []string{
		`{}`, ` {"a":1} `, `{"message":"hi","temperature":0.5,"x":[1,{"y":null}],"t":true}`,
		`{"a":"\u00e9\n\"q\""}`, `{"a":"\ud800"}`, "{\"a\":\"\xff\"}", `{"a":1,"a":2}`, `{"a":-0.5e+3}`,
		`{"a":01}`, `{"a":1.}`, `{"a":tru}`, `{"a" 1}`, `{"a":1,}`, `{,}`, `[]`, `{"a":"b"}x`, `{"a":[1,]}`,
		"{\"a\":\"\t\"}", `{"a":"\x"}`, `{"a":{"b":}}`, `{"a":nul}`, `{"a":"\u12"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := splitObject(b)
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
			if bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) > maxDepth {
				return // deeper than this service accepts
			}
			t.Fatalf("rejected %q, which encoding/json accepts", b)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %d members, want %d", b, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(got[k], v) {
				t.Fatalf("%q: member %q is %q, want %q", b, k, got[k], v)
			}
			if len(v) > 0 && v[0] == '"' {
				var ws string
				_ = json.Unmarshal(v, &ws)
				if gs, err := unquote(got[k]); err != nil || gs != ws {
					t.Fatalf("%q: string %q decoded as %q, want %q", b, k, gs, ws)
				}
			}
		}
	})
}
