package voice

import (
	"math"
	"time"

	"parley/audio"
	"parley/audio/vad"
)

// silentNoticeAfter is how long a microphone may deliver only digital silence before the loop
// says so (it goes on listening: a sound server's idle source does this too).
const silentNoticeAfter = 5 * time.Second

// listening is what the loop keeps of the microphone: the take being recorded, and what was
// heard since listening began.
type listening struct {
	tb          *audio.TakeBuilder // the question being recorded; nil while nothing heard is used
	listenedFor time.Duration      // audio heard since listening began, without speech
	speechFor   time.Duration      // audio heard since speech started
	guard       int                // frames still to ignore (echo after playback)
	// readyAfterGuard: listening began during the guard; the state changes when it ends.
	readyAfterGuard bool
	zeros           time.Duration // digital silence in a row
	silentSaid      bool          // NoticeSilentMic was given
	level           levelMeter
	steady          steadiness // the take's first second of speech, to tell steady noise from it

	spec         *speculation // the take's speculative transcription, if any
	specID       int          // the last speculative call's id
	speculations int          // speculative calls made this turn
}

// begin starts a take; floor is the voice detector's noise floor when known (below 0 dBFS),
// for speech already under way. fresh starts the count towards Config.ListenTimeout again.
func (ls *listening) begin(cfg *Config, floor float64, fresh bool) error {
	vc := vad.Config{Hold: cfg.Hold, InitialFloor: floor}
	if cfg.AdaptiveHold {
		// The longest hold is the detector's; the loop ends the take sooner itself.
		vc.Hold = max(cfg.Hold, ContinuedHold)
	}
	tb, err := audio.NewTakeBuilder(audio.TakeOptions{VAD: true, VADConfig: vc, Encoding: cfg.Encoding})
	if err != nil {
		return err
	}
	ls.tb = tb
	ls.speechFor = 0
	if fresh {
		ls.listenedFor = 0
	}
	return nil
}

// ignoreEcho makes the microphone ignored for Config.EchoGuard, after playback.
func (ls *listening) ignoreEcho(cfg *Config) {
	ls.guard = int(cfg.EchoGuard / audio.FrameDuration)
}

// silent counts a frame of level db towards the microphone's digital silence, and reports when
// the microphone has delivered nothing else for silentNoticeAfter, once a run, while inTake.
func (ls *listening) silent(db float64, inTake bool) bool {
	if db > -120 {
		ls.zeros = 0
		return false
	}
	ls.zeros += audio.FrameDuration
	if ls.zeros < silentNoticeAfter || ls.silentSaid || !inTake {
		return false
	}
	ls.silentSaid = true
	return true
}

// listen starts listening for a question: for the next turn when next is set, else again for
// the same one (after an empty take, or unmuting).
func (r *run) listen(next bool) error {
	return r.listenFrom(next, 0)
}

// listenFrom is listen with the voice detector's noise floor known (below 0 dBFS), for speech
// already under way.
func (r *run) listenFrom(next bool, floor float64) error {
	next = next || r.Turn == 0
	r.waking.waiting = false
	if next {
		// A new turn's question: the wake phrase's deadline and words are set again by what
		// starts it (waitFrame, followUp, bargeIn); listening again for the same question keeps
		// them, so a take that held nothing never listens on without a deadline.
		r.waking.deadline, r.waking.woke = 0, false
	}
	r.dropSpeculation()
	if next {
		r.listening.speculations = 0
	}
	if err := r.listening.begin(r.cfg, floor, next); err != nil {
		return err
	}
	if next {
		r.nextTurn()
	}
	// While the echo guard runs, what was said is still sounding and the microphone is not used:
	// "Listening" shows when it ends.
	r.listening.readyAfterGuard = r.listening.guard > 0
	if !r.listening.readyAfterGuard {
		r.ready()
	}
	return nil
}

// ready shows the loop listening, waiting for the wake phrase, or muted, once the microphone
// is used.
func (r *run) ready() {
	switch {
	case r.Muted:
		r.listening.tb = nil
		r.set(Muted)
	case r.waking.waiting:
		r.set(Waiting)
	default:
		r.set(Listening)
	}
}

// frame handles 20 ms of microphone audio.
func (r *run) frame(m frameMsg) (bool, error) {
	ls := &r.listening
	db := vad.FrameDBFS(m.samples)
	if lvl, ok := ls.level.add(db); ok && r.cfg.OnLevel != nil {
		r.cfg.OnLevel(lvl)
	}
	r.waking.heard(m, db)
	if ls.silent(db, r.State == Listening || r.State == HearingSpeech || r.State == Waiting) {
		r.Notice = NoticeSilentMic
		r.show()
	}
	if ls.guard > 0 {
		ls.guard--
		if ls.guard == 0 && ls.readyAfterGuard {
			ls.readyAfterGuard = false
			r.ready()
		}
		return false, nil
	}
	if r.waking.waiting {
		return r.waitFrame(m)
	}
	if r.State == Speaking && r.cfg.StopWords != nil && !r.waking.stopFailed && !r.Muted {
		if stopped, end, err := r.stopFrame(m); stopped {
			return end, err
		}
	}
	if r.State == Speaking && r.cfg.BargeIn && !r.Muted {
		return r.overReply(m, db)
	}
	if ls.tb == nil || r.Muted {
		return false, nil
	}
	if end, err := r.feed(m); end || err != nil {
		return end, err
	}
	return false, r.heardSteady(m.samples, db)
}

// feed gives a frame to the take being listened for, and sends the take for transcription
// when it ends.
func (r *run) feed(m frameMsg) (bool, error) {
	ls := &r.listening
	reason, stop := ls.tb.Feed(m.samples)
	if ls.tb.Speech() {
		if r.State == Listening {
			r.set(HearingSpeech)
		}
		ls.speechFor += audio.FrameDuration
		if !stop && ls.speechFor >= audio.MaxTakeLength {
			reason, stop = audio.StopMaxDuration, true
		}
	} else {
		ls.listenedFor += audio.FrameDuration
		if r.pastDeadline() {
			return false, r.waitForWake()
		}
		if r.cfg.ListenTimeout > 0 && !r.wakeMode() && ls.listenedFor >= r.cfg.ListenTimeout {
			return true, ErrNoSpeech
		}
	}
	if !stop {
		r.speculate()
		reason, stop = r.endOfTurn()
	}
	if !stop {
		return false, nil
	}
	heard := ls.tb.Heard()
	take, err := ls.tb.Finish(reason)
	ls.tb = nil
	if err != nil {
		return r.fail(&StepError{"record", err})
	}
	if take.Empty() {
		// Nothing to send: listen on, as if this take never happened.
		return false, r.listen(false)
	}
	// The frame that ended the take arrived at m.at; place the speech on the clock from it.
	at := func(pos time.Duration) time.Time { return m.at.Add(pos - heard) }
	r.trace(r.Turn, TraceSpeechStart, -1, at(take.Skipped+take.SpeechStart))
	r.trace(r.Turn, TraceSpeechEnd, -1, at(take.Skipped+take.SpeechEnd))
	r.set(Transcribing)
	r.trace(r.Turn, TraceTranscribeSent, -1, r.l.clock.Now())
	if used, end, err := r.useSpeculation(take); used {
		return end, err
	}
	r.transcribe(take)
	return false, nil
}

// transcribe sends the take for transcription.
func (r *run) transcribe(take *audio.Take) {
	turn, ctx := r.Turn, r.turnCtx
	r.calls.Go(func() {
		tr, err := r.cfg.Transcriber.Transcribe(ctx, r.transcribeRequest(take))
		var text, lang string
		if err == nil {
			text, lang = tr.Text, tr.Language
		}
		r.l.post(traceMsg{turn, TraceTranscribeDone, -1, r.l.clock.Now()})
		r.l.post(transcribed{turn, text, lang, err})
	})
}

// levelMeter averages frame levels into readings of two frames (40 ms).
type levelMeter struct {
	sum float64
	n   int
}

func (m *levelMeter) add(db float64) (float64, bool) {
	m.sum += math.Pow(10, db/10)
	m.n++
	if m.n < 2 {
		return 0, false
	}
	p := m.sum / float64(m.n)
	m.sum, m.n = 0, 0
	if p <= 0 {
		return -120, true
	}
	return max(10*math.Log10(p), -120), true
}
