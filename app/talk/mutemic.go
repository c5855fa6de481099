package talk

import (
	"context"
	"math"
	"sync"

	"parley/audio"
	"parley/voice"
)

// muteableMic is voice mode's microphone: muting closes the device, so that nothing captures
// (no stream in the sound server, no light on the microphone, no work), and unmuting opens it
// again. While muted, ReadFrame waits; a read under way when it is muted waits too.
type muteableMic struct {
	open func() (Mic, error)
	op   sync.Mutex // one opening or closing at a time, to the state wanted last

	mu     sync.Mutex
	muted  bool          // the state wanted
	cur    Mic           // nil while muted
	wake   chan struct{} // closed when a microphone is there again, or on Close
	closed bool

	raw float64 // the last frame's level before its echo was removed (voice.EchoReporter)
	// what the canceller left in it (voice.ResidueReporter)
	residue, linear float64
	converged       bool
}

// The voice loop hears a person over the reply through the canceller only from a ResidueReporter.
var _ voice.ResidueReporter = (*muteableMic)(nil)

// newMuteableMic opens the microphone, unless muted.
func newMuteableMic(open func() (Mic, error), muted bool) (*muteableMic, error) {
	m := &muteableMic{open: open, muted: muted, wake: make(chan struct{})}
	if !muted {
		mic, err := open()
		if err != nil {
			return nil, err
		}
		m.cur = mic
	}
	return m, nil
}

// ReadFrame reads from the microphone, waiting while it is muted.
func (m *muteableMic) ReadFrame(ctx context.Context, frame []int16) error {
	for {
		m.mu.Lock()
		cur, wake, closed := m.cur, m.wake, m.closed
		m.mu.Unlock()
		if closed {
			return audio.ErrCaptureClosed
		}
		if cur == nil {
			select {
			case <-wake:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		err := cur.ReadFrame(ctx, frame)
		m.raw, m.residue, m.linear, m.converged = math.NaN(), math.NaN(), math.NaN(), false
		if r, ok := cur.(voice.EchoReporter); ok && err == nil {
			m.raw = r.Uncancelled()
		}
		if r, ok := cur.(voice.ResidueReporter); ok && err == nil {
			m.residue, m.converged = r.Residue()
			m.linear = r.LinearDB()
		}
		if err != nil && ctx.Err() == nil {
			// A microphone closed by muting may fail its read in more than one way (closed,
			// or stopped): any failure of one that is no longer the one in use is the mute.
			m.mu.Lock()
			swapped := m.cur != cur && !m.closed
			m.mu.Unlock()
			if swapped {
				continue
			}
		}
		return err
	}
}

// Uncancelled is the level of the last frame read before its echo was removed (see
// voice.EchoReporter); NaN with a microphone that does not remove it.
// Call it from the goroutine that reads.
func (m *muteableMic) Uncancelled() float64 { return m.raw }

// Residue is what the canceller said of what it left in the last frame read (see
// voice.ResidueReporter); NaN and false with a microphone that does not remove the echo.
// Call it from the goroutine that reads.
func (m *muteableMic) Residue() (float64, bool) { return m.residue, m.converged }

// LinearDB is the level of the last frame read after the canceller's adaptive filter (see
// voice.ResidueReporter); NaN with a microphone that does not remove the echo. Call it from the
// goroutine that reads.
func (m *muteableMic) LinearDB() float64 { return m.linear }

// setMuted asks for the microphone closed (true) or open (false), and makes it so.
func (m *muteableMic) setMuted(muted bool) error {
	m.want(muted)
	return m.apply()
}

// want records the state asked for; call it in the order the person asks (on the window's
// goroutine), and apply after it.
func (m *muteableMic) want(muted bool) {
	m.mu.Lock()
	m.muted = muted
	m.mu.Unlock()
}

// apply closes the microphone or opens it again, to the state wanted last. Opening takes a
// moment and may fail (the microphone was unplugged meanwhile): call it off the window's
// goroutine. Calls that overlap end in the state wanted last.
func (m *muteableMic) apply() error {
	m.op.Lock()
	defer m.op.Unlock()
	m.mu.Lock()
	want, cur, closed := m.muted, m.cur, m.closed
	if closed || want == (cur == nil) {
		m.mu.Unlock()
		return nil
	}
	if want {
		m.cur = nil
		m.mu.Unlock()
		return cur.Close()
	}
	m.mu.Unlock()
	mic, err := m.open()
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.muted {
		mic.Close()
		return nil
	}
	m.cur = mic
	close(m.wake)
	m.wake = make(chan struct{})
	return nil
}

// Close closes the microphone for good.
func (m *muteableMic) Close() error {
	m.mu.Lock()
	cur := m.cur
	m.cur, m.closed = nil, true
	close(m.wake)
	m.wake = make(chan struct{})
	m.mu.Unlock()
	if cur != nil {
		return cur.Close()
	}
	return nil
}
