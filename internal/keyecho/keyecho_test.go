package keyecho

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
)

func TestBlank_PiecesCasesAndEncodings(t *testing.T) {
	const key = "sk-Proj-7fA3c9E2b5D1f4A6c8E0b2D4f6A8c0E2"
	const mark = "[API key]"
	half := len(key) / 2
	for _, c := range []struct{ name, echoed string }{
		{"whole", key},
		{"first half", key[:half]},
		{"second half", key[half:]},
		{"lower case", strings.ToLower(key)},
		{"upper case", strings.ToUpper(key)},
		{"middle piece", key[10:22]},
		{"base64", base64.StdEncoding.EncodeToString([]byte(key))},
		{"base64 after a user name", base64.StdEncoding.EncodeToString([]byte("u:" + key))[4:]},
		{"base64url", base64.RawURLEncoding.EncodeToString([]byte(key))},
		{"hex", hex.EncodeToString([]byte(key))},
		{"HEX", strings.ToUpper(hex.EncodeToString([]byte(key)))},
		{"url-escaped", url.QueryEscape(key + "/+")},
	} {
		text := "Incorrect API key provided: " + c.echoed + ". See https://example.com/keys."
		got := Blank(text, key, mark)
		if !strings.HasPrefix(got, "Incorrect API key provided: "+mark) || !strings.HasSuffix(got, ". See https://example.com/keys.") {
			t.Errorf("%s: %q", c.name, got)
		}
		low := strings.ToLower(got)
		for i := 0; i+MinPiece <= len(low); i++ {
			if strings.Contains(strings.ToLower(key), low[i:i+MinPiece]) {
				t.Errorf("%s: %q still holds %q of the key", c.name, got, got[i:i+MinPiece])
			}
		}
	}
}

func TestBlank_LeavesOtherTextAlone(t *testing.T) {
	const key = "pk_0123456789abcdef0123456789abcdef"
	for _, text := range []string{
		"",
		"The model is busy; try again later.",
		"key pk_0123 is too short to be a piece of it", // 7 characters of the key
		"Ünïcödé text, and a date 2026-11-27",
	} {
		if got := Blank(text, key, "[API key]"); got != text {
			t.Errorf("Blank(%q) = %q", text, got)
		}
	}
	if got := Blank("anything", "", "[API key]"); got != "anything" {
		t.Errorf("an empty key changed the text: %q", got)
	}
	// A short key is blanked where it occurs whole, in any case.
	if got := Blank("bad key AbC12 (abc12)", "abc12", "*"); got != "bad key * (*)" {
		t.Errorf("short key: %q", got)
	}
}

func FuzzBlank(f *testing.F) {
	f.Add("Incorrect API key provided: sk-proj-abcdef0123456789", "sk-proj-ABCDEF0123456789")
	f.Add("c2stcHJvai1hYmNkZWYwMTIz", "sk-proj-abcdef0123")
	f.Add("short", "k")
	f.Fuzz(func(t *testing.T, text, key string) {
		if strings.ContainsRune(text+key, 0) {
			return
		}
		got := Blank(text, key, "\x00")
		if key == "" || !strings.Contains(got, "\x00") {
			if got != text {
				t.Fatalf("nothing blanked, yet the text changed: %q → %q", text, got)
			}
		}
		if len(key) < MinPiece {
			return
		}
		low := lowerASCII(key)
		for _, seg := range strings.Split(lowerASCII(got), "\x00") {
			for i := 0; i+MinPiece <= len(seg); i++ {
				if strings.Contains(low, seg[i:i+MinPiece]) {
					t.Fatalf("Blank(%q, %q) = %q: %q of the key is left", text, key, got, seg[i:i+MinPiece])
				}
			}
		}
	})
}
