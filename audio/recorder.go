package audio

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// How long a started device may deliver nothing before the take fails: a sound server may take
// a while to deliver the first audio (PulseAudio's null sink takes up to 2 s) and may deliver
// in bursts. They are variables so tests can shorten them.
var (
	firstDataWithin = 5 * time.Second
	dataGapLimit    = 3 * time.Second
)

// ringSize holds 4 s of captured audio: the drain goroutine may fall that far behind, and a
// sound server may deliver in bursts.
const ringSize = 4 * SampleRate * 2

// Recorder records takes from an input device, one at a time. Its methods are safe for
// concurrent use: Stop may be called from any goroutine while Record runs.
type Recorder struct {
	backend Backend

	mu   sync.Mutex
	busy bool
	stop chan struct{} // closed by Stop; replaced for each take
}

// NewRecorder returns a recorder using the backend (see BackendFromEnv).
func NewRecorder(b Backend) *Recorder {
	return &Recorder{backend: b}
}

// ErrBusy means Record was called while another take was recording on the same Recorder.
var ErrBusy = errors.New("audio: the recorder is already recording")

// Stop ends the take being recorded, keeping what was recorded (StopCaller). It does nothing
// when no take is recording.
func (r *Recorder) Stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop != nil {
		close(r.stop)
		r.stop = nil
	}
}

// Record records one take from the input device and returns it when it ends: on Stop, on a
// cancelled ctx (both keep the audio and return no error), at the end of speech with
// opts.VAD, or at a limit. It returns an error without a take when no device could be opened
// or started. When the device fails or delivers only zeros for 2 s, it returns the take so far
// together with the error (also in Take.Err). The audio is encoded as it is captured.
func (r *Recorder) Record(ctx context.Context, opts TakeOptions) (*Take, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	w, err := newTakeWriter(opts)
	if err != nil {
		return nil, err
	}
	w.checkSilence = !opts.ThroughSilence
	r.mu.Lock()
	if r.busy {
		r.mu.Unlock()
		return nil, ErrBusy
	}
	r.busy = true
	stop := make(chan struct{})
	r.stop = stop
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.busy = false
		if r.stop == stop {
			r.stop = nil
		}
		r.mu.Unlock()
	}()

	mctx, err := r.backend.openContext()
	if err != nil {
		return nil, err
	}
	defer closeContext(mctx)
	q := newRing(ringSize)
	failed := make(chan struct{}, 1)
	dev, err := startCapture(mctx, opts.Device, q, failed)
	if err != nil {
		return nil, err
	}
	defer dev.Uninit()
	frame := make([]int16, 0, frameSamples)
	reason, cause := drain(ctx, w, q, stop, failed, &frame)
	_ = dev.Stop()
	// Keep what the device captured up to the stop.
	if reason == StopCaller || reason == StopCancelled {
		flush(w, q, &frame)
	}
	take, err := w.finish(reason, cause)
	take.Dropped = time.Duration(q.lost() / 2 * int64(time.Second) / SampleRate)
	return take, err
}

// startCapture opens and starts the capture device: 16 kHz mono S16 in 20 ms periods. The data
// callback only copies into q; failed is signalled if the device stops by itself.
func startCapture(mctx *malgo.AllocatedContext, want string, q *ring, failed chan<- struct{}) (*malgo.Device, error) {
	cfg := malgo.DefaultDeviceConfig(malgo.Capture)
	cfg.Capture.Format = malgo.FormatS16
	cfg.Capture.Channels = 1
	cfg.SampleRate = SampleRate
	cfg.PeriodSizeInMilliseconds = uint32(FrameDuration / time.Millisecond)
	var pin runtime.Pinner
	defer pin.Unpin()
	name := "the default input"
	if want != "" {
		devs, err := listDevices(mctx, malgo.Capture)
		if err != nil {
			return nil, err
		}
		d, err := matchDevice(devs, want)
		if err != nil {
			return nil, err
		}
		id := new(malgo.DeviceID)
		*id = d.raw
		pin.Pin(id)
		cfg.Capture.DeviceID = unsafe.Pointer(id)
		name = fmt.Sprintf("input %q", d.Name)
	}
	callbacks := malgo.DeviceCallbacks{
		Data: func(_, in []byte, _ uint32) { q.write(in) },
		Stop: func() {
			select {
			case failed <- struct{}{}:
			default:
			}
		},
	}
	dev, err := malgo.InitDevice(mctx.Context, cfg, callbacks)
	if err != nil {
		return nil, fmt.Errorf("%w: %s did not open: %v", ErrNoDevice, name, err)
	}
	if err := dev.Start(); err != nil {
		dev.Uninit()
		return nil, fmt.Errorf("%w: %s did not start: %v", ErrNoDevice, name, err)
	}
	return dev, nil
}

// drain feeds captured audio to the pipeline, frame by frame, until the take must end.
func drain(ctx context.Context, w *takeWriter, q *ring, stop, failed <-chan struct{}, frame *[]int16) (StopReason, error) {
	buf := make([]byte, ringSize)
	watchdog := time.NewTimer(firstDataWithin)
	defer watchdog.Stop()
	limit := firstDataWithin
	for {
		select {
		case <-q.ready:
		case <-stop:
			return StopCaller, nil
		case <-ctx.Done():
			return StopCancelled, nil
		case <-failed:
			return StopDeviceFailed, fmt.Errorf("%w: it stopped during the take", ErrDeviceFailed)
		case <-watchdog.C:
			return StopDeviceFailed, fmt.Errorf("%w: no audio arrived for %v", ErrDeviceFailed, limit)
		}
		n := q.read(buf, 2)
		if n == 0 {
			continue
		}
		limit = dataGapLimit
		watchdog.Reset(limit)
		if r, done := feed(w, buf[:n], frame); done {
			if r == StopSilentDevice {
				return r, fmt.Errorf("%w (%v of zeros)", ErrSilentDevice, silentDeviceAfter)
			}
			return r, nil
		}
	}
}

// feed converts little-endian S16 bytes into frames of frameSamples and feeds them; a partial
// frame stays in *frame for the next call.
func feed(w *takeWriter, b []byte, frame *[]int16) (StopReason, bool) {
	f := *frame
	for i := 0; i+1 < len(b); i += 2 {
		f = append(f, int16(uint16(b[i])|uint16(b[i+1])<<8))
		if len(f) == frameSamples {
			if w.opts.Filter != nil {
				w.opts.Filter(f, time.Now())
			}
			if r, done := w.frame(f); done {
				*frame = f[:0]
				return r, true
			}
			f = f[:0]
		}
	}
	*frame = f
	return 0, false
}

// flush feeds what is still in the ring after the device stopped, and the last partial frame.
func flush(w *takeWriter, q *ring, frame *[]int16) {
	buf := make([]byte, ringSize)
	n := q.read(buf, 2)
	if _, done := feed(w, buf[:n], frame); !done && len(*frame) > 0 {
		w.frame(*frame)
	}
}
