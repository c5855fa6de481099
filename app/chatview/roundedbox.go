package chatview

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
)

// splitAbove is the height above which a rounded box is drawn in three pieces.
const splitAbove = 160

// roundedBox is a filled rectangle with round corners, drawn as one rectangle when it is short
// and as three when it is tall: two short ones with the round corners and a plain one between.
// A painter rasterises a round-cornered rectangle as a shape, at a cost that grows with its
// area, and a plain one with a fill: the bubble of a long reply would cost more to draw than
// its text.
type roundedBox struct {
	top, middle, bottom *canvas.Rectangle
	radius              float32
}

func newRoundedBox(fill color.Color, radius float32) *roundedBox {
	return initRoundedBox(&roundedBox{radius: radius, top: canvas.NewRectangle(fill), middle: canvas.NewRectangle(fill), bottom: canvas.NewRectangle(fill)})
}

// initRoundedBox rounds the corners of r's new rectangles.
func initRoundedBox(r *roundedBox) *roundedBox {
	r.top.CornerRadius = r.radius
	r.bottom.TopLeftCornerRadius, r.bottom.TopRightCornerRadius = 0, 0
	return r
}

// objects are the box's rectangles, to draw in this order.
func (r *roundedBox) objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.top, r.middle, r.bottom}
}

// place puts the box at pos with size.
func (r *roundedBox) place(pos fyne.Position, size fyne.Size) {
	if size.Height <= splitAbove {
		r.top.CornerRadius = r.radius
		r.top.BottomLeftCornerRadius, r.top.BottomRightCornerRadius = 0, 0
		r.top.TopLeftCornerRadius, r.top.TopRightCornerRadius = 0, 0
		r.top.Move(pos)
		r.top.Resize(size)
		r.middle.Hidden, r.bottom.Hidden = true, true
		return
	}
	// Round corners only where they are: the plain middle joins them.
	hidden := r.top.Hidden
	edge := 2 * r.radius
	r.top.CornerRadius = 0
	r.top.TopLeftCornerRadius, r.top.TopRightCornerRadius = r.radius, r.radius
	r.top.Move(pos)
	r.top.Resize(fyne.NewSize(size.Width, edge))
	r.middle.Hidden, r.bottom.Hidden = hidden, hidden
	r.middle.Move(pos.AddXY(0, edge))
	r.middle.Resize(fyne.NewSize(size.Width, size.Height-2*edge))
	r.bottom.CornerRadius = 0
	r.bottom.BottomLeftCornerRadius, r.bottom.BottomRightCornerRadius = r.radius, r.radius
	r.bottom.Move(pos.AddXY(0, size.Height-edge))
	r.bottom.Resize(fyne.NewSize(size.Width, edge))
}

// setFill colours the box.
func (r *roundedBox) setFill(c color.Color) {
	r.top.FillColor, r.middle.FillColor, r.bottom.FillColor = c, c, c
}

// setHidden hides or shows the box.
func (r *roundedBox) setHidden(hidden bool) {
	r.top.Hidden = hidden
	if hidden {
		r.middle.Hidden, r.bottom.Hidden = true, true
	}
}
