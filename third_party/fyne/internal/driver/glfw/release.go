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
// 100 turns than after one, though what it held had not grown. releaseDelay after a paint (at
// most once per releaseDelay while painting goes on) both allocators hand their free pages back.
const releaseDelay = 10 * time.Second

var releaseArmed atomic.Bool

// releaseMemorySoon returns freed memory to the system releaseDelay from now, unless that is
// already planned.
func releaseMemorySoon() {
	if !releaseArmed.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(releaseDelay, func() {
		releaseArmed.Store(false)
		debug.FreeOSMemory()
		trimCHeap()
	})
}
