package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_WakePhraseWithTheWindowHidden turns on the wake phrase in the preferences, starts voice
// mode, and hides the window in the tray: a question said without the wake phrase reaches no
// one; said after "Hey Parley" it is asked and answered in the conversation.
func TestApp_WakePhraseWithTheWindowHidden(t *testing.T) {
	testenv.RequireCommands(t, "flite", "sox", "lame", "paplay", "pocketsphinx_continuous", "tesseract")
	d := testenv.StartDisplay(t)
	d.StartWindowManager(t)
	bus := testenv.StartSessionBus(t)
	testenv.StartTrayWatcher(t, bus.Address)
	p := testenv.StartPulse(t)
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY="+key, "PARLEY_AUDIO_BACKEND=pulse")
	dir := t.TempDir()
	plain := say(t, dir, "plain", theQuestion)
	woken := say(t, dir, "woken", "hey parley, "+theQuestion)
	quietRoom(t, p, dir)

	home := t.TempDir()
	writePrefs(t, home, `{"keep_in_tray": true, "wake_word": true, "follow_up_s": 0}`)
	a := startAppAt(t, d, env, home)
	parley := d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Key(t, "ctrl+shift+m")
	d.WaitForText(t, "Nothing is recorded", 15*time.Second)
	d.Screenshot(t, filepath.Join(shotsDir(t), "wake-waiting.png"))

	focus(t, d, parley)
	d.Key(t, "alt+F4") // keep_in_tray hides it; voice mode goes on
	testenv.WaitUntil(t, 10*time.Second, poll, "the window to hide", func() bool { return len(visibleWindows(t, d, "Parley")) == 0 })
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(t, p, plain)
	time.Sleep(3 * time.Second)
	if tr, chat := uploads(s); tr != 0 || chat != 0 {
		t.Fatalf("%d transcriptions and %d chat calls reached the service before the wake phrase", tr, chat)
	}

	playInto(t, p, woken)
	var h historyJSON
	testenv.WaitUntil(t, 60*time.Second, poll, "the question after the wake phrase and its reply in the service's history", func() bool {
		id := firstID(run(t, env, "", "conversations", "--json").Stdout)
		if id == "" {
			return false
		}
		h = history(t, env, id)
		return len(h.Messages) == 2 && h.Messages[1].Role == "assistant"
	})
	if said := h.Messages[0].Content; wordOverlap(said, theQuestion) < minOverlap {
		t.Errorf("voice mode sent %q after the wake phrase: want at least %.0f%% of the spoken words", said, 100*minOverlap)
	}
	select {
	case <-a.exited:
		t.Fatalf("Parley exited:\n%s", a.logs)
	default:
	}
}
