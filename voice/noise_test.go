package voice_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"parley/voice"
)

func TestIsNoise(t *testing.T) {
	for text, want := range map[string]bool{
		"": true, " ": true, "[noise]": true, "(music) [applause]": true, "++NOISE++": true, "hmm um": true, "?!": true,
		"What time is it?": false, "Paris (France)": false, "ok": false, "42": false, "héllo": false, "东京": false,
	} {
		if got := voice.IsNoise(text); got != want {
			t.Errorf("IsNoise(%q) = %v, want %v", text, got, want)
		}
	}
}

// FuzzIsNoise: the transcripts the service returns are outside data. IsNoise never panics, a
// recognizer's annotation added to a transcript never changes the verdict, and a transcript
// with a plain word in it is never noise.
func FuzzIsNoise(f *testing.F) {
	for _, s := range []string{"", "[noise]", "(cough) hello", "<unk>", "*laughs*", "um hmm", "What time is it?", "[unclosed", "**", "++NOISE++ ok"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || strings.ContainsAny(s, "[]()<>{}*+") {
			voice.IsNoise(s) // only: no panic
			return
		}
		got := voice.IsNoise(s)
		if voice.IsNoise(s+" [noise]") != got || voice.IsNoise("(cough) "+s) != got {
			t.Errorf("an annotation changed the verdict on %q", s)
		}
		if !voice.IsNoise(s + " Paris") {
			return
		}
		t.Errorf("%q with a word added is noise", s)
	})
}
