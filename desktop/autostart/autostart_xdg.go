//go:build unix && !darwin

package autostart

import (
	"os"
	"path/filepath"
	"strings"
)

// Path is the XDG autostart desktop file.
func (e Entry) Path() (string, error) {
	dir := e.ConfigHome
	if dir == "" {
		dir = os.Getenv("XDG_CONFIG_HOME")
	}
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "autostart", appID+".desktop"), nil
}

// content is the autostart entry (Desktop Entry Specification 1.5).
func (e Entry) content() string {
	return "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Name=" + Name + "\n" +
		"Comment=Start Parley in the tray when you log in\n" +
		"Exec=" + execValue(e.Exe, Flag) + "\n" +
		"Icon=" + appID + "\n" +
		"Terminal=false\n" +
		"X-GNOME-Autostart-enabled=true\n"
}

// execValue is an Exec key's value for a program and its arguments: each quoted when it holds
// a reserved character, with the escapes of the quoting rules and then those of a string value,
// and % doubled.
func execValue(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = escapeString(quoteArg(a))
	}
	return strings.Join(out, " ")
}

// quoteArg applies the Exec key's quoting rules to one argument.
func quoteArg(a string) string {
	a = strings.ReplaceAll(a, "%", "%%")
	if a != "" && !strings.ContainsAny(a, " \t\n\"'\\><~|&;$*?#()`") {
		return a
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range a {
		if strings.ContainsRune("\"`$\\", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// escapeString applies a string value's escapes: backslash, newline, tab, carriage return.
func escapeString(s string) string {
	return strings.NewReplacer("\\", "\\\\", "\n", "\\n", "\t", "\\t", "\r", "\\r").Replace(s)
}
