package autostart

import (
	"html"
	"os"
	"path/filepath"
)

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
