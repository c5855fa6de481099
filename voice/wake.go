package voice

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"parley/audio"
)

// Spotter hears a few phrases locally, without sending anything anywhere (*wake.Spotter is
// one). Feed decodes a 20 ms frame of 16 kHz mono and returns the phrase heard with it ("" for
// none); Reset forgets what was heard.
type Spotter interface {
	Feed(frame []int16) (string, error)
	Reset() error
}

// Defaults of the wake phrase's Config fields.
const (
	// DefaultFollowUp is how long after a reply the next question is taken without the wake
	// phrase.
	DefaultFollowUp = 6 * time.Second
	// DefaultWakeListen is how long after the wake phrase the question may take to start.
	DefaultWakeListen = 8 * time.Second
	// wakePreroll is how many frames heard before the wake phrase was reported are given to the
	// question: the spotter reports it about 100 ms after it ends, and the question may follow
	// it without a pause.
	wakePreroll = 4
	// floorRise is how fast the loop's noise floor follows a louder room, dB a frame.
	floorRise = 0.01
)

// waking is what the loop keeps of the wake phrase and the stop words.
type waking struct {
	// waiting: the loop waits for the wake phrase; nothing the microphone hears is used.
	waiting bool
	// deadline is how long the loop listens, after the wake phrase or a reply, for speech to
	// start before it waits for the wake phrase again; 0 while it does not.
	deadline time.Duration
	// woke: the turn's question follows the wake phrase, whose words are taken off its
	// transcript.
	woke   bool
	phrase []string // the words of the wake phrase heard, in order
	// waited is how long the loop has waited for the wake phrase, for Config.ListenTimeout.
	waited time.Duration
	recent []frameMsg // the last wakePreroll frames
	floor  float64    // the microphone's noise floor, dBFS (0 until a frame is heard)
	// replyWords are the words of the reply being spoken: a stop phrase among them is taken for
	// the reply's echo, not the person.
	replyWords map[string]bool
	stopFailed bool // the stop words' spotter failed: it is not used for the rest of the run
}

// heard notes a frame's level in the noise floor, and keeps the frame for the question.
func (w *waking) heard(m frameMsg, db float64) {
	if w.floor == 0 || db < w.floor {
		w.floor = db
	} else {
		w.floor += floorRise
	}
	w.recent = append(w.recent, m)
	if len(w.recent) > wakePreroll {
		w.recent = w.recent[1:]
	}
}

// wakeMode reports whether questions wait for the wake phrase.
func (r *run) wakeMode() bool { return r.cfg.Wake != nil }

// listenNext listens for the next turn's question: after the wake phrase in wake mode.
func (r *run) listenNext() error {
	if r.wakeMode() {
		return r.waitForWake()
	}
	return r.listen(true)
}

// waitForWake waits for the wake phrase: the take and its speculation are dropped, and the
// microphone is heard by the spotter alone.
func (r *run) waitForWake() error {
	r.dropSpeculation()
	r.listening.tb = nil
	if r.turnCancel != nil {
		r.turnCancel() // nothing of the turn before is sent now
	}
	w := &r.waking
	w.waiting, w.deadline, w.woke, w.recent, w.waited = true, 0, false, nil, 0
	r.FollowUp = false
	if err := r.cfg.Wake.Reset(); err != nil {
		return fmt.Errorf("the wake phrase cannot be listened for: %w", err)
	}
	r.listening.readyAfterGuard = r.listening.guard > 0
	if !r.listening.readyAfterGuard {
		r.ready()
	}
	return nil
}

// followUp listens for a question without the wake phrase for Config.FollowUp after a reply,
// then waits for the wake phrase again.
func (r *run) followUp() error {
	if r.cfg.FollowUp < 0 {
		return r.waitForWake()
	}
	r.FollowUp = true
	if err := r.listen(true); err != nil {
		return err
	}
	r.waking.deadline = r.cfg.FollowUp
	return nil
}

// waitFrame gives a frame heard while waiting to the spotter, and starts a turn when it hears
// the wake phrase.
func (r *run) waitFrame(m frameMsg) (bool, error) {
	w := &r.waking
	if r.Muted {
		return false, nil
	}
	w.waited += audio.FrameDuration
	if r.cfg.ListenTimeout > 0 && w.waited >= r.cfg.ListenTimeout {
		return true, ErrNoSpeech
	}
	phrase, err := r.cfg.Wake.Feed(m.samples)
	if err != nil {
		return true, fmt.Errorf("the wake phrase cannot be listened for: %w", err)
	}
	if phrase == "" {
		return false, nil
	}
	pre := w.recent
	w.waiting, w.recent = false, nil
	if err := r.listenFrom(true, min(w.floor, -1)); err != nil {
		return true, err
	}
	w.deadline, w.woke, w.phrase = r.cfg.WakeListen, true, strings.Fields(strings.ToLower(phrase))
	r.trace(r.Turn, TraceWake, -1, m.at)
	for _, p := range pre {
		if end, err := r.feed(p); end || err != nil {
			return end, err
		}
	}
	return false, nil
}

// pastDeadline reports whether the loop has listened, after the wake phrase or a reply, for
// longer than it waits for speech to start; it then waits for the wake phrase again.
func (r *run) pastDeadline() bool {
	return r.waking.deadline > 0 && r.State == Listening && r.listening.listenedFor >= r.waking.deadline
}

// stopFrame gives a frame heard while the reply is spoken to the stop words' spotter; stopped
// reports that it heard one and the reply was stopped.
func (r *run) stopFrame(m frameMsg) (stopped, end bool, err error) {
	w := &r.waking
	phrase, err := r.cfg.StopWords.Feed(m.samples)
	if err != nil {
		w.stopFailed = true // the reply goes on; Stop still works
		return false, false, nil
	}
	if phrase == "" || w.replyWords[phrase] {
		return false, false, nil
	}
	r.trace(r.Turn, TraceStopWord, -1, m.at)
	r.speaking.speaker.Stop()
	r.speaking.release(r.cfg.Player, r.l.clock.Now())
	r.speaking.preroll = nil
	r.done++
	r.failures = 0
	if r.cfg.Turns > 0 && r.done >= r.cfg.Turns {
		return true, true, nil
	}
	r.listening.ignoreEcho(r.cfg)
	if err := r.listenNext(); err != nil {
		return true, true, err
	}
	// The reply's state ends now, not when the echo guard does: the clips stopped still end,
	// and must not end the turn as if the reply had played.
	if r.listening.readyAfterGuard {
		r.listening.readyAfterGuard = false
		r.ready()
	}
	return true, false, nil
}

// startStopWords prepares the stop words' spotter for a reply of text.
func (r *run) startStopWords(text string) {
	if r.cfg.StopWords == nil || r.waking.stopFailed {
		return
	}
	r.waking.replyWords = words(text)
	if err := r.cfg.StopWords.Reset(); err != nil {
		r.waking.stopFailed = true
	}
}

// words returns the lower-case words of text.
func words(text string) map[string]bool {
	ws := map[string]bool{}
	for _, f := range strings.FieldsFunc(strings.ToLower(text), func(c rune) bool { return !unicode.IsLetter(c) && c != '\'' }) {
		ws[f] = true
	}
	return ws
}

// withoutWakeWords takes the wake phrase's words off the start of a transcript, each at most
// once and in the phrase's order (the recogniser may have missed some): the question may start
// with what it heard of the phrase. "Hey computer, computer viruses?" keeps "computer viruses?".
func withoutWakeWords(q string, phrase []string) string {
	next := 0
	for {
		f, rest, _ := strings.Cut(q, " ")
		w := strings.ToLower(strings.TrimFunc(f, func(c rune) bool { return !unicode.IsLetter(c) }))
		at := -1
		for j := next; j < len(phrase) && w != ""; j++ {
			if phrase[j] == w {
				at = j
				break
			}
		}
		if at < 0 {
			return q
		}
		next = at + 1
		q = strings.TrimLeftFunc(rest, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsPunct(c) })
	}
}
