package hotkey

func register(c Combo) (*Listener, error) { return registerWindows(c) }

func registeringAsks() bool { return false }
