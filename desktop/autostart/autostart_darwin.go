package autostart

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// checkExe refuses a program path the LaunchAgent cannot name: a property list is XML, which
// holds neither invalid UTF-8 nor most control characters.
func checkExe(exe string) error {
	e := &UnsafePathError{Exe: exe, Avoid: "control characters (such as a line break) or bytes that are not UTF-8 text"}
	switch {
	case !utf8.ValidString(exe):
		e.What = "is not valid UTF-8 text"
	case strings.IndexFunc(exe, unicode.IsControl) >= 0:
		e.What = "holds a control character"
	default:
		return nil
	}
	return e
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
