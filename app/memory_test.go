package app

import (
	"fmt"
	"runtime"
	"testing"

	"fyne.io/fyne/v2"

	"parley/client"
	"parley/conversation/conversationtest"

	"parley/internal/testenv"
)

// heldPerTurnMax is what one more turn of a conversation open in the window may keep, in bytes
// of Go heap: its two messages (the text, 100 bytes here, and what the session and the chat view
// keep for each) and the slices that hold them, which grow by doubling. Measured at 0.6–1.5 KB;
// one chat row built and kept per turn (what a list refresh did before third_party/fyne.patch)
// is about 12 KB.
const heldPerTurnMax = 3 << 10

// TestChatView_HeldPerTurn: a long conversation does not make the window hold more than its
// text needs. After 50 turns (the window has all the rows it shows, its caches are warm), 150
// more typed and answered turns, each drawn, may add at most heldPerTurnMax each to the live
// heap. Fyne's caches of measured strings, which keep each string for a minute after its last
// use, are emptied before each reading (as a change of theme does), since the test is quicker
// than a minute.
func TestChatView_HeldPerTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("types 200 turns")
	}
	if testenv.Race {
		t.Skip("measures without the race detector (make unit-c-locale), where 200 turns take 16 s, not 150")
	}
	svc := newFakeService()
	svc.Entered = make(chan string, 1000)
	h := start(t, svc)
	turn := 0
	turns := func(n int) {
		for range n {
			turn++
			h.typeAndSend(fmt.Sprintf("Turn number %d about the tides", turn))
			h.waitFor(func() bool { return h.shown(rowMessage) == 2*turn })
			h.u.win.Canvas().Capture()
		}
	}
	live := func() uint64 {
		h.u.app.Settings().SetTheme(h.u.app.Settings().Theme())
		h.drain()
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	turns(50)
	before := live()
	const more = 150
	turns(more)
	after := live()
	per := (int64(after) - int64(before)) / more
	t.Logf("live heap %d → %d bytes: %d bytes per turn", before, after, per)
	if per > heldPerTurnMax {
		t.Errorf("each turn added %d bytes to the live heap; at most %d are expected (two short messages)", per, heldPerTurnMax)
	}
}

// TestChatView_ResizeShowsEachRowOnce: a new width makes every height an estimate again while the
// list is filling its rows (chatView.update → resetHeights → SetItemHeight, which refreshes the
// list inside its own update). Through sizes and scroll positions, every row on screen is shown
// by an item of its own: none is shown twice, and none is kept as a spare while it is shown
// (third_party/fyne.patch lets such a refresh run after the update, not inside it).
func TestChatView_ResizeShowsEachRowOnce(t *testing.T) {
	svc := newFakeService()
	id := conversationtest.ID("long")
	svc.Histories["long"] = &client.History{ConversationID: id, Messages: longConversation(60)}
	h := start(t, svc)
	h.u.main.open(id)
	h.waitFor(func() bool { return h.shown(rowMessage) == 60 })
	for _, w := range []float32{1400, 700, 1100, 640, 1000} {
		h.u.win.Resize(fyne.NewSize(w, 700))
		for _, top := range []bool{true, false} {
			if top {
				h.u.main.chat.list.ScrollToTop()
			} else {
				h.u.main.chat.list.ScrollToBottom()
			}
			h.drain()
			h.u.win.Canvas().Capture()
			h.drain()
			seen := map[*bubbleRow]bool{}
			rows := map[int]bool{}
			var shown []*bubbleRow
			eachObject(h.u.main.chat.list, func(o fyne.CanvasObject) {
				if r, ok := o.(*bubbleRow); ok {
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
