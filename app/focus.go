package app

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The keyboard's place, drawn so that a person can see it (WCAG 2.4.7): a ring 2 px wide, black
// over a light theme and white over a dark one, which stands out from the window's background
// (over 15:1) and from the colours of buttons (over 3:1). Fyne marks a focused check box, slider or
// drop-down with a pale circle or a tint of the focus colour, and a primary button with a blend
// that hardly changes it (#296FF6 to #226FF7). Fyne's buttons draw the ring themselves
// (third_party/fyne.patch); the app's check boxes, sliders, drop-downs and text fields (the
// message box and the search too, through textEntry) draw it through withFocusRing: a text
// field's own focused border is 1 px of the primary colour.

// focusRingWidth is the width of the ring, inside the widget's edge.
const focusRingWidth = 2

// focusRingColor is the colour of the keyboard's ring: black over a light background, white
// over a dark one, as Fyne's buttons draw it.
func focusRingColor() color.Color {
	return widget.FocusRingColor(theme.Color(theme.ColorNameBackground))
}

// focusMark records whether a widget has the keyboard, for its ring.
type focusMark struct{ on bool }

// ringRenderer draws a widget's own renderer, and the ring over it while the widget has the
// keyboard.
type ringRenderer struct {
	fyne.WidgetRenderer
	ring    *canvas.Rectangle
	focused func() bool
	objs    []fyne.CanvasObject // the widget's objects and the ring
}

// withFocusRing adds the keyboard's ring to r, shown while focused reports true.
func withFocusRing(r fyne.WidgetRenderer, focused func() bool) fyne.WidgetRenderer {
	ring := canvas.NewRectangle(color.Transparent)
	ring.StrokeWidth = focusRingWidth
	rr := &ringRenderer{WidgetRenderer: r, ring: ring, focused: focused}
	rr.paint()
	return rr
}

// Objects are the widget's, with the ring on top.
func (r *ringRenderer) Objects() []fyne.CanvasObject {
	inner := r.WidgetRenderer.Objects()
	same := len(r.objs) == len(inner)+1
	for i := 0; same && i < len(inner); i++ {
		same = r.objs[i] == inner[i]
	}
	if !same {
		r.objs = append(append(r.objs[:0], inner...), r.ring)
	}
	return r.objs
}

func (r *ringRenderer) Layout(size fyne.Size) {
	r.WidgetRenderer.Layout(size)
	r.ring.Move(fyne.NewPos(0, 0))
	r.ring.Resize(size)
}

func (r *ringRenderer) Refresh() {
	r.WidgetRenderer.Refresh()
	r.paint()
	r.ring.Refresh()
}

// paint shows the ring, in the theme's colours, while the widget has the keyboard.
func (r *ringRenderer) paint() {
	r.ring.StrokeColor = focusRingColor()
	r.ring.CornerRadius = theme.InputRadiusSize()
	r.ring.Hidden = !r.focused()
}

func (c *check) CreateRenderer() fyne.WidgetRenderer {
	return withFocusRing(c.Check.CreateRenderer(), func() bool { return c.mark.on && !c.Disabled() })
}

func (s *slider) CreateRenderer() fyne.WidgetRenderer {
	return withFocusRing(s.Slider.CreateRenderer(), func() bool { return s.mark.on && !s.Disabled() })
}

func (s *selector) CreateRenderer() fyne.WidgetRenderer {
	return withFocusRing(s.Select.CreateRenderer(), func() bool { return s.mark.on && !s.Disabled() })
}

func (e *textEntry) CreateRenderer() fyne.WidgetRenderer {
	return withFocusRing(e.Entry.CreateRenderer(), func() bool { return e.mark.on && !e.Disabled() })
}

func (f *keyField) CreateRenderer() fyne.WidgetRenderer {
	return withFocusRing(f.Entry.CreateRenderer(), func() bool { return f.mark.on && !f.Disabled() })
}

func (c *choiceField) CreateRenderer() fyne.WidgetRenderer {
	return withFocusRing(c.SelectEntry.CreateRenderer(), func() bool { return c.mark.on && !c.Disabled() })
}

func (c *choiceField) FocusLost() { c.mark.on = false; c.SelectEntry.FocusLost() }
func (c *check) FocusLost()       { c.mark.on = false; c.Check.FocusLost() }
func (s *slider) FocusLost()      { s.mark.on = false; s.Slider.FocusLost() }
func (s *selector) FocusLost()    { s.mark.on = false; s.Select.FocusLost() }
