package voice

import (
	"testing"
	"unicode/utf8"
)

func TestAsSentence(t *testing.T) {
	cases := []struct{ in, want string }{
		{"what time is it in tokyo", "What time is it in tokyo?"},
		{"  set a timer for ten minutes ", "Set a timer for ten minutes."},
		{"i think i'm late", "I think I'm late."},
		{"is it raining", "Is it raining?"},
		{"isn't it late", "Isn't it late?"},
		{"island hopping in greece", "Island hopping in greece."},
		{"whatever you like", "Whatever you like."},
		{"tell me about e-mail", "Tell me about e-mail."},
		{"play track 3", "Play track 3."},
		{"élan vital", "Élan vital."},
		// A recogniser that writes sentences is left as it wrote them.
		{"What time is it?", "What time is it?"},
		{"what time is it?", "what time is it?"},
		{"call Anna", "call Anna"},
		{"ok, go on", "ok, go on"},
		// Nothing to make a sentence of.
		{"", ""},
		{"   ", ""},
		{"42", "42"},
		{"[noise]", "[noise]"},
	}
	for _, c := range cases {
		if got := AsSentence(c.in); got != c.want {
			t.Errorf("AsSentence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzAsSentence(f *testing.F) {
	for _, s := range []string{"what is it", "i'm here", "Hello.", "", "ǅ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AsSentence(s)
		if again := AsSentence(got); again != got {
			t.Errorf("AsSentence is not stable: %q → %q → %q", s, got, again)
		}
		if utf8.RuneCountInString(got) > utf8.RuneCountInString(s)+1 {
			t.Errorf("AsSentence(%q) = %q grew by more than its mark", s, got)
		}
	})
}
