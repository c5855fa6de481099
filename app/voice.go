package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad"
	"parley/client"
	"parley/conversation"
	"parley/voice"
)

// maxTake bounds one push-to-talk recording.
const maxTake = 5 * time.Minute

// voiceControl is push-to-talk and spoken replies in the window.
type voiceControl struct {
	u *UI

	// Recording.
	recorder  Recorder
	recCancel context.CancelFunc
	recording bool
	started   time.Time

	// Speaking.
	player   Player
	speaker  *voice.Speaker
	speaking bool
	waiting  map[*conversation.Thread]int // messages seen while a reply was awaited
}

func newVoiceControl(u *UI) *voiceControl {
	return &voiceControl{u: u, waiting: map[*conversation.Thread]int{}}
}

// problem shows, in the composer, what went wrong with push-to-talk or a spoken reply: lead
// (when not empty), the sentence for err, and the button that helps. retry is what Try again
// does (nil: no such button).
func (v *voiceControl) problem(lead string, err error, retry func()) {
	p := phrase(err)
	text := p.text
	if lead != "" {
		text = lead + " " + text
	}
	var act func()
	switch p.action {
	case actionPreferences:
		act = v.u.showPreferences
	case actionAccount:
		act = v.u.showAccount
	case actionRetry:
		act = retry
	}
	label := ""
	if act != nil {
		label = p.action.label()
	}
	v.u.composer.showNotice(text, label, act)
}

// state shows the voice state in the status bar.
func (v *voiceControl) state(s string) {
	if v.u.status != nil {
		v.u.status.setVoice(s)
	}
}

// toggleRecording starts push-to-talk, or finishes the recording under way.
func (u *UI) toggleRecording() {
	if u.voice == nil || u.sess == nil {
		return
	}
	if u.vmode != nil && u.vmode.active {
		return // voice mode is listening already
	}
	if u.voice.recording {
		u.voice.finishRecording()
		return
	}
	u.voice.startRecording()
}

// startRecording records until the person stops or the voice detector hears the end of speech.
func (v *voiceControl) startRecording() {
	u := v.u
	u.composer.hideNotice() // it was about the take before
	if u.deps.NewRecorder == nil {
		v.problem("", audio.ErrNoDevice, nil)
		return
	}
	v.stopSpeaking() // starting a recording stops playback
	rec := u.deps.NewRecorder()
	ctx, cancel := context.WithCancel(u.ctx)
	v.recorder, v.recCancel, v.recording, v.started = rec, cancel, true, time.Now()
	levels := make(chan audio.Level, 8)
	opts := audio.TakeOptions{Device: u.prefs.inputDevice(), VAD: true, VADConfig: vad.Config{Hold: u.prefs.hold()}, MaxDuration: maxTake, Levels: levels}
	u.composer.showRecording(true)
	u.composer.setLevel(0, 0, "Listening…")
	v.state("Recording 0:00")
	go v.showLevels(ctx, levels)
	go func() {
		take, err := rec.Record(ctx, opts)
		cancelled := ctx.Err() != nil
		cancel()
		v.u.do(func() { v.tookTake(take, err, cancelled) })
	}()
}

// showLevels moves the level meter and the clock while recording.
func (v *voiceControl) showLevels(ctx context.Context, levels <-chan audio.Level) {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	var last audio.Level
	for {
		select {
		case <-ctx.Done():
			return
		case l := <-levels:
			last = l
		case <-tick.C:
		}
		level := (last.RMS + 60) / 60 // -60 dBFS … 0 dBFS
		elapsed := time.Since(v.started)
		state := "Listening…"
		if last.RMS > -40 {
			state = "Hearing you…"
		}
		v.u.do(func() {
			if v.recording {
				v.u.composer.setLevel(math.Max(level, 0), elapsed, state)
				v.state(fmt.Sprintf("Recording %d:%02d", int(elapsed.Minutes()), int(elapsed.Seconds())%60))
			}
		})
	}
}

// finishRecording ends the take and transcribes it.
func (v *voiceControl) finishRecording() {
	if v.recording && v.recorder != nil {
		v.recorder.Stop()
	}
}

// cancelRecording throws the take away.
func (v *voiceControl) cancelRecording() {
	if v.recording && v.recCancel != nil {
		v.recCancel()
	}
}

// tookTake handles the end of a recording: an empty take is never uploaded.
func (v *voiceControl) tookTake(take *audio.Take, err error, cancelled bool) {
	u := v.u
	v.recording = false
	u.composer.showRecording(false)
	u.focusComposer()
	switch {
	case cancelled:
		v.state("")
		return
	case take == nil || take.Empty():
		v.state("")
		if err != nil && !errors.Is(err, context.Canceled) {
			v.problem("", err, u.toggleRecording)
			return
		}
		u.composer.showNotice("Didn't catch that: no speech was heard.", actionRetry.label(), u.toggleRecording)
		return
	case err != nil && !errors.Is(err, context.Canceled):
		// The device failed after some speech: what was said is transcribed all the same.
		v.problem("", err, u.toggleRecording)
	}
	v.transcribe(u.current, take)
}

// transcribe sends a take to the service; its text goes to th's composer.
func (v *voiceControl) transcribe(th *conversation.Thread, take *audio.Take) {
	u := v.u
	v.state("Transcribing…")
	svc := u.conn.svc
	go func() {
		ctx, cancel := context.WithTimeout(u.ctx, 2*time.Minute)
		defer cancel()
		tr, err := svc.Transcribe(ctx, client.TranscribeRequest{Audio: take.Audio, MIMEType: take.MIME})
		v.u.do(func() { v.transcribed(th, take, tr, err) })
	}()
}

// transcribed puts the transcript in the composer, or sends it when the preference says so.
// A take that failed to transcribe is kept for Try again, so what was said is not lost.
func (v *voiceControl) transcribed(th *conversation.Thread, take *audio.Take, tr *client.Transcript, err error) {
	u := v.u
	v.state("")
	if err != nil {
		v.problem("The recording was not transcribed.", err, func() { v.transcribe(th, take) })
		return
	}
	text := strings.TrimSpace(tr.Text)
	if text == "" {
		u.composer.showNotice("Didn't catch that: the service heard no words.", actionRetry.label(), u.toggleRecording)
		return
	}
	if u.prefs.sendSpoken() && th == u.current {
		u.send(text)
		return
	}
	cur := strings.TrimSpace(u.composer.text())
	if cur != "" {
		text = cur + " " + text
	}
	u.composer.setText(text)
	u.focusComposer()
}

// expectReply notes that the person sent a message in th, so that its reply is spoken.
func (v *voiceControl) expectReply(th *conversation.Thread) {
	if _, ok := v.waiting[th]; !ok {
		v.waiting[th] = len(v.u.sess.Snapshot(th).Messages)
	}
}

// threadChanged speaks a reply that has just arrived in the conversation on screen, when
// auto-speak is on: the newest assistant message after the ones there when the person sent.
func (v *voiceControl) threadChanged(th *conversation.Thread, snap conversation.ThreadView) {
	if v.u.vmode != nil && v.u.vmode.active {
		return // voice mode speaks its own replies; nothing else may play while it listens
	}
	seen, ok := v.waiting[th]
	if !ok {
		return
	}
	if len(snap.Messages) <= seen {
		return
	}
	if snap.Waiting() {
		v.waiting[th] = len(snap.Messages)
	} else {
		delete(v.waiting, th)
	}
	last := snap.Messages[len(snap.Messages)-1]
	if last.Role == conversation.Assistant && v.u.prefs.autoSpeak() {
		v.speakWith(last.Text, snap.Voice)
	}
}

// speak says text with the conversation's voice (the Speak action of a bubble).
func (v *voiceControl) speak(text string) {
	voiceName := ""
	if v.u.current != nil {
		voiceName = v.u.sess.Snapshot(v.u.current).Voice
	}
	v.speakWith(text, voiceName)
}

// speakWith says text sentence by sentence.
func (v *voiceControl) speakWith(text, voiceName string) {
	u := v.u
	if !v.openPlayer() {
		return
	}
	if voiceName == "" {
		voiceName = u.prefs.defaultVoice()
	}
	v.speaker.Stop()
	v.speaking = true
	u.composer.stop.Show()
	v.state("Speaking")
	sp := v.speaker
	go func() {
		err := sp.Say(u.ctx, text, voiceName, nil)
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, voice.ErrNothingToSay) {
			v.u.do(func() {
				v.spoken()
				v.problem("The reply could not be spoken.", err, func() { v.speakWith(text, voiceName) })
			})
		}
	}()
}

// openPlayer opens the audio output on first use.
func (v *voiceControl) openPlayer() bool {
	u := v.u
	if v.speaker != nil {
		return true
	}
	if u.deps.NewPlayer == nil || u.conn == nil {
		v.problem("", playback.ErrNoDevice, nil)
		return false
	}
	if v.player == nil {
		// One audio output for the life of the app.
		v.player = u.deps.NewPlayer(func(ev playback.Event) {
			if u.vmode != nil {
				if l := u.vmode.loop.Load(); l != nil {
					l.PlaybackEvent(ev) // voice mode follows its replies' playback
				}
			}
			switch {
			case ev.Kind == playback.QueueDrained:
				v.u.do(v.spoken)
			case ev.Kind == playback.ClipEnded && errors.Is(ev.Err, playback.ErrNoDevice):
				v.u.do(func() { v.outputFailed(ev.Err) })
			}
		})
		v.player.SetVolume(u.prefs.volume())
	}
	v.speaker = voice.NewSpeaker(u.conn.svc, v.player)
	return true
}

// outputFailed stops the speech when the audio output cannot play it, and says so (once: the
// clips after it end with the same error).
func (v *voiceControl) outputFailed(err error) {
	if !v.speaking {
		return
	}
	v.stopSpeaking()
	v.problem("", err, nil)
}

// spoken marks the end of speech.
func (v *voiceControl) spoken() {
	v.speaking = false
	if v.u.composer != nil {
		v.u.composer.stop.Hide()
	}
	if !v.recording {
		v.state("")
	}
}

// stopSpeaking stops the speech.
func (v *voiceControl) stopSpeaking() {
	if v.speaker != nil {
		v.speaker.Stop()
	}
	v.spoken()
}

// escape stops a recording or speech, else dismisses the composer's notice; it reports whether
// there was one.
func (v *voiceControl) escape() bool {
	switch {
	case v.recording:
		v.cancelRecording()
		return true
	case v.speaking:
		v.stopSpeaking()
		return true
	}
	return v.u.composer != nil && v.u.composer.hideNotice()
}

// stopAll ends recording and speech, when the window closes.
func (v *voiceControl) stopAll() {
	v.cancelRecording()
	v.stopSpeaking()
}
