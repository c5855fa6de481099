package client

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseConversationID(t *testing.T) {
	tests := []struct {
		in, want string
		form     idForm
	}{
		{"c_5f0c2a9e81d34b7a6c1e", "c_5f0c2a9e81d34b7a6c1e", formString},
		{"  42\n", "42", formUnknown},
		{"0", "0", formUnknown},
		{"007", "007", formString},
		{"-5", "-5", formString},
		{"1e3", "1e3", formString},
		{"12345678901234567890123", "12345678901234567890123", formUnknown},
		{"6f1c0c56-1d1e-4b7e-9e0a-3f0e4c1a2b3c", "6f1c0c56-1d1e-4b7e-9e0a-3f0e4c1a2b3c", formString},
	}
	for _, tt := range tests {
		id, err := ParseConversationID(tt.in)
		if err != nil {
			t.Errorf("ParseConversationID(%q): %v", tt.in, err)
			continue
		}
		if id.String() != tt.want || id.form != tt.form {
			t.Errorf("ParseConversationID(%q) = %q form %d, want %q form %d", tt.in, id, id.form, tt.want, tt.form)
		}
		// Until the client learns otherwise, a typed ID is written as a string.
		if b, _ := json.Marshal(id); string(b) != `"`+tt.want+`"` {
			t.Errorf("Marshal(ParseConversationID(%q)) = %s", tt.in, b)
		}
	}
	for _, in := range []string{"", "  ", "a\x00b", "a\nb", "\xff"} {
		if id, err := ParseConversationID(in); err == nil {
			t.Errorf("ParseConversationID(%q) = %q, want an error", in, id)
		}
	}
}

// An ID read from JSON is written back exactly as it came.
func TestConversationID_JSON(t *testing.T) {
	for _, in := range []string{`"c1"`, `42`, `"42"`, `123456789012345678901234567890`, `-7`, `1.5e3`, `"with \"quotes\" and ü"`} {
		var id ConversationID
		if err := json.Unmarshal([]byte(in), &id); err != nil {
			t.Errorf("Unmarshal(%s): %v", in, err)
			continue
		}
		if id.IsZero() {
			t.Errorf("Unmarshal(%s) gave the zero ID", in)
		}
		out, err := json.Marshal(id)
		if err != nil || string(out) != in {
			t.Errorf("Marshal(Unmarshal(%s)) = %s, %v", in, out, err)
		}
	}
	for _, in := range []string{`null`, `""`, `"  "`} {
		id := strID("x")
		if err := json.Unmarshal([]byte(in), &id); err != nil || !id.IsZero() {
			t.Errorf("Unmarshal(%s) = %#v, %v; want the zero ID", in, id, err)
		}
	}
	for _, in := range []string{`true`, `{}`, `[1]`, `"unterminated`} {
		var id ConversationID
		if err := json.Unmarshal([]byte(in), &id); err == nil {
			t.Errorf("Unmarshal(%s) = %#v, want an error", in, id)
		}
	}
	if b, _ := json.Marshal(ConversationID{}); string(b) != `""` {
		t.Errorf("Marshal(zero) = %s", b)
	}
	if s := numID("42").String(); s != "42" {
		t.Errorf("String() = %q", s)
	}
}

// FuzzConversationID checks that typed IDs are safe and that IDs from JSON round-trip.
func FuzzConversationID(f *testing.F) {
	for _, s := range []string{`"c1"`, `42`, `-0.5e-3`, `null`, `""`, `"42"`, `007`, `{"id":1}`, " 42 ", "a\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if id, err := ParseConversationID(s); err == nil {
			if id.IsZero() || id.String() != strings.TrimSpace(id.String()) || id.form == formNumber {
				t.Fatalf("ParseConversationID(%q) = %#v", s, id)
			}
			b, err := json.Marshal(id)
			if err != nil {
				t.Fatal(err)
			}
			var back ConversationID
			if err := json.Unmarshal(b, &back); err != nil || back.String() != id.String() {
				t.Fatalf("typed %q became %s, read back as %#v (%v)", s, b, back, err)
			}
		}
		var id ConversationID
		if err := id.UnmarshalJSON([]byte(s)); err == nil && !id.IsZero() {
			checkIDRoundTrip(t, id)
		}
	})
}
