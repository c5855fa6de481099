package voice

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"parley/audio"
	"parley/audio/playback"
)

// Loop is the hands-free conversation: listen, hear a question, transcribe it, ask the chat,
// speak the reply, listen again. It imports no UI; the app and the CLI drive it the same way.
type Loop struct {
	cfg   Config
	clock Clock

	mu      sync.Mutex
	running bool
	muted   bool
	inbox   []message
	wake    chan struct{}
	backlog atomic.Int64 // frames read from the source and not handled yet
}

// New returns a loop with cfg.
func New(cfg Config) *Loop {
	cfg = cfg.withDefaults()
	return &Loop{cfg: cfg, clock: cfg.Clock, wake: make(chan struct{}, 1)}
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

// run is the state of one Run: the status it shows, the turn's calls, and the state of
// listening, of speaking and of a spoken notice.
type run struct {
	l      *Loop
	cfg    *Config
	ctx    context.Context
	frames <-chan message // from the source's reader
	start  time.Time

	Status         // what is shown
	done     int   // completed turns
	failures int   // failed turns in a row
	stopErr  error // the chat call that Stop waited for failed

	// The turn's calls: those not charged yet are cancelled with turnCtx.
	turnCtx    context.Context
	turnCancel context.CancelFunc
	chatting   bool // a chat call was sent and has not answered
	// heardLanguage is the language the service heard the turn's question in ("" unsaid).
	heardLanguage string
	// stream is the turn's streamed reply while it is written (nil for a whole one).
	stream *streamedReply
	pause  <-chan time.Time // the Error state's pause
	// calls are the goroutines of the run's service calls (transcribe, chat, speech): Run
	// returns only once they have ended, so none outlives it.
	calls sync.WaitGroup

	listening listening
	speaking  speaking
	spoken    spokenNotice
	waking    waking
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
	var kept []message
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
	frames := make(chan message, 64)
	r := &run{l: l, cfg: &l.cfg, ctx: ctx, frames: frames, start: l.clock.Now(), Status: Status{Muted: muted},
		speaking: newSpeaking(l)}

	readerDone := make(chan struct{})
	reporter, _ := l.cfg.Source.(EchoReporter)
	residues, _ := l.cfg.Source.(ResidueReporter)
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
			m := frameMsg{samples: f, at: l.clock.Now(), raw: math.NaN(), residue: math.NaN(), linear: math.NaN()}
			if reporter != nil {
				m.raw = reporter.Uncancelled()
			}
			if residues != nil {
				m.residue, m.converged = residues.Residue()
				m.linear = residues.LinearDB()
			}
			l.backlog.Add(1)
			select {
			case frames <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() {
		cancel()
		<-readerDone
		// Frames still queued, or put back in the inbox after a Stop, are never handled now.
		l.backlog.Store(0)
	}()

	if err := r.listenNext(); err != nil {
		return err
	}
	for {
		var m message
		select {
		case m = <-frames:
		case <-l.wake:
		case <-r.pause:
			r.pause = nil
			if r.Stopping {
				continue
			}
			if !r.spoken.heard() {
				r.spoken.waiting = true // listen once the notice has been heard
				continue
			}
			if err := r.listenNext(); err != nil {
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

// finish ends a run: stops what is under way, waits for a chat call already sent, and for the
// calls it cancelled to return.
func (r *run) finish(err error) error {
	r.speaking.speaker.Stop()
	r.speaking.release(r.cfg.Player, r.l.clock.Now())
	if r.turnCancel != nil {
		r.turnCancel()
	}
	r.stopStream() // the reply being written ends where it is
	if r.chatting {
		r.Stopping = true
		r.show()
		for {
			// The reply may be in the inbox already (put back by Run), or yet to come.
			for _, m := range r.l.take() {
				switch m := m.(type) {
				case replied:
					if m.turn == r.Turn {
						r.chatting = false
						r.gotReply(m)
					}
				case frameMsg:
					r.l.backlog.Add(-1) // heard before the Stop was handled: not used
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
	r.Stopping = false
	if err == nil && r.stopErr != nil {
		err = r.stopErr // the question sent before Stop failed: it was not stored
	}
	r.calls.Wait()
	r.set(Idle)
	return err
}

// handle processes one message; end reports that Run must return err.
func (r *run) handle(m message) (end bool, err error) {
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
		if m.turn == r.Turn && r.State == Transcribing {
			return r.gotTranscript(m)
		}
	case specDone:
		return r.gotSpeculation(m)
	case replied:
		if m.turn == r.Turn {
			r.chatting = false
			return r.gotReply(m)
		}
	case said:
		return r.gotSaid(m)
	case grew:
		return r.grew(m)
	case clipQueued:
		return r.gotClip(m)
	case envelopeMsg:
		r.speaking.envelope[m.id] = m.env
	case traceMsg:
		r.trace(m.turn, m.kind, m.index, m.at)
	case playbackMsg:
		return r.playback(playback.Event(m))
	}
	return false, nil
}

// show tells the observer the status.
func (r *run) show() {
	if r.cfg.OnStatus != nil {
		r.cfg.OnStatus(r.Status)
	}
}

// set shows state s, with the notice given since the last state if any, which it clears.
func (r *run) set(s State) {
	if s != Error {
		r.Err = nil
	}
	if s == HearingSpeech || s == Idle {
		r.Failed = nil // the next turn has begun, or the loop has ended
	}
	if s != Listening {
		r.FollowUp = false
	}
	r.State = s
	r.show()
	r.Notice = NoNotice
}

func (r *run) setMuted(m bool) {
	if m == r.Muted {
		return
	}
	r.Muted = m
	if m && r.speaking.hold.on {
		r.speaking.release(r.cfg.Player, r.l.clock.Now()) // muted: nothing said over the reply is heard now
	}
	switch {
	case m && (r.State == Listening || r.State == HearingSpeech || r.State == Waiting):
		r.listening.tb = nil // a question being recorded is dropped
		r.set(Muted)
	case !m && r.State == Muted && r.waking.waiting:
		if err := r.cfg.Wake.Reset(); err != nil {
			r.Err = err
		}
		r.ready()
	case !m && r.State == Muted:
		if err := r.listen(false); err != nil {
			r.Err = err
		}
	case r.listening.readyAfterGuard:
		// The reply has ended and its echo guard runs, with State still the reply's: muting
		// shows at once (ready's muted state), and ready() shows the rest when the guard ends.
		if m {
			r.ready()
		}
	default:
		r.show()
	}
}

// nextTurn starts a turn: the calls of the one before that are not charged yet are cancelled.
func (r *run) nextTurn() {
	r.endStream() // a reply still written for the turn before ends where it is
	r.Turn++
	if r.turnCancel != nil {
		r.turnCancel()
	}
	r.turnCtx, r.turnCancel = context.WithCancel(r.ctx)
	r.speaking.nextTurn()
}

// gotTranscript sends the question heard to the chat, or listens again when it holds nothing.
func (r *run) gotTranscript(m transcribed) (bool, error) {
	if m.err != nil {
		if r.turnCtx.Err() != nil {
			return false, nil
		}
		return r.fail(&StepError{"transcribe", m.err})
	}
	q := strings.TrimSpace(m.text)
	if r.waking.woke {
		q = withoutWakeWords(q, r.waking.phrase)
	}
	if IsNoise(q) {
		// Never sent: an empty transcript, or only noise.
		if err := r.listen(false); err != nil {
			return true, err
		}
		r.Notice = NoticeDidNotCatch
		r.show()
		return false, nil
	}
	q = AsSentence(q)
	r.heardLanguage = m.lang
	if r.cfg.OnHeard != nil {
		r.cfg.OnHeard(r.Turn, q)
	}
	r.set(Thinking)
	r.trace(r.Turn, TraceChatSent, -1, r.l.clock.Now())
	r.chatting = true
	turn := r.Turn
	// The chat call is charged once sent: Stop does not cancel it.
	ctx := context.WithoutCancel(r.ctx)
	if sc, ok := r.cfg.Chat.(StreamChatter); ok {
		st := &streamedReply{turn: turn, g: NewGrowing(), stop: make(chan struct{})}
		r.stream = st
		r.calls.Go(func() {
			reply, err := sc.ChatStream(ctx, q, func(piece string) { r.l.post(grew{turn, piece}) }, st.stop)
			r.l.post(traceMsg{turn, TraceChatDone, -1, r.l.clock.Now()})
			r.l.post(replied{turn, reply, err})
		})
		return false, nil
	}
	r.calls.Go(func() {
		reply, err := r.cfg.Chat.Chat(ctx, q)
		r.l.post(traceMsg{turn, TraceChatDone, -1, r.l.clock.Now()})
		r.l.post(replied{turn, reply, err})
	})
	return false, nil
}

// turnDone ends a turn that worked, and listens again (or ends Run after Config.Turns).
func (r *run) turnDone() (bool, error) {
	r.speaking.release(r.cfg.Player, r.l.clock.Now())
	r.done++
	r.failures = 0
	if r.cfg.Turns > 0 && r.done >= r.cfg.Turns {
		return true, nil
	}
	r.listening.ignoreEcho(r.cfg)
	if r.wakeMode() {
		return false, r.followUp()
	}
	return false, r.listen(true)
}

// fail handles a failed step: says so, pauses, and listens again, or ends Run after too many.
func (r *run) fail(err error) (bool, error) {
	r.failures++
	if r.failures >= r.cfg.MaxFailures {
		return true, &FailuresError{N: r.failures, Last: err}
	}
	r.listening.tb = nil
	if r.State == Speaking {
		r.speaking.speaker.Stop()
		r.speaking.release(r.cfg.Player, r.l.clock.Now())
	}
	r.Err, r.Failed = err, err
	r.set(Error)
	if r.cfg.SpeakErrors {
		r.speakNotice(err)
	}
	r.pause = r.l.clock.After(r.cfg.ErrorPause)
	return false, nil
}
