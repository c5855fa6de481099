package e2e

import (
	"strings"
	"testing"
)

// Every command is quiet about the locale in every locale a person may have: C.UTF-8 is the
// default on Debian and in containers, C and POSIX name no language, and a language that is not
// installed must not matter either. Fyne used to print three lines of "Error parsing user locale C"
// (with a build path) before each command's own output.
func TestCLI_QuietInEveryLocale(t *testing.T) {
	s := startService(t)
	key := s.newKey(t, 100)
	for _, locale := range [][]string{
		{"LANG=C.UTF-8"},
		{"LANG=C"},
		{"LANG=POSIX"},
		{"LANG="},
		{"LANG=en_US.UTF-8", "LC_ALL=C"},
		{"LANG=en_US.UTF-8", "LC_MESSAGES=C.UTF-8"},
		{"LANG=de_DE.UTF-8"},
		{"LANG=en_US.UTF-8"},
	} {
		env := s.env(append([]string{"PARLEY_API_KEY=" + key, "LC_ALL=", "LC_MESSAGES=", "LANGUAGE="}, locale...)...)
		for _, args := range [][]string{{"--version"}, {"conversations"}, {"chat", "no-such-flag-here", "--persona"}} {
			r := run(t, env, "", args...)
			if strings.Contains(r.Stderr, "Fyne") || strings.Contains(r.Stderr, "locale") || strings.Contains(r.Stderr, ".go:") {
				t.Errorf("%v parley %s printed locale noise:\n%s", locale, strings.Join(args, " "), r.Stderr)
			}
			if args[0] != "chat" && r.Code != 0 {
				t.Errorf("%v parley %s: %s", locale, strings.Join(args, " "), r)
			}
			if args[0] == "chat" && (r.Code != 2 || strings.Count(strings.TrimSpace(r.Stderr), "\n") > 2) {
				t.Errorf("%v parley %s: want a usage error of a line or two, exit 2: %s", locale, strings.Join(args, " "), r)
			}
		}
	}
}
