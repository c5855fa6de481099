package e2e

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_HearsWithAWhisperServer runs the app with nothing configured beside a Whisper server
// (a stand-in served by this test's process in speaches' shape) and one that takes connections
// and never answers: the first-run screen names the one that answers, the window is not held by
// the other, and a question spoken through push-to-talk reaches the message box as the Whisper
// server heard it.
func TestApp_HearsWithAWhisperServer(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract", "flite", "sox", "paplay", "parec")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	p := testenv.StartPulse(t)
	hung := testenv.StartWhisper(t, testenv.WhisperHung, "")
	w := testenv.StartWhisper(t, testenv.WhisperOpenAI, "Zebras paint the lighthouse green.")
	env := appEnviron("PARLEY_TEST_RUNTIME_PORTS=none", "PARLEY_AUDIO_BACKEND=pulse",
		"PARLEY_TEST_RECOGNISER_PORTS="+strconv.Itoa(hung.Port)+","+strconv.Itoa(w.Port))
	shots := shotsDir(t)
	dir := t.TempDir()
	question := say(t, dir, "question", theQuestion)
	quietRoom(t, p, dir)
	startAppAt(t, d, env, t.TempDir())
	defer func() {
		if t.Failed() {
			d.Screenshot(t, filepath.Join(shots, "failed.png"))
		}
	}()
	d.WaitForWindow(t, "Parley", 30*time.Second)
	waitForTextAnySpaces(t, d, "hears with whisper-small from faster-whisper", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "welcome-whisper-found.png"))
	if w.Heard.Load() != 0 {
		t.Error("the Whisper server was sent audio before anything was said")
	}

	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Key(t, "ctrl+m")
	d.WaitForText(t, "Listening", 10*time.Second)
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(t, p, question)
	testenv.WaitUntil(t, 60*time.Second, poll, "the Whisper server to hear the take", func() bool { return w.Heard.Load() == 1 })
	// Without its full stop: OCR reads it as a comma beside the text cursor that follows it.
	waitForTextAnySpaces(t, d, "Zebras paint the lighthouse green", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "whisper-transcript.png"))
	if w.Bad.Load() != 0 {
		t.Errorf("the Whisper server refused %d uploads", w.Bad.Load())
	}
}
