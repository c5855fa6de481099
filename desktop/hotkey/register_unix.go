//go:build unix && !darwin

package hotkey

import (
	"os"

	"parley/internal/i18n"
)

// register uses the desktop portal on Wayland, where an X11 grab would see only the keys typed
// into other X11 programs, and the root window's grab under X11.
func register(c Combo) (*Listener, error) {
	if onWayland() {
		return registerPortal(c)
	}
	if os.Getenv("DISPLAY") == "" {
		return nil, &UnavailableError{Reason: i18n.T("there is no X11 display or Wayland session")}
	}
	return registerX11(c)
}

// onWayland reports whether the session is a Wayland one.
func onWayland() bool {
	return os.Getenv("WAYLAND_DISPLAY") != "" || os.Getenv("XDG_SESSION_TYPE") == "wayland"
}

func registeringAsks() bool { return onWayland() }
