package app

import (
	"fmt"
	"runtime"
	"testing"

	"parley/app/chatview"
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
			h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2*turn })
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
