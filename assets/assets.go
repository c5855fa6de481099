// Package assets embeds Parley's static artwork, such as the application icon.
package assets

import _ "embed"

// IconPNG is the Parley application icon rendered from icon.svg as a
// 512×512 RGBA PNG.
//
//go:embed icon.png
var IconPNG []byte

// IconSVG is the hand-written SVG source of the application icon
// (512×512 viewBox).
//
//go:embed icon.svg
var IconSVG []byte

// Icon48PNG is the application icon at 48×48, the size tray icons are drawn from.
//
//go:embed icon-48.png
var Icon48PNG []byte
