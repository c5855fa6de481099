package app

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/app/talk"
	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/conversation/conversationtest"
)

// failingRecorder fails every take with err, as a real device does.
type failingRecorder struct {
	err   error
	calls chan struct{}
}

func (r *failingRecorder) Record(context.Context, audio.TakeOptions) (*audio.Take, error) {
	r.calls <- struct{}{}
	return nil, r.err
}

func (*failingRecorder) Stop() {}

// noticeShown reports whether the composer shows a notice containing text.
func (h *harness) noticeShown(text string) bool {
	c := h.u.main.composer
	return !c.notice.Hidden && strings.Contains(c.noticeText.Text, text)
}

func TestApp_MicrophoneProblemsShowInTheComposerAndKeepTheText(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		says   string
		action string
	}{
		{"no microphone", fmt.Errorf("%w: default did not open: busy", audio.ErrNoDevice), "No microphone was found", "Preferences…"},
		{"device failed", fmt.Errorf("%w: it stopped during the take", audio.ErrDeviceFailed), "The microphone stopped working", "Try again"},
		{"device silent", fmt.Errorf("%w (2s of zeros)", audio.ErrSilentDevice), "delivers only silence", "Preferences…"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc := newFakeService()
			h := start(t, svc)
			rec := &failingRecorder{err: tt.err, calls: make(chan struct{}, 10)}
			h.u.deps.NewRecorder = func() Recorder { return rec }
			test.Type(h.u.main.composer.entry, "half a thought")
			h.u.toggleRecording()
			<-rec.calls
			h.waitFor(func() bool { return h.noticeShown(tt.says) })
			c := h.u.main.composer
			if c.text() != "half a thought" || h.u.win.Canvas().Focused() != c.entry {
				t.Errorf("after the failure: composer %q, focus %v; want the typed text, focused", c.text(), h.u.win.Canvas().Focused())
			}
			if c.noticeAction.Hidden || c.noticeAction.Text != tt.action {
				t.Errorf("notice button %q (hidden %v), want %q", c.noticeAction.Text, c.noticeAction.Hidden, tt.action)
			}
			if h.u.main.status.message.Text != "" {
				t.Errorf("the status bar says %q too", h.u.main.status.message.Text)
			}
			if _, _, n := svc.Recorded(); n != 0 {
				t.Errorf("%d transcribe calls after a failed take", n)
			}

			test.Tap(c.noticeAction)
			switch tt.action {
			case "Try again": // records again
				<-rec.calls
				h.waitFor(func() bool { return !h.u.talk.State().Recording && h.noticeShown(tt.says) })
			case "Preferences…":
				if h.u.closeDialog == nil || !strings.Contains(test.RenderToMarkup(h.u.win.Canvas()), "Preferences") {
					t.Error("the notice's Preferences… did not open the preferences")
				}
				h.u.escape()
				h.u.escape() // the second Esc dismisses the notice
				if h.noticeShown(tt.says) {
					t.Error("Esc did not dismiss the notice")
				}
			}
			if c.text() != "half a thought" {
				t.Errorf("the typed text became %q", c.text())
			}
		})
	}
}

func TestApp_NoRecorderSaysSoInTheComposer(t *testing.T) {
	h := start(t, newFakeService())
	h.u.deps.NewRecorder = nil
	h.u.toggleRecording()
	if !h.noticeShown("No microphone was found") || h.u.talk.State().Recording {
		t.Errorf("no recorder: notice %q (hidden %v), recording %v", h.u.main.composer.noticeText.Text, h.u.main.composer.notice.Hidden, h.u.talk.State().Recording)
	}
	h.typeAndSend("typed instead")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	if !h.u.main.composer.notice.Hidden {
		t.Error("the notice stayed after the person sent a message")
	}
}

// transcribeFailing is the fake service with a transcription that fails once.
type transcribeFailing struct {
	*conversationtest.Service
	err error
}

func (s *transcribeFailing) Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error) {
	if err := s.err; err != nil {
		s.err = nil
		return nil, err
	}
	return s.Service.Transcribe(ctx, req)
}

func TestApp_FailedTranscriptionKeepsTheTakeForTryAgain(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	// The talk controller speaks to the service attached: it is given the failing one.
	h.u.talk.Attach(talk.Attached{Service: &transcribeFailing{Service: svc, err: &client.Error{StatusCode: 503, Message: "overloaded"}}, Session: h.u.main.sess})
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.u.toggleRecording()
	<-h.rec.calls
	h.waitFor(func() bool { return h.noticeShown("The recording was not transcribed. The service is unavailable") })
	if h.u.main.composer.noticeAction.Text != "Try again" {
		t.Fatalf("notice button %q", h.u.main.composer.noticeAction.Text)
	}
	test.Tap(h.u.main.composer.noticeAction)
	h.waitFor(func() bool { return h.u.main.composer.text() == "What is the weather like?" })
	if len(h.rec.calls) != 0 {
		t.Error("Try again recorded a new take instead of sending the one kept")
	}
	if !h.u.main.composer.notice.Hidden {
		t.Error("the notice stayed after the transcript arrived")
	}
}

func TestApp_NoAudioOutputStopsSpeakingAndSaysSo(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	events := make(chan func(playback.Event), 1)
	h.u.deps.NewPlayer = func(onEvent func(playback.Event)) Player {
		events <- onEvent
		return h.player
	}
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	h.typeAndSend("Where to")
	h.waitFor(func() bool { return h.u.talk.State().Speaking && len(h.player.Added) > 0 })
	onEvent := <-events
	test.Type(h.u.main.composer.entry, "next question")
	onEvent(playback.Event{Kind: playback.ClipEnded, Clip: 1, Err: fmt.Errorf("%w (no card)", playback.ErrNoDevice)})
	h.waitFor(func() bool { return h.noticeShown("No audio output was found") })
	if h.u.talk.State().Speaking || !h.u.main.composer.stop.Hidden || h.u.main.status.voice.Text == "Speaking" {
		t.Errorf("still speaking after the output failed: stop hidden %v, status %q", h.u.main.composer.stop.Hidden, h.u.main.status.voice.Text)
	}
	if h.u.main.composer.text() != "next question" {
		t.Errorf("the typed text became %q", h.u.main.composer.text())
	}
	// The clips after it fail the same way: one notice, not one per clip.
	h.u.escape()
	onEvent(playback.Event{Kind: playback.ClipEnded, Clip: 2, Err: playback.ErrNoDevice})
	h.waitFor(func() bool { return len(h.queue) == 0 })
	if !h.u.main.composer.notice.Hidden {
		t.Error("a later clip's failure showed the notice again")
	}
}

func TestGolden_DeviceProblem(t *testing.T) {
	h := start(t, newFakeService())
	rec := &failingRecorder{err: audio.ErrNoDevice, calls: make(chan struct{}, 1)}
	h.u.deps.NewRecorder = func() Recorder { return rec }
	test.Type(h.u.main.composer.entry, "Typed before the microphone failed")
	h.u.toggleRecording()
	<-rec.calls
	h.waitFor(func() bool { return h.noticeShown("No microphone") })
	// A window on screen lays out again when a part's minimum size changes (the wrapped notice,
	// then the composer that holds it); the test canvas does not, so make it.
	h.u.win.Resize(fyne.NewSize(1001, 700))
	h.u.win.Resize(fyne.NewSize(1000, 700))
	test.AssertRendersToMarkup(t, "device-problem.xml", h.u.win.Canvas())
}
