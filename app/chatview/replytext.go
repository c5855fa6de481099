package chatview

import (
	"time"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"parley/markdown"
)

// replyHost is what a message's text needs from the chat view: the selection, which one text
// at a time holds, and the window's answers to links and copying.
type replyHost interface {
	// selectIn makes t the text with the selection, from byte a to b of its plain text.
	selectIn(t *replyText, a, b int)
	// selection is the range selected in t (a == b when nothing is).
	selection(t *replyText) (a, b int)
	openLink(url string)
	hoverLink(url, title string)
	copyText(text string)
	scrollChat(dy float32)
}

// Reading measure and spacing of a reply.
const (
	measureChars     = 80   // the widest body text, in average characters
	lineGap          = 3    // between lines of a paragraph
	listIndentChars  = 3    // a list level's indent, in average characters
	quoteIndent      = 14   // a quote level's indent
	cellPad          = 6    // inside a table cell
	codePad          = 8    // inside a code block
	cellMaxChars     = 40   // the widest a table column grows before its cells wrap
	scrollbarHeight  = 6    // of a code block's or table's horizontal scroll bar
	paragraphGapRate = 0.55 // a paragraph's space, in lines
)

// replyText draws a message: a reply's Markdown (headings, lists, quotes, tables, code with its
// own Copy and horizontal scroll) or the person's own text as typed. It lays its text out
// itself, so that text is never changed (no space added or lost) and a person can select any
// part of it with the mouse and copy it.
type replyText struct {
	widget.BaseWidget
	host replyHost
	flat markdown.Flat
	user bool // the person's message: plain text on the accent colour
	row  int  // the chat view's row it shows

	lay  *replyLayout // at lay.width
	view *culled      // what lay draws, as much of it as is near the screen
	// band is the part of the text on screen (in its coordinates), when the chat view knows.
	band func() (top, bottom float32, ok bool)
	// scrollers, copyButtons, texts and rects are kept from one layout to the next (see
	// scroller and text).
	scrollers   []*hscroll
	copyButtons []*widget.Button
	texts       []*canvas.Text
	rects       []*canvas.Rectangle
	barDrag     *hscroll // the scroll bar being dragged
	downAt      int      // where the button went down (byte offset)
	moved       bool
	pressedLink string // the link under the press, if any
	openedLink  string // the link opened last, and when
	openedAt    time.Time
	hover       string
}

func newReplyText(host replyHost) *replyText {
	t := &replyText{host: host}
	t.view = newCulled(t.visibleBand)
	t.ExtendBaseWidget(t)
	return t
}

// setMarkdown shows a reply.
func (t *replyText) setMarkdown(f markdown.Flat) {
	t.flat, t.user, t.lay = f, false, nil
}

// setPlain shows the person's text as typed.
func (t *replyText) setPlain(s string) {
	t.flat = plainFlat(s)
	t.user, t.lay = true, nil
}

// layoutAt lays the text out for a bubble whose text may be up to maxW wide, and returns the
// size it takes: snug for short text, up to the reading measure for prose, and up to maxW for
// code and tables.
func (t *replyText) layoutAt(maxW float32) fyne.Size {
	if t.lay == nil || t.lay.maxW != maxW {
		t.lay = layoutReply(t, maxW)
		t.view.setObjects(t.lay.root.objects())
		t.view.Resize(t.lay.size)
	}
	return t.lay.size
}

// MinSize is the size last laid out.
func (t *replyText) MinSize() fyne.Size {
	if t.lay == nil {
		return fyne.NewSize(0, 0)
	}
	return t.lay.size
}

func (t *replyText) CreateRenderer() fyne.WidgetRenderer { return &replyTextRenderer{t: t} }

type replyTextRenderer struct{ t *replyText }

func (r *replyTextRenderer) Layout(fyne.Size) {}
func (r *replyTextRenderer) MinSize() fyne.Size {
	return r.t.MinSize()
}

func (r *replyTextRenderer) Refresh() {
	if l := r.t.lay; l != nil {
		l.paintSelection(r.t.host.selection(r.t))
		for _, s := range l.scrollers {
			s.Refresh()
		}
		canvas.Refresh(r.t)
	}
}

func (r *replyTextRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.t.view}
}

// visibleBand is the part of the text on screen, when known.
func (t *replyText) visibleBand() (float32, float32, bool) {
	if t.band == nil {
		return 0, 0, false
	}
	return t.band()
}

func (r *replyTextRenderer) Destroy() {}

// --- the mouse: selection, links and scroll bars ---

// Cursor is an I-beam over text, a hand over a link.
func (t *replyText) Cursor() desktop.Cursor {
	if t.hover != "" {
		return desktop.PointerCursor
	}
	return desktop.TextCursor
}

func (t *replyText) MouseIn(ev *desktop.MouseEvent) { t.MouseMoved(ev) }

func (t *replyText) MouseMoved(ev *desktop.MouseEvent) {
	if t.lay == nil {
		return
	}
	url, title := "", ""
	if p := t.lay.pieceAt(ev.Position); p != nil && p.span.Style&markdown.Link != 0 {
		url, title = p.span.URL, p.span.Title
	}
	if url != t.hover {
		t.hover = url
		t.host.hoverLink(url, title)
	}
}

func (t *replyText) MouseOut() {
	if t.hover != "" {
		t.hover = ""
		t.host.hoverLink("", "")
	}
}

func (t *replyText) MouseDown(ev *desktop.MouseEvent) {
	if t.lay == nil || ev.Button != desktop.MouseButtonPrimary {
		return
	}
	if s := t.lay.barAt(ev.Position); s != nil {
		t.barDrag = s
		return
	}
	at := t.lay.offsetAt(ev.Position)
	t.downAt, t.moved, t.pressedLink = at, false, ""
	if p := t.lay.pieceAt(ev.Position); p != nil && p.span.Style&markdown.Link != 0 {
		t.pressedLink = p.span.URL
	}
	a, b := t.host.selection(t)
	if ev.Modifier&fyne.KeyModifierShift != 0 && a != b {
		t.host.selectIn(t, a, at)
		return
	}
	t.host.selectIn(t, at, at)
}

func (t *replyText) MouseUp(ev *desktop.MouseEvent) {
	if t.barDrag != nil {
		t.barDrag = nil
		return
	}
	pressed := t.pressedLink
	t.pressedLink = ""
	if ev.Button != desktop.MouseButtonPrimary || t.moved || t.lay == nil || pressed == "" {
		return
	}
	// Opened only when pressed and released on the same link, and once for a double click.
	if p := t.lay.pieceAt(ev.Position); p != nil && p.span.Style&markdown.Link != 0 && p.span.URL == pressed {
		if pressed == t.openedLink && time.Since(t.openedAt) < doubleClickTime {
			return
		}
		t.openedLink, t.openedAt = pressed, time.Now()
		t.host.openLink(pressed)
	}
}

// doubleClickTime is how soon a second click on a link is taken for a double click.
const doubleClickTime = 600 * time.Millisecond

func (t *replyText) Dragged(ev *fyne.DragEvent) {
	if t.lay == nil {
		return
	}
	if t.barDrag != nil {
		t.barDrag.scrollBy(ev.Dragged.DX * t.barDrag.ratio())
		return
	}
	t.moved = true
	t.host.selectIn(t, t.downAt, t.lay.offsetAt(ev.Position))
}

func (t *replyText) DragEnd() {}

// DoubleTapped selects the word under the pointer.
func (t *replyText) DoubleTapped(ev *fyne.PointEvent) {
	if t.lay == nil {
		return
	}
	a, b := wordAt(t.flat.Text, t.lay.offsetAt(ev.Position))
	t.host.selectIn(t, a, b)
}

// wordAt is the word around byte i of s: letters, digits and underscores; or the one other
// character there.
func wordAt(s string, i int) (int, int) {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }
	if i >= len(s) {
		return len(s), len(s)
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	if !isWord(r) {
		return i, i + n
	}
	a, b := i, i
	for a > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:a])
		if !isWord(r) {
			break
		}
		a -= n
	}
	for b < len(s) {
		r, n := utf8.DecodeRuneInString(s[b:])
		if !isWord(r) {
			break
		}
		b += n
	}
	return a, b
}
