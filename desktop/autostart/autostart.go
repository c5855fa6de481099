// Package autostart starts Parley when the person logs in: an XDG autostart entry on Linux and
// the BSDs (~/.config/autostart), the Run key on Windows, and a LaunchAgent on macOS (written,
// untested on a Mac). The entry starts Parley hidden in the tray (with the Flag argument).
package autostart

import (
	"errors"
	"os"
	"path/filepath"
)

// Flag is the argument the entry starts Parley with: start hidden, in the tray.
const Flag = "--tray"

// Name is the entry's name (the desktop file's and the Run key value's).
const Name = "Parley"

// Entry is the login entry for one executable.
type Entry struct {
	// Exe is the program to start (an absolute path).
	Exe string
	// ConfigHome is where XDG entries live ("": $XDG_CONFIG_HOME, else ~/.config); on macOS the
	// home folder ("": the user's).
	ConfigHome string
}

// ForThisProgram is the entry for the running executable.
func ForThisProgram() (Entry, error) {
	exe, err := os.Executable()
	if err != nil {
		return Entry{}, err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return Entry{Exe: exe}, nil
}

// ErrUnsupported is returned where the system has no way of starting programs at login that
// this package knows.
var ErrUnsupported = errors.New("starting at login is not supported on this system")

// UnsafePathError is returned by Enable for a program whose path a login entry cannot name
// safely: the programs that read the entry at login would start another program, or none.
type UnsafePathError struct {
	// Exe is the program's path.
	Exe string
	// Why says what is wrong with it, and what to do, in a sentence for the person.
	Why string
}

func (e *UnsafePathError) Error() string { return e.Why }
