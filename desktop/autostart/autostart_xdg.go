//go:build unix && !darwin

package autostart

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/internal/i18n"
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

// unsafeInExec are the characters refused in the program's path. The Desktop Entry
// Specification can write each of them in Exec, but the programs that start login entries read
// them otherwise: GLib (gio, and so most desktops) and systemd's autostart generator both keep
// the "%%" the specification asks for and find no program; the generator copies a "\" into
// the unit's ExecStart, where systemd reads "\s" as a space; and "$", "`" and "\"" take
// backslashes whose reading is where shells and these parsers part. Without these, control
// characters and invalid UTF-8 (which a desktop file cannot hold as a path), a path in double
// quotes reads the same everywhere: spaces, ' ; & ( ) # * ? ~ | < > and non-ASCII letters were
// tried with gio launch and with the generator.
const unsafeInExec = "%\"`$\\"

// checkExe refuses a program path that an autostart entry cannot name safely.
func checkExe(exe string) error {
	var why string
	switch {
	case !utf8.ValidString(exe):
		why = fmt.Sprintf(i18n.T("its path %q is not valid UTF-8 text, which the desktop misreads when it starts programs at login: move Parley to a folder whose path has no %%, \", $, `, \\ or control characters (such as a line break), then turn this on again"), exe)
	case strings.IndexFunc(exe, unicode.IsControl) >= 0:
		why = fmt.Sprintf(i18n.T("its path %q holds a control character, which the desktop misreads when it starts programs at login: move Parley to a folder whose path has no %%, \", $, `, \\ or control characters (such as a line break), then turn this on again"), exe)
	case strings.ContainsAny(exe, unsafeInExec):
		why = fmt.Sprintf(i18n.T("its path %q holds %q, which the desktop misreads when it starts programs at login: move Parley to a folder whose path has no %%, \", $, `, \\ or control characters (such as a line break), then turn this on again"), exe, exe[strings.IndexAny(exe, unsafeInExec)])
	default:
		return nil
	}
	return &UnsafePathError{Exe: exe, Why: why}
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
