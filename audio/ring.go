package audio

import "sync"

// ring carries captured bytes from the audio thread to the goroutine that drains them. write
// only copies under a short lock and never blocks or allocates; when the reader falls behind
// by the whole capacity, the oldest audio is overwritten and counted.
type ring struct {
	mu      sync.Mutex
	buf     []byte
	r, n    int   // read position and bytes held
	dropped int64 // bytes overwritten before they were read
	ready   chan struct{}
}

func newRing(size int) *ring {
	return &ring{buf: make([]byte, size), ready: make(chan struct{}, 1)}
}

// write copies p in and wakes the reader.
func (q *ring) write(p []byte) {
	q.mu.Lock()
	if len(p) > len(q.buf) {
		q.dropped += int64(len(p) - len(q.buf))
		p = p[len(p)-len(q.buf):]
	}
	if over := q.n + len(p) - len(q.buf); over > 0 {
		q.r = (q.r + over) % len(q.buf)
		q.n -= over
		q.dropped += int64(over)
	}
	w := (q.r + q.n) % len(q.buf)
	c := copy(q.buf[w:], p)
	copy(q.buf, p[c:])
	q.n += len(p)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// read moves up to len(p) bytes out, rounded down to a multiple of align, and returns how many.
func (q *ring) read(p []byte, align int) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := min(len(p), q.n)
	n -= n % align
	c := copy(p[:n], q.buf[q.r:])
	copy(p[c:n], q.buf)
	q.r = (q.r + n) % len(q.buf)
	q.n -= n
	return n
}

// lost returns how many bytes were overwritten unread.
func (q *ring) lost() int64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}
