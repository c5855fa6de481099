package chatview

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/conversation"
	"parley/conversation/conversationtest"
	"parley/markdown"
)

// viewHarness is a chat view alone in a window of the test driver, as the window holds it: its
// later work (Config.Do: a row's measured height, a long reply's parse) is queued, and run by
// waitFor and drain on the test's goroutine.
type viewHarness struct {
	t     testing.TB
	v     *View
	win   fyne.Window
	queue chan func()
}

func newViewHarness(t testing.TB) *viewHarness {
	t.Helper()
	test.NewTempApp(t)
	h := &viewHarness{t: t, queue: make(chan func(), 1000)}
	h.v = New(Config{Host: nopHost{}, Do: func(fn func()) { h.queue <- fn },
		Now: func() time.Time { return time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC) }})
	h.win = test.NewTempWindow(t, h.v.Object())
	h.win.Resize(fyne.NewSize(1000, 700))
	return h
}

// nopHost is a window that does nothing for the rows' buttons and links.
type nopHost struct{}

func (nopHost) CopyText(string)          {}
func (nopHost) OpenLink(string)          {}
func (nopHost) HoverLink(string, string) {}
func (nopHost) Selecting()               {}
func (nopHost) Speak(string)             {}
func (nopHost) StopWaiting()             {}
func (nopHost) Retry(int64)              {}
func (nopHost) EditMessage(string)       {}
func (nopHost) Regenerate(string)        {}
func (nopHost) EditTurn(int64)           {}

// waitFor runs the view's queued work, one by one, until cond holds.
func (h *viewHarness) waitFor(cond func() bool) {
	h.t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case fn := <-h.queue:
			fn()
		case <-deadline:
			h.t.Fatal("the view never reached the expected state")
		}
	}
}

// drain runs the view's queued work.
func (h *viewHarness) drain() {
	for {
		select {
		case fn := <-h.queue:
			fn()
		default:
			return
		}
	}
}

// shown counts the view's rows of a kind.
func (h *viewHarness) shown(kind RowKind) int {
	n := 0
	for _, r := range h.v.rows {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

// replyShown is the replyText of the row on screen showing text.
func (h *viewHarness) replyShown(text string) *replyText {
	h.t.Helper()
	var found *replyText
	eachObject(h.win.Content(), func(o fyne.CanvasObject) {
		if x, ok := o.(*Bubble); ok && x.r.Text == text && !x.reply.Hidden {
			found = x.reply
		}
	})
	if found == nil {
		h.t.Fatalf("no row shows %q", text)
	}
	return found
}

// eachObject calls fn for o and every object drawn inside it.
func eachObject(o fyne.CanvasObject, fn func(fyne.CanvasObject)) {
	fn(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			eachObject(c, fn)
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			eachObject(c, fn)
		}
	}
}

// longThread is n messages of varied length, some with Markdown (conversationtest.LongConversation).
func longThread(n int) []conversation.Message {
	var msgs []conversation.Message
	for _, m := range conversationtest.LongConversation(n) {
		msgs = append(msgs, conversation.MessageFrom(m))
	}
	return msgs
}

// TestChatView_ResizeShowsEachRowOnce: a new width makes every height an estimate again while the
// list is filling its rows (View.update → resetHeights → SetItemHeight, which refreshes the
// list inside its own update). Through sizes and scroll positions, every row on screen is shown
// by an item of its own: none is shown twice, and none is kept as a spare while it is shown
// (third_party/fyne.patch lets such a refresh run after the update, not inside it).
func TestChatView_ResizeShowsEachRowOnce(t *testing.T) {
	h := newViewHarness(t)
	h.v.ShowThread(conversation.ThreadView{Messages: longThread(60)})
	h.waitFor(func() bool { return h.shown(RowMessage) == 60 })
	for _, w := range []float32{1400, 700, 1100, 640, 1000} {
		h.win.Resize(fyne.NewSize(w, 700))
		for _, top := range []bool{true, false} {
			if top {
				h.v.list.ScrollToTop()
			} else {
				h.v.list.ScrollToBottom()
			}
			h.drain()
			h.win.Canvas().Capture()
			h.drain()
			seen := map[*Bubble]bool{}
			rows := map[int]bool{}
			var shown []*Bubble
			eachObject(h.v.list, func(o fyne.CanvasObject) {
				if r, ok := o.(*Bubble); ok {
					shown = append(shown, r)
				}
			})
			for _, r := range shown {
				if seen[r] || rows[r.id] {
					t.Fatalf("width %v: row %d is shown twice, or by an item shown twice", w, r.id)
				}
				seen[r], rows[r.id] = true, true
			}
			if len(rows) == 0 {
				t.Fatalf("width %v: no rows shown", w)
			}
		}
	}
}

// TestChatView_LongReplyIsParsedAway: a reply over parseNowMax is shown as plain text at once and
// drawn as Markdown when its parse, away from the window, is done; one over parseMax stays plain.
func TestChatView_LongReplyIsParsedAway(t *testing.T) {
	long := "| a | b |\n|---|---|\n" + strings.Repeat("| cell | more |\n", parseNowMax/15+1)
	huge := strings.Repeat("*a ", parseMax/3+1)
	h := newViewHarness(t)
	msgs := []conversation.Message{{Role: conversation.User, Text: "long"}, {Role: conversation.Assistant, Text: long}}
	h.v.Render(conversation.ThreadView{Messages: msgs})
	h.waitFor(func() bool { return h.shown(RowMessage) == 2 })
	h.waitFor(func() bool {
		f, ok := h.v.flats[long]
		return ok && len(f.Parts) == 1 && f.Parts[0].Kind == markdown.TablePart && h.replyShown(long).flat.Parts[0].Kind == markdown.TablePart
	})
	// Sent, as the window does: the view goes to the newest message.
	h.v.StickToBottom()
	msgs = append(msgs, conversation.Message{Role: conversation.User, Text: "huge"}, conversation.Message{Role: conversation.Assistant, Text: huge})
	h.v.Render(conversation.ThreadView{Messages: msgs})
	h.waitFor(func() bool { return h.shown(RowMessage) == 4 })
	r := h.replyShown(huge)
	if len(r.flat.Parts) != 1 || r.flat.Text != huge || len(h.v.parsing) != 0 {
		t.Errorf("a reply of %d bytes: %d parts, %d parses under way; want its text as it is", len(huge), len(r.flat.Parts), len(h.v.parsing))
	}
}
