//go:build unix && !darwin

package autostart

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

func TestEntry_WrittenValidatedAndRemoved(t *testing.T) {
	testenv.RequireCommands(t, "desktop-file-validate")
	for _, exe := range []string{
		"/usr/local/bin/parley",
		"/home/ann/My Apps/parley",                  // a space
		"/opt/it's (new); a&b #1 ~ é|<x>*?=/parley", // reserved characters quoted without escapes
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
			if got := entries(filepath.Dir(p)); len(got) != 1 {
				t.Errorf("the autostart folder holds %q, want the entry alone", got)
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

// A path the programs that start login entries would misread (GLib and systemd keep the "%%"
// the specification asks for; systemd reads a backslash as an escape; invalid UTF-8 and control
// characters cannot be written) gets no entry, and an error that says why and what to do.
func TestEntry_RefusesAPathTheDesktopMisreads(t *testing.T) {
	for exe, what := range map[string]string{
		"/opt/100%/parley":        `holds '%'`,
		"/opt/a\\b/parley":        `holds '\\'`,
		`/opt/we "q"/parley`:      `holds '"'`,
		"/opt/a$HOME/parley":      `holds '$'`,
		"/opt/a`id`/parley":       "holds '`'",
		"/opt/line\nbreak/parley": "holds a control character",
		"/opt/tab\there/parley":   "holds a control character",
		"/opt/\xff\xfe/parley":    "is not valid UTF-8 text",
	} {
		e := Entry{Exe: exe, ConfigHome: t.TempDir()}
		err := e.Enable()
		var ue *UnsafePathError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), "move Parley to a folder whose path has no %") {
			t.Errorf("Enable(%q) = %v, want an UnsafePathError saying it %s and what to do", exe, err, what)
		}
		if strings.ContainsAny(err.Error(), "\n\t") || strings.Contains(err.Error(), "\xff") {
			t.Errorf("the error about %q holds the path's raw characters: %q", exe, err)
		}
		if p, _ := e.Path(); fileExists(p) || len(entries(filepath.Dir(p))) > 0 {
			t.Errorf("Enable(%q) wrote %s, or a file beside it: %q", exe, p, entries(filepath.Dir(p)))
		}
	}
}

// The entry starts the program through GLib (gio launch, as GNOME and most desktops do) and
// through systemd's autostart generator, for paths holding the characters that are allowed.
func TestEntry_StartedByGLibAndSystemd(t *testing.T) {
	if _, err := exec.LookPath("gio"); err != nil {
		t.Skip("needs gio (Debian package libglib2.0-bin)")
	}
	for _, folder := range []string{"My Apps", "it's (new); a&b #1 ~ é|<x>*?="} {
		t.Run(folder, func(t *testing.T) {
			base := t.TempDir()
			exe := filepath.Join(base, folder, "parley")
			fifo := filepath.Join(base, "started")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			os.MkdirAll(filepath.Dir(exe), 0o755)
			script := fmt.Sprintf("#!/bin/sh\nprintf '%%s\\n' \"$0\" \"$@\" > '%s'\n", fifo)
			if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			e := Entry{Exe: exe, ConfigHome: filepath.Join(base, "config")}
			if err := e.Enable(); err != nil {
				t.Fatal(err)
			}
			p, _ := e.Path()

			started := make(chan string, 1)
			go func() {
				b, _ := os.ReadFile(fifo) // waits for the program to open it
				started <- string(b)
			}()
			gio := exec.Command("gio", "launch", p)
			// No session bus: GLib must not start one for the test.
			gio.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(base, "no-bus"), "HOME="+base)
			if out, err := gio.CombinedOutput(); err != nil {
				os.WriteFile(fifo, nil, 0) // ends the reader
				b, _ := os.ReadFile(p)
				t.Fatalf("gio launch: %v\n%s\n%s", err, out, b)
			}
			select {
			case got := <-started:
				if want := exe + "\n" + Flag + "\n"; got != want {
					t.Errorf("gio launch started %q, want %q", got, want)
				}
			case <-time.After(time.Minute):
				t.Fatal("gio launch did not start the program")
			}

			gen := "/usr/lib/systemd/user-generators/systemd-xdg-autostart-generator"
			if !fileExists(gen) {
				t.Log("no systemd autostart generator here")
				return
			}
			out := filepath.Join(base, "units")
			os.Mkdir(out, 0o755)
			cmd := exec.Command(gen, out, out, out)
			cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+e.ConfigHome, "XDG_CONFIG_DIRS="+filepath.Join(base, "none"))
			msg, err := cmd.CombinedOutput()
			// It writes a unit only when it found the program the entry names.
			if b, rerr := os.ReadFile(filepath.Join(out, "app-io.github.parley@autostart.service")); err != nil || rerr != nil || !strings.Contains(string(b), "ExecStart=") {
				t.Errorf("systemd's generator wrote no unit for the entry (%v, %v):\n%s", err, rerr, msg)
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// entries lists the names in dir (none when it does not exist).
func entries(dir string) []string {
	des, _ := os.ReadDir(dir)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
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
