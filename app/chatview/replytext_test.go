package chatview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"

	"parley/internal/testenv"
	"parley/markdown"
)

// replyFor lays a reply out alone, as the chat view would at width w, with a host that keeps
// the selection and what was asked of the window.
func replyFor(t *testing.T, md string, w float32) (*replyText, *fakeReplyHost) {
	t.Helper()
	test.NewTempApp(t)
	h := &fakeReplyHost{}
	r := newReplyText(h)
	r.setMarkdown(markdown.Flatten(markdown.Parse(md)))
	size := r.layoutAt(w)
	r.Resize(size)
	test.NewTempWindow(t, r)
	return r, h
}

type fakeReplyHost struct {
	a, b    int
	owner   *replyText
	opened  []string
	hovered string
	copied  string
}

func (h *fakeReplyHost) selectIn(t *replyText, a, b int) { h.owner, h.a, h.b = t, a, b; t.Refresh() }
func (h *fakeReplyHost) selection(t *replyText) (int, int) {
	if t != h.owner {
		return 0, 0
	}
	return h.a, h.b
}
func (h *fakeReplyHost) openLink(u string)     { h.opened = append(h.opened, u) }
func (h *fakeReplyHost) hoverLink(u, _ string) { h.hovered = u }
func (h *fakeReplyHost) copyText(s string)     { h.copied = s }
func (h *fakeReplyHost) scrollChat(float32)    {}
func (h *fakeReplyHost) selected(r *replyText) string {
	a, b := min(h.a, h.b), max(h.a, h.b)
	return r.flat.Text[a:b]
}

// pointOf is where byte i of the reply's plain text is drawn (the middle of its line).
func pointOf(t *testing.T, r *replyText, i int) fyne.Position {
	t.Helper()
	for _, ln := range r.lay.lines {
		for _, p := range ln.pieces {
			if i >= p.start && i < p.start+len(p.text) {
				o := p.layer.origin()
				x := fyne.MeasureText(p.text[:i-p.start], p.size, p.ts).Width
				return fyne.NewPos(o.X+p.x+x+0.5, o.Y+p.y+p.h/2)
			}
		}
	}
	t.Fatalf("byte %d is not drawn", i)
	return fyne.Position{}
}

// drag selects from byte a to byte b with the mouse.
func drag(t *testing.T, r *replyText, a, b int) {
	t.Helper()
	from, to := pointOf(t, r, a), pointOf(t, r, b)
	r.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: from}, Button: desktop.MouseButtonPrimary})
	r.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to}})
	r.DragEnd()
	r.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: to}, Button: desktop.MouseButtonPrimary})
}

// TestReplyText_SelectionCopiesWhatIsShown drags over parts of a reply: what is selected is the
// text as shown, brackets and indentation included, table cells separated by tabs.
func TestReplyText_SelectionCopiesWhatIsShown(t *testing.T) {
	r, h := replyFor(t, testenv.EveryBlock, 700)
	text := r.flat.Text
	for _, want := range []string{
		"Plain strong em gone code [1] a[i] [offline] $5 & <b> link.",
		"a[i] [offline]",
		"Left\tCentre\tRight\na\tb\t3",
		"def f(x):\n    return 'hi'  # comment",
		"2. two\n  • nested",
	} {
		a := strings.Index(text, want)
		if a < 0 {
			t.Fatalf("the plain text %q lacks %q", text, want)
		}
		drag(t, r, a, a+len(want)-1)
		// The drag ends on the last character's left half: it is not selected. Take it too.
		got := h.selected(r)
		if got != want[:len(want)-1] {
			t.Errorf("dragging over %q selected %q", want, got)
		}
	}
	// Backwards works too.
	a := strings.Index(text, "Heading")
	drag(t, r, a+6, a)
	if got := h.selected(r); got != "Headin" {
		t.Errorf("a drag from right to left selected %q, want %q", got, "Headin")
	}
}

// TestReplyText_DoubleClickSelectsWord double-clicks a word of a wrapped paragraph.
func TestReplyText_DoubleClickSelectsWord(t *testing.T) {
	r, h := replyFor(t, "Say bonjour_mes_amis [1] to everyone.", 400)
	i := strings.Index(r.flat.Text, "mes")
	r.DoubleTapped(&fyne.PointEvent{Position: pointOf(t, r, i)})
	if got := h.selected(r); got != "bonjour_mes_amis" {
		t.Errorf("a double click selected %q, want the word bonjour_mes_amis", got)
	}
}

// TestReplyText_Links clicks links: each is passed to the window with its address, and hovering
// shows where it leads; a click that ends a drag opens nothing.
func TestReplyText_Links(t *testing.T) {
	r, h := replyFor(t, "See [the docs](https://parley.example/docs) or <mailto:help@parley.example>.", 600)
	at := pointOf(t, r, strings.Index(r.flat.Text, "docs"))
	r.MouseMoved(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at}})
	if h.hovered != "https://parley.example/docs" || r.Cursor() != desktop.PointerCursor {
		t.Errorf("hovering the link shows %q with cursor %v", h.hovered, r.Cursor())
	}
	click := &desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: at}, Button: desktop.MouseButtonPrimary}
	r.MouseDown(click)
	r.MouseUp(click)
	if len(h.opened) != 1 || h.opened[0] != "https://parley.example/docs" {
		t.Errorf("a click on the link opened %q", h.opened)
	}
	drag(t, r, strings.Index(r.flat.Text, "the"), strings.Index(r.flat.Text, "docs"))
	if len(h.opened) != 1 {
		t.Errorf("a drag that ended on the link opened %q", h.opened)
	}
	r.MouseOut()
	if h.hovered != "" {
		t.Errorf("the pointer left, and the link %q is still shown", h.hovered)
	}
}

// TestReplyText_CodeCopy taps a code block's Copy: exactly the code is copied.
func TestReplyText_CodeCopy(t *testing.T) {
	code := "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}"
	r, h := replyFor(t, "Run:\n\n```go\n"+code+"\n```\n", 600)
	for _, o := range r.lay.root.top {
		if b, ok := o.(interface{ Tapped(*fyne.PointEvent) }); ok {
			if _, scroller := o.(*hscroll); !scroller {
				b.Tapped(&fyne.PointEvent{})
			}
		}
	}
	if h.copied != code {
		t.Errorf("the code block's Copy copied %q, want %q", h.copied, code)
	}
}

// TestReplyText_WideCodeScrolls lays a long line of code and a wide table in a narrow reply:
// they keep their lines (no wrapping) and scroll sideways; prose wraps to the width.
func TestReplyText_WideCodeScrolls(t *testing.T) {
	long := strings.Repeat("x", 300)
	r, _ := replyFor(t, "Some prose that is long enough to wrap at this width, surely.\n\n```\n"+long+"\n```\n\n| "+strings.Repeat("wide | ", 20)+"\n|"+strings.Repeat("---|", 20)+"\n", 300)
	if r.lay.size.Width > 300 {
		t.Errorf("the reply is %v wide at a width of 300", r.lay.size.Width)
	}
	if len(r.lay.scrollers) != 2 {
		t.Fatalf("%d scrollers, want 2 (the code and the table)", len(r.lay.scrollers))
	}
	for _, s := range r.lay.scrollers {
		if s.contentW <= s.Size().Width || s.bar.Hidden {
			t.Errorf("a scroller %v wide shows content %v wide with its bar hidden=%v", s.Size().Width, s.contentW, s.bar.Hidden)
		}
		s.Scrolled(&fyne.ScrollEvent{Scrolled: fyne.Delta{DX: -50}})
		if s.off != 50 {
			t.Errorf("a sideways wheel moved the content to %v, want 50", s.off)
		}
	}
	code := 0
	for _, ln := range r.lay.lines {
		for _, p := range ln.pieces {
			if strings.Contains(p.text, "xxx") {
				code++
			}
		}
	}
	if code != 1 {
		t.Errorf("the long line of code is drawn in %d pieces, want 1 (not wrapped)", code)
	}
}

// FuzzReplyLayout lays any text out: no panic, and every character of its plain text is drawn
// in a piece at its own place, or is a line break, tab or space between pieces.
func FuzzReplyLayout(f *testing.F) {
	f.Add(testenv.EveryBlock, float32(400))
	f.Add("```\n"+strings.Repeat("long ", 100)+"\n```", float32(120))
	f.Add("| a |\n|---|\n| b | c | d |", float32(50))
	f.Add("wordwithoutanyspacewordwithoutanyspacewordwithoutanyspace", float32(30))
	f.Add("é😀\u200b\t\ttab", float32(20))
	test.NewTempApp(f)
	f.Fuzz(func(t *testing.T, md string, w float32) {
		if !utf8.ValidString(md) || w != w || w < 1 || w > 4000 || len(md) > 4000 {
			return
		}
		r := newReplyText(&fakeReplyHost{})
		r.setMarkdown(markdown.Flatten(markdown.Parse(md)))
		r.layoutAt(w)
		text := r.flat.Text
		drawn := make([]bool, len(text))
		for _, ln := range r.lay.lines {
			for _, p := range ln.pieces {
				if text[p.start:p.start+len(p.text)] != p.text {
					t.Fatalf("a piece draws %q where the text has %q", p.text, text[p.start:p.start+len(p.text)])
				}
				for i := 0; i < len(p.text); i++ {
					drawn[p.start+i] = true
				}
			}
		}
		for i, ok := range drawn {
			if !ok && !strings.ContainsRune("\n\t ", rune(text[i])) {
				t.Fatalf("byte %d (%q) of %q is not drawn", i, text[i], text)
			}
		}
		r.lay.offsetAt(fyne.NewPos(w/2, 10))
		r.lay.paintSelection(0, len(text))
	})
}

// A reply laid out again at each piece as it is written draws with the objects of its earlier
// layouts: Fyne keeps each object drawn in its cache of canvases for a minute, and a new set at
// each piece left 15 MB after 20 long streamed replies. Across 40 growing layouts of every kind
// of block, no more distinct objects are drawn than the largest layout draws.
func TestReplyText_GrowingReusesObjects(t *testing.T) {
	test.NewTempApp(t)
	r := newReplyText(&fakeReplyHost{})
	text := testenv.EveryBlock + "\n\n" + strings.Repeat("More words of the reply as it grows. ", 20)
	seen := map[fyne.CanvasObject]bool{}
	largest := 0
	for i := 1; i <= 40; i++ {
		r.setMarkdown(markdown.Flatten(markdown.Parse(text[:len(text)*i/40])))
		r.layoutAt(400)
		objs := drawnObjects(r.lay)
		largest = max(largest, len(objs))
		for _, o := range objs {
			seen[o] = true
		}
	}
	if largest == 0 || len(seen) > largest {
		t.Errorf("40 layouts drew %d distinct objects, the largest %d: each layout made its own", len(seen), largest)
	}
}

// drawnObjects are the objects a layout draws: the reply's and its scrollers' insides.
func drawnObjects(l *replyLayout) []fyne.CanvasObject {
	out := l.root.objects()
	for _, s := range l.scrollers {
		out = append(out, s.ly.objects()...)
	}
	return out
}
