package voice

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad"
	"parley/client"
)

// State is where the hands-free loop is in a turn.
type State int

// The loop's states, in the order a turn goes through them.
const (
	Idle          State = iota // not running, or stopped
	Listening                  // waiting for speech
	HearingSpeech              // the voice detector hears speech; the take is being recorded
	Transcribing               // the take is being turned into text
	Thinking                   // the question was sent to chat; waiting for the reply
	Speaking                   // the reply is being spoken
	Muted                      // the microphone is muted; nothing heard is used
	Error                      // a step failed; the loop listens again after a pause
)

var stateNames = [...]string{"idle", "listening", "hearing speech", "transcribing", "thinking", "speaking", "muted", "error"}

// String names the state as people read it.
func (s State) String() string {
	if s < 0 || int(s) >= len(stateNames) {
		return fmt.Sprintf("state(%d)", int(s))
	}
	return stateNames[s]
}

// Status is what the loop shows: its state, and what goes with it.
type Status struct {
	State State
	// Turn counts the turns from 1.
	Turn int
	// Muted is set while the microphone is muted, whatever the state (a reply may be spoken
	// while muted).
	Muted bool
	// Stopping is set after Stop while a chat call already sent finishes, so it is stored.
	Stopping bool
	// Err is what failed, in the Error state.
	Err error
	// Notice is a short message for the person, such as "Didn't catch that".
	Notice string
}

// Source delivers microphone audio: 20 ms frames of 16 kHz mono, one after another, in real
// time. *audio.Capture is one.
type Source interface {
	ReadFrame(ctx context.Context, frame []int16) error
}

// Transcriber turns speech into text; *client.Client is one.
type Transcriber interface {
	Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error)
}

// Chatter sends one question in the current conversation and returns the reply. The loop
// never cancels a chat call that has been sent (it is charged, and its reply is stored): the
// Chatter's own timeout bounds it.
type Chatter interface {
	Chat(ctx context.Context, question string) (reply string, err error)
}

// Clock tells the time for the loop's trace and timers; nil in Config means the real clock.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Defaults of Config.
const (
	DefaultMaxFailures  = 3
	DefaultBargeInDB    = 10.0
	DefaultBargeInAfter = 80 * time.Millisecond
	DefaultErrorPause   = 1500 * time.Millisecond
	// DefaultEchoGuard is how long after playback ends the microphone is still ignored: what
	// the output device and a sound server still hold (playback.DrainTime), and the room's echo.
	DefaultEchoGuard = playback.DrainTime + 250*time.Millisecond
	// MaxUtterance bounds one question: a take is sent when speech has gone on this long.
	MaxUtterance = 2 * time.Minute
	// silentNoticeAfter is how long a microphone may deliver only digital silence before the
	// loop says so (it goes on listening: a sound server's idle source does this too).
	silentNoticeAfter = 5 * time.Second
)

// Config sets up a Loop. Source, Transcriber, Chat, Synth and Player are required.
type Config struct {
	Source      Source
	Transcriber Transcriber
	Chat        Chatter
	Synth       Synthesizer
	// Player plays the reply's clips; tell the loop its events through Loop.PlaybackEvent.
	Player Queue
	// Clock is nil for the real clock.
	Clock Clock

	// Voice is the speech voice ("" for the service's default).
	Voice string
	// Hold is the silence that ends a question (vad.Config.Hold; 0 means its default).
	Hold time.Duration
	// Encoding of the takes sent for transcription; the zero value is WebM/Opus.
	Encoding audio.Encoding

	// BargeIn lets the person interrupt a spoken reply by talking: sustained speech clearly
	// louder than the playback's echo stops it and starts a new turn. Off, everything the
	// microphone hears while the reply is spoken is ignored.
	BargeIn bool
	// BargeInDB is how much louder than the expected echo speech must be; 0 means 10 dB.
	BargeInDB float64
	// BargeInAfter is how long such speech must last; 0 means 80 ms.
	BargeInAfter time.Duration
	// EchoGuard is how long after playback ends the microphone is still ignored; 0 means
	// DefaultEchoGuard.
	EchoGuard time.Duration

	// ListenTimeout ends Run with ErrNoSpeech when no speech starts within it, counted from each
	// time the loop starts listening; 0 listens for ever.
	ListenTimeout time.Duration
	// Turns ends Run after that many completed turns; 0 runs until Stop.
	Turns int
	// MaxFailures ends Run after that many failed turns in a row; 0 means 3.
	MaxFailures int
	// ErrorPause is how long the Error state lasts before listening again; 0 means 1.5 s.
	ErrorPause time.Duration
	// SpeakErrors speaks a short notice when a turn fails, when speech still works.
	SpeakErrors bool

	// Observers, called on the loop's goroutine: they must return quickly.
	OnStatus func(Status)
	// OnLevel gets the microphone's level in dBFS, 25 times a second.
	OnLevel func(dbfs float64)
	// OnTrace gets each event of the latency trace.
	OnTrace func(TraceEvent)
	// OnHeard gets the question as transcribed, before it is sent; OnReply gets the reply.
	OnHeard func(turn int, question string)
	OnReply func(turn int, reply string)
}

// Errors Run ends with.
var (
	// ErrNoSpeech means no speech started within Config.ListenTimeout.
	ErrNoSpeech = errors.New("no speech was heard")
	// ErrRunning means Run was called while the loop was running.
	ErrRunning = errors.New("voice: the loop is already running")
)

// FailuresError ends Run after Config.MaxFailures failed turns in a row.
type FailuresError struct {
	N    int
	Last error
}

func (e *FailuresError) Error() string {
	return fmt.Sprintf("stopped after %d failed turns in a row; the last: %v", e.N, e.Last)
}

func (e *FailuresError) Unwrap() error { return e.Last }

// StepError says which step of a turn failed.
type StepError struct {
	Step string // "transcribe", "chat" or "speak"
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Cause is the error behind a failed step, for saying what went wrong without the step's
// name; other errors are returned as they are.
func Cause(err error) error {
	var se *StepError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}

// Loop is the hands-free conversation: listen, hear a question, transcribe it, ask the chat,
// speak the reply, listen again. It imports no UI; the app and the CLI drive it the same way.
type Loop struct {
	cfg   Config
	clock Clock

	mu      sync.Mutex
	running bool
	muted   bool
	inbox   []any
	wake    chan struct{}
	backlog atomic.Int64 // frames read from the source and not handled yet
}

// New returns a loop with cfg.
func New(cfg Config) *Loop {
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.MaxFailures <= 0 {
		cfg.MaxFailures = DefaultMaxFailures
	}
	if cfg.BargeInDB == 0 {
		cfg.BargeInDB = DefaultBargeInDB
	}
	if cfg.BargeInAfter <= 0 {
		cfg.BargeInAfter = DefaultBargeInAfter
	}
	if cfg.EchoGuard <= 0 {
		cfg.EchoGuard = DefaultEchoGuard
	}
	if cfg.ErrorPause <= 0 {
		cfg.ErrorPause = DefaultErrorPause
	}
	return &Loop{cfg: cfg, clock: cfg.Clock, wake: make(chan struct{}, 1)}
}

// Messages to the loop's goroutine.
type (
	stopMsg  struct{}
	muteMsg  bool
	frameMsg struct {
		samples []int16
		at      time.Time
	}
	sourceErr   struct{ err error }
	transcribed struct {
		turn int
		text string
		err  error
	}
	replied struct {
		turn  int
		reply string
		err   error
	}
	said struct {
		turn int
		err  error
	}
	clipQueued struct {
		turn, index int
		id          playback.ClipID
	}
	envelopeMsg struct {
		id  playback.ClipID
		env []float64
	}
	traceMsg struct {
		turn  int
		kind  TraceKind
		index int
		at    time.Time
	}
	playbackMsg playback.Event
)

func (l *Loop) post(m any) {
	l.mu.Lock()
	l.inbox = append(l.inbox, m)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

func (l *Loop) take() []any {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.inbox
	l.inbox = nil
	return m
}

// Stop ends the loop at any point: calls not yet charged (transcription, speech) are
// cancelled and playback stops; a chat call already sent finishes and is stored, then Run
// returns. It does nothing when the loop is not running.
func (l *Loop) Stop() { l.post(stopMsg{}) }

// SetMuted mutes or unmutes the microphone: while muted nothing it hears is used, and a
// question being recorded is dropped.
func (l *Loop) SetMuted(m bool) {
	l.mu.Lock()
	l.muted = m
	l.mu.Unlock()
	l.post(muteMsg(m))
}

// Muted reports whether the microphone is muted.
func (l *Loop) Muted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.muted
}

// PlaybackEvent tells the loop what the player did; wire the player's event callback to it.
// It never blocks.
func (l *Loop) PlaybackEvent(ev playback.Event) { l.post(playbackMsg(ev)) }

// run is the state of one Run.
type run struct {
	l      *Loop
	frames <-chan any // from the source's reader
	cfg    *Config
	ctx    context.Context
	start  time.Time

	state    State
	turn     int
	done     int // completed turns
	failures int
	muted    bool
	stopping bool
	stopErr  error // the chat call that Stop waited for failed
	notice   string
	err      error

	// A notice spoken after a failure: the loop listens again only once it has been heard.
	noticeSaying              bool
	noticeQueued, noticeEnded int
	waitNotice                bool

	// Listening.
	tb          *audio.TakeBuilder
	listenedFor time.Duration // audio heard since listening began, without speech
	speechFor   time.Duration // audio heard since speech started
	guard       int           // frames still to ignore (echo after playback)
	zeros       time.Duration // digital silence in a row
	silentSaid  bool
	level       levelMeter
	hold        time.Duration

	// The turn's calls.
	turnCtx    context.Context
	turnCancel context.CancelFunc
	chatting   bool
	pause      <-chan time.Time

	// Speaking.
	speaker  *Speaker
	sayDone  bool
	clips    map[playback.ClipID]*clip
	queued   int
	ended    int
	barge    bargeIn
	preroll  []frameMsg
	envelope map[playback.ClipID][]float64
	early    map[playback.ClipID][]playback.Event // events of clips not known yet
}

type clip struct {
	turn, index int
	started     time.Time
	playing     bool
	ended       bool
	endedAt     time.Time
}

// Run runs the loop until Stop, ctx ends (both return nil), Config.Turns turns are done (nil),
// no speech starts within Config.ListenTimeout (ErrNoSpeech), the microphone fails, the
// audio output is missing, or Config.MaxFailures turns in a row fail (*FailuresError).
func (l *Loop) Run(ctx context.Context) error {
	l.mu.Lock()
	if l.running {
		l.mu.Unlock()
		return ErrRunning
	}
	l.running = true
	// Only a Stop sent before Run is kept from earlier: it stops this run at once.
	var kept []any
	for _, m := range l.inbox {
		if _, ok := m.(stopMsg); ok {
			kept = append(kept, m)
		}
	}
	l.inbox = kept
	muted := l.muted
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.running = false
		l.mu.Unlock()
	}()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &run{l: l, cfg: &l.cfg, ctx: ctx, start: l.clock.Now(), muted: muted,
		clips: map[playback.ClipID]*clip{}, envelope: map[playback.ClipID][]float64{},
		early: map[playback.ClipID][]playback.Event{}}
	r.hold = vad.Config{Hold: l.cfg.Hold}.WithDefaults().Hold
	r.speaker = NewSpeaker(l.cfg.Synth, &tapQueue{Queue: l.cfg.Player, r: r})
	r.speaker.trace = func(turn, index int, done bool) {
		kind := TraceTTSSent
		if done {
			kind = TraceTTSDone
		}
		l.post(traceMsg{turn, kind, index, l.clock.Now()})
	}
	r.barge.reset(l.cfg)

	frames := make(chan any, 64)
	r.frames = frames
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		for {
			f := make([]int16, audio.FrameSamples)
			if err := l.cfg.Source.ReadFrame(ctx, f); err != nil {
				select {
				case frames <- sourceErr{err}:
				case <-ctx.Done():
				}
				return
			}
			l.backlog.Add(1)
			select {
			case frames <- frameMsg{f, l.clock.Now()}:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		cancel()
		<-readerDone
	}()

	if err := r.listen(true); err != nil {
		return err
	}
	for {
		var m any
		select {
		case m = <-frames:
		case <-l.wake:
		case <-r.pause:
			r.pause = nil
			if r.stopping {
				continue
			}
			if r.noticeSaying || r.noticeEnded < r.noticeQueued {
				r.waitNotice = true // listen once the notice has been heard
				continue
			}
			if err := r.listen(true); err != nil {
				return r.finish(err)
			}
			continue
		case <-ctx.Done():
			return r.finish(nil)
		}
		msgs := l.take()
		if m != nil {
			msgs = append(msgs, m)
		}
		for i, m := range msgs {
			end, err := r.handle(m)
			if end {
				// What came after is still to be seen: finish may wait for a reply among it.
				l.mu.Lock()
				l.inbox = append(msgs[i+1:len(msgs):len(msgs)], l.inbox...)
				l.mu.Unlock()
				return r.finish(err)
			}
		}
	}
}

// finish ends a run: stops what is under way, and waits for a chat call already sent.
func (r *run) finish(err error) error {
	r.speaker.Stop()
	if r.turnCancel != nil {
		r.turnCancel()
	}
	if r.chatting {
		r.stopping = true
		r.show()
		for {
			// The reply may be in the inbox already (put back by Run), or yet to come.
			for _, m := range r.l.take() {
				if rep, ok := m.(replied); ok && rep.turn == r.turn {
					r.chatting = false
					r.gotReply(rep)
				}
			}
			if !r.chatting {
				break
			}
			select {
			case <-r.l.wake:
			case m := <-r.frames:
				if _, ok := m.(frameMsg); ok {
					r.l.backlog.Add(-1) // heard while stopping: not used
				}
			}
		}
	}
	r.stopping = false
	if err == nil && r.stopErr != nil {
		err = r.stopErr // the question sent before Stop failed: it was not stored
	}
	r.set(Idle)
	return err
}

// handle processes one message; end reports that Run must return err.
func (r *run) handle(m any) (end bool, err error) {
	switch m := m.(type) {
	case stopMsg:
		return true, nil
	case muteMsg:
		r.setMuted(bool(m))
	case sourceErr:
		return true, fmt.Errorf("the microphone stopped working: %w", m.err)
	case frameMsg:
		defer r.l.backlog.Add(-1)
		return r.frame(m)
	case transcribed:
		if m.turn == r.turn && r.state == Transcribing {
			return r.gotTranscript(m)
		}
	case replied:
		if m.turn == r.turn {
			r.chatting = false
			return r.gotReply(m)
		}
	case said:
		if m.turn == noticeTurn {
			r.noticeSaying = false
			return false, r.noticeDone()
		}
		if m.turn == r.turn && r.state == Speaking {
			r.sayDone = true
			if m.err != nil && !errors.Is(m.err, context.Canceled) {
				if errors.Is(m.err, ErrNothingToSay) {
					return r.turnDone()
				}
				return r.fail(&StepError{"speak", m.err})
			}
			return r.maybeSpoken()
		}
	case clipQueued:
		r.clips[m.id] = &clip{turn: m.turn, index: m.index}
		switch m.turn {
		case r.turn:
			r.queued++
		case noticeTurn:
			r.noticeQueued++
		}
		// The player may have told of the clip before the speaker told which one it was.
		early := r.early[m.id]
		delete(r.early, m.id)
		for _, ev := range early {
			if end, err := r.playback(ev); end {
				return end, err
			}
		}
	case envelopeMsg:
		r.envelope[m.id] = m.env
	case traceMsg:
		r.trace(m.turn, m.kind, m.index, m.at)
	case playbackMsg:
		return r.playback(playback.Event(m))
	}
	return false, nil
}

func (r *run) show() {
	if r.cfg.OnStatus != nil {
		r.cfg.OnStatus(Status{State: r.state, Turn: r.turn, Muted: r.muted, Stopping: r.stopping, Err: r.err, Notice: r.notice})
	}
}

func (r *run) set(s State) {
	if s != Error {
		r.err = nil
	}
	r.state = s
	r.show()
	r.notice = ""
}

func (r *run) setMuted(m bool) {
	if m == r.muted {
		return
	}
	r.muted = m
	switch {
	case m && (r.state == Listening || r.state == HearingSpeech):
		r.tb = nil // a question being recorded is dropped
		r.set(Muted)
	case !m && r.state == Muted:
		if err := r.listen(false); err != nil {
			r.err = err
		}
	default:
		r.show()
	}
}

// listen starts listening for a question: for the next turn when next is set, else again for
// the same one (after an empty take, or unmuting).
func (r *run) listen(next bool) error {
	return r.listenFrom(next, 0)
}

// listenFrom is listen with the voice detector's noise floor known (below 0 dBFS), for speech
// already under way.
func (r *run) listenFrom(next bool, floor float64) error {
	vc := vad.Config{Hold: r.cfg.Hold, InitialFloor: floor}
	tb, err := audio.NewTakeBuilder(audio.TakeOptions{VAD: true, VADConfig: vc, Encoding: r.cfg.Encoding})
	if err != nil {
		return err
	}
	r.tb = tb
	r.speechFor = 0
	if next || r.turn == 0 {
		r.listenedFor = 0
		clear(r.early)
		r.turn++
		if r.turnCancel != nil {
			r.turnCancel()
		}
		r.turnCtx, r.turnCancel = context.WithCancel(r.ctx)
		r.sayDone, r.queued, r.ended = false, 0, 0
	}
	if r.muted {
		r.tb = nil
		r.set(Muted)
	} else {
		r.set(Listening)
	}
	return nil
}

// frame handles 20 ms of microphone audio.
func (r *run) frame(m frameMsg) (bool, error) {
	f := m.samples
	db := vad.FrameDBFS(f)
	if lvl, ok := r.level.add(db); ok && r.cfg.OnLevel != nil {
		r.cfg.OnLevel(lvl)
	}
	if db <= -120 {
		r.zeros += audio.FrameDuration
		if r.zeros >= silentNoticeAfter && !r.silentSaid && (r.state == Listening || r.state == HearingSpeech) {
			r.silentSaid = true
			r.notice = "The microphone delivers only silence: check that it is on and not muted."
			r.show()
		}
	} else {
		r.zeros = 0
	}
	if r.state == Speaking && r.cfg.BargeIn && !r.muted {
		r.preroll = append(r.preroll, m)
		if len(r.preroll) > 30 {
			r.preroll = r.preroll[1:]
		}
		if r.bargeIn(db, m.at) {
			r.trace(r.turn, TraceBargeIn, -1, m.at)
			r.speaker.Stop()
			// The new question starts with the frames that made the barge-in (and two before
			// them); what came earlier is the reply's echo. Its floor is the room's, without it.
			pre := r.preroll[max(0, len(r.preroll)-r.barge.run-r.barge.miss-2):]
			r.preroll = nil
			r.done++
			r.failures = 0
			if err := r.listenFrom(true, min(r.barge.floor, -1)); err != nil {
				return true, err
			}
			for _, p := range pre {
				if end, err := r.feed(p); end || err != nil {
					return end, err
				}
			}
			return false, nil
		}
		return false, nil
	}
	if r.guard > 0 {
		r.guard--
		return false, nil
	}
	if r.tb == nil || r.muted {
		return false, nil
	}
	return r.feed(m)
}

// feed gives a frame to the take being listened for.
func (r *run) feed(m frameMsg) (bool, error) {
	reason, stop := r.tb.Feed(m.samples)
	if r.tb.Speech() {
		if r.state == Listening {
			r.set(HearingSpeech)
		}
		r.speechFor += audio.FrameDuration
		if !stop && r.speechFor >= MaxUtterance {
			reason, stop = audio.StopMaxDuration, true
		}
	} else {
		r.listenedFor += audio.FrameDuration
		if r.cfg.ListenTimeout > 0 && r.listenedFor >= r.cfg.ListenTimeout {
			return true, ErrNoSpeech
		}
	}
	if !stop {
		return false, nil
	}
	heard := r.tb.Heard()
	take, err := r.tb.Finish(reason)
	r.tb = nil
	if err != nil {
		return r.fail(&StepError{"record", err})
	}
	if take.Empty() {
		// Nothing to send: listen on, as if this take never happened.
		return false, r.listen(false)
	}
	// The frame that ended the take arrived at m.at; place the speech on the clock from it.
	at := func(pos time.Duration) time.Time { return m.at.Add(pos - heard) }
	r.trace(r.turn, TraceSpeechStart, -1, at(take.Skipped+take.SpeechStart))
	r.trace(r.turn, TraceSpeechEnd, -1, at(take.Skipped+take.SpeechEnd))
	r.set(Transcribing)
	r.trace(r.turn, TraceTranscribeSent, -1, r.l.clock.Now())
	turn, ctx := r.turn, r.turnCtx
	go func() {
		tr, err := r.cfg.Transcriber.Transcribe(ctx, client.TranscribeRequest{Audio: take.Audio, MIMEType: take.MIME})
		var text string
		if err == nil {
			text = tr.Text
		}
		r.l.post(traceMsg{turn, TraceTranscribeDone, -1, r.l.clock.Now()})
		r.l.post(transcribed{turn, text, err})
	}()
	return false, nil
}

func (r *run) gotTranscript(m transcribed) (bool, error) {
	if m.err != nil {
		if r.turnCtx.Err() != nil {
			return false, nil
		}
		return r.fail(&StepError{"transcribe", m.err})
	}
	q := strings.TrimSpace(m.text)
	if IsNoise(q) {
		// Never sent: an empty transcript, or only noise.
		if err := r.listen(false); err != nil {
			return true, err
		}
		r.notice = "Didn't catch that."
		r.show()
		return false, nil
	}
	if r.cfg.OnHeard != nil {
		r.cfg.OnHeard(r.turn, q)
	}
	r.set(Thinking)
	r.trace(r.turn, TraceChatSent, -1, r.l.clock.Now())
	r.chatting = true
	turn := r.turn
	// The chat call is charged once sent: Stop does not cancel it.
	ctx := context.WithoutCancel(r.ctx)
	go func() {
		reply, err := r.cfg.Chat.Chat(ctx, q)
		r.l.post(traceMsg{turn, TraceChatDone, -1, r.l.clock.Now()})
		r.l.post(replied{turn, reply, err})
	}()
	return false, nil
}

func (r *run) gotReply(m replied) (bool, error) {
	if m.err != nil {
		if r.stopping {
			r.stopErr = &StepError{"chat", m.err}
			return false, nil
		}
		return r.fail(&StepError{"chat", m.err})
	}
	if r.cfg.OnReply != nil {
		r.cfg.OnReply(m.turn, m.reply)
	}
	if r.stopping {
		return false, nil
	}
	r.set(Speaking)
	r.barge.start()
	r.preroll = nil
	turn, ctx := r.turn, r.turnCtx
	go func() {
		err := r.speaker.say(ctx, turn, m.reply, r.cfg.Voice, func(index int, id playback.ClipID) {
			r.l.post(clipQueued{turn, index, id})
		})
		r.l.post(said{turn, err})
	}()
	return false, nil
}

// playback follows the player's events.
func (r *run) playback(ev playback.Event) (bool, error) {
	c := r.clips[ev.Clip]
	if c == nil {
		if ev.Kind != playback.QueueDrained && len(r.early) < 64 {
			r.early[ev.Clip] = append(r.early[ev.Clip], ev)
		}
		return false, nil
	}
	switch ev.Kind {
	case playback.ClipStarted:
		c.started, c.playing = ev.At, true
		r.trace(c.turn, TracePlaybackStart, c.index, ev.At)
	case playback.ClipEnded:
		c.playing, c.ended, c.endedAt = false, true, ev.At
		if !c.started.IsZero() {
			r.trace(c.turn, TracePlaybackEnd, c.index, ev.At)
		}
		if c.turn == noticeTurn {
			delete(r.clips, ev.Clip)
			r.noticeEnded++
			return false, r.noticeDone()
		}
		if c.turn != r.turn || r.state != Speaking {
			delete(r.clips, ev.Clip)
			delete(r.envelope, ev.Clip)
			return false, nil
		}
		r.ended++
		if ev.Err != nil && !errors.Is(ev.Err, playback.ErrStopped) {
			if errors.Is(ev.Err, playback.ErrNoDevice) {
				return true, fmt.Errorf("replies cannot be spoken: %w", ev.Err)
			}
			r.speaker.Stop()
			return r.fail(&StepError{"speak", ev.Err})
		}
		return r.maybeSpoken()
	}
	return false, nil
}

// maybeSpoken ends the turn once the whole reply was queued and has played.
func (r *run) maybeSpoken() (bool, error) {
	if !r.sayDone || r.ended < r.queued {
		return false, nil
	}
	for id, c := range r.clips {
		if c.ended {
			delete(r.clips, id)
			delete(r.envelope, id)
		}
	}
	return r.turnDone()
}

// turnDone ends a turn that worked, and listens again (or ends Run after Config.Turns).
func (r *run) turnDone() (bool, error) {
	r.done++
	r.failures = 0
	if r.cfg.Turns > 0 && r.done >= r.cfg.Turns {
		return true, nil
	}
	r.guard = int(r.cfg.EchoGuard / audio.FrameDuration)
	return false, r.listen(true)
}

// fail handles a failed step: says so, pauses, and listens again, or ends Run after too many.
func (r *run) fail(err error) (bool, error) {
	r.failures++
	if r.failures >= r.cfg.MaxFailures {
		return true, &FailuresError{N: r.failures, Last: err}
	}
	r.tb = nil
	if r.state == Speaking {
		r.speaker.Stop()
	}
	r.err = err
	r.set(Error)
	if r.cfg.SpeakErrors {
		var se *StepError
		if !errors.As(err, &se) || se.Step != "speak" {
			// The notice is followed like a reply, so that the loop does not listen to it.
			r.noticeSaying, r.noticeQueued, r.noticeEnded = true, 0, 0
			ctx := r.turnCtx
			go func() {
				err := r.speaker.say(ctx, noticeTurn, spokenNotice(err), r.cfg.Voice, func(index int, id playback.ClipID) {
					r.l.post(clipQueued{noticeTurn, index, id})
				})
				r.l.post(said{noticeTurn, err})
			}()
		}
	}
	r.pause = r.l.clock.After(r.cfg.ErrorPause)
	return false, nil
}

// noticeTurn is the turn number a spoken notice goes by.
const noticeTurn = -1

// noticeDone notes that the notice has been said; listening waits for it after the pause.
func (r *run) noticeDone() error {
	if r.noticeSaying || r.noticeEnded < r.noticeQueued || !r.waitNotice {
		return nil
	}
	r.waitNotice = false
	r.guard = int(r.cfg.EchoGuard / audio.FrameDuration)
	return r.listen(true)
}

// spokenNotice is the short sentence spoken when a step fails.
func spokenNotice(err error) string {
	var se *StepError
	if errors.As(err, &se) {
		switch se.Step {
		case "transcribe", "record":
			return "Sorry, I couldn't make that out. Please say it again."
		case "chat":
			return "Sorry, I couldn't get a reply. Please try again."
		}
	}
	return "Sorry, something went wrong."
}

// annotation matches what speech recognizers write for what is not speech: "[noise]",
// "(cough)", "<unk>", "{breath}", "*laughs*".
var annotation = regexp.MustCompile(`\[[^\]]*\]|\([^)]*\)|<[^>]*>|\{[^}]*\}|\*[^*]*\*|\+\+[^+]*\+\+`)

// fillers are words that make no question on their own.
var fillers = map[string]bool{"um": true, "umm": true, "uh": true, "uhh": true, "hmm": true, "hm": true, "mm": true, "mhm": true, "er": true, "erm": true, "ah": true}

// IsNoise reports whether a transcript holds nothing worth sending: it is empty or only
// punctuation, only the annotations recognizers write for what is not speech ("[noise]",
// "(cough)", "<unk>", "*laughs*", "[BLANK_AUDIO]"), or only fillers such as "um" and "hmm".
func IsNoise(text string) bool {
	rest := annotation.ReplaceAllString(text, " ")
	words := strings.FieldsFunc(strings.ToLower(rest), func(c rune) bool { return !isWordRune(c) })
	for _, w := range words {
		if !fillers[w] {
			return false
		}
	}
	return true
}

// isWordRune reports whether c can be part of a word: a letter or a digit in any script.
func isWordRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.Is(unicode.Mn, c)
}
