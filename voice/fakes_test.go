package voice_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad/vadtest"
	"parley/client"
	"parley/media"
	"parley/voice"
)

// The scripted world of the loop's tests: a fake clock that the microphone drives (each 20 ms
// frame it delivers moves the clock 20 ms), a microphone that plays espeak speech and hears
// the loudspeaker's echo, a service with set delays, and a loudspeaker that plays clips on the
// fake clock and timestamps them.

// fakeClock is a clock moved only by Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []fakeTimer
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{c.now.Add(d), ch})
	return ch
}

// sleep waits d on the clock, or until ctx ends.
func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-c.After(d):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Advance moves the clock on by d, fires the timers due, and waits (up to timerWake of real
// time each) until whoever waits on them has woken: a goroutine that reads the clock just after
// its timer fires reads the time it fired at, not a frame or more later because the scheduler
// ran it late on a busy machine. A timer nobody waits on any more costs timerWake, once.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	var fired []chan time.Time
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
			fired = append(fired, t.ch)
		} else {
			kept = append(kept, t)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	for _, ch := range fired {
		for deadline := time.Now().Add(timerWake); len(ch) > 0 && time.Now().Before(deadline); {
			runtime.Gosched()
		}
	}
	if len(fired) > 0 {
		runtime.Gosched() // the woken goroutines run on to their next step
	}
}

// timerWake bounds how long Advance waits for a fired timer to be received.
const timerWake = 20 * time.Millisecond

// fakeMic delivers frames: low noise, the loudspeaker's echo, and speech the test queues.
type fakeMic struct {
	clock *fakeClock
	sink  *fakeSink
	// echoGain is how loud the echo is against what the loudspeaker plays (1: as loud).
	echoGain float64
	// pace is the real time each frame takes, so that the loop and the service goroutines keep
	// up with the fake clock.
	pace time.Duration

	mu      sync.Mutex
	speech  []int16       // queued speech, played from the next frame
	drained chan struct{} // closed when the queued speech has been played
	spoken  []time.Time
	rng     *rand.Rand
	failAt  int // frame number at which ReadFrame fails; 0 never
	frames  int
	zeros   bool // deliver digital silence instead of noise
	onFrame func(n int)
	loop    *voice.Loop
}

func newFakeMic(clock *fakeClock, sink *fakeSink) *fakeMic {
	return &fakeMic{clock: clock, sink: sink, pace: time.Millisecond, rng: rand.New(rand.NewPCG(1, 2))}
}

// say queues speech to start at the next frame, at gain (1: as recorded).
func (m *fakeMic) say(p media.PCM, gain float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.spoken = append(m.spoken, m.clock.Now())
	for _, s := range p.Samples {
		m.speech = append(m.speech, clamp16(float64(s)*gain))
	}
}

// quiet returns a channel closed once the speech queued so far has been played.
func (m *fakeMic) quiet() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.speech) == 0 {
		ch := make(chan struct{})
		close(ch)
		return ch
	}
	if m.drained == nil {
		m.drained = make(chan struct{})
	}
	return m.drained
}

func (m *fakeMic) ReadFrame(ctx context.Context, frame []int16) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	time.Sleep(m.pace)
	// The clock moves with the frames: wait until the loop has handled the ones it has.
	for m.loop != nil && m.loop.Backlog() > 0 && ctx.Err() == nil {
		time.Sleep(50 * time.Microsecond)
	}
	m.mu.Lock()
	m.frames++
	n := m.frames
	fail := m.failAt > 0 && n >= m.failAt
	on := m.onFrame
	m.mu.Unlock()
	if fail {
		return fmt.Errorf("%w: the fake device was unplugged", audio.ErrDeviceFailed)
	}
	now := m.clock.Now()
	echo := m.sink.frameAt(now, len(frame))
	m.mu.Lock()
	for i := range frame {
		v := 0.0
		if !m.zeros {
			v = m.rng.NormFloat64() * 30 // about -60 dBFS
		}
		if echo != nil {
			v += float64(echo[i]) * m.echoGain
		}
		if len(m.speech) > 0 {
			v += float64(m.speech[0])
			m.speech = m.speech[1:]
		}
		frame[i] = clamp16(v)
	}
	if len(m.speech) == 0 && m.drained != nil {
		close(m.drained)
		m.drained = nil
	}
	m.mu.Unlock()
	m.clock.Advance(audio.FrameDuration)
	m.sink.tick(m.clock.Now())
	if on != nil {
		on(n)
	}
	return nil
}

func clamp16(v float64) int16 {
	return int16(max(min(math.Round(v), 32767), -32768))
}

// fakeSink plays clips one after another on the fake clock, and tells the loop as the real
// player does. It is not playbacktest.Player because the loop's tests need what a real
// loudspeaker does in time: each clip decoded and played for its length on the fake clock, one
// at a time, its samples heard by the microphone as echo (or through a room), Stop cutting the
// clip off mid-way at a time the trace records, and a clip that fails when it is reached.
type fakeSink struct {
	clock *fakeClock

	mu       sync.Mutex
	loop     *voice.Loop
	next     playback.ClipID
	queue    []*sinkClip
	playing  *sinkClip
	started  []time.Time // when each clip started, in order
	played   []playback.ClipID
	stops    []time.Time
	failNext error
	waiters  []sinkWaiter
	room     *room // when set, the microphone hears the clips through it
	paused   bool  // pausingSink's Pause: the clip playing holds, silent
	pausedAt time.Time
	pauses   []time.Time
	resumes  []time.Time
}

// pausingSink is a fakeSink that can pause (voice.Pauser), as *playback.Player does.
type pausingSink struct{ *fakeSink }

func (s pausingSink) Pause() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.paused {
		s.paused, s.pausedAt = true, s.clock.Now()
		s.pauses = append(s.pauses, s.pausedAt)
	}
}

func (s pausingSink) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.paused {
		return
	}
	now := s.clock.Now()
	if c := s.playing; c != nil {
		c.start = c.start.Add(now.Sub(s.pausedAt)) // it goes on from where it paused
	}
	s.paused = false
	s.resumes = append(s.resumes, now)
}

// pauseTimes returns when the sink paused and resumed.
func (s *fakeSink) pauseTimes() (pauses, resumes []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.pauses...), append([]time.Time(nil), s.resumes...)
}

// sinkWaiter is a channel closed once n clips have started.
type sinkWaiter struct {
	n  int
	ch chan struct{}
}

type sinkClip struct {
	id    playback.ClipID
	pcm   []int16
	start time.Time
	err   error
}

func (s *fakeSink) emit(ev playback.Event) {
	if s.loop != nil {
		s.loop.PlaybackEvent(ev)
	}
}

func (s *fakeSink) Enqueue(r io.Reader) (playback.ClipID, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, err
	}
	c := &sinkClip{}
	pcm, err := playback.DecodeAll(context.Background(), bytes.NewReader(data), playback.Format{SampleRate: audio.SampleRate, Channels: 1})
	if err != nil {
		c.err = err
	}
	c.pcm = make([]int16, len(pcm)/2)
	for i := range c.pcm {
		c.pcm[i] = int16(uint16(pcm[2*i]) | uint16(pcm[2*i+1])<<8)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failNext != nil {
		c.err, s.failNext = s.failNext, nil
	}
	s.next++
	c.id = s.next
	s.queue = append(s.queue, c)
	if s.playing == nil {
		s.startNext(s.clock.Now())
	}
	return c.id, nil
}

// startNext starts the next clip, with s.mu held.
func (s *fakeSink) startNext(now time.Time) {
	for len(s.queue) > 0 {
		c := s.queue[0]
		s.queue = s.queue[1:]
		if c.err != nil {
			s.emit(playback.Event{Kind: playback.ClipEnded, Clip: c.id, Err: c.err, At: now})
			continue
		}
		c.start = now
		s.playing = c
		if s.room != nil {
			s.room.play(c.pcm, now)
		}
		s.started = append(s.started, now)
		s.emit(playback.Event{Kind: playback.ClipStarted, Clip: c.id, At: now})
		kept := s.waiters[:0]
		for _, w := range s.waiters {
			if len(s.started) >= w.n {
				close(w.ch)
			} else {
				kept = append(kept, w)
			}
		}
		s.waiters = kept
		return
	}
	s.emit(playback.Event{Kind: playback.QueueDrained, At: now})
}

// tick ends the clip playing when its time is up, and starts the next.
func (s *fakeSink) tick(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.paused {
		return
	}
	if c := s.playing; c != nil && now.Sub(c.start) >= time.Duration(len(c.pcm))*time.Second/audio.SampleRate {
		s.playing = nil
		s.played = append(s.played, c.id)
		s.emit(playback.Event{Kind: playback.ClipEnded, Clip: c.id, At: now})
		s.startNext(now)
	}
}

// frameAt is what the loudspeaker plays in the n samples from now, or nil.
func (s *fakeSink) frameAt(now time.Time, n int) []int16 {
	if s.room != nil {
		return s.room.frameAt(now, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.playing
	if c == nil || s.paused {
		return nil
	}
	off := int(now.Sub(c.start) * audio.SampleRate / time.Second)
	if off < 0 || off >= len(c.pcm) {
		return nil
	}
	out := make([]int16, n)
	copy(out, c.pcm[off:])
	return out
}

func (s *fakeSink) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	if s.playing == nil && len(s.queue) == 0 {
		return
	}
	s.stops = append(s.stops, now)
	if s.room != nil {
		s.room.stop(now)
	}
	if c := s.playing; c != nil {
		s.emit(playback.Event{Kind: playback.ClipEnded, Clip: c.id, Err: playback.ErrStopped, At: now})
	}
	for _, c := range s.queue {
		s.emit(playback.Event{Kind: playback.ClipEnded, Clip: c.id, Err: playback.ErrStopped, At: now})
	}
	s.playing, s.queue = nil, nil
	s.emit(playback.Event{Kind: playback.QueueDrained, At: now})
}

// clipsStarted returns a channel closed once n clips have started playing.
func (s *fakeSink) clipsStarted(n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := make(chan struct{})
	if len(s.started) >= n {
		close(ch)
	} else {
		s.waiters = append(s.waiters, sinkWaiter{n, ch})
	}
	return ch
}

func (s *fakeSink) startedTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.started...)
}

func (s *fakeSink) stopTimes() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Time(nil), s.stops...)
}

// fakeService is the Chat and Voice Service with set delays on the fake clock, and scripted
// transcripts and failures.
type fakeService struct {
	clock                                *fakeClock
	transcribeDelay, chatDelay, ttsDelay time.Duration
	mp3                                  []byte

	mu          sync.Mutex
	transcripts []string // returned in order; the last repeats
	transcribed int
	uploads     [][]byte
	questions   []string
	replies     []string // returned in order; the last repeats
	ttsAsked    []string
	language    string   // the language every transcript is said to be in
	langAsked   []string // the language each transcription asked for
	voices      []string // the voice of each speech call
	failSTT     []error  // the n-th transcription fails with failSTT[n] when not nil
	failChat    []error
	sttCanceled int
	chatStarted chan struct{}
}

func (f *fakeService) Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error) {
	f.mu.Lock()
	n := f.transcribed
	f.transcribed++
	f.uploads = append(f.uploads, req.Audio)
	f.langAsked = append(f.langAsked, req.Language)
	f.mu.Unlock()
	if err := f.clock.sleep(ctx, f.transcribeDelay); err != nil {
		f.mu.Lock()
		f.sttCanceled++
		f.mu.Unlock()
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if n < len(f.failSTT) && f.failSTT[n] != nil {
		return nil, f.failSTT[n]
	}
	if len(req.Audio) == 0 || req.MIMEType == "" {
		return nil, fmt.Errorf("fake service: empty upload")
	}
	return &client.Transcript{Text: f.transcripts[min(n, len(f.transcripts)-1)], Language: f.language}, nil
}

func (f *fakeService) Chat(ctx context.Context, q string) (string, error) {
	f.mu.Lock()
	n := len(f.questions)
	f.questions = append(f.questions, q)
	started := f.chatStarted
	f.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if err := f.clock.sleep(ctx, f.chatDelay); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if n < len(f.failChat) && f.failChat[n] != nil {
		return "", f.failChat[n]
	}
	return f.replies[min(n, len(f.replies)-1)], nil
}

func (f *fakeService) Speak(ctx context.Context, req client.SpeechRequest) (*client.Speech, error) {
	f.mu.Lock()
	f.ttsAsked = append(f.ttsAsked, req.Text)
	f.voices = append(f.voices, req.Voice)
	f.mu.Unlock()
	if err := f.clock.sleep(ctx, f.ttsDelay); err != nil {
		return nil, err
	}
	return &client.Speech{MIMEType: "audio/mpeg", Audio: f.mp3}, nil
}

func (f *fakeService) count() (transcribed, chats, tts int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.transcribed, len(f.questions), len(f.ttsAsked)
}

// corpus is espeak speech, made once for all tests.
var corpus struct {
	once     sync.Once
	dir      string
	question media.PCM // "What is the capital of France?"
	second   media.PCM // "And how far away is it?"
	ack      media.PCM // "Okay.", an acknowledgement
	mp3      []byte    // a spoken sentence, as the speech service sends it
}

func speech(t testing.TB) {
	t.Helper()
	vadtest.Require(t)
	corpus.once.Do(func() {
		dir, err := os.MkdirTemp("", "parley-voice-")
		if err != nil {
			t.Fatal(err)
		}
		corpus.dir = dir
		corpus.question = vadtest.Read(t, vadtest.Say(t, dir, "q1", "What is the capital of France?"))
		corpus.second = vadtest.Read(t, vadtest.Say(t, dir, "q2", "And how far away is it?"))
		corpus.ack = vadtest.Read(t, vadtest.Say(t, dir, "ack", "Okay."))
		corpus.mp3, err = os.ReadFile(filepath.Join("..", "audio", "playback", "testdata", "speech-22k-mono.mp3"))
		if err != nil {
			t.Fatal(err)
		}
	})
	if corpus.question.Samples == nil {
		t.Fatal("the speech corpus could not be made")
	}
}

// world is one test's loop with its fakes.
type world struct {
	t     *testing.T
	clock *fakeClock
	mic   *fakeMic
	sink  *fakeSink
	svc   *fakeService
	loop  *voice.Loop

	changed chan struct{} // a status was added

	mu       sync.Mutex
	statuses []voice.Status
	trace    []voice.TraceEvent
	heard    []string
	levels   int
	onStatus func(voice.Status)
}

// newWorld makes a world; tweak its Config through edit before the loop is built.
func newWorld(t *testing.T, edit func(*voice.Config)) *world {
	t.Helper()
	speech(t)
	w := &world{t: t, clock: newFakeClock(), changed: make(chan struct{}, 1)}
	w.sink = &fakeSink{clock: w.clock}
	w.mic = newFakeMic(w.clock, w.sink)
	w.mic.echoGain = 0.5
	w.svc = &fakeService{clock: w.clock, transcribeDelay: 300 * time.Millisecond, chatDelay: 500 * time.Millisecond,
		ttsDelay: 200 * time.Millisecond, mp3: corpus.mp3,
		transcripts: []string{"What is the capital of France?"}, replies: []string{"Paris is the capital of France."}}
	cfg := voice.Config{
		Source: w.mic, Transcriber: w.svc, Chat: w.svc, Synth: w.svc, Player: w.sink, Clock: w.clock,
		Hold: 600 * time.Millisecond,
		OnStatus: func(s voice.Status) {
			w.mu.Lock()
			w.statuses = append(w.statuses, s)
			f := w.onStatus
			w.mu.Unlock()
			select {
			case w.changed <- struct{}{}:
			default:
			}
			if f != nil {
				f(s)
			}
		},
		OnTrace: func(e voice.TraceEvent) {
			w.mu.Lock()
			w.trace = append(w.trace, e)
			w.mu.Unlock()
		},
		OnHeard: func(_ int, q string) {
			w.mu.Lock()
			w.heard = append(w.heard, q)
			w.mu.Unlock()
		},
		OnLevel: func(float64) {
			w.mu.Lock()
			w.levels++
			w.mu.Unlock()
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	w.loop = voice.New(cfg)
	w.sink.loop = w.loop
	w.mic.loop = w.loop
	return w
}

// run runs the loop in the background; the returned channel gets Run's result.
func (w *world) run() <-chan error {
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() {
		err := w.loop.Run(context.Background())
		close(finished)
		done <- err
	}()
	w.t.Cleanup(func() {
		w.loop.Stop()
		select {
		case <-finished:
		case <-time.After(10 * time.Second):
			w.t.Error("Run did not return after Stop")
		}
	})
	return done
}

// hangAfter is how long, in real time, a test waits before it takes the loop for hung. It bounds
// a wait, it does not time the loop: a turn on the fake clock takes a few seconds of real time
// under the race detector, and several times that when the machine is shared.
const hangAfter = time.Minute

// waitState waits (in real time) until the loop has shown a status that match accepts.
func (w *world) waitState(what string, match func(voice.Status) bool) voice.Status {
	w.t.Helper()
	deadline := time.After(hangAfter)
	seen := 0
	for {
		w.mu.Lock()
		for ; seen < len(w.statuses); seen++ {
			if match(w.statuses[seen]) {
				s := w.statuses[seen]
				w.mu.Unlock()
				return s
			}
		}
		w.mu.Unlock()
		select {
		case <-w.changed:
		case <-deadline:
			w.t.Fatalf("the loop never reached %s; states: %s", what, w.states())
			return voice.Status{}
		}
	}
}

// waitFor waits for a state of a turn.
func (w *world) waitFor(turn int, s voice.State) voice.Status {
	w.t.Helper()
	return w.waitState(fmt.Sprintf("%v in turn %d", s, turn), func(st voice.Status) bool { return st.Turn == turn && st.State == s })
}

// states lists the states shown so far, without repeats.
func (w *world) states() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, s := range w.statuses {
		name := fmt.Sprintf("%d:%v", s.Turn, s.State)
		if len(out) == 0 || out[len(out)-1] != name {
			out = append(out, name)
		}
	}
	return strings.Join(out, " ")
}

func (w *world) traceOf(turn int) []voice.TraceEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []voice.TraceEvent
	for _, e := range w.trace {
		if e.Turn == turn {
			out = append(out, e)
		}
	}
	return out
}

func (w *world) event(turn int, kind voice.TraceKind, index int) (time.Time, bool) {
	for _, e := range w.traceOf(turn) {
		if e.Kind == kind && e.Index == index {
			return e.At, true
		}
	}
	return time.Time{}, false
}

// wait waits for Run's result, as long as the loop keeps moving: it is taken for hung when it
// has shown no new status for hangAfter (a run of 50 turns takes more than that under the race
// detector on a busy machine, and is not hung).
func (w *world) wait(done <-chan error) error {
	w.t.Helper()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	seen, moved := -1, time.Now()
	for {
		select {
		case err := <-done:
			return err
		case <-tick.C:
			w.mu.Lock()
			n := len(w.statuses)
			w.mu.Unlock()
			if n != seen {
				seen, moved = n, time.Now()
			} else if time.Since(moved) > hangAfter {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				w.t.Fatalf("Run did not return, and showed nothing new for %v; states: %s\ngoroutines:\n%s", hangAfter, w.states(), buf)
				return nil
			}
		}
	}
}
