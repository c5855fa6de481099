package chatview

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// cullMargin is how far beyond the part on screen a long reply's objects are still drawn, so
// that a little scrolling finds them ready.
const cullMargin = 100

// culled holds the drawn objects of a reply (or of its code block or table) and gives the
// painter only those near the part of the chat on screen. Fyne paints every object of a
// window, seen or not: a reply of 10,000 characters would have its whole text rasterised for
// every first frame and kept as textures.
type culled struct {
	widget.BaseWidget
	objs []fyne.CanvasObject
	// band is the part on screen, in culled's coordinates; ok is false when unknown (then all
	// is drawn).
	band func() (top, bottom float32, ok bool)

	shown       []fyne.CanvasObject
	shownTop    float32
	shownBottom float32
	shownFor    int // len(objs) when shown was made
	shownValid  bool
}

func newCulled(band func() (float32, float32, bool)) *culled {
	c := &culled{band: band}
	c.ExtendBaseWidget(c)
	return c
}

// setObjects replaces the objects.
func (c *culled) setObjects(objs []fyne.CanvasObject) {
	c.objs, c.shownValid = objs, false
}

// visible is the objects to draw now.
func (c *culled) visible() []fyne.CanvasObject {
	top, bottom, ok := float32(0), float32(0), false
	if c.band != nil {
		top, bottom, ok = c.band()
	}
	if !ok {
		return c.objs
	}
	if c.shownValid && c.shownFor == len(c.objs) && top >= c.shownTop && bottom <= c.shownBottom {
		return c.shown
	}
	c.shownTop, c.shownBottom = top-cullMargin, bottom+cullMargin
	c.shown = c.shown[:0]
	for _, o := range c.objs {
		y := o.Position().Y
		if y <= c.shownBottom && y+o.Size().Height >= c.shownTop {
			c.shown = append(c.shown, o)
		}
	}
	c.shownFor, c.shownValid = len(c.objs), true
	// Looked at again once the view has moved half a margin.
	c.shownTop, c.shownBottom = top-cullMargin/2, bottom+cullMargin/2
	return c.shown
}

func (c *culled) CreateRenderer() fyne.WidgetRenderer { return &culledRenderer{c: c} }

type culledRenderer struct{ c *culled }

func (r *culledRenderer) Layout(fyne.Size)             {}
func (r *culledRenderer) MinSize() fyne.Size           { return r.c.Size() }
func (r *culledRenderer) Refresh()                     {}
func (r *culledRenderer) Objects() []fyne.CanvasObject { return r.c.visible() }
func (r *culledRenderer) Destroy()                     {}
