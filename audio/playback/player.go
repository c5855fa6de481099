package playback

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Errors of the player; match them with errors.Is.
var (
	// ErrStopped is how a clip ends when Stop or Close interrupts or drops it.
	ErrStopped = errors.New("playback stopped")
	// ErrClosed means the player was closed.
	ErrClosed = errors.New("player closed")
)

// pollInterval is how often the player checks whether the clip on the output has finished;
// it bounds the gap between two clips.
const pollInterval = 5 * time.Millisecond

// ClipID identifies a clip given to a Player, in the order they were enqueued.
type ClipID uint64

// EventKind says what happened to the playback.
type EventKind int

// The kinds of events, in the order they happen to a clip.
const (
	// ClipStarted: the output's mixer took the clip's first PCM (seen within pollInterval); it
	// is audible after the device's latency (about 43 ms of ALSA buffer, plus a sound server's).
	ClipStarted EventKind = iota + 1
	// ClipEnded: the output's mixer took the clip's last PCM (Err nil; the device still holds
	// up to DrainTime of it), or the clip failed or was stopped (Err says why). Every enqueued
	// clip ends exactly once.
	ClipEnded
	// QueueDrained: nothing is left to play, after the last clip ended or after a Stop.
	QueueDrained
)

// String names the kind for logs.
func (k EventKind) String() string {
	switch k {
	case ClipStarted:
		return "clip started"
	case ClipEnded:
		return "clip ended"
	case QueueDrained:
		return "queue drained"
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event reports a change in the playback.
type Event struct {
	// Kind says what happened.
	Kind EventKind
	// Clip is the clip concerned; zero for QueueDrained.
	Clip ClipID
	// Err, for ClipEnded, is nil when the clip played to its end, or why it did not.
	Err error
	// Played, for ClipEnded, is how much of the clip's audio the output's mixer took.
	Played time.Duration
	// At is when it happened.
	At time.Time
}

// Player plays MP3 clips one after another on the process's audio output. Clips are decoded
// from the moment they are enqueued, so the next one is ready when the current one ends. Its
// methods are safe for concurrent use. Events reach the callback given to New on a goroutine of
// the player's own, in order, never from the audio path.
type Player struct {
	dev    *device
	ctx    context.Context
	cancel context.CancelFunc
	events eventQueue
	wg     sync.WaitGroup // the queue goroutine

	mu      sync.Mutex
	pending []*clip
	current *clip
	running bool
	closed  bool
	volume  float64
	speed   float64
	lastID  ClipID
	paused  atomic.Bool // Pause: the clips hand the output silence
}

type clip struct {
	paused  *atomic.Bool // the player's (nil: never paused)
	id      ClipID
	stream  *Stream
	stop    chan struct{} // closed when the clip is stopped
	stopped bool          // guarded by Player.mu
	voice   voice         // guarded by Player.mu; set while on the output
	started atomic.Bool
	handed  atomic.Int64 // bytes of PCM handed to the output
	mixed   atomic.Int64 // bytes of PCM the output's mixer took, as last seen
}

// New returns a player whose events go to onEvent (nil to ignore them). It opens the process's
// audio output when a clip is to be played, holds it until its queue drains, and then lets it
// close after IdleClose; see OpenOutput.
func New(onEvent func(Event)) *Player {
	return newPlayer(theDevice, onEvent)
}

func newPlayer(dev *device, onEvent func(Event)) *Player {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Player{dev: dev, ctx: ctx, cancel: cancel, volume: 1, speed: 1}
	p.events.deliver = onEvent
	return p
}

// Enqueue adds the MP3 read from r to the queue and starts decoding it. r is read on a goroutine
// of the player's and should be in memory (a bytes.Reader, or OpenDataURI's reader): a reader
// that stalls mid-clip makes a gap in the sound, since the output never waits for it. How the
// clip ends comes as its ClipEnded event: with an error wrapping ErrNoDevice when the process
// has no audio output, ErrMalformed or ErrEmpty when it is not playable audio.
func (p *Player) Enqueue(r io.Reader) (ClipID, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, ErrClosed
	}
	p.lastID++
	c := &clip{id: p.lastID, stream: NewStreamAtSpeed(p.ctx, r, OutputFormat, p.speed), stop: make(chan struct{}), paused: &p.paused}
	p.pending = append(p.pending, c)
	if !p.running {
		p.running = true
		p.wg.Add(1)
		go p.run()
	}
	return c.id, nil
}

// EnqueueDataURI adds an MP3 given as a data URI, as the speech service returns it, to the queue.
// A string that is not an audio data URI is refused with ErrDataURI.
func (p *Player) EnqueueDataURI(uri string) (ClipID, error) {
	r, err := OpenDataURI(uri)
	if err != nil {
		return 0, err
	}
	return p.Enqueue(r)
}

// SetVolume sets the volume, from 0 (silent) to 1 (as decoded; the default), for the clip playing
// and those after it. Values outside the range are clamped.
func (p *Player) SetVolume(v float64) {
	v = min(max(v, 0), 1)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.volume = v
	if p.current != nil && p.current.voice != nil {
		p.current.voice.SetVolume(v)
	}
}

// SetSpeed sets how many times as fast as made the clips enqueued from now play, their pitch
// kept: from MinSpeed to MaxSpeed (ClampSpeed), 1 by default. Clips already enqueued keep
// theirs. Where the speed cannot be changed (SpeedAvailable), clips play as made.
func (p *Player) SetSpeed(s float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.speed = ClampSpeed(s)
}

// Volume returns the volume set by SetVolume.
func (p *Player) Volume() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.volume
}

// Pause holds the playback where it is: from now, the output plays silence (after the little it
// has buffered, the device's latency) instead of the clip, whose audio is kept, until Resume goes
// on from where it paused. Barge-in pauses a reply while it tells a question from "uh-huh". Clips
// enqueued meanwhile wait too; Stop still stops them.
func (p *Player) Pause() { p.paused.Store(true) }

// Resume goes on playing after Pause.
func (p *Player) Resume() { p.paused.Store(false) }

// Stop silences the clip playing at once (the output pauses it and drops what it buffered), and
// drops the clips waiting. Each ends with ErrStopped, then QueueDrained follows. Clips enqueued
// after Stop play as usual.
func (p *Player) Stop() {
	p.mu.Lock()
	dropped := p.pending
	p.pending = nil
	cur := p.current
	var v voice
	if cur != nil && !cur.stopped {
		cur.stopped = true
		close(cur.stop)
		v = cur.voice
	}
	for _, c := range dropped {
		p.events.push(Event{Kind: ClipEnded, Clip: c.id, Err: ErrStopped})
	}
	p.mu.Unlock()
	if v != nil {
		v.Pause()
	}
	if cur != nil {
		cur.stream.cancel() // unblocks an output waiting for PCM
	}
	for _, c := range dropped {
		c.stream.Close()
	}
}

// Close stops playback, waits until the player's goroutines have finished and its last events
// were delivered, and makes later Enqueue calls fail with ErrClosed. Do not call it from the event
// callback, which it waits for.
func (p *Player) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.Stop()
	p.wg.Wait()
	p.cancel()
	p.events.wait()
	return nil
}

// run plays the queue until it is empty. It opens the output for the first clip and holds it
// until the queue is empty, so that it never closes between two clips; when it cannot be opened,
// every clip of the queue ends with that error, and the next queue tries again.
func (p *Player) run() {
	defer p.wg.Done()
	var out output
	var openErr error
	for {
		p.mu.Lock()
		if len(p.pending) == 0 && out != nil {
			// Let go of the output before QueueDrained, and not under mu: opening the device for
			// another player holds release up. A clip enqueued meanwhile opens it again.
			p.mu.Unlock()
			p.dev.release()
			out = nil
			p.mu.Lock()
		}
		if len(p.pending) == 0 {
			p.running = false
			p.current = nil
			p.events.push(Event{Kind: QueueDrained})
			p.mu.Unlock()
			return
		}
		c := p.pending[0]
		p.pending = p.pending[1:]
		p.current = c
		p.mu.Unlock()

		if out == nil && openErr == nil {
			out, openErr = p.dev.acquire()
		}
		err := openErr
		if out != nil {
			err = p.play(c, out)
		}
		c.stream.Close()
		p.mu.Lock()
		p.current = nil
		if c.stopped {
			err = ErrStopped
		}
		p.events.push(Event{Kind: ClipEnded, Clip: c.id, Err: err, Played: OutputFormat.Duration(c.mixed.Load())})
		p.mu.Unlock()
	}
}

// play plays one clip on the output and returns how it ended.
func (p *Player) play(c *clip, out output) error {
	// The output reads a voice's source on its own goroutine, holding the lock its mixer, Pause and
	// IsPlaying take (oto also fills the voice's buffer before it starts): so hand it a buffer's
	// worth of PCM decoded in advance, and never make it wait for the decoder after that (see
	// clipReader).
	r := &clipReader{c: c, pending: make([]byte, voiceBuffer)}
	n, err := io.ReadFull(c.stream, r.pending)
	r.pending = r.pending[:n]
	if n == 0 {
		if c.stream.Err() == nil && errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return c.stream.Err()
	}
	v := out.newVoice(r)
	defer v.Close()
	p.mu.Lock()
	if c.stopped {
		p.mu.Unlock()
		return ErrStopped
	}
	c.voice = v
	v.SetVolume(p.volume)
	v.Play() // under mu, so a Stop either comes before (and is seen above) or pauses this voice
	p.mu.Unlock()

	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		// The output's mixer has taken PCM from the voice once less is buffered than was handed to
		// it. Load the count first: a Read between the two calls then makes the difference
		// smaller, never larger.
		handed := c.handed.Load()
		mixed := handed - int64(v.BufferedSize())
		if c.mixed.Load() < mixed {
			c.mixed.Store(mixed)
		}
		if mixed > 0 && !c.started.Swap(true) {
			p.events.push(Event{Kind: ClipStarted, Clip: c.id})
		}
		if !v.IsPlaying() {
			break
		}
		select {
		case <-tick.C:
		case <-c.stop:
			// Stop paused the voice: what it still buffers was never mixed.
			c.mixed.Store(max(c.mixed.Load(), c.handed.Load()-int64(v.BufferedSize())))
			return ErrStopped
		}
		if err := out.err(); err != nil {
			return fmt.Errorf("%w: the output failed: %v", ErrNoDevice, err)
		}
	}
	if !c.started.Swap(true) {
		p.events.push(Event{Kind: ClipStarted, Clip: c.id}) // a clip shorter than one poll
	}
	c.mixed.Store(c.handed.Load())
	return c.stream.Err()
}

// clipReader hands a clip's PCM to the output: first what play decoded in advance, then what the
// decoder has ready, without waiting for more (0 bytes when it has none, and the output plays
// silence for that period). It ends every clip with io.EOF, so the output plays what was decoded
// before an error; the error itself is reported by ClipEnded.
type clipReader struct {
	c       *clip
	pending []byte
	// fadeIn: frames of the clip still to fade in after a pause; all of them (fadeFrames) while
	// nothing of the clip has been handed since it paused.
	fadeIn int
}

// pauseFade is how long a pause fades the clip out over, and its end fades it in again: cut
// off at once, the clip would click, and its echo with it (a click an echo canceller cannot take
// away whole, heard in the question of the person who paused it).
const pauseFade = 10 * time.Millisecond

// fadeFrames is pauseFade in frames of OutputFormat.
var fadeFrames = OutputFormat.SampleRate * int(pauseFade/time.Millisecond) / 1000

func (r *clipReader) Read(b []byte) (int, error) {
	pausing := r.c.paused != nil && r.c.paused.Load()
	if pausing && (r.fadeIn == fadeFrames || r.c.handed.Load() == 0) {
		// Paused: silence, and none of the clip taken (handed counts the clip's bytes only). A
		// clip silent since it last paused, or not begun yet, has nothing to fade out.
		r.fadeIn = fadeFrames
		clear(b)
		if tap := theTap.Load(); tap != nil && !outputTaps {
			(*tap)(b, OutputFormat, time.Time{})
		}
		return len(b), nil
	}
	frame := int64(2 * OutputFormat.Channels)
	handed := r.c.handed.Load()
	// b starts where the clip is, which may be inside a frame: its first whole one is at start.
	start := int((frame - handed%frame) % frame)
	var n int
	var err error
	if pausing {
		// The first Read of a pause hands the clip's next pauseFade, fading out, then silence,
		// ending on a frame of the clip (what is left of it waits for the clip to go on).
		n, err = r.fill(b[:min(len(b), start+fadeFrames*int(frame))])
		if rem := int((handed + int64(n)) % frame); rem != 0 && n >= rem {
			r.pending = append(bytes.Clone(b[n-rem:n]), r.pending...)
			n -= rem
		}
	} else {
		n, err = r.take(b)
	}
	r.c.handed.Add(int64(n))
	switch {
	case pausing:
		fadeOut(b[min(start, n):n])
		clear(b[n:])
		n, r.fadeIn = len(b), fadeFrames
	case r.fadeIn > 0:
		r.fadeIn = fadeInto(b[min(start, n):n], r.fadeIn)
	}
	if tap := theTap.Load(); tap != nil && n > 0 && !outputTaps {
		(*tap)(b[:n], OutputFormat, time.Time{})
	}
	if err != nil {
		return n, io.EOF
	}
	return n, nil
}

// take hands b what play decoded in advance, or else what the decoder has ready.
func (r *clipReader) take(b []byte) (int, error) {
	if len(r.pending) > 0 {
		n := copy(b, r.pending)
		r.pending = r.pending[n:]
		return n, nil
	}
	return r.c.stream.readAvailable(b)
}

// fill is take until b is full, the decoder has nothing ready, or the clip ends.
func (r *clipReader) fill(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		k, err := r.take(b[n:])
		n += k
		if err != nil || k == 0 {
			return n, err
		}
	}
	return n, nil
}

// fadeOut ramps the whole frames of pcm (OutputFormat, from its start) down to silence.
func fadeOut(pcm []byte) {
	frames := len(pcm) / (2 * OutputFormat.Channels)
	for i := range frames {
		scaleFrame(pcm, i, 1-float64(i)/float64(frames))
	}
}

// fadeInto ramps the first frames of pcm (OutputFormat, from its start) up, left frames of the
// fade still to go, and returns how many are left after them.
func fadeInto(pcm []byte, left int) int {
	frames := len(pcm) / (2 * OutputFormat.Channels)
	i := 0
	for ; i < frames && left > 0; i, left = i+1, left-1 {
		scaleFrame(pcm, i, float64(fadeFrames-left)/float64(fadeFrames))
	}
	return left
}

// scaleFrame scales frame i of pcm (OutputFormat) by g.
func scaleFrame(pcm []byte, i int, g float64) {
	for ch := range OutputFormat.Channels {
		k := (i*OutputFormat.Channels + ch) * 2
		v := int16(binary.LittleEndian.Uint16(pcm[k:]))
		binary.LittleEndian.PutUint16(pcm[k:], uint16(int16(float64(v)*g)))
	}
}

// theTap receives what the output plays; see SetTap.
var theTap atomic.Pointer[func(pcm []byte, f Format, at time.Time)]

// SetTap makes fn receive the PCM the process's audio output plays, in the output's Format, an
// echo canceller's reference: on Linux everything the output writes to the device, silence
// included, with at the moment its first sample is heard as the device tells it (zero when it
// cannot); elsewhere what the players hand to the output, as they hand it, with a zero at. fn is
// called on the output's goroutine and must return at once, without keeping pcm. nil removes
// the tap.
func SetTap(fn func(pcm []byte, f Format, at time.Time)) {
	if fn == nil {
		theTap.Store(nil)
		return
	}
	theTap.Store(&fn)
}

// eventQueue delivers events in order on its own goroutine, started when there is something to
// deliver; push never blocks.
type eventQueue struct {
	deliver func(Event)

	mu      sync.Mutex
	queue   []Event
	running bool
	idle    *sync.Cond
}

func (q *eventQueue) push(e Event) {
	if q.deliver == nil {
		return
	}
	e.At = time.Now()
	q.mu.Lock()
	defer q.mu.Unlock()
	q.queue = append(q.queue, e)
	if !q.running {
		q.running = true
		go q.run()
	}
}

func (q *eventQueue) run() {
	for {
		q.mu.Lock()
		if len(q.queue) == 0 {
			q.running = false
			if q.idle != nil {
				q.idle.Broadcast()
			}
			q.mu.Unlock()
			return
		}
		e := q.queue[0]
		q.queue = q.queue[1:]
		q.mu.Unlock()
		q.deliver(e)
	}
}

// wait returns when every event pushed so far has been delivered.
func (q *eventQueue) wait() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.idle == nil {
		q.idle = sync.NewCond(&q.mu)
	}
	for q.running {
		q.idle.Wait()
	}
}
