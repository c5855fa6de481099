package hotkey

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "Ctrl+Alt+Space", want: "Ctrl+Alt+Space"},
		{in: " control + alt + space ", want: "Ctrl+Alt+Space"},
		{in: "Alt+Ctrl+space", want: "Ctrl+Alt+Space"},
		{in: "Super+Shift+f5", want: "Shift+Super+F5"},
		{in: "Win+Enter", want: "Super+Return"},
		{in: "Ctrl+Alt+pgup", want: "Ctrl+Alt+Prior"},
		{in: "ctrl+alt+/", want: "Ctrl+Alt+/"},
		{in: "Ctrl+Alt+a", want: "Ctrl+Alt+A"},
		{in: "Space", err: "needs Ctrl, Alt or Super"},
		{in: "Shift+A", err: "needs Ctrl, Alt or Super"},
		{in: "Ctrl+Ctrl+A", err: "twice"},
		{in: "Ctrl+Hyper+A", err: "not a modifier"},
		{in: "Ctrl+Alt", err: "not a key"},
		{in: "Ctrl+Alt+Pause", err: "not a key"},
		{in: "Ctrl++", err: "not a modifier"},
		{in: "", err: "not a key"},
		{in: strings.Repeat("Ctrl+", 30) + "A", err: "at most 100"},
	} {
		c, err := Parse(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) = %v, %v; want an error with %q", tc.in, c, err, tc.err)
			}
		case err != nil || c.String() != tc.want:
			t.Errorf("Parse(%q) = %v, %v; want %s", tc.in, c, err, tc.want)
		}
	}
	if Default.String() != "Ctrl+Alt+Space" || Default.Valid() != nil {
		t.Errorf("Default is %v (%v)", Default, Default.Valid())
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"Ctrl+Alt+Space", "Super+F1", "alt+shift+`", "Ctrl++", "+", "ctrl+alt+ä"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			return
		}
		if c.Valid() != nil {
			t.Fatalf("Parse(%q) gave an invalid %v", s, c)
		}
		again, err := Parse(c.String())
		if err != nil || again != c {
			t.Fatalf("Parse(%q) = %v, which reads back as %v, %v", s, c, again, err)
		}
	})
}
