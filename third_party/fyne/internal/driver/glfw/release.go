package glfw

import (
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Parley: memory that painting freed goes back to the system once painting pauses. Each string
// drawn gets a texture, kept for a minute after it was last drawn and freed by a later paint;
// the C allocator and Go's runtime keep what was freed for reuse, and a conversation's worth of
// strings (each typed prefix of a message, every reply) left a window 15 to 20 MB larger after
// 100 turns than after one, though what it held had not grown. releaseQuiet after the last
// paint, or releaseMax after the first one since the last release while painting goes on (an
// animation, a level meter), both allocators hand their free pages back.
const (
	releaseQuiet = 10 * time.Second
	releaseMax   = time.Minute
)

var (
	releaseArmed atomic.Bool
	lastPaint    atomic.Int64 // time.Time.UnixNano of the last paint
)

// releaseMemorySoon notes a paint, and plans to return freed memory to the system unless that
// is already planned.
func releaseMemorySoon() {
	now := time.Now()
	lastPaint.Store(now.UnixNano())
	if !releaseArmed.CompareAndSwap(false, true) {
		return
	}
	var check func()
	check = func() {
		quiet := time.Since(time.Unix(0, lastPaint.Load()))
		if quiet < releaseQuiet && time.Since(now) < releaseMax {
			time.AfterFunc(releaseQuiet-quiet, check)
			return
		}
		releaseArmed.Store(false)
		debug.FreeOSMemory()
		trimCHeap()
	}
	time.AfterFunc(releaseQuiet, check)
}
