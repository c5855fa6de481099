package app

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/app/chatview"
	"parley/desktop/hotkey"
)

// ring is the visible rectangle of o drawn as an outline at least 2 px wide whose colour stands
// out 3:1 from both bg (the window's background) and fill (the widget's own colour, nil for
// none): the keyboard's ring. nil when there is none.
func ring(o fyne.CanvasObject, bg, fill color.Color) *canvas.Rectangle {
	for _, obj := range test.LaidOutObjects(o) {
		r, ok := obj.(*canvas.Rectangle)
		if !ok || !r.Visible() || r.StrokeWidth < 2 || r.StrokeColor == nil {
			continue
		}
		if _, _, _, a := r.StrokeColor.RGBA(); a < 0xffff {
			continue
		}
		if chatview.ContrastRatio(r.StrokeColor, bg) >= 3 && (fill == nil || chatview.ContrastRatio(r.StrokeColor, fill) >= 3) {
			return r
		}
	}
	return nil
}

// TestFocus_EveryControlShowsARing checks, in the light and the dark theme, that a focused
// button (of each importance the app uses), check box, slider, drop-down and text field draws a
// ring that stands out 3:1 from the window's background and from the control's own colour, and
// that it goes when the focus leaves.
func TestFocus_EveryControlShowsARing(t *testing.T) {
	for name, v := range map[string]fyne.ThemeVariant{"light": theme.VariantLight, "dark": theme.VariantDark} {
		t.Run(name, func(t *testing.T) {
			a := test.NewTempApp(t)
			a.Settings().SetTheme(forcedVariant{theme.DefaultTheme(), v})
			keys := &dialogKeys{}
			send := widget.NewButtonWithIcon("", theme.MailSendIcon(), func() {})
			send.Importance = widget.HighImportance
			save := newButton(keys, "Save", theme.ConfirmIcon(), nil)
			save.Importance = widget.HighImportance
			low := widget.NewButtonWithIcon("Voice mode", micIcon, func() {})
			low.Importance = widget.LowImportance
			danger := newButton(keys, "Delete", theme.DeleteIcon(), nil)
			danger.Importance = widget.DangerImportance
			plain := widget.NewButton("New conversation", func() {})
			tick := newCheck(keys, "Speak replies aloud", nil)
			slide := newSlider(keys, 0, 1)
			pick := newSelector(keys, []string{"one", "two"}, nil)
			text := newField(keys, false)
			voice := newChoiceField(keys)
			talk := newKeyField(keys, hotkey.Default, true)
			w := test.NewTempWindow(t, container.NewVBox(send, save, low, danger, plain, tick, slide, pick, text, voice, talk))
			w.Resize(fyne.NewSize(400, 500))
			c := w.Canvas()
			bg := theme.Color(theme.ColorNameBackground)
			fills := map[fyne.Focusable]color.Color{
				send: theme.Color(theme.ColorNamePrimary), save: theme.Color(theme.ColorNamePrimary),
				danger: theme.Color(theme.ColorNameError), plain: theme.Color(theme.ColorNameButton),
				text: theme.Color(theme.ColorNameInputBackground), voice: theme.Color(theme.ColorNameInputBackground),
				talk: theme.Color(theme.ColorNameInputBackground),
			}
			for _, f := range []fyne.Focusable{send, save, low, danger, plain, tick, slide, pick, text, voice, talk} {
				o := f.(fyne.CanvasObject)
				if ring(o, bg, nil) != nil {
					t.Errorf("%T shows a ring before it has the keyboard", f)
				}
				c.Focus(f)
				if ring(o, bg, fills[f]) == nil {
					t.Errorf("%T with the keyboard shows no ring that stands out 3:1", f)
				}
				c.Unfocus()
				if ring(o, bg, nil) != nil {
					t.Errorf("%T keeps its ring after the keyboard left", f)
				}
			}
		})
	}
}
