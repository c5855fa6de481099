//go:build !(cgo && !wayland && (linux || freebsd || openbsd || netbsd))

package app

import "fyne.io/fyne/v2"

// On Wayland a client cannot place its windows; on Windows and macOS reading and setting the
// position natively is not written yet (Fyne 2.7 has no API for it). The window opens where the
// system puts it there; its size is still remembered.

func nativeWindowFrame(fyne.Window) (frame, bool) { return frame{}, false }

func nativeMoveWindow(fyne.Window, int, int) bool { return false }

func nativeMonitors() []screenRect { return nil }
