package talk

import (
	"context"
	"errors"
	"strings"
	"time"

	"parley/audio"
	"parley/audio/vad"
	"parley/client"
	"parley/conversation"
	"parley/voice"
)

// ptt is push-to-talk's state: the take under way and the replies awaited, to speak them.
type ptt struct {
	recorder  Recorder
	recCancel context.CancelFunc
	started   time.Time
	// waiting are the replies awaited, to speak them, by the key of their turn.
	waiting map[int64]awaited
	// growing is the streamed reply being spoken as it is written, and its turn's key.
	growing    *voice.Growing
	growingKey int64
	growingLen int // how much of the turn's partial reply it was given
}

// awaited is a reply push-to-talk waits for.
type awaited struct {
	th *conversation.Thread
	// question is what was said with the hold-to-talk key ("" for a typed message): its reply
	// is spoken whatever the Speak replies preference says, and told to a person away.
	question string
	// sends counts the sends of the message whose failure has not been told yet: a message the
	// person sends again (Retry) may be retried before its first failure reaches here, and that
	// failure must not end the wait for the second send's reply.
	sends int
}

// Toggle starts push-to-talk, or finishes the recording under way. Voice mode, while it runs,
// has the microphone.
func (c *Controller) Toggle() {
	if c.sess == nil || c.st.Mode != Off {
		return
	}
	if c.st.Recording {
		c.FinishRecording()
		return
	}
	c.startRecording(true)
}

// HoldStart starts a take for the hold-to-talk key, pressed anywhere: it records until HoldEnd
// (the key's release), and what was said is sent in the conversation on screen, or a new one,
// with the reply spoken. A recording or voice mode under way keeps the microphone.
func (c *Controller) HoldStart() {
	if c.sess == nil || c.st.Recording || c.st.Mode != Off {
		return
	}
	c.st.Held = true
	c.startRecording(false)
}

// HoldEnd ends the hold-to-talk key's take.
func (c *Controller) HoldEnd() {
	if c.st.Held && c.st.Recording {
		c.FinishRecording()
	}
}

// startRecording records until the person stops or, with endAtSilence, the voice detector
// hears the end of speech (without it, the detector only tells whether the take holds speech).
func (c *Controller) startRecording(endAtSilence bool) {
	if c.cfg.Devices().NewRecorder == nil {
		c.emit(Event{Kind: Problem, Err: audio.ErrNoDevice, Held: c.st.Held})
		c.st.Held = false
		return
	}
	c.StopSpeaking() // starting a recording stops playback
	c.warmSpeech()
	rec := c.cfg.Devices().NewRecorder()
	ctx, cancel := context.WithCancel(c.cfg.Ctx)
	started := time.Now()
	c.ptt.recorder, c.ptt.recCancel, c.ptt.started = rec, cancel, started
	c.st.Recording = true
	levels := make(chan audio.Level, 8)
	limit := maxTake
	if c.st.Held {
		limit = MaxHeldTake
	}
	opts := audio.TakeOptions{Device: c.cfg.Prefs.InputDevice(), VAD: endAtSilence, VADConfig: vad.Config{Hold: c.cfg.Prefs.Hold()},
		MaxDuration: limit, Levels: levels}
	c.changed()
	go c.followLevels(ctx, levels, started)
	go func() {
		take, err := rec.Record(ctx, opts)
		cancelled := ctx.Err() != nil
		cancel()
		c.cfg.Do(func() { c.tookTake(take, err, cancelled) })
	}()
}

// followLevels moves the level meter and the clock while the take started at started records.
// It runs on its own goroutine: it reaches the controller only through Do.
func (c *Controller) followLevels(ctx context.Context, levels <-chan audio.Level, started time.Time) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last audio.Level
	var shown time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case l := <-levels:
			last = l
			if time.Since(shown) < time.Second/MeterRate {
				continue // the meter moves at most MeterRate times a second
			}
		case <-tick.C:
		}
		shown = time.Now()
		level := max((last.RMS+60)/60, 0) // -60 dBFS … 0 dBFS
		elapsed := time.Since(started)
		hearing := last.RMS > -40
		c.cfg.Do(func() {
			if c.st.Recording && c.ptt.started.Equal(started) {
				c.emit(Event{Kind: Level, Take: true, Level: level, Elapsed: elapsed, Hearing: hearing, Held: c.st.Held})
			}
		})
	}
}

// FinishRecording ends the take and transcribes it.
func (c *Controller) FinishRecording() {
	if c.st.Recording && c.ptt.recorder != nil {
		c.ptt.recorder.Stop()
	}
}

// CancelRecording throws the take away.
func (c *Controller) CancelRecording() {
	if c.st.Recording && c.ptt.recCancel != nil {
		c.ptt.recCancel()
	}
}

// tookTake handles the end of a recording: an empty take is never uploaded.
func (c *Controller) tookTake(take *audio.Take, err error, cancelled bool) {
	held := c.st.Held
	c.st.Recording, c.st.Held = false, false
	c.changed()
	if !held {
		c.emit(Event{Kind: Focus})
	}
	failed := err != nil && !errors.Is(err, context.Canceled)
	switch {
	case cancelled:
		return
	case take == nil || take.Empty():
		if failed {
			c.emit(Event{Kind: Problem, Err: err, Retry: c.Toggle, Held: held})
			return
		}
		c.emit(Event{Kind: Notice, Notice: NoSpeech, Retry: c.Toggle, Held: held})
		return
	case failed:
		// The device failed after some speech: what was said is transcribed all the same.
		c.emit(Event{Kind: Problem, Err: err, Retry: c.Toggle, Held: held})
	}
	switch {
	case held && (take.Reason == audio.StopMaxDuration || take.Reason == audio.StopSizeLimit):
		// The key's release never came (a stuck key, a desktop that lost it): what was heard
		// waits in the message box, unsent.
		c.emit(Event{Kind: Notice, Notice: HeldTooLong, Held: true})
		th := c.cfg.Host.OnScreen()
		c.transcribeThen(th, take, func(tr *client.Transcript, err error) {
			if err != nil || strings.TrimSpace(tr.Text) == "" {
				c.transcribed(th, take, tr, err)
				return
			}
			c.emit(Event{Kind: Transcript, Text: tr.Text})
			c.emit(Event{Kind: Notice, Notice: KeptUnsent})
		})
	case held:
		c.transcribeHeld(take)
	default:
		c.transcribe(c.cfg.Host.OnScreen(), take)
	}
}

// transcribeHeld transcribes a hold-to-talk take and sends what was said: the person holding
// the key is not looking at the window.
func (c *Controller) transcribeHeld(take *audio.Take) {
	c.transcribeThen(c.cfg.Host.OnScreen(), take, func(tr *client.Transcript, err error) {
		if err != nil {
			c.emit(Event{Kind: Problem, Lead: NotTranscribed, Err: err, Retry: func() { c.transcribeHeld(take) }, Held: true})
			return
		}
		text := strings.TrimSpace(tr.Text)
		if text == "" {
			c.emit(Event{Kind: Notice, Notice: NoWords, Retry: c.Toggle, Held: true})
			return
		}
		if th, key := c.cfg.Host.SendHeld(text); key != 0 {
			c.ptt.waiting[key] = awaited{th: th, question: text, sends: 1}
		}
	})
}

// transcribe sends a take to the service; its text goes to th's message box.
func (c *Controller) transcribe(th *conversation.Thread, take *audio.Take) {
	c.transcribeThen(th, take, func(tr *client.Transcript, err error) { c.transcribed(th, take, tr, err) })
}

// transcribeThen sends a take said in conversation th (nil: a new one) to the service, with
// th's speech language, and hands what it answered (its text as a sentence: see
// voice.AsSentence) to done, on the host's goroutine.
func (c *Controller) transcribeThen(th *conversation.Thread, take *audio.Take, done func(*client.Transcript, error)) {
	c.st.Transcribing = true
	c.changed()
	svc, ctx := c.svc, c.cfg.Ctx
	asked, expected := c.speechLanguages(th)
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		tr, err := svc.Transcribe(ctx, client.TranscribeRequest{Audio: take.Audio, MIMEType: take.MIME, Language: asked, ExpectedLanguage: expected})
		if err == nil && tr != nil {
			// Bare words ("what time is it") read as a sentence in the box and the bubble.
			tr.Text = voice.AsSentence(tr.Text)
		}
		c.cfg.Do(func() {
			c.st.Transcribing = false
			c.changed()
			done(tr, err)
		})
	}()
}

// transcribed puts the transcript in the message box, or sends it when the preference says
// so. A take that failed to transcribe is kept for Try again, so what was said is not lost.
func (c *Controller) transcribed(th *conversation.Thread, take *audio.Take, tr *client.Transcript, err error) {
	if err != nil {
		c.problem(NotTranscribed, err, func() { c.transcribe(th, take) })
		return
	}
	text := strings.TrimSpace(tr.Text)
	if text == "" {
		c.emit(Event{Kind: Notice, Notice: NoWords, Retry: c.Toggle})
		return
	}
	if c.cfg.Prefs.SendSpoken() && th == c.cfg.Host.OnScreen() {
		c.cfg.Host.Send(text)
		return
	}
	c.emit(Event{Kind: Transcript, Text: text})
	c.emit(Event{Kind: Focus})
}

// ExpectReply notes that the person sent the message key in th (or sent it again), so that its
// reply is spoken.
func (c *Controller) ExpectReply(th *conversation.Thread, key int64) {
	if key != 0 {
		a := c.ptt.waiting[key]
		a.th = th
		a.sends++
		c.ptt.waiting[key] = a
	}
}

// TurnEnded takes the end of turn o.Key of th: voice mode's question's reply, or a reply
// push-to-talk awaits to speak. A typed message's reply is spoken when auto-speak is on and
// its conversation is on screen (once the person has left it, it is not spoken, now or later);
// a hold-to-talk question's wherever the person has gone since (to another conversation, or a
// new one from the tray), and told (Answered, Unanswered) for a person away from the window.
func (c *Controller) TurnEnded(th *conversation.Thread, o conversation.Outcome) {
	if c.voice.turnEnded(th, o) {
		return
	}
	a, ok := c.ptt.waiting[o.Key]
	if !ok || a.th != th {
		return
	}
	held := a.question != ""
	g := c.ptt.growing
	if g != nil && c.ptt.growingKey == o.Key {
		c.ptt.growing = nil
		if o.End != conversation.Replied && !o.Stopped {
			c.out.speaker.Stop() // what was said of it was refunded with the rest
		}
	} else {
		g = nil
	}
	if o.End == conversation.Replied {
		delete(c.ptt.waiting, o.Key)
		switch {
		case g != nil:
			// Spoken as it was written: the rest, as stored, follows.
			if held {
				c.emit(Event{Kind: Answered, Question: a.question, Text: o.Reply.Text, Thread: th})
			}
			g.Finish(o.Reply.Text)
		case c.st.Mode != Off:
			// Voice mode speaks its own replies; nothing else may play while it listens.
		case c.speaksReplyOf(th, a):
			if held {
				c.emit(Event{Kind: Answered, Question: a.question, Text: o.Reply.Text, Thread: th})
			}
			c.speakWith(o.Reply.Text, c.sess.Snapshot(th).Voice)
		}
		return
	}
	if held {
		c.emit(Event{Kind: Unanswered, Question: a.question, Err: o.Err, Thread: th})
		a.question = "" // told: a reply after all is spoken as a typed message's
	}
	// A stopped call's reply still comes, and the history read after a lost reply may still
	// find it: the wait goes on. A failure ends the send it was of.
	if o.End == conversation.NoReply && o.State != conversation.Lost {
		a.sends--
	}
	if a.sends <= 0 {
		delete(c.ptt.waiting, o.Key)
		return
	}
	c.ptt.waiting[o.Key] = a
}

// speaksReplyOf reports whether the reply a awaits in th is spoken: a hold-to-talk question's
// always, a typed message's when Speak replies is on and its conversation is on screen.
func (c *Controller) speaksReplyOf(th *conversation.Thread, a awaited) bool {
	return a.question != "" || c.cfg.Prefs.AutoSpeak() && th == c.cfg.Host.OnScreen()
}

// pttGrowing speaks a reply push-to-talk awaits as it is written (v is its conversation), once
// its first sentence is complete: a streamed reply's.
func (c *Controller) pttGrowing(th *conversation.Thread, v conversation.ThreadView) {
	if c.st.Mode != Off {
		return
	}
	for _, t := range v.Turns {
		a, ok := c.ptt.waiting[t.Key]
		if !ok || a.th != th || t.Partial == "" || t.State != conversation.Sending || t.Stopping {
			continue // a reply stopped is not spoken on, nor again from its start
		}
		switch {
		case c.ptt.growing != nil && c.ptt.growingKey == t.Key:
		case c.ptt.growing != nil:
			continue // one reply is spoken as it is written at a time; this one when it is whole
		case !c.speaksReplyOf(th, a):
			continue
		default:
			c.ptt.growing, c.ptt.growingKey, c.ptt.growingLen = voice.NewGrowing(), t.Key, 0
			g := c.ptt.growing
			c.speakFrom(func(ctx context.Context, sp *voice.Speaker, voiceName string) error {
				return sp.SayGrowing(ctx, g, voiceName, nil)
			}, c.replyVoice(v.Voice, t.Partial), nil)
		}
		if len(t.Partial) > c.ptt.growingLen {
			c.ptt.growing.Add(t.Partial[c.ptt.growingLen:])
			c.ptt.growingLen = len(t.Partial)
		}
	}
}

// Awaited is how many replies push-to-talk waits for, to speak them.
func (c *Controller) Awaited() int { return len(c.ptt.waiting) }
