package audio

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/gen2brain/malgo"
)

// FrameSamples is the number of samples in one 20 ms frame at SampleRate.
const FrameSamples = frameSamples

// ErrCaptureClosed is returned by Capture.ReadFrame after Close.
var ErrCaptureClosed = errors.New("audio: the capture was closed")

// Capture is an input device that runs until closed and delivers its audio as 20 ms frames, for
// a voice loop that listens turn after turn. Feed the frames to a TakeBuilder to make takes.
type Capture struct {
	mctx   *malgo.AllocatedContext
	dev    *malgo.Device
	q      *ring
	failed chan struct{}

	mu      sync.Mutex // guards reading: one reader at a time
	buf     []byte
	pending []int16 // converted samples not yet returned
	got     bool    // some audio has arrived
	closed  chan struct{}
	once    sync.Once
}

// OpenCapture opens and starts an input device of backend b ("" for the default device; else a
// device ID, or a name or part of one, as in TakeOptions.Device). Its error wraps ErrNoDevice
// when no device could be opened or started.
func OpenCapture(b Backend, device string) (*Capture, error) {
	mctx, err := b.openContext()
	if err != nil {
		return nil, err
	}
	c := &Capture{
		mctx:   mctx,
		q:      newRing(ringSize),
		failed: make(chan struct{}, 1),
		buf:    make([]byte, 2*frameSamples*8),
		closed: make(chan struct{}),
	}
	dev, err := startCapture(mctx, device, c.q, c.failed)
	if err != nil {
		closeContext(mctx)
		return nil, err
	}
	c.dev = dev
	return c, nil
}

// ReadFrame fills frame, which must hold FrameSamples samples, with the next 20 ms of audio,
// waiting for the device. It fails with ErrDeviceFailed when the device stops or delivers
// nothing for a while, with ErrCaptureClosed after Close, and with ctx's error.
func (c *Capture) ReadFrame(ctx context.Context, frame []int16) error {
	if len(frame) != frameSamples {
		return fmt.Errorf("audio: a frame holds %d samples, not %d", frameSamples, len(frame))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := dataGapLimit
	if !c.got {
		limit = firstDataWithin
	}
	var watchdog *time.Timer
	for len(c.pending) < frameSamples {
		if n := c.q.read(c.buf, 2); n > 0 {
			c.got = true
			for i := 0; i+1 < n; i += 2 {
				c.pending = append(c.pending, int16(uint16(c.buf[i])|uint16(c.buf[i+1])<<8))
			}
			continue
		}
		if watchdog == nil {
			watchdog = time.NewTimer(limit)
			defer watchdog.Stop()
		}
		select {
		case <-c.q.ready:
		case <-c.closed:
			return ErrCaptureClosed
		case <-ctx.Done():
			return ctx.Err()
		case <-c.failed:
			return fmt.Errorf("%w: it stopped", ErrDeviceFailed)
		case <-watchdog.C:
			return fmt.Errorf("%w: no audio arrived for %v", ErrDeviceFailed, limit)
		}
	}
	copy(frame, c.pending[:frameSamples])
	c.pending = append(c.pending[:0], c.pending[frameSamples:]...)
	return nil
}

// Dropped is how much audio was lost because frames were not read fast enough (more than 4 s
// behind).
func (c *Capture) Dropped() time.Duration {
	return time.Duration(c.q.lost() / 2 * int64(time.Second) / SampleRate)
}

// Close stops the device and releases it; a ReadFrame waiting returns ErrCaptureClosed. It is
// safe to call more than once.
func (c *Capture) Close() error {
	c.once.Do(func() {
		close(c.closed)
		_ = c.dev.Stop()
		c.mu.Lock() // wait for a reader to leave before the device's memory goes
		c.dev.Uninit()
		closeContext(c.mctx)
		c.mu.Unlock()
	})
	return nil
}

// TakeBuilder makes a take from frames fed one at a time, through the same pipeline as
// Recorder.Record (voice detector, level meter, encoder and limits), for a caller that owns the
// audio source, such as a voice loop reading a Capture.
type TakeBuilder struct {
	w *takeWriter
}

// NewTakeBuilder starts a take with opts; opts.Device is not used.
func NewTakeBuilder(opts TakeOptions) (*TakeBuilder, error) {
	w, err := newTakeWriter(opts)
	if err != nil {
		return nil, err
	}
	return &TakeBuilder{w: w}, nil
}

// Feed adds one frame (normally FrameSamples samples) and reports whether the take must end,
// and why: at the end of speech with VAD, or at a limit. Call Finish after it reports true.
func (b *TakeBuilder) Feed(frame []int16) (StopReason, bool) {
	return b.w.frame(frame)
}

// Speech reports whether the voice detector has heard speech start in the take.
func (b *TakeBuilder) Speech() bool { return b.w.speech }

// Heard is how much audio has been fed.
func (b *TakeBuilder) Heard() time.Duration {
	return time.Duration(b.w.heard * int64(time.Second) / SampleRate)
}

// Pause is how long the speech under way has been silent: the audio fed since the last frame
// loud enough to count as speech. It is 0 before speech starts and while it is heard.
func (b *TakeBuilder) Pause() time.Duration {
	if !b.w.speech || !b.w.det.InSpeech() {
		return 0
	}
	return b.Heard() - b.w.det.LastActive()
}

// Snapshot returns the take so far without ending it, for a caller that sends it ahead of the
// end (a speculative transcription): Audio is the encoding so far, PCM and the speech bounds
// as Finish would give them now. In WebM/Opus the last frames waiting for their block (up to
// 40 ms, and the codec's 6.5 ms delay) are not in Audio. Feeding on afterwards is unaffected.
func (b *TakeBuilder) Snapshot() *Take {
	return b.w.snapshot()
}

// Finish ends the take for reason and returns it, as Recorder.Record does.
func (b *TakeBuilder) Finish(reason StopReason) (*Take, error) {
	return b.w.finish(reason, nil)
}
