package hotkey

// register: macOS needs the Carbon or Quartz event APIs through cgo and an accessibility
// permission; Parley does not have them yet.
func register(Combo) (*Listener, error) {
	return nil, &UnavailableError{Reason: "Parley has no global shortcut on macOS yet"}
}

func registeringAsks() bool { return false }
