package autostart

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/internal/i18n"
)

// checkExe refuses a program path the LaunchAgent cannot name: a property list is XML, which
// holds neither invalid UTF-8 nor most control characters.
func checkExe(exe string) error {
	var why string
	switch {
	case !utf8.ValidString(exe):
		why = fmt.Sprintf(i18n.T("its path %q is not valid UTF-8 text, which the desktop misreads when it starts programs at login: move Parley to a folder whose path has no control characters (such as a line break) or bytes that are not UTF-8 text, then turn this on again"), exe)
	case strings.IndexFunc(exe, unicode.IsControl) >= 0:
		why = fmt.Sprintf(i18n.T("its path %q holds a control character, which the desktop misreads when it starts programs at login: move Parley to a folder whose path has no control characters (such as a line break) or bytes that are not UTF-8 text, then turn this on again"), exe)
	default:
		return nil
	}
	return &UnsafePathError{Exe: exe, Why: why}
}

// Path is the LaunchAgent's property list (written as macOS documents it; not tried on a Mac).
func (e Entry) Path() (string, error) {
	home := e.ConfigHome
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		home = h
	}
	return filepath.Join(home, "Library", "LaunchAgents", appID+".plist"), nil
}

// content is the LaunchAgent.
func (e Entry) content() string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key><string>` + appID + `</string>
	<key>ProgramArguments</key>
	<array><string>` + html.EscapeString(e.Exe) + `</string><string>` + Flag + `</string></array>
	<key>RunAtLoad</key><true/>
</dict>
</plist>
`
}
