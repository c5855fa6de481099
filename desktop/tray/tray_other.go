//go:build !unix || darwin

package tray

// HostPresent reports whether the desktop shows tray icons: Windows' notification area and
// macOS's menu bar always do.
func HostPresent() bool { return true }

// WatchHost never calls appeared: the host is always there.
func WatchHost(appeared func()) (stop func()) { return func() {} }

// SetTooltip does nothing here yet: fyne.io/systray drops (Windows) or may not take (macOS) a
// tooltip set before its loop runs, which is when Parley sets the first one.
func SetTooltip(text string) {}
