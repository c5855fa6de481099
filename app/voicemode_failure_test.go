package app

import (
	"strings"
	"testing"
	"time"

	"parley/app/talk"
	"parley/client"
	"parley/voice"
)

// A failed turn's reason stays on the panel while voice mode listens again, until the person
// speaks: the first failures do not end voice mode, so this is the only place they are told.
func TestVoiceMode_AFailedTurnSaysWhyUntilTheNextTurn(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	svc.ChatErrs = []error{&client.Error{StatusCode: 503, Message: "the service is busy"}}
	h := start(t, svc)
	mic := listeningWithSpeechMic(h)
	mic.Say(1500 * time.Millisecond)
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Something went wrong" })
	during := h.u.main.vpanel.detail.Text
	if !strings.HasPrefix(during, "Could not get a reply.") {
		t.Errorf("while the error shows, the panel says %q", during)
	}
	// Listening again after the pause, the reason is still there.
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Listening…" })
	after := h.u.main.vpanel.detail.Text
	if !strings.HasPrefix(after, "Could not get a reply.") || !strings.Contains(after, "Listening again") {
		t.Errorf("listening again after the failure, the panel says %q", after)
	}
	if reason := strings.TrimSuffix(strings.TrimPrefix(during, "Could not get a reply."), " Listening again in a moment."); !strings.Contains(after, reason) {
		t.Errorf("the reason %q is gone from %q", reason, after)
	}
	if !h.u.voiceModeActive() {
		t.Fatal("one failure ended voice mode")
	}
	// The next turn clears it.
	mic.Say(1500 * time.Millisecond)
	h.waitFor(func() bool { return len(svc.ChatRequests()) == 2 })
	h.waitFor(func() bool {
		return h.u.main.vpanel.state.Text == "Listening…" && h.u.main.vpanel.detail.Text == "Speak when you are ready. Parley answers when you pause."
	})
}

// While a reply is spoken, the panel says what the microphone does: with barge-in, speaking
// interrupts; without, it is ignored.
func TestVoiceMode_SpeakingSaysWhatTheMicrophoneDoes(t *testing.T) {
	h := start(t, newFakeService())
	m := h.u.main.vpanel
	m.changed(talk.State{Mode: talk.On})
	for _, tc := range []struct {
		bargeIn bool
		want    string
	}{
		{true, "Speak to interrupt."},
		{false, "The microphone is ignored while Parley speaks."},
	} {
		m.status(voice.Status{State: voice.Speaking, Turn: 1}, talk.State{Mode: talk.On, Loop: voice.Speaking, BargeIn: tc.bargeIn})
		if m.detail.Text != tc.want {
			t.Errorf("barge-in %v: the panel says %q, want %q", tc.bargeIn, m.detail.Text, tc.want)
		}
	}
}
