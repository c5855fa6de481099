package app

import (
	"strings"
	"testing"
	"time"

	"parley/app/chatview"
	"parley/app/talk"
	"parley/audio"
	"parley/audio/audiotest"
	"parley/conversation"
	"parley/voice"
)

// withSpeechMic gives the window a speech microphone, and a player that reports what it plays,
// for voice mode.
func withSpeechMic(h *harness) *audiotest.SpeechMic {
	mic := &audiotest.SpeechMic{}
	h.u.deps.OpenMic = func(string) (Mic, error) { return mic, nil }
	h.player.Emit = true
	return mic
}

// listeningWithSpeechMic is withSpeechMic, then voice mode started and listening.
func listeningWithSpeechMic(h *harness) *audiotest.SpeechMic {
	mic := withSpeechMic(h)
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Listening…" })
	return mic
}

func TestVoiceMode_AQuestionAndItsReplyAppearAndAreSpoken(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	h := start(t, svc)
	mic := withSpeechMic(h)

	h.u.toggleVoiceMode()
	if !h.u.voiceModeActive() || h.u.main.composer.box.Visible() || !h.u.main.vpanel.box.Visible() {
		t.Fatal("voice mode did not take the composer's place")
	}
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Listening…" })
	if !strings.Contains(h.u.main.status.voice.Text, "Listening") {
		t.Errorf("status bar says %q", h.u.main.status.voice.Text)
	}
	mic.Say(1500 * time.Millisecond)
	h.waitFor(func() bool { return len(svc.ChatRequests()) == 1 })
	if got := svc.ChatRequests()[0].Message; got != svc.Heard {
		t.Errorf("chat got %q", got)
	}
	// The question and the reply show in the chat view, and the reply is spoken.
	h.waitFor(func() bool {
		v := h.u.main.sess.Snapshot(h.u.main.current)
		return len(v.Messages) == 2 && v.Messages[0].Text == svc.Heard && v.Messages[1].Role == conversation.Assistant
	})
	reply := h.u.main.sess.Snapshot(h.u.main.current).Messages[1].Text
	h.waitFor(func() bool { return len(h.player.Added) > 0 })
	if clip := <-h.player.Added; !strings.Contains(reply, strings.TrimSpace(clip)) {
		t.Errorf("spoke %q; the reply is %q", clip, reply)
	}
	// Then it listens again.
	h.waitFor(func() bool {
		return h.u.main.vpanel.state.Text == "Listening…" && strings.Contains(h.u.main.vpanel.detail.Text, "Speak")
	})

	// Mute, then end voice mode: the composer comes back with the keyboard.
	h.u.talk.ToggleMute()
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Muted" })
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return !h.u.voiceModeActive() })
	if !h.u.main.composer.box.Visible() || h.u.main.vpanel.box.Visible() {
		t.Error("the composer did not come back")
	}
	closed := mic.Closed()
	if !closed {
		t.Error("the microphone was left open")
	}
	if _, _, n := svc.Recorded(); n != 1 {
		t.Errorf("%d transcriptions; want 1", n)
	}
}

// Connecting to another service ends voice mode: its loop stops and closes the microphone, and
// nothing heard afterwards reaches either service.
func TestVoiceMode_EndsWhenAnotherServiceIsAttached(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	h := start(t, svc)
	mic := listeningWithSpeechMic(h)

	next := newFakeService()
	h.u.attach(&connection{svc: next, baseURL: next.BaseURL()})
	h.waitFor(func() bool {
		return mic.Closed() && !h.u.voiceModeActive()
	})
	if h.u.voiceModeActive() || h.u.talk.VoiceThread() != nil {
		t.Error("voice mode is on after another service was attached")
	}
	mic.Say(1500 * time.Millisecond)
	if _, _, n := svc.Recorded(); n != 0 {
		t.Errorf("%d transcriptions on the service left; want none", n)
	}
	if _, _, n := next.Recorded(); n != 0 || len(next.ChatRequests()) != 0 {
		t.Errorf("the new service got %d transcriptions and %d chats; want none", n, len(next.ChatRequests()))
	}
}

// Connecting to another service while voice mode waits for a reply: voice mode ends at once
// (the reply's session is closed), the composer is back, and push-to-talk works.
func TestVoiceMode_EndsWhenAnotherServiceIsAttachedWhileThinking(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	svc.Gate = make(chan struct{}) // the reply never comes
	h := start(t, svc)
	mic := listeningWithSpeechMic(h)
	mic.Say(1500 * time.Millisecond)
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Thinking…" })

	next := newFakeService()
	h.u.attach(&connection{svc: next, baseURL: next.BaseURL()})
	h.waitFor(func() bool { return !h.u.voiceModeActive() })
	if !h.u.main.composer.box.Visible() || h.u.main.vpanel.box.Visible() {
		t.Error("after the switch the voice panel shows, not the composer")
	}
	h.rec.take = &audio.Take{Audio: []byte("webm"), MIME: "audio/webm", Speech: true, Duration: time.Second}
	h.u.toggleRecording()
	if !h.u.talk.State().Recording {
		t.Error("push-to-talk does nothing after the switch")
	}
}

func TestVoiceMode_WithoutMicrophoneSaysSo(t *testing.T) {
	h := start(t, newFakeService())
	h.u.deps.OpenMic = func(string) (Mic, error) { return nil, audio.ErrNoDevice }
	h.u.toggleVoiceMode()
	if h.u.voiceModeActive() {
		t.Fatal("voice mode started without a microphone")
	}
	if !h.u.main.composer.notice.Visible() || !strings.Contains(h.u.main.composer.noticeText.Text, "Voice mode needs a microphone") {
		t.Errorf("notice %q", h.u.main.composer.noticeText.Text)
	}
}

// Leaving the conversation while its question is answered ends voice mode once the reply is in.
func TestVoiceMode_SwitchingConversationWhileThinking(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	svc.Gate = make(chan struct{})
	h := start(t, svc)
	mic := listeningWithSpeechMic(h)
	mic.Say(1500 * time.Millisecond)
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Thinking…" })
	h.u.main.newConversation()
	close(svc.Gate)
	h.waitFor(func() bool { return !h.u.voiceModeActive() })
	if !h.u.main.composer.box.Visible() {
		t.Error("the composer did not come back")
	}
	if len(h.player.Added) != 0 {
		t.Error("the reply was spoken after voice mode was left")
	}
}

// A typed message's reply is not auto-spoken over voice mode's listening.
func TestVoiceMode_TypedReplyIsNotSpokenWhileItListens(t *testing.T) {
	svc := newFakeService()
	svc.Gate = make(chan struct{})
	h := start(t, svc)
	h.u.app.Preferences().SetBool(prefAutoSpeak, true)
	withSpeechMic(h)
	h.typeAndSend("hello there")
	h.waitFor(func() bool { return len(svc.ChatRequests()) == 1 })
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return h.u.main.vpanel.state.Text == "Listening…" })
	close(svc.Gate)
	// The window has rendered the reply, so it has decided whether to speak it: speaking starts
	// then, before any speech is asked for.
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	if h.u.talk.State().Speaking {
		t.Error("the reply is being spoken while voice mode listens")
	}
	if n := len(h.player.Added); n != 0 {
		t.Errorf("%d clips played while voice mode listened", n)
	}
}

// The loop gives notice kinds; the panel phrases them.
func TestVoiceMode_PhrasesTheLoopsNotices(t *testing.T) {
	h := start(t, newFakeService())
	m := h.u.main.vpanel
	m.changed(talk.State{Mode: talk.On})
	for kind, want := range map[voice.NoticeKind]string{
		voice.NoNotice:          "Speak when you are ready. Parley answers when you pause.",
		voice.NoticeDidNotCatch: "Didn't catch that.",
		voice.NoticeSilentMic:   "The microphone delivers only silence: check that it is on and not muted.",
	} {
		m.status(voice.Status{State: voice.Listening, Turn: 1, Notice: kind}, talk.State{Mode: talk.On, Loop: voice.Listening})
		if m.detail.Text != want {
			t.Errorf("notice %v: the panel says %q, want %q", kind, m.detail.Text, want)
		}
	}
}

// TestVoiceMode_MutedSaysMutedOnly checks that a notice given while listening ("Didn't catch
// that") does not stay under "Muted" once the person mutes.
func TestVoiceMode_MutedSaysMutedOnly(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "" // the service hears no words
	h := start(t, svc)
	mic := withSpeechMic(h)
	m := h.u.main.vpanel
	if m.mute.Icon != micOffIcon {
		t.Errorf("Mute shows %v, not a microphone struck through", m.mute.Icon.Name())
	}
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return m.state.Text == "Listening…" })
	mic.Say(1500 * time.Millisecond)
	h.waitFor(func() bool { return m.detail.Text == "Didn't catch that." })
	h.u.talk.ToggleMute()
	h.waitFor(func() bool { return m.state.Text == "Muted" })
	if m.detail.Text != "The microphone is muted: nothing you say is heard." {
		t.Errorf("muted, the panel says %q", m.detail.Text)
	}
	if m.mute.Text != "Unmute" || m.mute.Icon != micIcon {
		t.Errorf("muted, the button says %q with %v", m.mute.Text, m.mute.Icon.Name())
	}
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return !h.u.voiceModeActive() })
}

// TestVoiceMode_MeterRestsWhileTheMicrophoneIsIgnored checks that the panel's meter follows
// the levels voice mode hears, and rests at nothing when the controller no longer hears (the
// controller's side is tested in package talk).
func TestVoiceMode_MeterRestsWhileTheMicrophoneIsIgnored(t *testing.T) {
	h := start(t, newFakeService())
	mic := withSpeechMic(h)
	m := h.u.main.vpanel
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return m.state.Text == "Listening…" })
	mic.Say(400 * time.Millisecond)
	h.waitFor(func() bool { return m.level.Value > 0 }) // the meter follows what is heard
	h.u.talk.ToggleMute()
	h.waitFor(func() bool { return m.state.Text == "Muted" })
	if m.level.Value != 0 {
		t.Errorf("muted, the meter is at %v", m.level.Value)
	}
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return !h.u.voiceModeActive() })
}

// TestVoiceMode_QuickClicksEndAsCounted checks that presses of Voice mode quicker than the loop
// stops end as their number says: odd on, even off.
func TestVoiceMode_QuickClicksEndAsCounted(t *testing.T) {
	for _, presses := range []int{5, 4, 3, 2} {
		h := start(t, newFakeService())
		withSpeechMic(h)
		m := h.u.main.vpanel
		for range presses {
			h.u.toggleVoiceMode() // no update runs between them: the loop has not stopped
		}
		wantOn := presses%2 == 1
		h.waitFor(func() bool {
			if wantOn {
				return h.u.talk.State().Mode == talk.On && m.state.Text == "Listening…"
			}
			return h.u.talk.State().Mode == talk.Off
		})
		if h.u.voiceModeActive() != wantOn || m.box.Visible() != wantOn || h.u.main.composer.box.Visible() == wantOn {
			t.Errorf("%d presses: on %v, panel shown %v, composer shown %v; want on %v",
				presses, h.u.voiceModeActive(), m.box.Visible(), h.u.main.composer.box.Visible(), wantOn)
		}
		if wantOn {
			h.u.toggleVoiceMode()
			h.waitFor(func() bool { return !h.u.voiceModeActive() })
		}
	}
}
