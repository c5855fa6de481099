package client

import (
	"encoding/json"
	"testing"
)

func TestMessageID_KeepsItsJSONType(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{`7`, `7`},
		{`"7"`, `"7"`},
		{`"msg_a1"`, `"msg_a1"`},
		{`12345678901234567890`, `12345678901234567890`}, // past int64: kept exactly
		{`null`, `null`},
		{`""`, `null`},
		{`{"x":1}`, `null`}, // not an ID: absent, not an error
		{`true`, `null`},
	} {
		var id MessageID
		if err := json.Unmarshal([]byte(tc.in), &id); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		b, err := json.Marshal(id)
		if err != nil || string(b) != tc.out {
			t.Errorf("%s came back as %s (%v), want %s", tc.in, b, err, tc.out)
		}
	}
	// In a result, an absent ID is left out.
	b, _ := json.Marshal(SendMessageResult{Reply: "r", UserMessageID: numMsg("4")})
	if want := `{"conversation_id":"","reply":"r","user_message_id":4}`; string(b) != want {
		t.Errorf("result JSON %s, want %s", b, want)
	}
}

func FuzzMessageID(f *testing.F) {
	for _, s := range []string{`7`, `"7"`, `-1.5e3`, `null`, `""`, `"\u0000"`, `[1]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var id MessageID
		if err := id.UnmarshalJSON(b); err != nil {
			t.Fatalf("UnmarshalJSON(%q) failed: %v", b, err)
		}
		out, err := id.MarshalJSON()
		if err != nil || !json.Valid(out) {
			t.Fatalf("%q gave invalid JSON %q (%v)", b, out, err)
		}
		var again MessageID
		if again.UnmarshalJSON(out); again != id {
			t.Fatalf("%q → %s → %+v, want %+v", b, out, again, id)
		}
	})
}
