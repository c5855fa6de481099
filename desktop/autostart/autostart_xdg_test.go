//go:build unix && !darwin

package autostart

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
)

func TestEntry_WrittenValidatedAndRemoved(t *testing.T) {
	testenv.RequireCommands(t, "desktop-file-validate")
	for _, exe := range []string{
		"/usr/local/bin/parley",
		"/home/ann/My Apps/parley",                // a space
		`/opt/we "quote"/100% $HOME/back\slash/p`, // every character the quoting rules escape
	} {
		t.Run(exe, func(t *testing.T) {
			e := Entry{Exe: exe, ConfigHome: t.TempDir()}
			if on, err := e.Enabled(); on || err != nil {
				t.Fatalf("Enabled before = %v, %v", on, err)
			}
			if err := e.Enable(); err != nil {
				t.Fatal(err)
			}
			p, _ := e.Path()
			if want := filepath.Join(e.ConfigHome, "autostart", "io.github.parley.desktop"); p != want {
				t.Errorf("path %s, want %s", p, want)
			}
			if on, err := e.Enabled(); !on || err != nil {
				t.Fatalf("Enabled after = %v, %v", on, err)
			}
			out, err := exec.Command("desktop-file-validate", p).CombinedOutput()
			if err != nil || len(strings.TrimSpace(string(out))) > 0 {
				b, _ := os.ReadFile(p)
				t.Errorf("desktop-file-validate: %v\n%s\n%s", err, out, b)
			}
			if got := parseExec(t, p); len(got) != 2 || got[0] != exe || got[1] != Flag {
				t.Errorf("Exec reads back as %q, want [%q %q]", got, exe, Flag)
			}
			if err := e.Disable(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("after Disable the entry is still there (%v)", err)
			}
			if err := e.Disable(); err != nil {
				t.Errorf("a second Disable: %v", err)
			}
		})
	}
}

func TestEntry_UsesXDGConfigHome(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	p, err := Entry{Exe: "/usr/bin/parley"}.Path()
	if err != nil || p != filepath.Join(dir, "autostart", "io.github.parley.desktop") {
		t.Errorf("Path = %s, %v", p, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative/dir") // ignored, as the specification says
	t.Setenv("HOME", dir)
	if p, _ := (Entry{}).Path(); p != filepath.Join(dir, ".config", "autostart", "io.github.parley.desktop") {
		t.Errorf("with a relative XDG_CONFIG_HOME, Path = %s", p)
	}
}

func TestEntry_RefusesARelativeProgram(t *testing.T) {
	if err := (Entry{Exe: "parley", ConfigHome: t.TempDir()}).Enable(); err == nil {
		t.Error("Enable took a relative path")
	}
}

// parseExec reads the Exec key back as a desktop environment does: the string escapes, then
// the quoting rules, then %% to %.
func parseExec(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var value string
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Exec="); ok {
			value = v
		}
	}
	value = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\t`, "\t", `\r`, "\r", `\s`, " ").Replace(value)
	var args []string
	var cur strings.Builder
	inQuote, escaped, have := false, false, false
	for _, r := range value {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case inQuote && r == '\\':
			escaped = true
		case r == '"':
			inQuote = !inQuote
			have = true
		case r == ' ' && !inQuote:
			if have || cur.Len() > 0 {
				args = append(args, cur.String())
			}
			cur.Reset()
			have = false
		default:
			cur.WriteRune(r)
		}
	}
	if have || cur.Len() > 0 {
		args = append(args, cur.String())
	}
	for i := range args {
		args[i] = strings.ReplaceAll(args[i], "%%", "%")
	}
	return args
}
