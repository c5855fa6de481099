package app

import (
	"reflect"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
)

// scrollIn is the first scroll in o.
func scrollIn(o fyne.CanvasObject) *container.Scroll {
	for _, obj := range test.LaidOutObjects(o) {
		if sc, ok := obj.(*container.Scroll); ok {
			return sc
		}
	}
	return nil
}

// TestShortcuts_ScrollInAShortWindow checks that the keyboard shortcuts fit in a window of the
// default size and in a short one, and that their list scrolls, by the wheel and by the keys of
// the Close button that has the keyboard, to its last row.
func TestShortcuts_ScrollInAShortWindow(t *testing.T) {
	h := start(t, newFakeService())
	for _, height := range []float32{defaultHeight, 420} {
		h.u.win.Resize(fyne.NewSize(defaultWidth, height))
		h.u.showShortcuts()
		top := h.u.win.Canvas().Overlays().Top()
		sc := scrollIn(top)
		if sc == nil {
			t.Fatal("the shortcuts do not scroll")
		}
		closeBtn, ok := h.u.win.Canvas().Focused().(*pagingButton)
		if !ok || closeBtn.Text != "Close" {
			t.Fatalf("the keyboard is on %s, not Close", describe(h.u.win.Canvas().Focused()))
		}
		win := h.u.win.Canvas().Size()
		for _, o := range []fyne.CanvasObject{sc, closeBtn} {
			p := fyne.CurrentApp().Driver().AbsolutePositionForObject(o)
			if p.Y < 0 || p.Y+o.Size().Height > win.Height {
				t.Fatalf("window %v high: %T at %v, %v is outside the window", height, o, p, o.Size())
			}
		}
		if sc.Content.MinSize().Height <= sc.Size().Height {
			t.Fatalf("window %v high: the list (%v) fits its %v without scrolling: the test needs it longer", height, sc.Content.MinSize().Height, sc.Size().Height)
		}
		closeBtn.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
		if want := sc.Content.MinSize().Height - sc.Size().Height; sc.Offset.Y != want {
			t.Errorf("End scrolled to %v, want the bottom %v", sc.Offset.Y, want)
		}
		closeBtn.TypedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
		if sc.Offset.Y != 0 {
			t.Errorf("Home scrolled to %v", sc.Offset.Y)
		}
		mid := fyne.CurrentApp().Driver().AbsolutePositionForObject(sc).Add(fyne.NewPos(sc.Size().Width/2, sc.Size().Height/2))
		test.Scroll(h.u.win.Canvas(), mid, 0, -60)
		if sc.Offset.Y <= 0 {
			t.Error("the wheel does not scroll the list")
		}
		closeBtn.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		if h.u.closeDialog != nil {
			t.Fatal("Enter did not close the shortcuts")
		}
	}
}

// Every dialog is as tall as what it shows: none keeps the height of a line it hid after it was
// sized (an empty band at its foot under Fyne 2.8, which measures an empty wrapped label one
// line high).
func TestDialogs_FitTheirContent(t *testing.T) {
	h := start(t, newFakeService())
	h.u.deps.Local = fakeLocal{}
	for _, d := range []struct {
		name string
		open func()
	}{
		{"conversation settings", h.u.main.showSettings},
		{"preferences", h.u.showPreferences},
		{"account", h.u.showAccount},
		{"built-in service", h.u.showEngines},
		{"keyboard shortcuts", h.u.showShortcuts},
		{"about", h.u.showAbout},
	} {
		d.open()
		h.waitFor(func() bool { return h.u.win.Canvas().Overlays().Top() != nil })
		top := h.u.win.Canvas().Overlays().Top()
		pop := top
		if v := reflect.ValueOf(top).Elem().FieldByName("Content"); v.IsValid() && v.CanInterface() {
			pop = v.Interface().(fyne.CanvasObject) // the modal pop-up inside Fyne's overlay
		}
		if size, min := pop.Size(), pop.MinSize(); size.Height > min.Height+1 {
			t.Errorf("%s: the dialog is %.0f high for %.0f of content", d.name, size.Height, min.Height)
		}
		h.u.cancelTopDialog()
		h.waitFor(func() bool { return h.u.win.Canvas().Overlays().Top() == nil })
	}
}
