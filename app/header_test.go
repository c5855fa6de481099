package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// TestHeader_MenuOpensInsideTheWindow checks that the conversation's ⋮ menu, whose button is at
// the window's right edge, opens under the button with its right edge under the button's, a
// margin inside the window, in windows of several widths.
func TestHeader_MenuOpensInsideTheWindow(t *testing.T) {
	h := start(t, newFakeService())
	var more *button
	for _, o := range test.LaidOutObjects(h.u.main.header.object()) {
		if b, ok := o.(*button); ok && b.Icon == theme.MoreVerticalIcon() {
			more = b
		}
	}
	if more == nil {
		t.Fatal("no ⋮ button in the header")
	}
	for _, width := range []float32{1000, 760} {
		h.u.win.Resize(fyne.NewSize(width, 700))
		test.Tap(more)
		m := h.u.main.header.menu
		if m == nil || !m.Visible() {
			t.Fatal("the menu did not open")
		}
		win := h.u.win.Canvas().Size()
		btn := fyne.CurrentApp().Driver().AbsolutePositionForObject(more)
		pos, size := m.Position(), m.Size()
		pad := theme.Padding()
		if pos.X < pad || pos.X+size.Width > win.Width-pad || pos.Y+size.Height > win.Height-pad {
			t.Errorf("window %v: the menu at %v, %v is not inside the window %v with a margin of %v", width, pos, size, win, pad)
		}
		if right := btn.X + more.Size().Width; pos.X+size.Width > right+0.5 {
			t.Errorf("window %v: the menu ends at %v, right of its button's edge %v", width, pos.X+size.Width, right)
		}
		if want := btn.Y + more.Size().Height; pos.Y != want {
			t.Errorf("window %v: the menu opens at y %v, want under its button at %v", width, pos.Y, want)
		}
		m.Hide()
	}
}

// TestMenuPosition places a menu under its button, inside the window, and above the button when
// there is no room under it.
func TestMenuPosition(t *testing.T) {
	pad := theme.Padding()
	btn, size := fyne.NewPos(950, 30), fyne.NewSize(40, 36)
	menu := fyne.NewSize(160, 150)
	if got := menuPosition(btn, size, menu, fyne.NewSize(1000, 700)); got != fyne.NewPos(830, 66) {
		t.Errorf("under the button: %v", got)
	}
	if got := menuPosition(fyne.NewPos(0, 30), size, menu, fyne.NewSize(1000, 700)); got.X != pad {
		t.Errorf("a button at the left edge: the menu at %v", got)
	}
	if got := menuPosition(fyne.NewPos(950, 600), size, menu, fyne.NewSize(1000, 700)); got.Y != 450 {
		t.Errorf("a button near the bottom: the menu at %v, want above it", got)
	}
}
