package talk

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"

	"parley/audio/playback"
	"parley/voice"
)

// output is the one audio output: spoken replies and voice mode's play through its player.
type output struct {
	// player lives as long as the controller; it opens the device only while it has something
	// to play, and closes it playback.IdleClose after.
	player Player
	// speaker says push-to-talk's replies through the service attached (nil until the first).
	speaker *voice.Speaker
	sayGen  int // counts the texts given to the speaker

	// The player's events arrive on its own goroutine: they go to voice mode's loop while it
	// runs, and to the speaker, which prepares the next sentences as these play.
	loop      atomic.Pointer[voice.Loop]
	following atomic.Pointer[voice.Speaker]
}

// openPlayer makes the player on first use, and the speaker for the service attached.
func (c *Controller) openPlayer() bool {
	o := &c.out
	if o.speaker != nil {
		return true
	}
	if c.cfg.Devices().NewPlayer == nil || c.svc == nil {
		c.problem(NoLead, playback.ErrNoDevice, nil)
		return false
	}
	if o.player == nil {
		do := c.cfg.Do
		o.player = c.cfg.Devices().NewPlayer(func(ev playback.Event) {
			if l := o.loop.Load(); l != nil {
				l.PlaybackEvent(ev) // voice mode follows its replies' playback
			}
			sp := o.following.Load()
			if sp != nil {
				sp.PlaybackEvent(ev)
			}
			switch {
			case ev.Kind == playback.QueueDrained:
				if sp != nil && sp.Pending() {
					break // a gap: the next sentence's speech is late
				}
				do(c.spoken)
			case ev.Kind == playback.ClipEnded && errors.Is(ev.Err, playback.ErrNoDevice):
				do(func() { c.outputFailed(ev.Err) })
			}
		})
		o.player.SetVolume(c.cfg.Prefs.Volume())
		o.player.SetSpeed(c.cfg.Prefs.SpeechRate())
	}
	o.speaker = voice.NewSpeaker(c.svc, o.player)
	o.following.Store(o.speaker)
	return true
}

// Speak says text with the voice of the conversation on screen (a reply's Speak action).
func (c *Controller) Speak(text string) {
	voiceName := ""
	if th := c.cfg.Host.OnScreen(); th != nil && c.sess != nil {
		voiceName = c.sess.Snapshot(th).Voice
	}
	c.speakWith(text, voiceName)
}

// speakWith says text sentence by sentence, with voiceName (the conversation's), else a voice
// of its language.
func (c *Controller) speakWith(text, voiceName string) {
	voiceName = c.replyVoice(voiceName, text)
	c.speakFrom(func(ctx context.Context, sp *voice.Speaker, voiceName string) error {
		return sp.Say(ctx, text, voiceName, nil)
	}, voiceName, func() { c.speakWith(text, voiceName) })
}

// speakFrom speaks what say says, with voiceName ("" for the default); again, when not nil, is
// offered when it fails.
func (c *Controller) speakFrom(say func(ctx context.Context, sp *voice.Speaker, voiceName string) error, voiceName string, again func()) {
	if !c.openPlayer() {
		return
	}
	if voiceName == "" {
		voiceName = c.cfg.Prefs.DefaultVoice()
	}
	o := &c.out
	o.speaker.Stop()
	c.st.Speaking = true
	o.sayGen++
	c.changed()

	sp, ctx, gen := o.speaker, c.cfg.Ctx, o.sayGen
	go func() {
		err := say(ctx, sp, voiceName)
		switch {
		case errors.Is(err, voice.ErrNothingToSay), err == nil && !sp.Pending():
			// Nothing was queued, or every clip ended before Say returned (the queue's last
			// QueueDrained may have come while it was still queuing, and been taken for a gap).
			c.cfg.Do(func() {
				if o.sayGen == gen && c.st.Speaking {
					c.spoken()
				}
			})
		case err != nil && !errors.Is(err, context.Canceled):
			c.cfg.Do(func() {
				c.spoken()
				c.problem(NotSpoken, err, again)
			})
		}
	}()
}

// SetVolume sets the volume of spoken replies, when the output is open.
func (c *Controller) SetVolume(vol float64) {
	if c.out.player != nil {
		c.out.player.SetVolume(vol)
	}
}

// SetSpeed sets the speed of the replies spoken from now, when the output is open (the speed
// is read from the preferences when it opens).
func (c *Controller) SetSpeed(s float64) {
	if c.out.player != nil {
		c.out.player.SetSpeed(s)
	}
}

// outputFailed stops the speech when the audio output cannot play it, and says so (once: the
// clips after it end with the same error).
func (c *Controller) outputFailed(err error) {
	if !c.st.Speaking {
		return
	}
	c.StopSpeaking()
	c.problem(NoLead, err, nil)
}

// spoken marks the end of speech.
func (c *Controller) spoken() {
	if c.st.Speaking {
		c.st.Speaking = false
		c.changed()
	}
}

// StopSpeaking stops the speech.
func (c *Controller) StopSpeaking() {
	if c.out.speaker != nil {
		c.out.speaker.Stop()
	}
	c.spoken()
}

// PlayClip plays an MP3 clip through the audio output (a voice's test in the engines dialog).
func (c *Controller) PlayClip(mp3 []byte) {
	if c.openPlayer() {
		if _, err := c.out.player.Enqueue(bytes.NewReader(mp3)); err != nil {
			c.problem(NoLead, err, nil)
		}
	}
}
