package hotkey

import "parley/internal/i18n"

// register: macOS needs the Carbon or Quartz event APIs through cgo and an accessibility
// permission; Parley does not have them yet.
func register(Combo) (*Listener, error) {
	return nil, &UnavailableError{Reason: i18n.T("Parley has no global shortcut on macOS yet")}
}

func registeringAsks() bool { return false }
