package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad"
	"parley/client"
	"parley/conversation"
	"parley/voice"
)

// heldHint follows the recording's time in the status bar while the hold-to-talk key is held.
const heldHint = " · release the keys to send"

// maxTake bounds one push-to-talk recording.
const maxTake = audio.MaxTakeLength

// maxHeldTake bounds a take of the hold-to-talk key: a key whose release never came (a stuck
// key, a desktop that lost it) must not record for long while the person is away.
const maxHeldTake = 2 * time.Minute

// pushToTalkHost is what push-to-talk needs from the window.
type pushToTalkHost interface {
	// onScreen is the conversation on screen (nil before there is one).
	onScreen() *conversation.Thread
	send(text string) int64
	focusComposer()
	showPreferences()
	showAccount()
	// voiceModeActive reports whether hands-free voice mode runs: it then has the microphone
	// and the speakers.
	voiceModeActive() bool
	// sendHeld sends what was said while the hold-to-talk key was held in the conversation on
	// screen (a new one when there is none), and returns the conversation it went to and the
	// turn's key (nil, 0: not sent).
	sendHeld(text string) (*conversation.Thread, int64)
	// tellAway tells the person, when the window is hidden, what happened to a hold-to-talk
	// take (a desktop notification); title and body are plain text; open shows th (nil: none).
	tellAway(title, body string, th *conversation.Thread)
	// voiceStateChanged is called when recording or speaking starts or ends (the tray's icon
	// follows it).
	voiceStateChanged()
}

// takeView is where push-to-talk shows a take and its problems: the composer.
type takeView interface {
	showNotice(text, label string, act func())
	hideNotice() bool
	showRecording(on bool)
	setLevel(level float64, elapsed time.Duration, state string)
	text() string
	setText(s string)
	showStop(on bool)
}

// stateLine is where push-to-talk says what it is doing: the status bar.
type stateLine interface {
	setVoice(state string)
}

// pushToTalk is push-to-talk and spoken replies in the window. It lives as long as the app
// (the audio output is opened once); attach gives it each new service and session, and the
// main window, each time it is built, its composer and status bar.
type pushToTalk struct {
	host   pushToTalkHost
	deps   *Deps
	prefs  prefs
	ctx    context.Context
	do     func(func())
	loop   *atomic.Pointer[voice.Loop] // voice mode's loop, told of the playback's events
	view   takeView                    // nil until the main window is built
	status stateLine                   // nil until the main window is built
	conn   *connection
	sess   *conversation.Session

	// Recording.
	recorder  Recorder
	recCancel context.CancelFunc
	recording bool
	started   time.Time
	// held: the recording is the hold-to-talk key's; its question is sent and its reply
	// spoken, the window not raised.
	held bool

	// Speaking.
	player    Player
	speaker   *voice.Speaker
	following atomic.Pointer[voice.Speaker] // the speaker told of the playback, read by the player's event callback
	speaking  bool
	sayGen    int // counts the texts given to the speaker
	// waiting are the replies awaited, to speak them, by the key of their turn.
	waiting map[int64]awaited
}

// awaited is a reply push-to-talk waits for.
type awaited struct {
	th *conversation.Thread
	// question is what was said with the hold-to-talk key ("" for a typed message): its reply
	// is spoken whatever the Speak replies preference says, and told when the window is hidden.
	question string
}

func newPushToTalk(ctx context.Context, host pushToTalkHost, deps *Deps, p prefs, do func(func()), loop *atomic.Pointer[voice.Loop]) *pushToTalk {
	return &pushToTalk{host: host, deps: deps, prefs: p, ctx: ctx, do: do, loop: loop, waiting: map[int64]awaited{}}
}

// attach makes push-to-talk use the service c and its session: what was recorded or spoken
// through the one before stops.
func (v *pushToTalk) attach(c *connection, sess *conversation.Session) {
	v.stopAll()
	v.conn, v.sess = c, sess
	v.speaker = nil // it speaks through the service in use
	v.following.Store(nil)
}

// show makes push-to-talk show itself in the composer and status bar of the main window.
func (v *pushToTalk) show(view takeView, status stateLine) { v.view, v.status = view, status }

// problem shows, in the composer, what went wrong with push-to-talk or a spoken reply: lead
// (when not empty), the sentence for err, and the button that helps. retry is what Try again
// does (nil: no such button).
func (v *pushToTalk) problem(lead string, err error, retry func()) {
	p := phrase(err)
	text := p.text
	if lead != "" {
		text = lead + " " + text
	}
	var act func()
	switch p.action {
	case actionPreferences:
		act = v.host.showPreferences
	case actionAccount:
		act = v.host.showAccount
	case actionRetry:
		act = retry
	}
	label := ""
	if act != nil {
		label = p.action.label()
	}
	v.view.showNotice(text, label, act)
	if v.held {
		v.host.tellAway("Parley could not take what you said", text, nil)
	}
}

// state shows what push-to-talk is doing in the status bar.
func (v *pushToTalk) state(s string) {
	if v.status != nil {
		v.status.setVoice(s)
	}
	v.host.voiceStateChanged()
}

// toggle starts push-to-talk, or finishes the recording under way.
func (v *pushToTalk) toggle() {
	if v.sess == nil {
		return
	}
	if v.host.voiceModeActive() {
		return // voice mode is listening already
	}
	if v.recording {
		v.finishRecording()
		return
	}
	v.startRecording(true)
}

// holdStart starts a take for the hold-to-talk key, pressed anywhere: it records until
// holdEnd (the key's release), and what was said is sent in the conversation on screen, or
// a new one, with the reply spoken. A recording or voice mode under way keeps the microphone.
func (v *pushToTalk) holdStart() {
	if v.sess == nil || v.view == nil || v.recording || v.host.voiceModeActive() {
		return
	}
	v.held = true
	v.startRecording(false)
}

// holdEnd ends the hold-to-talk key's take.
func (v *pushToTalk) holdEnd() {
	if v.held && v.recording {
		v.finishRecording()
	}
}

// warmSpeech has the app's own service load its speech recogniser while the person speaks, so
// that the question's transcription does not wait for it; other services need nothing.
func (v *pushToTalk) warmSpeech() {
	if v.conn != nil && v.conn.warmSpeech != nil {
		v.conn.warmSpeech()
	}
}

// startRecording records until the person stops or, with endAtSilence, the voice detector hears the
// end of speech (without it, the detector only tells whether the take holds speech).
func (v *pushToTalk) startRecording(endAtSilence bool) {
	v.view.hideNotice() // it was about the take before
	if v.deps.NewRecorder == nil {
		v.problem("", audio.ErrNoDevice, nil)
		v.held = false
		return
	}
	v.stopSpeaking() // starting a recording stops playback
	v.warmSpeech()
	rec := v.deps.NewRecorder()
	ctx, cancel := context.WithCancel(v.ctx)
	v.recorder, v.recCancel, v.recording, v.started = rec, cancel, true, time.Now()
	levels := make(chan audio.Level, 8)
	limit := maxTake
	if v.held {
		limit = maxHeldTake
	}
	opts := audio.TakeOptions{Device: v.prefs.inputDevice(), VAD: endAtSilence, VADConfig: vad.Config{Hold: v.prefs.hold()}, MaxDuration: limit, Levels: levels}
	v.view.showRecording(true)
	v.view.setLevel(0, 0, "Listening…")
	if v.held {
		v.state("Recording 0:00" + heldHint)
	} else {
		v.state("Recording 0:00")
	}
	go v.showLevels(ctx, levels, v.started)
	go func() {
		take, err := rec.Record(ctx, opts)
		cancelled := ctx.Err() != nil
		cancel()
		v.do(func() { v.tookTake(take, err, cancelled) })
	}()
}

// showLevels moves the level meter and the clock while recording the take started at started.
// It runs on its own goroutine: it touches the recording's state only through v.do.
func (v *pushToTalk) showLevels(ctx context.Context, levels <-chan audio.Level, started time.Time) {
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
			if time.Since(shown) < time.Second/meterRate {
				continue // the meter moves at most meterRate times a second
			}
		case <-tick.C:
		}
		shown = time.Now()
		level := (last.RMS + 60) / 60 // -60 dBFS … 0 dBFS
		elapsed := time.Since(started)
		state := "Listening…"
		if last.RMS > -40 {
			state = "Hearing you…"
		}
		v.do(func() {
			if v.recording {
				v.view.setLevel(math.Max(level, 0), elapsed, state)
				s := fmt.Sprintf("Recording %d:%02d", int(elapsed.Minutes()), int(elapsed.Seconds())%60)
				if v.held {
					s += heldHint
				}
				v.state(s)
			}
		})
	}
}

// finishRecording ends the take and transcribes it.
func (v *pushToTalk) finishRecording() {
	if v.recording && v.recorder != nil {
		v.recorder.Stop()
	}
}

// cancelRecording throws the take away.
func (v *pushToTalk) cancelRecording() {
	if v.recording && v.recCancel != nil {
		v.recCancel()
	}
}

// tookTake handles the end of a recording: an empty take is never uploaded.
func (v *pushToTalk) tookTake(take *audio.Take, err error, cancelled bool) {
	v.recording = false
	v.view.showRecording(false)
	held := v.held
	if !held {
		v.host.focusComposer()
	}
	switch {
	case cancelled:
		v.held = false
		v.state("")
		return
	case take == nil || take.Empty():
		v.state("")
		if err != nil && !errors.Is(err, context.Canceled) {
			v.problem("", err, v.toggle)
			v.held = false
			return
		}
		v.held = false
		v.view.showNotice("Didn't catch that: no speech was heard.", actionRetry.label(), v.toggle)
		if held {
			v.host.tellAway("Parley didn't catch that", "No speech was heard, so nothing was sent.", nil)
		}
		return
	case err != nil && !errors.Is(err, context.Canceled):
		// The device failed after some speech: what was said is transcribed all the same.
		v.problem("", err, v.toggle)
	}
	v.held = false
	if held && (take.Reason == audio.StopMaxDuration || take.Reason == audio.StopSizeLimit) {
		// The key's release never came (a stuck key, a desktop that lost it): what was heard
		// waits in the message box, unsent.
		v.host.tellAway("Parley stopped listening", "The talk key was held for 2 minutes. What was heard is in Parley's message box; nothing was sent.", nil)
		th := v.host.onScreen()
		v.transcribeThen(take, func(tr *client.Transcript, err error) {
			if err != nil || strings.TrimSpace(tr.Text) == "" {
				v.transcribed(th, take, tr, err)
				return
			}
			v.state("")
			v.addToComposer(tr.Text)
			v.view.showNotice("The talk key was held for 2 minutes, so Parley stopped listening: what it heard is in the message box, not sent.", "", nil)
		})
		return
	}
	if held {
		v.transcribeHeld(take)
		return
	}
	v.transcribe(v.host.onScreen(), take)
}

// transcribeHeld transcribes a hold-to-talk take and sends what was said: the person holding
// the key is not looking at the window.
func (v *pushToTalk) transcribeHeld(take *audio.Take) {
	v.transcribeThen(take, func(tr *client.Transcript, err error) {
		v.state("")
		if err != nil {
			v.problem("The recording was not transcribed.", err, func() { v.transcribeHeld(take) })
			v.host.tellAway("Parley could not take what you said", "The recording was not transcribed. "+phrase(err).text, nil)
			return
		}
		text := strings.TrimSpace(tr.Text)
		if text == "" {
			v.view.showNotice("Didn't catch that: the service heard no words.", actionRetry.label(), v.toggle)
			v.host.tellAway("Parley didn't catch that", "The service heard no words, so nothing was sent.", nil)
			return
		}
		if th, key := v.host.sendHeld(text); key != 0 {
			v.waiting[key] = awaited{th: th, question: text}
		}
	})
}

// transcribe sends a take to the service; its text goes to th's composer.
func (v *pushToTalk) transcribe(th *conversation.Thread, take *audio.Take) {
	v.transcribeThen(take, func(tr *client.Transcript, err error) { v.transcribed(th, take, tr, err) })
}

// transcribeThen sends a take to the service and hands what it answered to done, on the UI's
// goroutine.
func (v *pushToTalk) transcribeThen(take *audio.Take, done func(*client.Transcript, error)) {
	v.state("Transcribing…")
	svc, ctx := v.conn.svc, v.ctx
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		tr, err := svc.Transcribe(ctx, client.TranscribeRequest{Audio: take.Audio, MIMEType: take.MIME})
		v.do(func() { done(tr, err) })
	}()
}

// transcribed puts the transcript in the composer, or sends it when the preference says so.
// A take that failed to transcribe is kept for Try again, so what was said is not lost.
func (v *pushToTalk) transcribed(th *conversation.Thread, take *audio.Take, tr *client.Transcript, err error) {
	v.state("")
	if err != nil {
		v.problem("The recording was not transcribed.", err, func() { v.transcribe(th, take) })
		return
	}
	text := strings.TrimSpace(tr.Text)
	if text == "" {
		v.view.showNotice("Didn't catch that: the service heard no words.", actionRetry.label(), v.toggle)
		return
	}
	if v.prefs.sendSpoken() && th == v.host.onScreen() {
		v.host.send(text)
		return
	}
	v.addToComposer(text)
	v.host.focusComposer()
}

// addToComposer puts what was said in the message box, after what it holds, for review.
func (v *pushToTalk) addToComposer(text string) {
	text = strings.TrimSpace(text)
	if cur := strings.TrimSpace(v.view.text()); cur != "" {
		text = cur + " " + text
	}
	v.view.setText(text)
}

// expectReply notes that the person sent the message key in th, so that its reply is spoken.
func (v *pushToTalk) expectReply(th *conversation.Thread, key int64) {
	if key != 0 {
		v.waiting[key] = awaited{th: th}
	}
}

// turnEnded speaks the reply awaited for turn o.Key of th: a typed message's when auto-speak is
// on and its conversation is on screen (once the person has left it, the reply is not spoken,
// now or later), a hold-to-talk question's wherever the person has gone since (to another
// conversation, or a new one from the tray), told in a notification when the window is hidden.
func (v *pushToTalk) turnEnded(th *conversation.Thread, o conversation.Outcome) {
	a, ok := v.waiting[o.Key]
	if !ok || a.th != th {
		return
	}
	delete(v.waiting, o.Key)
	held := a.question != ""
	switch {
	case o.End == conversation.Replied && v.host.voiceModeActive():
		// Voice mode speaks its own replies; nothing else may play while it listens.
	case o.End == conversation.Replied:
		if held {
			v.host.tellAway(a.question, o.Reply.Text, th)
		}
		if held || (v.prefs.autoSpeak() && th == v.host.onScreen()) {
			v.speakWith(o.Reply.Text, v.sess.Snapshot(th).Voice)
		}
	default:
		if held {
			v.host.tellAway("No reply to: "+a.question, phrase(o.Err).text, th)
		}
		if o.End == conversation.NoReply && o.State == conversation.Lost {
			// The history read after a lost reply may still find it: spoken as a typed one's.
			v.waiting[o.Key] = awaited{th: th}
		}
	}
}

// speak says text with the conversation's voice (the Speak action of a bubble).
func (v *pushToTalk) speak(text string) {
	voiceName := ""
	if th := v.host.onScreen(); th != nil {
		voiceName = v.sess.Snapshot(th).Voice
	}
	v.speakWith(text, voiceName)
}

// speakWith says text sentence by sentence.
func (v *pushToTalk) speakWith(text, voiceName string) {
	if !v.openPlayer() {
		return
	}
	if voiceName == "" {
		voiceName = v.prefs.defaultVoice()
	}
	v.speaker.Stop()
	v.speaking = true
	v.sayGen++
	v.view.showStop(true)
	v.state("Speaking")

	sp, ctx, gen := v.speaker, v.ctx, v.sayGen
	go func() {
		err := sp.Say(ctx, text, voiceName, nil)
		switch {
		case errors.Is(err, voice.ErrNothingToSay), err == nil && !sp.Pending():
			// Nothing was queued, or every clip ended before Say returned (the queue's last
			// QueueDrained may have come while it was still queuing, and been taken for a gap).
			v.do(func() {
				if v.sayGen == gen && v.speaking {
					v.spoken()
				}
			})
		case err != nil && !errors.Is(err, context.Canceled):
			v.do(func() {
				v.spoken()
				v.problem("The reply could not be spoken.", err, func() { v.speakWith(text, voiceName) })
			})
		}
	}()
}

// openPlayer makes the player of spoken replies on first use.
func (v *pushToTalk) openPlayer() bool {
	if v.speaker != nil {
		return true
	}
	if v.deps.NewPlayer == nil || v.conn == nil {
		v.problem("", playback.ErrNoDevice, nil)
		return false
	}
	if v.player == nil {
		// One player for the life of the app; it opens the audio output only while it has
		// something to play, and closes it playback.IdleClose after. Its events arrive on the
		// player's own goroutine: they reach the window's state only through v.do.
		loop, do, following := v.loop, v.do, &v.following
		v.player = v.deps.NewPlayer(func(ev playback.Event) {
			if l := loop.Load(); l != nil {
				l.PlaybackEvent(ev) // voice mode follows its replies' playback
			}
			if sp := following.Load(); sp != nil {
				sp.PlaybackEvent(ev) // the speaker prepares the next sentences as these play
			}
			switch {
			case ev.Kind == playback.QueueDrained:
				if sp := following.Load(); sp != nil && sp.Pending() {
					break // a gap: the next sentence's speech is late
				}
				do(v.spoken)
			case ev.Kind == playback.ClipEnded && errors.Is(ev.Err, playback.ErrNoDevice):
				do(func() { v.outputFailed(ev.Err) })
			}
		})
		v.player.SetVolume(v.prefs.volume())
	}
	v.speaker = voice.NewSpeaker(v.conn.svc, v.player)
	v.following.Store(v.speaker)
	return true
}

// output is the audio output, once openPlayer opened it (voice mode plays its replies there).
func (v *pushToTalk) output() Player { return v.player }

// setVolume sets the volume of spoken replies, when the output is open.
func (v *pushToTalk) setVolume(vol float64) {
	if v.player != nil {
		v.player.SetVolume(vol)
	}
}

// forgetAwaited stops waiting for replies to speak: voice mode speaks its own.
func (v *pushToTalk) forgetAwaited() { clear(v.waiting) }

// outputFailed stops the speech when the audio output cannot play it, and says so (once: the
// clips after it end with the same error).
func (v *pushToTalk) outputFailed(err error) {
	if !v.speaking {
		return
	}
	v.stopSpeaking()
	v.problem("", err, nil)
}

// spoken marks the end of speech.
func (v *pushToTalk) spoken() {
	v.speaking = false
	if v.view != nil {
		v.view.showStop(false)
	}
	if !v.recording {
		v.state("")
	}
}

// stopSpeaking stops the speech.
func (v *pushToTalk) stopSpeaking() {
	if v.speaker != nil {
		v.speaker.Stop()
	}
	v.spoken()
}

// escape stops a recording or speech, else dismisses the composer's notice; it reports whether
// there was one.
func (v *pushToTalk) escape() bool {
	switch {
	case v.recording:
		v.cancelRecording()
		return true
	case v.speaking:
		v.stopSpeaking()
		return true
	}
	return v.view != nil && v.view.hideNotice()
}

// stopAll ends recording and speech, when the window closes.
func (v *pushToTalk) stopAll() {
	v.cancelRecording()
	v.stopSpeaking()
}
