package chatview

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// hscroll shows a code block or a table that may be wider than its reply, scrolled sideways by
// a horizontal wheel, Shift and the wheel, or its bar. A vertical wheel scrolls the chat, as it
// does everywhere else in it (a Fyne scroller would take it).
type hscroll struct {
	widget.BaseWidget
	owner    *replyText
	ly       *layer
	content  *culled // the layer's objects, in its own coordinates
	bar      *canvas.Rectangle
	contentW float32
	off      float32
}

func newHScroll(owner *replyText) *hscroll {
	s := &hscroll{owner: owner}
	s.content = newCulled(func() (float32, float32, bool) {
		top, bottom, ok := owner.visibleBand()
		y := s.Position().Y
		return top - y, bottom - y, ok
	})
	s.ly = &layer{scroll: s}
	s.bar = canvas.NewRectangle(theme.Color(theme.ColorNameScrollBar))
	s.bar.CornerRadius = scrollbarHeight / 2
	s.ExtendBaseWidget(s)
	return s
}

// reset empties the scroller for another layout.
func (s *hscroll) reset() {
	s.ly = &layer{scroll: s}
	s.contentW, s.off = 0, 0
	s.content.setObjects(nil)
}

// Scrolled scrolls sideways, or passes a vertical wheel on to the chat.
func (s *hscroll) Scrolled(ev *fyne.ScrollEvent) {
	dx, dy := ev.Scrolled.DX, ev.Scrolled.DY
	if dx == 0 || abs32(dy) > abs32(dx) {
		s.owner.host.scrollChat(dy)
		return
	}
	s.scrollBy(-dx)
}

// scrollBy moves the content dx to the left.
func (s *hscroll) scrollBy(dx float32) {
	off := min(max(s.off+dx, 0), max(s.contentW-s.Size().Width, 0))
	if off == s.off {
		return
	}
	s.off = off
	s.Refresh()
}

// ratio is how far the content moves for each unit the bar moves.
func (s *hscroll) ratio() float32 {
	if w := s.Size().Width; w > 0 {
		return s.contentW / w
	}
	return 1
}

func (s *hscroll) CreateRenderer() fyne.WidgetRenderer { return &hscrollRenderer{s: s} }

type hscrollRenderer struct{ s *hscroll }

func (r *hscrollRenderer) Layout(size fyne.Size) {
	s := r.s
	s.content.Move(fyne.NewPos(-s.off, 0))
	s.bar.Hidden = s.contentW <= size.Width
	if !s.bar.Hidden {
		w := size.Width * size.Width / s.contentW
		s.bar.Move(fyne.NewPos(s.off/s.contentW*size.Width, size.Height-scrollbarHeight-1))
		s.bar.Resize(fyne.NewSize(w, scrollbarHeight))
	}
}

func (r *hscrollRenderer) MinSize() fyne.Size { return r.s.Size() }

func (r *hscrollRenderer) Refresh() {
	r.Layout(r.s.Size())
	canvas.Refresh(r.s)
}

func (r *hscrollRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.s.content, r.s.bar}
}

func (r *hscrollRenderer) Destroy() {}
