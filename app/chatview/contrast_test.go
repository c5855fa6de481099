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

// TestClassColor_Contrast: in the light and the dark theme, every class of highlighted code
// reads on a code block's background at WCAG AA's 4.5:1, and so do a reply's text and links on
// its bubble, and the person's text on theirs (failed or not).
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
			{"your message", theme.Color(theme.ColorNameForegroundOnPrimary), bubbleFill(true, false)},
			{"your failed message", theme.Color(theme.ColorNameForegroundOnPrimary), bubbleFill(true, true)},
		} {
			if r := ContrastRatio(c.col, c.on); r < 4.5 {
				t.Errorf("%s theme: %s at %.1f:1", name, c.what, r)
			}
		}
	}
}
