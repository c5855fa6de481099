package app

// Window position. Fyne 2.7 remembers nothing about a window and has no API for its position,
// so the app reads and sets it through the windowing system itself, where it can (X11, in
// position_x11.go). Elsewhere (Wayland, where a client may not place its windows; Windows and
// macOS, not written yet) nativeWindowFrame and nativeMoveWindow report false and the window opens
// where the system puts it; its size is remembered everywhere.

// screenRect is a rectangle of the screen, in pixels.
type screenRect struct{ X, Y, W, H int }

// intersect is the part of r inside o (zero width or height when they do not meet).
func (r screenRect) intersect(o screenRect) screenRect {
	x0, y0 := max(r.X, o.X), max(r.Y, o.Y)
	x1, y1 := min(r.X+r.W, o.X+o.W), min(r.Y+r.H, o.Y+o.H)
	if x1 <= x0 || y1 <= y0 {
		return screenRect{}
	}
	return screenRect{x0, y0, x1 - x0, y1 - y0}
}

// frame is where a window's content and its decorations are: the content's rectangle and how
// far the window manager's frame reaches beyond it on each side.
type frame struct {
	content                  screenRect
	left, right, top, bottom int
}

// outer is the rectangle of the content with its decorations.
func (f frame) outer() screenRect {
	return screenRect{f.content.X - f.left, f.content.Y - f.top, f.content.W + f.left + f.right, f.content.H + f.top + f.bottom}
}

// grabWidth is how much of the title bar must be on a monitor for the window to stay where it
// was: enough to grab it with the mouse.
const grabWidth = 120

// placeOnScreen returns where the content's top-left corner goes so that the window can be seen
// and grabbed on one of the monitors (a monitor it was on may be gone, or the screen smaller).
// A window whose top edge is on a monitor with grabWidth pixels to spare, and whose title bar is
// not above that monitor, stays where it was; any other moves, whole, onto the monitor it
// overlaps most (else the first, the primary), inside it as far as its size allows.
func placeOnScreen(f frame, monitors []screenRect) (x, y int) {
	x, y = f.content.X, f.content.Y
	if len(monitors) == 0 {
		return x, y
	}
	out := f.outer()
	topEdge := screenRect{out.X, out.Y, out.W, min(out.H, f.top+24)}
	best, bestArea := monitors[0], 0
	for _, m := range monitors {
		if edge := topEdge.intersect(m); edge.W >= min(grabWidth, out.W) && edge.Y == out.Y && edge.H > 0 {
			return x, y
		}
		if in := out.intersect(m); in.W*in.H > bestArea {
			best, bestArea = m, in.W*in.H
		}
	}
	ox := min(max(out.X, best.X), best.X+best.W-out.W)
	oy := min(max(out.Y, best.Y), best.Y+best.H-out.H)
	ox, oy = max(ox, best.X), max(oy, best.Y) // a window larger than the monitor: its top left
	return ox + f.left, oy + f.top
}

// savePlacement keeps the window's size and where it is, for the next start. It runs when the
// window closes and when the app leaves the foreground, which is also the last thing Fyne does
// when it quits on SIGTERM (a session ending) without closing the window first.
func (u *UI) savePlacement() {
	size := u.win.Canvas().Size()
	f, ok := nativeWindowFrame(u.win)
	placed := ok && f.content.W > 100 && f.content.H > 100
	u.prefs.savePlacement(size, size.Width > 100 && size.Height > 100, f.content.X, f.content.Y, placed)
}

// restorePosition moves the window, just shown, to where it was, kept on the screen.
func (u *UI) restorePosition() {
	x, y, saved := u.prefs.windowPosition()
	if !saved {
		return
	}
	f, ok := nativeWindowFrame(u.win)
	if !ok {
		return
	}
	f.content.X, f.content.Y = x, y
	x, y = placeOnScreen(f, nativeMonitors())
	nativeMoveWindow(u.win, x, y)
}

// watchPlacement saves the size and position whenever the app leaves the foreground.
func (u *UI) watchPlacement() {
	u.app.Lifecycle().SetOnExitedForeground(u.savePlacement)
}
