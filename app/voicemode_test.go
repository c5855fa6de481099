package app

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/conversation"
	"parley/voice"
)

// speechMic is a microphone that says something speech-like when asked: a voiced sound (a
// 140 Hz buzz with its harmonics, in syllables) over a quiet room, one 20 ms frame every
// millisecond.
type speechMic struct {
	mu     sync.Mutex
	queue  []int16
	n      int
	closed bool
}

func (m *speechMic) say(d time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := int(d.Seconds() * audio.SampleRate)
	for i := range n {
		t := float64(i) / audio.SampleRate
		syllable := 0.5 + 0.5*math.Sin(2*math.Pi*4*t)
		v := 0.0
		for h := 1; h <= 8; h++ {
			v += math.Sin(2*math.Pi*140*float64(h)*t) / float64(h)
		}
		m.queue = append(m.queue, int16(6000*syllable*v))
	}
}

// withSpeechMic gives the window a speechMic as its microphone, and a player that reports what
// it plays, for voice mode.
func withSpeechMic(h *harness) *speechMic {
	mic := &speechMic{}
	h.u.deps.OpenMic = func(string) (Mic, error) { return mic, nil }
	h.player.emit = true
	return mic
}

func (m *speechMic) ReadFrame(ctx context.Context, frame []int16) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(time.Millisecond):
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	c := copy(frame, m.queue)
	m.queue = m.queue[c:]
	for i := c; i < len(frame); i++ {
		m.n++
		frame[i] = int16(m.n*7919%41 - 20)
	}
	return nil
}

func (m *speechMic) Close() error {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	return nil
}

func TestVoiceMode_AQuestionAndItsReplyAppearAndAreSpoken(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	h := start(t, svc)
	mic := withSpeechMic(h)

	h.u.toggleVoiceMode()
	if !h.u.vmode.active || h.u.composer.box.Visible() || !h.u.vmode.box.Visible() {
		t.Fatal("voice mode did not take the composer's place")
	}
	h.waitFor(func() bool { return h.u.vmode.state.Text == "Listening…" })
	if !strings.Contains(h.u.status.voice.Text, "Listening") {
		t.Errorf("status bar says %q", h.u.status.voice.Text)
	}
	mic.say(1500 * time.Millisecond)
	h.waitFor(func() bool { return len(svc.ChatRequests()) == 1 })
	if got := svc.ChatRequests()[0].Message; got != svc.Heard {
		t.Errorf("chat got %q", got)
	}
	// The question and the reply show in the chat view, and the reply is spoken.
	h.waitFor(func() bool {
		v := h.u.sess.Snapshot(h.u.current)
		return len(v.Messages) == 2 && v.Messages[0].Text == svc.Heard && v.Messages[1].Role == conversation.Assistant
	})
	reply := h.u.sess.Snapshot(h.u.current).Messages[1].Text
	h.waitFor(func() bool { return len(h.player.added) > 0 })
	if clip := <-h.player.added; !strings.Contains(reply, strings.TrimSpace(clip)) {
		t.Errorf("spoke %q; the reply is %q", clip, reply)
	}
	// Then it listens again.
	h.waitFor(func() bool {
		return h.u.vmode.state.Text == "Listening…" && strings.Contains(h.u.vmode.detail.Text, "Speak")
	})

	// Mute, then end voice mode: the composer comes back with the keyboard.
	h.u.vmode.toggleMute()
	h.waitFor(func() bool { return h.u.vmode.state.Text == "Muted" })
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return !h.u.vmode.active })
	if !h.u.composer.box.Visible() || h.u.vmode.box.Visible() {
		t.Error("the composer did not come back")
	}
	mic.mu.Lock()
	closed := mic.closed
	mic.mu.Unlock()
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
	mic := withSpeechMic(h)
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return h.u.vmode.state.Text == "Listening…" })
	old := h.u.vmode

	next := newFakeService()
	h.u.attach(&connection{svc: next, baseURL: next.BaseURL()})
	h.waitFor(func() bool {
		mic.mu.Lock()
		defer mic.mu.Unlock()
		return mic.closed && !old.active
	})
	if h.u.vmode.active || h.u.voiceLoop.Load() != nil {
		t.Error("voice mode is on after another service was attached")
	}
	mic.say(1500 * time.Millisecond)
	if _, _, n := svc.Recorded(); n != 0 {
		t.Errorf("%d transcriptions on the service left; want none", n)
	}
	if _, _, n := next.Recorded(); n != 0 || len(next.ChatRequests()) != 0 {
		t.Errorf("the new service got %d transcriptions and %d chats; want none", n, len(next.ChatRequests()))
	}
}

func TestVoiceMode_WithoutMicrophoneSaysSo(t *testing.T) {
	h := start(t, newFakeService())
	h.u.deps.OpenMic = func(string) (Mic, error) { return nil, audio.ErrNoDevice }
	h.u.toggleVoiceMode()
	if h.u.vmode.active {
		t.Fatal("voice mode started without a microphone")
	}
	if !h.u.composer.notice.Visible() || !strings.Contains(h.u.composer.noticeText.Text, "Voice mode needs a microphone") {
		t.Errorf("notice %q", h.u.composer.noticeText.Text)
	}
}

// Leaving the conversation while its question is answered ends voice mode once the reply is in.
func TestVoiceMode_SwitchingConversationWhileThinking(t *testing.T) {
	svc := newFakeService()
	svc.Heard = "What is the capital of France?"
	svc.Gate = make(chan struct{})
	h := start(t, svc)
	mic := withSpeechMic(h)
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return h.u.vmode.state.Text == "Listening…" })
	mic.say(1500 * time.Millisecond)
	h.waitFor(func() bool { return h.u.vmode.state.Text == "Thinking…" })
	h.u.newConversation()
	close(svc.Gate)
	h.waitFor(func() bool { return !h.u.vmode.active })
	if !h.u.composer.box.Visible() {
		t.Error("the composer did not come back")
	}
	if len(h.player.added) != 0 {
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
	h.waitFor(func() bool { return h.u.vmode.state.Text == "Listening…" })
	close(svc.Gate)
	// The window has rendered the reply, so it has decided whether to speak it: speaking starts
	// then, before any speech is asked for.
	h.waitFor(func() bool { return h.shown(rowMessage) == 2 })
	if h.u.ptt.speaking {
		t.Error("the reply is being spoken while voice mode listens")
	}
	if n := len(h.player.added); n != 0 {
		t.Errorf("%d clips played while voice mode listened", n)
	}
}

// The loop gives notice kinds; the panel phrases them.
func TestVoiceMode_PhrasesTheLoopsNotices(t *testing.T) {
	h := start(t, newFakeService())
	m := h.u.vmode
	m.active = true
	defer func() { m.active = false }()
	for kind, want := range map[voice.NoticeKind]string{
		voice.NoNotice:          "Speak when you are ready. Parley answers when you pause.",
		voice.NoticeDidNotCatch: "Didn't catch that.",
		voice.NoticeSilentMic:   "The microphone delivers only silence: check that it is on and not muted.",
	} {
		m.show(voice.Status{State: voice.Listening, Turn: 1, Notice: kind})
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
	m := h.u.vmode
	if m.mute.Icon != micOffIcon {
		t.Errorf("Mute shows %v, not a microphone struck through", m.mute.Icon.Name())
	}
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return m.state.Text == "Listening…" })
	mic.say(1500 * time.Millisecond)
	h.waitFor(func() bool { return m.detail.Text == "Didn't catch that." })
	m.toggleMute()
	h.waitFor(func() bool { return m.state.Text == "Muted" })
	if m.detail.Text != "The microphone is muted: nothing you say is heard." {
		t.Errorf("muted, the panel says %q", m.detail.Text)
	}
	if m.mute.Text != "Unmute" || m.mute.Icon != micIcon {
		t.Errorf("muted, the button says %q with %v", m.mute.Text, m.mute.Icon.Name())
	}
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return !m.active })
}

// TestVoiceMode_MeterRestsWhileTheMicrophoneIsIgnored checks that the meter moves while voice
// mode listens, and rests at nothing while the panel says the microphone is ignored.
func TestVoiceMode_MeterRestsWhileTheMicrophoneIsIgnored(t *testing.T) {
	h := start(t, newFakeService())
	withSpeechMic(h)
	m := h.u.vmode
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return m.state.Text == "Listening…" })
	hear := func(db float64) {
		m.levelMu.Lock()
		m.levelAt = time.Time{} // past the meter's rate limit
		m.levelMu.Unlock()
		m.levelHeard(db)
		done := make(chan struct{})
		m.do(func() { close(done) })
		h.waitFor(func() bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		})
	}
	hear(-12)
	if m.level.Value == 0 {
		t.Fatal("the meter does not move while voice mode listens")
	}
	m.bargeIn = false
	m.show(voice.Status{State: voice.Speaking, Turn: 1})
	if !strings.Contains(m.detail.Text, "ignored") || m.level.Value != 0 {
		t.Fatalf("speaking: the panel says %q, the meter at %v", m.detail.Text, m.level.Value)
	}
	hear(-6)
	if m.level.Value != 0 {
		t.Errorf("the meter moved to %v while the panel says %q", m.level.Value, m.detail.Text)
	}
	m.bargeIn = true // speaking over the reply interrupts it: the microphone is used
	m.show(voice.Status{State: voice.Speaking, Turn: 1})
	hear(-6)
	if m.level.Value == 0 {
		t.Errorf("with barge-in the meter rests while the panel says %q", m.detail.Text)
	}
	h.u.toggleVoiceMode()
	h.waitFor(func() bool { return !m.active })
}

// TestVoiceMode_QuickClicksEndAsCounted checks that presses of Voice mode quicker than the loop
// stops end as their number says: odd on, even off.
func TestVoiceMode_QuickClicksEndAsCounted(t *testing.T) {
	for _, presses := range []int{5, 4, 3, 2} {
		h := start(t, newFakeService())
		withSpeechMic(h)
		m := h.u.vmode
		for range presses {
			h.u.toggleVoiceMode() // no update runs between them: the loop has not stopped
		}
		wantOn := presses%2 == 1
		h.waitFor(func() bool {
			if wantOn {
				return !m.stopping && m.active && m.state.Text == "Listening…"
			}
			return !m.stopping && !m.active
		})
		if h.u.voiceModeActive() != wantOn || m.box.Visible() != wantOn || h.u.composer.box.Visible() == wantOn {
			t.Errorf("%d presses: on %v, panel shown %v, composer shown %v; want on %v",
				presses, h.u.voiceModeActive(), m.box.Visible(), h.u.composer.box.Visible(), wantOn)
		}
		if wantOn {
			h.u.toggleVoiceMode()
			h.waitFor(func() bool { return !m.active })
		}
	}
}
