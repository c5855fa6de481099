package app

import (
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/voice"
)

func TestApp_SpokenReplyIsPreparedAsItPlays(t *testing.T) {
	svc := newFakeService()
	svc.Reply = func(string) string { return "One. Two. Three. Four. Five. Six." }
	h := start(t, svc)
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	asked := func() int {
		svc.Mu.Lock()
		defer svc.Mu.Unlock()
		return len(svc.Speech)
	}
	h.typeAndSend("Count")
	// Nothing has played yet: the first sentence and Lookahead after it are prepared, no more.
	h.waitFor(func() bool { return len(h.player.Added) == 1+voice.Lookahead })
	if n := asked(); n != 1+voice.Lookahead {
		t.Errorf("%d sentences asked for before any played, want %d", n, 1+voice.Lookahead)
	}
	// The player tells that the first sentence has played: one more is prepared.
	on := h.player.Report
	on(playback.Event{Kind: playback.ClipStarted, Clip: 1})
	on(playback.Event{Kind: playback.ClipEnded, Clip: 1})
	h.waitFor(func() bool { return len(h.player.Added) == 2+voice.Lookahead })
	// Esc: nothing more is asked for, even as the player ends the clips it had.
	if !h.u.talk.Escape() {
		t.Fatal("Esc did not stop the speech")
	}
	on(playback.Event{Kind: playback.ClipEnded, Clip: 2})
	on(playback.Event{Kind: playback.ClipEnded, Clip: 3})
	h.waitFor(func() bool { return len(h.queue) == 0 })
	if n := asked(); n != 2+voice.Lookahead {
		t.Errorf("%d sentences asked for after Esc, want %d", n, 2+voice.Lookahead)
	}
}

func TestApp_AGapBetweenSentencesIsNotTheEnd(t *testing.T) {
	svc := newFakeService()
	svc.Reply = func(string) string { return "One. Two. Three. Four. Five. Six." }
	h := start(t, svc)
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	h.typeAndSend("Count")
	h.waitFor(func() bool { return len(h.player.Added) == 1+voice.Lookahead })
	on := h.player.Report
	// The clips queued play out before the next sentence's speech has come: the queue drains.
	for id := playback.ClipID(1); id <= 1+voice.Lookahead; id++ {
		on(playback.Event{Kind: playback.ClipStarted, Clip: id})
		on(playback.Event{Kind: playback.ClipEnded, Clip: id})
	}
	on(playback.Event{Kind: playback.QueueDrained})
	h.waitFor(func() bool { return len(h.player.Added) == 6 })
	h.waitFor(func() bool { return len(h.queue) == 0 }) // the window has seen the drain
	if !h.u.talk.State().Speaking || h.u.main.composer.stop.Hidden || h.u.main.status.voice.Text != "Speaking" {
		t.Errorf("a gap between sentences ended the speech: stop hidden %v, status %q", h.u.main.composer.stop.Hidden, h.u.main.status.voice.Text)
	}
	for id := playback.ClipID(2 + voice.Lookahead); id <= 6; id++ {
		on(playback.Event{Kind: playback.ClipEnded, Clip: id})
	}
	on(playback.Event{Kind: playback.QueueDrained})
	h.waitFor(func() bool { return !h.u.talk.State().Speaking })
	if !h.u.main.composer.stop.Hidden {
		t.Error("Stop still shown after the reply was spoken")
	}
}

// The app's own service loads its recogniser when a recording starts, while the person speaks,
// so that the transcription does not wait for the model; a service elsewhere is not asked to.
func TestApp_RecordingWarmsTheLocalRecogniser(t *testing.T) {
	for _, local := range []bool{false, true} {
		svc := newFakeService()
		h := start(t, svc)
		warmed := 0
		c := &connection{svc: svc, baseURL: svc.BaseURL(), local: local}
		if local {
			c.warmSpeech = func() { warmed++ }
		}
		h.u.attach(c)
		h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
		h.u.toggleRecording()
		<-h.rec.calls
		h.waitFor(func() bool { return !h.u.talk.State().Recording })
		if want := map[bool]int{false: 0, true: 1}[local]; warmed != want {
			t.Errorf("local %v: the recogniser was warmed %d times, want %d", local, warmed, want)
		}
	}
}

// With spoken replies on, the reply to a message sent again after a failure is spoken, as the
// first try's would have been.
func TestApp_RetriedReplyIsSpoken(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{&client.Error{StatusCode: 503, Message: "busy"}}
	h := start(t, svc)
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	h.typeAndSend("Where to")
	h.waitFor(h.failedShown)
	test.Tap(h.u.main.chat.Draw(0).Retry())
	h.waitFor(func() bool { return len(h.player.Added) > 0 })
}
