//go:build hints

package theme

var (
	fallbackColor = colorLightError
	fallbackIcon  = NewErrorThemedResource(errorIconRes)
)
