package talk

import (
	"context"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/audio"
)

// countingMic delivers a frame every 20 ms until closed, and counts the microphones open.
type countingMic struct {
	open   *atomic.Int32
	closed chan struct{}
	once   sync.Once
}

func (c *countingMic) ReadFrame(ctx context.Context, frame []int16) error {
	select {
	case <-time.After(20 * time.Millisecond):
		frame[0] = 1
		return nil
	case <-c.closed:
		return audio.ErrCaptureClosed
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *countingMic) Close() error {
	c.once.Do(func() {
		c.open.Add(-1)
		close(c.closed)
	})
	return nil
}

func TestMuteableMic_MutingClosesTheDevice(t *testing.T) {
	var open atomic.Int32
	var opens atomic.Int32
	fail := atomic.Bool{}
	m, err := newMuteableMic(func() (Mic, error) {
		if fail.Load() {
			return nil, audio.ErrNoDevice
		}
		open.Add(1)
		opens.Add(1)
		return &countingMic{open: &open, closed: make(chan struct{})}, nil
	}, false)
	if err != nil {
		t.Fatal(err)
	}
	frames := make(chan error, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		f := make([]int16, audio.FrameSamples)
		for {
			err := m.ReadFrame(ctx, f)
			frames <- err
			if err != nil {
				return
			}
		}
	}()
	<-frames
	if err := m.setMuted(true); err != nil || open.Load() != 0 {
		t.Fatalf("muted: %v, %d microphones open", err, open.Load())
	}
	for len(frames) > 0 {
		<-frames
	}
	time.Sleep(100 * time.Millisecond) // a reader would have had 5 frames
	if n := len(frames); n != 0 {
		t.Errorf("%d frames while muted", n)
	}
	if err := m.setMuted(false); err != nil || open.Load() != 1 {
		t.Fatalf("unmuted: %v, %d open", err, open.Load())
	}
	if err := <-frames; err != nil {
		t.Fatalf("after unmuting: %v", err)
	}

	// Toggled quickly from several goroutines: the state asked for last wins, with at most
	// one device open.
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) { defer wg.Done(); m.setMuted(i%2 == 0) }(i)
	}
	wg.Wait()
	m.setMuted(true)
	if open.Load() != 0 {
		t.Errorf("%d open after the last mute", open.Load())
	}

	// A microphone gone while muted: unmuting says so, and the reader keeps waiting.
	fail.Store(true)
	if err := m.setMuted(false); !errors.Is(err, audio.ErrNoDevice) {
		t.Errorf("unmuting without a microphone: %v", err)
	}
	m.Close()
	if err := <-frames; !errors.Is(err, audio.ErrCaptureClosed) {
		t.Errorf("a reader waiting at Close: %v", err)
	}
	if open.Load() != 0 {
		t.Errorf("%d open after Close", open.Load())
	}
}

// cancellingMic is a microphone with an echo canceller that says what it left (a
// voice.ResidueReporter).
type cancellingMic struct{ countingMic }

func (*cancellingMic) Uncancelled() float64     { return -20 }
func (*cancellingMic) Residue() (float64, bool) { return 0.1, true }
func (*cancellingMic) LinearDB() float64        { return -30 }

// The voice loop hears a person over a reply through the canceller from what the muteable
// microphone passes on of the one it holds; a microphone without a canceller passes on nothing.
func TestMuteableMic_PassesOnWhatTheCancellerSays(t *testing.T) {
	var open atomic.Int32
	for _, cancels := range []bool{true, false} {
		m, err := newMuteableMic(func() (Mic, error) {
			if cancels {
				return &cancellingMic{countingMic{open: &open, closed: make(chan struct{})}}, nil
			}
			return &countingMic{open: &open, closed: make(chan struct{})}, nil
		}, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.ReadFrame(t.Context(), make([]int16, audio.FrameSamples)); err != nil {
			t.Fatal(err)
		}
		raw, lin := m.Uncancelled(), m.LinearDB()
		res, conv := m.Residue()
		if cancels && (raw != -20 || lin != -30 || res != 0.1 || !conv) {
			t.Errorf("with a canceller: %v dBFS before, %v after its filter, residue %v, converged %v; want -20, -30, 0.1, true", raw, lin, res, conv)
		}
		if !cancels && (!math.IsNaN(raw) || !math.IsNaN(lin) || !math.IsNaN(res) || conv) {
			t.Errorf("without a canceller: %v, %v, %v, %v; want NaN, NaN, NaN, false", raw, lin, res, conv)
		}
		m.Close()
	}
}
