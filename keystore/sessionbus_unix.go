//go:build linux || freebsd || openbsd || netbsd || dragonfly

package keystore

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
)

// errNoSessionBus is the cause of ErrUnavailable when no D-Bus session bus can be found.
var errNoSessionBus = errors.New("no D-Bus session bus: DBUS_SESSION_BUS_ADDRESS is not set and /run/user/<uid>/bus does not exist")

// userRuntimeDir is where godbus looks for a session bus socket when DBUS_SESSION_BUS_ADDRESS is
// not set; tests change it.
var userRuntimeDir = filepath.Join("/run/user", strconv.Itoa(os.Getuid()))

// checkSessionBus fails with errNoSessionBus unless a D-Bus session bus can be found the way
// godbus finds one without autolaunching. Without this check godbus runs dbus-launch, which
// starts a session bus daemon that outlives Parley: one more stray process per call.
func checkSessionBus() error {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return nil
	}
	for _, name := range []string{"bus", "dbus-session"} {
		if _, err := os.Stat(filepath.Join(userRuntimeDir, name)); !errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	return errNoSessionBus
}
