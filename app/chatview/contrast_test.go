package chatview

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"parley/markdown"
)

// variantTheme is Fyne's theme in one variant.
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

// over is c drawn over bg.
func over(c, bg color.Color) color.Color {
	f := color.NRGBAModel.Convert(c).(color.NRGBA)
	b := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(f.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(float64(x)*a + float64(y)*(1-a) + 0.5) }
	return color.NRGBA{R: mix(f.R, b.R), G: mix(f.G, b.G), B: mix(f.B, b.B), A: 0xff}
}

// contrast is the WCAG contrast ratio of two colours.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// TestClassColor_Contrast: in the light and the dark theme, every class of highlighted code
// reads on a code block's background at WCAG AA's 4.5:1, and so do a reply's text and links on
// its bubble.
func TestClassColor_Contrast(t *testing.T) {
	for name, v := range map[string]fyne.ThemeVariant{"light": theme.VariantLight, "dark": theme.VariantDark} {
		test.NewTempApp(t)
		test.ApplyTheme(t, variantTheme{theme.DefaultTheme(), v})
		fg := theme.Color(theme.ColorNameForeground)
		bubble := theme.Color(theme.ColorNameInputBackground)
		code := over(withAlpha(fg, 0x12), bubble)
		for _, c := range []struct {
			what string
			col  color.Color
			on   color.Color
		}{
			{"keyword", classColor(markdown.Keyword, fg), code},
			{"string", classColor(markdown.String, fg), code},
			{"number", classColor(markdown.Number, fg), code},
			{"comment", classColor(markdown.Comment, fg), code},
			{"name", classColor(markdown.Name, fg), code},
			{"code", classColor(markdown.Plain, fg), code},
			{"text", fg, bubble},
			{"link", linkColor(), bubble},
		} {
			if r := contrast(c.col, c.on); r < 4.5 {
				t.Errorf("%s theme: %s at %.1f:1", name, c.what, r)
			}
		}
	}
}
