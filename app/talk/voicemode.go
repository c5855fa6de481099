package talk

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"

	"parley/audio"
	"parley/audio/wake"
	"parley/conversation"
	"parley/internal/i18n"
	"parley/voice"
)

// voiceMode is the hands-free conversation: the loop of package voice, over the microphone and
// the one audio output.
type voiceMode struct {
	loop *voice.Loop          // the loop running (nil when off)
	th   *conversation.Thread // the conversation it talks in
	mic  *muteableMic         // the loop's microphone, closed while muted
	// Waiting for the reply to a question sent through the session.
	pending *pending

	// levelShown and levelAt are the meter's value and when it last moved.
	levelMu    sync.Mutex
	levelShown float64
	levelAt    time.Time
}

// pending is the question voice mode sent and waits for.
type pending struct {
	sess Session // the session it was sent through
	th   *conversation.Thread
	key  int64 // the question's turn
	done chan answer
	// onText, for a reply streamed, gets each piece of it; told is how much of it was given.
	onText func(piece string)
	told   int
}

type answer struct {
	reply string
	err   error
}

// ToggleVoiceMode starts voice mode in the conversation on screen, or ends it. Quick presses
// end as many presses say: an odd number leaves it on, even while an earlier press's stop is
// still under way (the loop then starts again once it has stopped).
func (c *Controller) ToggleVoiceMode() {
	if c.sess == nil {
		return
	}
	switch c.st.Mode {
	case Stopping:
		c.st.Restart = !c.st.Restart
		c.changed()
	case On:
		c.EndVoiceMode()
	default:
		c.StartVoiceMode()
	}
}

// StartVoiceMode runs the loop in the conversation on screen.
func (c *Controller) StartVoiceMode() {
	th := c.cfg.Host.OnScreen()
	if th == nil || c.svc == nil || c.st.Mode != Off {
		return
	}
	c.StopAll()          // push-to-talk and spoken replies give way
	clear(c.ptt.waiting) // and replies awaited are not spoken over the loop's
	if c.cfg.Devices().OpenMic == nil {
		c.problem(NeedsMic, audio.ErrNoDevice, nil)
		return
	}
	if !c.openPlayer() {
		return
	}
	device := c.cfg.Prefs.InputDevice()
	open := c.cfg.Devices().OpenMic
	mic, err := newMuteableMic(func() (Mic, error) { return open(device) }, c.st.Muted)
	if err != nil {
		c.problem(NeedsMic, err, c.StartVoiceMode)
		return
	}
	c.warmSpeech()
	voiceName, chosen := c.sess.Snapshot(th).Voice, true
	if voiceName == "" {
		voiceName, chosen = c.cfg.Prefs.DefaultVoice(), false
	}
	c.st.BargeIn = c.cfg.Prefs.BargeIn()
	asked, expected := c.speechLanguages(th)
	var loop *voice.Loop
	cfg := voice.Config{
		Source:      mic,
		Transcriber: c.svc,
		Synth:       c.svc,
		Player:      c.out.player,
		Chat:        &chatter{c: c, sess: c.sess, th: th},
		Voice:       voiceName,
		VoiceChosen: chosen,
		Voices:      c.ServiceVoices,
		// The conversation's speech language, as voice mode starts: a change in its settings
		// takes effect at the next start, as its voice does.
		SpeechLanguage:   asked,
		ExpectedLanguage: expected,
		Hold:             c.cfg.Prefs.Hold(),
		Speculate:        true,
		AdaptiveHold:     c.cfg.Prefs.AdaptiveHold(),
		BargeIn:          c.st.BargeIn,
		SpeakErrors:      c.cfg.Prefs.SpeakErrors(),
		OnStatus:         func(s voice.Status) { c.cfg.Do(func() { c.loopStatus(loop, s) }) },
		OnLevel:          c.levelHeard,
	}
	wakeSp, stopSp := c.wakeSpotters(&cfg)
	loop = voice.New(cfg)
	loop.SetMuted(c.st.Muted)
	c.out.loop.Store(loop)
	v := &c.voice
	v.loop, v.th, v.mic = loop, th, mic
	v.levelMu.Lock()
	v.levelShown = 0
	v.levelMu.Unlock()
	c.st.Mode, c.st.Loop, c.st.LoopStopping = On, voice.Idle, false
	c.changed()
	go func() {
		err := loop.Run(c.cfg.Ctx)
		mic.Close()
		if wakeSp != nil {
			wakeSp.Close()
			stopSp.Close()
		}
		c.cfg.Do(func() { c.voiceEnded(loop, err) })
	}()
}

// wakeSpotters sets cfg to wait for the wake phrase that Preferences names, if any, and to stop
// a reply on "stop": it returns the spotters, made on the loop's goroutine at their first use
// (nil, nil without a wake phrase). Run ends with their error when they cannot be made.
func (c *Controller) wakeSpotters(cfg *voice.Config) (wakeSp, stopSp *wake.Lazy) {
	c.st.Wake = ""
	p, ok := wake.LookupWake(c.cfg.Prefs.WakePhrase())
	if !ok {
		return nil, nil
	}
	wakeSp, stopSp = wake.NewLazy([]wake.Phrase{p}), wake.NewLazy(wake.StopPhrases)
	cfg.Wake, cfg.StopWords, cfg.FollowUp = wakeSp, stopSp, c.cfg.Prefs.FollowUp()
	if cfg.FollowUp <= 0 {
		cfg.FollowUp = -1
	}
	c.st.Wake = p.Text
	return wakeSp, stopSp
}

// EndVoiceMode stops the loop; a question already sent is answered and stored first.
func (c *Controller) EndVoiceMode() {
	c.st.Restart = false
	if l := c.voice.loop; l != nil {
		if c.st.Mode == On {
			c.st.Mode = Stopping
		}
		l.Stop()
	}
	c.changed()
}

// voiceEnded takes the loop's end: voice mode starts again when asked for meanwhile, and says
// why it stopped when it failed.
func (c *Controller) voiceEnded(l *voice.Loop, err error) {
	c.out.loop.CompareAndSwap(l, nil)
	v := &c.voice
	restart := c.st.Restart && c.st.Mode == Stopping && (err == nil || errors.Is(err, context.Canceled))
	v.loop, v.th, v.pending, v.mic = nil, nil, nil, nil
	c.st.Mode, c.st.Restart, c.st.Loop, c.st.LoopStopping = Off, false, voice.Idle, false
	if restart {
		c.StartVoiceMode() // asked for again while it stopped
		if c.st.Mode == On {
			return
		}
	}
	c.changed()
	if err != nil && !errors.Is(err, context.Canceled) {
		ev := Event{Kind: Problem, Lead: VoiceStopped, Err: err, Retry: c.StartVoiceMode}
		var fe *voice.FailuresError
		if errors.As(err, &fe) {
			ev.Failures, ev.Err = fe.N, voice.Cause(fe.Last)
		}
		c.emit(ev)
	}
	c.emit(Event{Kind: Focus})
}

// loopStatus takes loop l's status: the listeners are told, and the state follows. A loop
// that has ended says nothing more.
func (c *Controller) loopStatus(l *voice.Loop, s voice.Status) {
	if c.st.Mode == Off || l != c.voice.loop {
		return
	}
	c.st.Loop, c.st.LoopStopping = s.State, s.Stopping
	c.emit(Event{Kind: Status, Status: s})
	if !c.Hearing() {
		c.voice.levelMu.Lock()
		c.voice.levelShown = 0 // the meter rests: the next reading moves it, once it is used
		c.voice.levelMu.Unlock()
	}
	c.changed()
}

// levelHeard moves the meter to a level the loop heard (on the loop's goroutine, for each
// frame): at most MeterRate times a second, and only when it moves visibly, since each move
// redraws the window.
func (c *Controller) levelHeard(db float64) {
	lv := max(0, min(1, (db+60)/60))
	now := time.Now()
	v := &c.voice
	v.levelMu.Lock()
	if now.Sub(v.levelAt) < time.Second/MeterRate || math.Abs(lv-v.levelShown) < 0.02 {
		v.levelMu.Unlock()
		return
	}
	v.levelShown, v.levelAt = lv, now
	v.levelMu.Unlock()
	c.cfg.Do(func() {
		if c.Hearing() {
			c.emit(Event{Kind: Level, Level: lv})
			return
		}
		v.levelMu.Lock()
		v.levelShown = 0 // not shown: the next reading is, once the microphone is used
		v.levelMu.Unlock()
	})
}

// Hearing reports whether what the microphone hears is used now in voice mode, so that the
// meter moves: not while muted, nor while Parley speaks without barge-in, nor while a question
// is transcribed and answered.
func (c *Controller) Hearing() bool {
	if c.st.Mode == Off || c.st.Muted {
		return false
	}
	switch c.st.Loop {
	case voice.Listening, voice.HearingSpeech:
		return true
	case voice.Speaking:
		return c.st.BargeIn
	}
	return false
}

// toggleMute mutes or unmutes the microphone of voice mode (ToggleMute does the rest).
func (v *voiceMode) toggleMute(c *Controller) {
	c.st.Muted = !c.st.Muted
	muted := c.st.Muted
	if v.loop != nil {
		v.loop.SetMuted(muted)
	}
	if mic := v.mic; mic != nil && c.st.Mode != Off {
		// Muted, the microphone is closed; unmuted, it opens again (which takes a moment). The
		// state is recorded here, in the order asked; the device follows on a goroutine.
		mic.want(muted)
		go func() {
			if err := mic.apply(); err != nil {
				c.cfg.Do(func() {
					c.problem(MicNotReopened, err, c.ToggleMute)
					if !c.st.Muted {
						c.ToggleMute()
					}
				})
			}
		}()
	}
	if muted {
		v.levelMu.Lock()
		v.levelShown = 0
		v.levelMu.Unlock()
	}
}

// VoiceWaitsFor reports whether voice mode waits for a reply in th.
func (c *Controller) VoiceWaitsFor(th *conversation.Thread) bool {
	return c.voice.pending != nil && c.voice.pending.th == th
}

// turnEnded sees voice mode's question end, with its reply or without; it reports whether the
// turn was voice mode's.
func (v *voiceMode) turnEnded(th *conversation.Thread, o conversation.Outcome) bool {
	p := v.pending
	if p == nil || p.th != th || p.key != o.Key {
		return false
	}
	v.pending = nil
	if o.End == conversation.Replied {
		p.done <- answer{reply: o.Reply.Text}
		return true
	}
	// Voice mode says why and listens again; the failed turn would hold back the next question,
	// which the person says rather than retrying this one.
	p.sess.Dismiss(th, o.Key)
	p.done <- answer{err: o.Err}
	return true
}

// ReplyGrowing sees a reply grow as the service writes it (v is its conversation): voice mode's
// question's reply is handed to its loop piece by piece, and a reply push-to-talk speaks is
// spoken, as it is written.
func (c *Controller) ReplyGrowing(th *conversation.Thread, v conversation.ThreadView) {
	c.pttGrowing(th, v)
	p := c.voice.pending
	if p == nil || p.th != th || p.onText == nil {
		return
	}
	for _, t := range v.Turns {
		if t.Key == p.key && len(t.Partial) > p.told {
			p.onText(t.Partial[p.told:])
			p.told = len(t.Partial)
		}
	}
}

// errLeft answers voice mode's question when another service is attached before its reply: the
// session it went through is closed, and its end is not told to this window any more.
var errLeft error = leftError{}

// leftError is errLeft's type: its text is said in the window's language when it is read.
type leftError struct{}

func (leftError) Error() string { return i18n.T("another service is in use now") }

// dropPending answers the question voice mode waits for with err, so that its loop can end.
func (v *voiceMode) dropPending(err error) {
	if p := v.pending; p != nil {
		v.pending = nil
		p.done <- answer{err: err}
	}
}

// chatWaitLimit bounds how long voice mode waits for a reply through the session.
const chatWaitLimit = 5 * time.Minute

// chatter asks through the app's session, so that the question and the reply appear in the
// conversation as they happen, exactly as typed ones do.
type chatter struct {
	c    *Controller
	sess Session
	th   *conversation.Thread
}

func (ch *chatter) Chat(ctx context.Context, q string) (string, error) {
	return ch.ChatStream(ctx, q, nil, nil)
}

// ChatStream is Chat whose reply, from a service that streams, comes piece by piece to onText
// (called on the window's goroutine) as the session's turn grows; closing stop is the person's
// Stop of the turn (the session asks the service to end the reply where it is).
func (ch *chatter) ChatStream(ctx context.Context, q string, onText func(string), stop <-chan struct{}) (string, error) {
	c := ch.c
	done := make(chan answer, 1)
	grew := make(chan struct{}, 1) // a piece of the reply came: it is still being written
	c.cfg.Do(func() {
		if c.sess != ch.sess {
			done <- answer{err: errLeft} // another service was attached meanwhile
			return
		}
		if ch.sess.Snapshot(ch.th).Deleted {
			done <- answer{err: conversation.ErrDeleted}
			return
		}
		key := ch.sess.Send(ch.th, q)
		if key == 0 {
			done <- answer{err: errors.New(i18n.T("nothing was heard to send"))}
			return
		}
		var grow func(string)
		if onText != nil {
			grow = func(piece string) {
				select {
				case grew <- struct{}{}:
				default:
				}
				onText(piece)
			}
		}
		c.voice.pending = &pending{sess: ch.sess, th: ch.th, key: key, done: done, onText: grow}
	})
	if stop != nil {
		quit := make(chan struct{})
		defer close(quit)
		go func() {
			select {
			case <-stop:
				c.cfg.Do(func() {
					if p := c.voice.pending; p != nil && p.done == done {
						p.sess.StopTurn(p.th, p.key)
					}
				})
			case <-quit:
			}
		}()
	}
	// The session's own timeout ends the call; this only keeps voice mode from waiting for
	// ever on a reply it cannot see.
	limit := time.NewTimer(chatWaitLimit)
	defer limit.Stop()
	for {
		select {
		case a := <-done:
			return a.reply, a.err
		case <-grew:
			limit.Reset(chatWaitLimit) // a reply still being written is waited for
		case <-ctx.Done():
			return "", ctx.Err()
		case <-c.cfg.Ctx.Done():
			return "", c.cfg.Ctx.Err()
		case <-limit.C:
			c.cfg.Do(func() {
				if p := c.voice.pending; p != nil && p.done == done {
					c.voice.pending = nil
				}
			})
			return "", errors.New(i18n.T("no reply came: look for it in the conversation"))
		}
	}
}

// VoiceThread is the conversation voice mode talks in (nil when off).
func (c *Controller) VoiceThread() *conversation.Thread { return c.voice.th }
