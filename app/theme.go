package app

import (
	"fmt"
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
)

// The theme the person chose in Preferences: the system's light or dark, or either always, and a
// text size.

// Themes offered, as kept in the preferences.
const (
	themeSystem = "system"
	themeLight  = "light"
	themeDark   = "dark"
)

// themeNames are the themes as Preferences shows them, in its order.
func themeNames() []struct{ key, name string } {
	return []struct{ key, name string }{
		{themeSystem, lang.L("As the system's")}, {themeLight, lang.L("Light")}, {themeDark, lang.L("Dark")},
	}
}

// Text sizes offered, in percent of Fyne's.
var textSizes = []int{90, 100, 110, 125, 150}

// Bounds of the text size, in percent.
const (
	minTextSize = 90
	maxTextSize = 150
)

// appTheme is Fyne's own theme, in the variant and at the text size the person chose.
type appTheme struct {
	variant string // themeSystem, themeLight or themeDark
	scale   float32
}

func (t appTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	switch t.variant {
	case themeLight:
		v = theme.VariantLight
	case themeDark:
		v = theme.VariantDark
	}
	return theme.DefaultTheme().Color(n, v)
}

func (t appTheme) Font(s fyne.TextStyle) fyne.Resource { return theme.DefaultTheme().Font(s) }

func (t appTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size scales text, and the icons that stand in a line of text, by the text size.
func (t appTheme) Size(n fyne.ThemeSizeName) float32 {
	s := theme.DefaultTheme().Size(n)
	switch n {
	case theme.SizeNameText, theme.SizeNameCaptionText, theme.SizeNameHeadingText, theme.SizeNameSubHeadingText,
		theme.SizeNameInlineIcon, theme.SizeNameLineSpacing:
		return s * t.scale
	}
	return s
}

// applyTheme has the window drawn in the theme and text size chosen.
func (u *UI) applyTheme(variant string, percent int) {
	percent = max(minTextSize, min(maxTextSize, percent))
	var next fyne.Theme = appTheme{variant: variant, scale: float32(percent) / 100}
	if variant == themeSystem && percent == 100 {
		next = u.baseTheme // the app's own, as Fyne gives it
	}
	if u.app.Settings().Theme() == next {
		return
	}
	u.app.Settings().SetTheme(next) // the chat view is told by followTheme
}

// followTheme has the chat view lay its rows out again whenever the theme changes: chosen here,
// or the system's light or dark variant changing under "As the system's".
func (u *UI) followTheme() {
	u.app.Settings().AddListener(func(fyne.Settings) {
		u.do(func() {
			if u.main != nil {
				u.main.chat.Restyle()
			}
		})
	})
}

// applyChosenTheme applies the theme and text size of the preferences.
func (u *UI) applyChosenTheme() { u.applyTheme(u.prefs.theme(), u.prefs.textSize()) }

// stepTextSize makes the text one size larger (+1) or smaller (-1) of those Preferences offers,
// and keeps it.
func (u *UI) stepTextSize(step int) {
	cur := u.prefs.textSize()
	next := cur
	if step > 0 {
		if i := slices.IndexFunc(textSizes, func(p int) bool { return p > cur }); i >= 0 {
			next = textSizes[i]
		}
	} else {
		for _, p := range textSizes {
			if p < cur {
				next = p
			}
		}
	}
	switch {
	case next == cur && step > 0:
		u.flash(lang.L("The text is at its largest size."))
	case next == cur:
		u.flash(lang.L("The text is at its smallest size."))
	default:
		u.prefs.setTextSize(next)
		u.applyChosenTheme()
		u.flash(fmt.Sprintf(lang.L("Text %d%%."), next))
	}
}

// columnLayout gives its one object at most the width of the reading column, in the middle.
type columnLayout struct{ width func() float32 }

func (l columnLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (l columnLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	w := min(size.Width, l.width())
	objs[0].Move(fyne.NewPos((size.Width-w)/2, 0))
	objs[0].Resize(fyne.NewSize(w, size.Height))
}
