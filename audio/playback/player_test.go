package playback

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// fakeOutput stands in for the audio device: its voices read their PCM on their own goroutine,
// freely or one chunk per value sent on gate, and record what they played.
type fakeOutput struct {
	gate chan struct{} // nil: play as fast as the PCM comes

	mu        sync.Mutex
	played    bytes.Buffer // every voice's PCM, in the order it was read
	voices    []*fakeVoice
	playing   int // voices playing now
	maxAtOne  int // the most voices ever playing at once
	failure   error
	closes    int           // how many times the device was closed
	closedBad int           // closes that came while one of its voices was still open
	closed    chan struct{} // if not nil, signalled at each close
}

func (o *fakeOutput) close() {
	o.mu.Lock()
	voices := slices.Clone(o.voices)
	o.mu.Unlock()
	bad := 0
	for _, v := range voices { // a voice locks itself, then the output: not the other way round
		v.mu.Lock()
		if v.state != "closed" {
			bad++
		}
		v.mu.Unlock()
	}
	o.mu.Lock()
	o.closes++
	o.closedBad += bad
	o.mu.Unlock()
	if o.closed != nil {
		o.closed <- struct{}{}
	}
}

func (o *fakeOutput) closeCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closes
}

func (o *fakeOutput) newVoice(r io.Reader) voice {
	o.mu.Lock()
	defer o.mu.Unlock()
	v := &fakeVoice{out: o, src: r, volume: 1, done: make(chan struct{})}
	o.voices = append(o.voices, v)
	return v
}

func (o *fakeOutput) err() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.failure
}

type fakeVoice struct {
	out *fakeOutput
	src io.Reader

	mu      sync.Mutex
	state   string // "", "playing", "paused", "finished", "closed"
	volume  float64
	started bool
	done    chan struct{}
}

func (v *fakeVoice) Play() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.started {
		return
	}
	v.started, v.state = true, "playing"
	v.out.mu.Lock()
	v.out.playing++
	v.out.maxAtOne = max(v.out.maxAtOne, v.out.playing)
	v.out.mu.Unlock()
	go v.loop()
}

func (v *fakeVoice) loop() {
	defer close(v.done)
	defer func() {
		v.out.mu.Lock()
		v.out.playing--
		v.out.mu.Unlock()
	}()
	buf := make([]byte, 4096)
	for {
		if v.out.gate != nil {
			<-v.out.gate
		}
		v.mu.Lock()
		if v.state != "playing" {
			v.mu.Unlock()
			return
		}
		v.mu.Unlock()
		n, err := v.src.Read(buf)
		v.mu.Lock()
		if v.state == "playing" {
			v.out.mu.Lock()
			v.out.played.Write(buf[:n])
			v.out.mu.Unlock()
		}
		if err != nil && v.state == "playing" {
			v.state = "finished"
		}
		v.mu.Unlock()
		if err != nil {
			return
		}
		if n == 0 {
			time.Sleep(time.Millisecond) // as a device's period does when its sources have nothing
		}
	}
}

func (v *fakeVoice) Pause() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.state == "playing" {
		v.state = "paused"
	}
}

func (v *fakeVoice) IsPlaying() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state == "playing"
}

// BufferedSize is 0: the fake plays what it reads at once.
func (v *fakeVoice) BufferedSize() int { return 0 }

func (v *fakeVoice) SetVolume(x float64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.volume = x
}

func (v *fakeVoice) Close() error {
	v.mu.Lock()
	v.state = "closed"
	v.mu.Unlock()
	return nil
}

func (v *fakeVoice) Volume() float64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.volume
}

// recorder collects a player's events and lets a test wait for them.
type recorder struct {
	ch chan Event
}

func newRecorder() *recorder { return &recorder{ch: make(chan Event, 100)} }

func (r *recorder) onEvent(e Event) { r.ch <- e }

// next waits for the next event.
func (r *recorder) next(t *testing.T) Event {
	t.Helper()
	select {
	case e := <-r.ch:
		return e
	case <-t.Context().Done():
		t.Fatal("test ended while waiting for an event")
		return Event{}
	}
}

// until collects events up to and including the first of the given kind.
func (r *recorder) until(t *testing.T, kind EventKind) []Event {
	t.Helper()
	var got []Event
	for {
		e := r.next(t)
		got = append(got, e)
		if e.Kind == kind {
			return got
		}
	}
}

type step struct {
	kind EventKind
	clip ClipID
	err  error
}

func checkEvents(t *testing.T, got []Event, want []step) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events %v, want %d %v", len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || g.Clip != w.clip || !errors.Is(g.Err, w.err) || (w.err == nil && g.Err != nil) {
			t.Errorf("event %d = {%v clip %d err %v}, want {%v clip %d err %v}", i, g.Kind, g.Clip, g.Err, w.kind, w.clip, w.err)
		}
	}
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decoded(t *testing.T, mp3 []byte) []byte {
	t.Helper()
	pcm, err := DecodeAll(t.Context(), bytes.NewReader(mp3), OutputFormat)
	if err != nil {
		t.Fatal(err)
	}
	return pcm
}

func newTestPlayer(t *testing.T, out *fakeOutput, openErr error) (*Player, *recorder) {
	t.Helper()
	dev, _ := newTestDevice(out, openErr)
	return newTestPlayerOn(t, dev)
}

func newTestPlayerOn(t *testing.T, dev *device) (*Player, *recorder) {
	t.Helper()
	t.Cleanup(func() { goleak.VerifyNone(t, goleak.IgnoreCurrent()) })
	rec := newRecorder()
	p := newPlayer(dev, rec.onEvent)
	t.Cleanup(func() { p.Close() })
	return p, rec
}

// newTestDevice returns a device that opens out (or fails with openErr) and closes it idle when
// the test fires the clock's timers.
func newTestDevice(out *fakeOutput, openErr error) (*device, *fakeClock) {
	clock := &fakeClock{}
	dev := &device{idle: IdleClose, after: clock.after, open: func() (output, error) {
		if openErr != nil {
			return nil, openErr
		}
		clock.mu.Lock()
		clock.opens++
		clock.mu.Unlock()
		return out, nil
	}}
	return dev, clock
}

// fakeClock stands in for time.AfterFunc: its timers fire when the test says so. It also counts
// the device's opens.
type fakeClock struct {
	mu     sync.Mutex
	timers []*fakeTimer
	opens  int
}

type fakeTimer struct {
	d       time.Duration
	f       func()
	stopped bool
	fired   bool
}

func (c *fakeClock) after(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	tm := &fakeTimer{d: d, f: f}
	c.timers = append(c.timers, tm)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !tm.stopped && !tm.fired
		tm.stopped = true
		return was
	}
}

// pending returns the timers neither stopped nor fired.
func (c *fakeClock) pending() []*fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	var p []*fakeTimer
	for _, tm := range c.timers {
		if !tm.stopped && !tm.fired {
			p = append(p, tm)
		}
	}
	return p
}

// fire runs the timers pending, as if their time had come.
func (c *fakeClock) fire() {
	for _, tm := range c.pending() {
		c.mu.Lock()
		tm.fired = true
		c.mu.Unlock()
		tm.f()
	}
}

func (c *fakeClock) counts() (opens, armed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opens, len(c.timers)
}

func TestPlayer_BackToBack(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	p, rec := newTestPlayer(t, out, nil)
	clips := [][]byte{fixture(t, "tone440-24k-mono.mp3"), fixture(t, "speech-22k-mono.mp3"), fixture(t, "tone440-44k-stereo.mp3")}
	var want bytes.Buffer
	for _, c := range clips {
		want.Write(decoded(t, c))
		if _, err := p.Enqueue(bytes.NewReader(c)); err != nil {
			t.Fatal(err)
		}
	}
	close(out.gate) // all three are queued: let the output play
	got := rec.until(t, QueueDrained)
	checkEvents(t, got, []step{
		{ClipStarted, 1, nil}, {ClipEnded, 1, nil},
		{ClipStarted, 2, nil}, {ClipEnded, 2, nil},
		{ClipStarted, 3, nil}, {ClipEnded, 3, nil},
		{QueueDrained, 0, nil},
	})
	out.mu.Lock()
	defer out.mu.Unlock()
	if !bytes.Equal(out.played.Bytes(), want.Bytes()) {
		t.Errorf("the output got %d bytes, want the %d bytes of the three clips in order", out.played.Len(), want.Len())
	}
	if out.maxAtOne != 1 {
		t.Errorf("%d clips played at once, want one at a time", out.maxAtOne)
	}
	if d := got[1].Played; d < 900e6 {
		t.Errorf("clip 1 reports %v played, want its whole second", d)
	}
}

func TestPlayer_EnqueueWhilePlaying(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	p, rec := newTestPlayer(t, out, nil)
	tone := fixture(t, "tone440-24k-mono.mp3")
	if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
		t.Fatal(err)
	}
	out.gate <- struct{}{}
	checkEvents(t, []Event{rec.next(t)}, []step{{ClipStarted, 1, nil}})
	// The next sentence's speech arrives while the first plays.
	if _, err := p.EnqueueDataURI("data:audio/mpeg;base64," + encodeBase64(tone)); err != nil {
		t.Fatal(err)
	}
	close(out.gate) // let the output run freely
	checkEvents(t, rec.until(t, QueueDrained), []step{
		{ClipEnded, 1, nil}, {ClipStarted, 2, nil}, {ClipEnded, 2, nil}, {QueueDrained, 0, nil},
	})
}

func TestPlayer_Stop(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	p, rec := newTestPlayer(t, out, nil)
	tone := fixture(t, "tone440-24k-mono.mp3")
	for range 3 {
		if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
			t.Fatal(err)
		}
	}
	out.gate <- struct{}{}
	checkEvents(t, []Event{rec.next(t)}, []step{{ClipStarted, 1, nil}})
	p.Stop()
	close(out.gate)
	got := rec.until(t, QueueDrained)
	checkEvents(t, got, []step{
		{ClipEnded, 2, ErrStopped}, {ClipEnded, 3, ErrStopped}, {ClipEnded, 1, ErrStopped}, {QueueDrained, 0, nil},
	})
	out.mu.Lock()
	played, voices := out.played.Len(), len(out.voices)
	out.mu.Unlock()
	if full := len(decoded(t, tone)); played >= full {
		t.Errorf("output played %d bytes, want less than the clip's %d: Stop did not interrupt", played, full)
	}
	if voices != 1 {
		t.Errorf("%d voices were created, want 1 (the dropped clips never reach the output)", voices)
	}
	v := out.voices[0]
	<-v.done
	if v.IsPlaying() {
		t.Error("the stopped voice is still playing")
	}

	// The player keeps working after Stop.
	if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
		t.Fatal(err)
	}
	checkEvents(t, rec.until(t, QueueDrained), []step{{ClipStarted, 4, nil}, {ClipEnded, 4, nil}, {QueueDrained, 0, nil}})
}

func TestPlayer_Volume(t *testing.T) {
	tests := []struct {
		set, want float64
	}{{0.5, 0.5}, {0, 0}, {1, 1}, {-1, 0}, {3, 1}}
	for _, tt := range tests {
		out := &fakeOutput{gate: make(chan struct{})}
		p, rec := newTestPlayer(t, out, nil)
		p.SetVolume(tt.set)
		if got := p.Volume(); got != tt.want {
			t.Errorf("SetVolume(%v): Volume() = %v, want %v", tt.set, got, tt.want)
		}
		if _, err := p.Enqueue(bytes.NewReader(fixture(t, "tiny-22k-mono.mp3"))); err != nil {
			t.Fatal(err)
		}
		out.gate <- struct{}{}
		rec.next(t) // started
		if got := out.voices[0].Volume(); got != tt.want {
			t.Errorf("SetVolume(%v) before the clip: voice volume %v, want %v", tt.set, got, tt.want)
		}
		p.SetVolume(0.25) // while it plays
		if got := out.voices[0].Volume(); got != 0.25 {
			t.Errorf("SetVolume(0.25) while playing: voice volume %v", got)
		}
		close(out.gate)
		rec.until(t, QueueDrained)
		p.Close()
	}
}

func TestPlayer_BadClipDoesNotStopTheQueue(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	p, rec := newTestPlayer(t, out, nil)
	for _, c := range [][]byte{fixture(t, "tiny-22k-mono.mp3"), fixture(t, "crash-53.mp3"), nil, fixture(t, "tiny-22k-mono.mp3")} {
		if _, err := p.Enqueue(bytes.NewReader(c)); err != nil {
			t.Fatal(err)
		}
	}
	close(out.gate)
	checkEvents(t, rec.until(t, QueueDrained), []step{
		{ClipStarted, 1, nil}, {ClipEnded, 1, nil},
		{ClipEnded, 2, ErrMalformed},
		{ClipEnded, 3, ErrEmpty},
		{ClipStarted, 4, nil}, {ClipEnded, 4, nil},
		{QueueDrained, 0, nil},
	})
}

func TestPlayer_NoDevice(t *testing.T) {
	p, rec := newTestPlayer(t, nil, ErrNoDevice)
	if _, err := p.Enqueue(bytes.NewReader(fixture(t, "tiny-22k-mono.mp3"))); err != nil {
		t.Fatal(err)
	}
	checkEvents(t, rec.until(t, QueueDrained), []step{{ClipEnded, 1, ErrNoDevice}, {QueueDrained, 0, nil}})
}

func TestPlayer_DeviceFailsWhilePlaying(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	p, rec := newTestPlayer(t, out, nil)
	if _, err := p.Enqueue(bytes.NewReader(fixture(t, "tone440-24k-mono.mp3"))); err != nil {
		t.Fatal(err)
	}
	out.gate <- struct{}{}
	rec.next(t) // started
	out.mu.Lock()
	out.failure = errors.New("ALSA error at snd_pcm_writei")
	out.mu.Unlock()
	checkEvents(t, rec.until(t, QueueDrained), []step{{ClipEnded, 1, ErrNoDevice}, {QueueDrained, 0, nil}})
	close(out.gate)
}

func TestPlayer_Closed(t *testing.T) {
	p, _ := newTestPlayer(t, &fakeOutput{}, nil)
	p.Close()
	if _, err := p.Enqueue(bytes.NewReader(nil)); !errors.Is(err, ErrClosed) {
		t.Errorf("Enqueue after Close: err = %v, want ErrClosed", err)
	}
	if _, err := p.EnqueueDataURI("not a data uri"); !errors.Is(err, ErrDataURI) {
		t.Errorf("EnqueueDataURI(junk): err = %v, want ErrDataURI", err)
	}
}

func encodeBase64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// stalledReader gives the first n bytes of data, then blocks until release is closed, like a
// network stream that stops delivering.
type stalledReader struct {
	data    []byte
	n       int
	release chan struct{}
}

func (r *stalledReader) Read(b []byte) (int, error) {
	if r.n == 0 {
		<-r.release
		r.n = len(r.data)
	}
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	k := copy(b, r.data[:min(r.n, len(b), len(r.data))])
	r.data, r.n = r.data[k:], r.n-k
	return k, nil
}

// TestClipReader_NeverWaitsForTheDecoder checks that the output's reads never block when the
// decoder has nothing ready: the output reads holding the lock its mixer and Pause need, so a
// blocked read would stall the whole output and Stop.
func TestClipReader_NeverWaitsForTheDecoder(t *testing.T) {
	tone := fixture(t, "tone440-24k-mono.mp3")
	src := &stalledReader{data: tone, n: len(tone) / 2, release: make(chan struct{})}
	c := &clip{id: 1, stream: NewStream(t.Context(), src, OutputFormat), stop: make(chan struct{})}
	defer c.stream.Close()
	defer close(src.release)
	r := &clipReader{c: c}
	buf := make([]byte, 4096)
	done := make(chan struct{})
	var got int
	go func() {
		defer close(done)
		// Read everything the decoder can make of the first half, then keep reading: with the
		// source stalled, reads must come back empty instead of waiting.
		for empty := 0; empty < 100; {
			n, err := r.Read(buf)
			if err != nil {
				t.Errorf("Read: %v", err)
				return
			}
			got += n
			if n == 0 {
				empty++
				time.Sleep(time.Millisecond)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Read blocked while the decoder had nothing ready")
	}
	if got == 0 {
		t.Fatal("Read returned no PCM from the first half of the clip")
	}
	if full := len(decoded(t, tone)); got >= full {
		t.Fatalf("read %d bytes of %d with the source stalled half way", got, full)
	}
}

// Where the output does not tap what it plays, the tap gets every byte the players hand it, in
// order, in the output's format.
func TestPlayer_TapSeesWhatIsPlayed(t *testing.T) {
	if outputTaps {
		t.Skip("this platform's output taps what it plays itself (TestOutput_TapSeesWhatIsPlayed)")
	}
	var mu sync.Mutex
	var tapped bytes.Buffer
	SetTap(func(pcm []byte, f Format, _ time.Time) {
		if f != OutputFormat {
			t.Errorf("tap format %+v, want %+v", f, OutputFormat)
		}
		mu.Lock()
		tapped.Write(pcm)
		mu.Unlock()
	})
	defer SetTap(nil)
	out := &fakeOutput{}
	p, rec := newTestPlayer(t, out, nil)
	clip := fixture(t, "tone440-24k-mono.mp3")
	if _, err := p.Enqueue(bytes.NewReader(clip)); err != nil {
		t.Fatal(err)
	}
	rec.until(t, QueueDrained)
	mu.Lock()
	defer mu.Unlock()
	if want := decoded(t, clip); !bytes.Equal(tapped.Bytes(), want) {
		t.Errorf("the tap got %d bytes, want the clip's %d", tapped.Len(), len(want))
	}
}

func TestPlayer_PauseHoldsTheClipAndResumeGoesOn(t *testing.T) {
	out := &fakeOutput{gate: make(chan struct{})}
	p, rec := newTestPlayer(t, out, nil)
	tone := fixture(t, "tone440-24k-mono.mp3")
	if _, err := p.Enqueue(bytes.NewReader(tone)); err != nil {
		t.Fatal(err)
	}
	out.gate <- struct{}{} // one read of the clip
	checkEvents(t, []Event{rec.next(t)}, []step{{ClipStarted, 1, nil}})
	p.Pause()
	const held = 5
	for range held {
		out.gate <- struct{}{}
	}
	out.gate <- struct{}{} // the read after the last held one has been handed over
	out.mu.Lock()
	before := out.played.Len()
	out.mu.Unlock()
	p.Resume()
	close(out.gate)
	checkEvents(t, rec.until(t, QueueDrained), []step{{ClipEnded, 1, nil}, {QueueDrained, 0, nil}})

	out.mu.Lock()
	played := bytes.Clone(out.played.Bytes())
	out.mu.Unlock()
	want := decoded(t, tone)
	const read = 4096 // the fake voice's reads
	if before < (1+held)*read {
		t.Fatalf("%d bytes played before Resume, want at least %d", before, (1+held)*read)
	}
	// The pause's first read hands the clip's next pauseFade, fading out; then silence.
	fb := OutputFormat.BytesPerSecond() * int(pauseFade/time.Millisecond) / 1000
	silence := played[read+fb : (1+held)*read]
	if !bytes.Equal(silence, make([]byte, len(silence))) {
		t.Error("the output was handed sound while paused")
	}
	// Take the silence out: what is left is the whole clip, in order, nothing skipped, faded
	// out where it paused and in where it went on.
	var rest []byte
	for off := (1 + held) * read; off+read <= len(played); off += read {
		if !bytes.Equal(played[off:off+read], make([]byte, read)) {
			rest = played[off:]
			break
		}
	}
	got := append(bytes.Clone(played[:read+fb]), rest...)
	want = bytes.Clone(want)
	fadeOut(want[read : read+fb])
	fadeInto(want[read+fb:], fadeFrames)
	if !bytes.Equal(got, want) {
		t.Errorf("after Resume the output played %d bytes of the clip, want its %d, the same but for the fades", len(got), len(want))
	}
}

// A pause fades the clip out over pauseFade, and its end fades it in, across the reads it takes:
// no click.
func TestFade_RampsOutAndIn(t *testing.T) {
	pcm := func(n int) []byte {
		b := make([]byte, 4*n)
		for i := 0; i < len(b); i += 2 {
			binary.LittleEndian.PutUint16(b[i:], uint16(int16(10000)))
		}
		return b
	}
	sample := func(b []byte, frame int) int16 { return int16(binary.LittleEndian.Uint16(b[4*frame:])) }
	out := pcm(fadeFrames)
	fadeOut(out)
	if first, last := sample(out, 0), sample(out, fadeFrames-1); first != 10000 || last > 100 {
		t.Errorf("fading out: %d to %d, want 10000 to about 0", first, last)
	}
	// Fading in over two reads: 100 frames, then the rest and more.
	in1, in2 := pcm(100), pcm(2*fadeFrames)
	left := fadeInto(in1, fadeFrames)
	if left != fadeFrames-100 {
		t.Fatalf("%d frames of the fade left after 100, want %d", left, fadeFrames-100)
	}
	if left = fadeInto(in2, left); left != 0 {
		t.Fatalf("%d frames of the fade left, want 0", left)
	}
	in := append(in1, in2...)
	if first, mid, after := sample(in, 0), sample(in, fadeFrames/2), sample(in, fadeFrames); first != 0 || mid < 4900 || mid > 5100 || after != 10000 {
		t.Errorf("fading in: %d, %d at its middle, %d after it, want 0, 5000, 10000", first, mid, after)
	}
	for i := 1; i < fadeFrames; i++ {
		if sample(out, i) > sample(out, i-1) || sample(in, i) < sample(in, i-1) {
			t.Fatalf("the fades are not monotonic at frame %d", i)
		}
	}
}

// A pause that falls inside a frame of the clip hands the output the clip up to a whole frame
// before its silence, and keeps the rest for when the clip goes on: the clip's frames stay the
// output's. A clip that has handed nothing yet when it is paused hands silence at once.
func TestClipReader_PauseKeepsFramesWhole(t *testing.T) {
	// A decoder with nothing ready: the clip is what was decoded in advance.
	src := &stalledReader{data: fixture(t, "tone440-24k-mono.mp3"), release: make(chan struct{})}
	stream := NewStream(t.Context(), src, OutputFormat)
	defer stream.Close()
	defer close(src.release)
	var paused atomic.Bool
	paused.Store(true)
	pcm := make([]byte, 1001)
	for i := range pcm {
		pcm[i] = byte(i)
	}
	fresh := &clipReader{c: &clip{paused: &paused}, pending: bytes.Clone(pcm)}
	b := make([]byte, 4096)
	if n, err := fresh.Read(b); err != nil || n != len(b) || !bytes.Equal(b, make([]byte, len(b))) || fresh.c.handed.Load() != 0 {
		t.Errorf("a clip paused before it began: Read = %d, %v, %d bytes handed; want silence and nothing of it", n, err, fresh.c.handed.Load())
	}

	for _, before := range []int64{4, 6} { // on a frame, and half a frame in
		c := &clip{paused: &paused, stream: stream}
		c.handed.Store(before)
		r := &clipReader{c: c, pending: bytes.Clone(pcm)}
		n, err := r.Read(b)
		if err != nil || n != len(b) {
			t.Fatalf("Read = %d, %v; want %d, nil", n, err, len(b))
		}
		took := int(c.handed.Load() - before)
		if (before+int64(took))%4 != 0 || took < 997 {
			t.Errorf("%d bytes in: %d bytes of the clip handed, want it up to its last whole frame", before, took)
		}
		if !bytes.Equal(r.pending, pcm[took:]) {
			t.Errorf("%d bytes in: kept %v for the clip to go on with, want the rest of its frame", before, r.pending)
		}
		if !bytes.Equal(b[took:], make([]byte, len(b)-took)) {
			t.Errorf("%d bytes in: the pause's silence is not silent", before)
		}
	}
}
