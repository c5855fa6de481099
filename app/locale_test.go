package app

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"parley/app/chatview"
	"parley/app/locale"
	"parley/engine"
)

// inLanguage runs the rest of the test with the window in the language of code, and puts
// English back after it.
func inLanguage(t *testing.T, code string) {
	t.Helper()
	locale.Use(code)
	t.Cleanup(func() { locale.Use("en") })
}

// textOf is the text a widget shows, and whether it may be cut by design (a wrapping or
// truncating label, an entry).
func textOf(o fyne.CanvasObject) (text string, elastic bool) {
	switch w := o.(type) {
	case *widget.Label:
		return w.Text, w.Wrapping != fyne.TextWrapOff || w.Truncation != fyne.TextTruncateOff
	case *widget.Button:
		return w.Text, false
	case *button:
		return w.Text, false
	case *widget.Check:
		return w.Text, false
	case *check:
		return w.Text, false
	}
	return "", false
}

// checkFits fails for every text of the objects shown under top that is cut: wider than the
// room it was given, or reaching out of the window.
func checkFits(t *testing.T, where string, c fyne.Canvas, top fyne.CanvasObject) {
	t.Helper()
	refreshAll(top)
	d := fyne.CurrentApp().Driver()
	for _, o := range shownObjects(top) {
		text, elastic := textOf(o)
		if text == "" || o.Size().Width == 0 {
			continue // nothing to read, or not laid out by the test driver (a dialog's title)
		}
		if right := d.AbsolutePositionForObject(o).X + o.Size().Width; right > c.Size().Width+1 {
			t.Errorf("%s: %q ends at %.0f px, out of the window (%.0f px)", where, text, right, c.Size().Width)
		}
		if !elastic && o.Size().Width+1 < o.MinSize().Width {
			t.Errorf("%s: %q needs %.0f px and has %.0f: it is cut", where, text, o.MinSize().Width, o.Size().Width)
		}
	}
}

// refreshAll lays out every container and widget under o again, as the window's next frame
// would: a text set after the last layout is measured.
func refreshAll(o fyne.CanvasObject) {
	objs := shownObjects(o)
	for i := len(objs) - 1; i >= 0; i-- {
		objs[i].Refresh()
	}
}

// shoot keeps a picture of the window for a person to look at, when PARLEY_KEEP_SHOTS names a
// folder.
func shoot(t *testing.T, c fyne.Canvas, name string) {
	dir := os.Getenv("PARLEY_KEEP_SHOTS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name+".png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, c.Capture()); err != nil {
		t.Fatal(err)
	}
}

// In every language, at the window's default size and at the smallest it allows, the first-run
// screen, the main window and every dialog show their words whole: none is cut or reaches out
// of the window. PARLEY_KEEP_SHOTS=folder keeps a picture of each.
func TestDialogs_FitInEveryLanguage(t *testing.T) {
	for _, l := range locale.Languages {
		t.Run(l.Code, func(t *testing.T) {
			inLanguage(t, l.Code)
			local := &engineLocal{found: []engine.Runtime{ollama}}
			w := startLocal(t, local, &memSecrets{keys: map[string]string{}})
			c := w.u.win.Canvas()
			w.waitFor(func() bool { return labelWith(w.u.win.Content(), "llama3.2") != nil })
			for _, size := range []string{"default", "smallest"} {
				w.u.win.Resize(fyne.NewSize(defaultWidth, defaultHeight))
				if size == "smallest" {
					w.u.win.Resize(w.u.win.Content().MinSize())
				}
				checkFits(t, fmt.Sprintf("%s, %s size, first-run screen", l.Code, size), c, w.u.win.Content())
				shoot(t, c, fmt.Sprintf("%s-%s-welcome", l.Code, size))
			}

			h := start(t, newFakeService())
			c = h.u.win.Canvas()
			h.typeAndSend("Plan a trip")
			h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
			for _, size := range []string{"default", "smallest"} {
				h.u.win.Resize(fyne.NewSize(defaultWidth, defaultHeight))
				if size == "smallest" {
					h.u.win.Resize(h.u.win.Content().MinSize())
				}
				where := fmt.Sprintf("%s, %s size", l.Code, size)
				checkFits(t, where+", main window", c, h.u.win.Content())
				shoot(t, c, fmt.Sprintf("%s-%s-main", l.Code, size))
				for _, d := range []struct {
					name string
					open func()
				}{
					{"settings", h.u.main.showSettings}, {"account", h.u.showAccount},
					{"preferences", h.u.showPreferences}, {"shortcuts", h.u.showShortcuts}, {"about", h.u.showAbout},
					{"preset name", func() { h.u.main.showSettings(); h.openSettings().saveAsPreset() }},
					{"rename", func() { h.u.main.renameConversation(h.u.main.currentEntry()) }},
					{"regenerate", h.u.main.regenerateLast},
				} {
					d.open()
					top := c.Overlays().Top()
					if top == nil {
						t.Fatalf("%s: no %s dialog", where, d.name)
					}
					if w := top.MinSize().Width; w > c.Size().Width {
						t.Errorf("%s: the %s dialog is %.0f px wide, in a window %.0f px wide", where, d.name, w, c.Size().Width)
					}
					checkFits(t, where+", "+d.name, c, top)
					shoot(t, c, fmt.Sprintf("%s-%s-%s", l.Code, size, d.name))
					for h.u.closeDialog != nil {
						h.u.closeDialog()
					}
				}
			}
		})
	}
}

// The language chosen in Preferences is the window's at the next start, whatever the system's.
func TestApp_ChosenLanguageAtTheNextStart(t *testing.T) {
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefLanguage, "de")
	t.Cleanup(func() { locale.Use("en") })
	h := startWith(t, newFakeService(), a, nil)
	if got := locale.Current().Code; got != "de" {
		t.Fatalf("the window is in %q, want de", got)
	}
	if !hasButton(h.u.win.Content(), "Neue Unterhaltung") {
		t.Error("the window shows no German: its words were made before the language was chosen")
	}
}

// hasButton reports whether a button under o says text.
func hasButton(o fyne.CanvasObject, text string) bool {
	found := false
	eachObject(o, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == text {
			found = true
		}
	})
	return found
}
