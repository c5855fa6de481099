//go:build unix

package autostart

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"parley/internal/atomicfile"
)

// On Linux, the BSDs and macOS the entry is one file: Path names it and content is what it holds.

// appID names the desktop file and the LaunchAgent, as the app's ID does.
const appID = "io.github.parley"

// Enabled reports whether the entry exists.
func (e Entry) Enabled() (bool, error) {
	p, err := e.Path()
	if err != nil {
		return false, err
	}
	_, err = os.Stat(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// Enable writes the entry, replacing one written before (the program may have moved).
func (e Entry) Enable() error {
	if !filepath.IsAbs(e.Exe) {
		return fmt.Errorf("autostart: %q is not an absolute path", e.Exe)
	}
	if err := checkExe(e.Exe); err != nil {
		return err
	}
	p, err := e.Path()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, []byte(e.content()), 0o644)
}

// Disable removes the entry; removing one that is not there is not an error.
func (e Entry) Disable() error {
	p, err := e.Path()
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
