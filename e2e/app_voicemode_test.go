package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_VoiceModeHandsFree is hands-free voice mode in the real app through real audio
// devices: Ctrl+Shift+M starts it; a question spoken by flite is played into the PulseAudio
// null sink whose monitor is the app's microphone; the app transcribes it, asks the chat, shows
// both in the chat view, speaks the reply into the sink, and listens again. Its own voice from
// the "speakers" (the same sink) must not become a second question.
func TestApp_VoiceModeHandsFree(t *testing.T) {
	testenv.RequireCommands(t, "flite", "sox", "lame", "paplay", "pocketsphinx_continuous", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	p := testenv.StartPulse(t)
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY="+key, "PARLEY_AUDIO_BACKEND=pulse")
	dir := t.TempDir()
	shots := screenshotDir(t)

	question := say(t, dir, "question", theQuestion)
	quietRoom(t, p, dir)

	home := t.TempDir()
	startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)

	d.Key(t, "ctrl+shift+m")
	d.WaitForText(t, "Listening", 15*time.Second)
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(t, p, question)
	var id string
	var h historyJSON
	testenv.WaitUntil(t, 40*time.Second, poll, "the spoken question and its reply to reach the service", func() bool {
		id = firstID(run(t, env, "", "conversations", "--json").Stdout)
		if id == "" {
			return false
		}
		h = history(t, env, id)
		return len(h.Messages) == 2 && h.Messages[1].Role == "assistant"
	})
	if said := h.Messages[0].Content; wordOverlap(said, theQuestion) < minOverlap {
		t.Errorf("voice mode sent %q: want at least %.0f%% of the spoken words", said, 100*minOverlap)
	}
	waitForAnyText(t, d, 20*time.Second, "you asked about")
	d.Screenshot(t, filepath.Join(shots, "voice-mode.png"))
	// The reply is spoken into the sink the microphone listens to; once it has played, the loop
	// listens again, and what it heard of itself was not taken for a question.
	waitForAnyText(t, d, 60*time.Second, "speak when you are ready")
	time.Sleep(3 * time.Second)
	if h := history(t, env, id); len(h.Messages) != 2 {
		t.Errorf("the conversation has %d messages; the app's own voice became a question: %+v", len(h.Messages), h.Messages)
	}

	// Ctrl+Shift+M again ends it, and the composer is back.
	d.Key(t, "ctrl+shift+m")
	d.WaitForText(t, "Message Parley", 15*time.Second)
}
