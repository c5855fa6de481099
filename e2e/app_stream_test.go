package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_StreamedReplyShowsAndIsSpokenWhileWritten: with a local model that writes slowly (150
// words at 20 a second), the app's built-in service streams its reply: its first words are on
// screen, read by OCR, and its first sentence is heard on the speakers (Speak replies on), while
// the model is still writing; the whole reply ends on screen, and is stored once.
func TestApp_StreamedReplyShowsAndIsSpokenWhileWritten(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract", "parec", "pactl")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	p := testenv.StartPulse(t)
	si := longModel(t)
	shots := shotsDir(t)
	dir := t.TempDir()
	quietRoom(t, p, dir)
	home := t.TempDir()
	prefs := filepath.Join(home, "config", "fyne", "io.github.parley", "preferences.json")
	os.MkdirAll(filepath.Dir(prefs), 0o700)
	if err := os.WriteFile(prefs, []byte(`{"auto_speak": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startAppAt(t, d, appEnviron(append(si.portsEnv, "PARLEY_AUDIO_BACKEND=pulse")...), home)
	defer func() {
		if t.Failed() {
			d.Screenshot(t, filepath.Join(shots, "stream-failed.png"))
			t.Logf("app log:\n%s", a.logs.String())
		}
	}()
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "answers with standin, from Ollama on this computer", 30*time.Second)
	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)

	heard := filepath.Join(dir, "reply.raw")
	stopRec := recordSink(t, p, heard)
	d.Type(t, "Tell me something long")
	d.Key(t, "Return")

	// On screen while the model writes: the first sentence, read by OCR, before the model's end.
	var shownEarly, spokenEarly bool
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && !(shownEarly && spokenEarly) {
		finished, _ := si.ended(t) // asked first: what is seen after it was there before the end
		if !shownEarly {
			screen := strings.Join(strings.Fields(d.Read(t)), " ")
			if strings.Contains(screen, "Word1 word2") {
				shownEarly = finished == 0
				d.Screenshot(t, filepath.Join(shots, "stream-growing.png"))
				if !shownEarly {
					t.Errorf("the reply showed only once the model had finished; the screen read:\n%s", screen)
					break
				}
			}
		}
		if !spokenEarly {
			raw, err := os.ReadFile(heard)
			if err != nil {
				t.Fatal(err)
			}
			if loud, _ := loudness(raw); loud >= 300*time.Millisecond {
				spokenEarly = finished == 0
				if !spokenEarly {
					t.Errorf("the reply was heard only once the model had finished (%v of speech)", loud)
					break
				}
			}
		}
		if finished, _ := si.ended(t); finished > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !shownEarly || !spokenEarly {
		t.Fatalf("while the model wrote: shown %v, spoken %v", shownEarly, spokenEarly)
	}
	waitForTextAnySpaces(t, d, "Done.", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "stream-done.png"))
	stopRec()
	if n := len(si.chats(t)); n != 1 || !si.chats(t)[0].Stream {
		t.Errorf("the model was asked %d times (streamed: %v)", n, n > 0 && si.chats(t)[0].Stream)
	}

	// Esc while the next reply is written (a first Esc stops the speech when it has begun): the
	// model is told to stop, and the reply stays as far as it was written.
	d.Key(t, "Escape")
	d.Key(t, "ctrl+n")
	d.WaitForText(t, "What's on your mind?", 20*time.Second)
	d.Type(t, "Another long one")
	d.Key(t, "Return")
	// Once the model is writing (a stand-in's chat request is in, and its first words after
	// 0.3 s), not waited for on the screen: reading it takes seconds of the reply's 7.8.
	si.waitChats(t, 2)
	time.Sleep(time.Second)
	// Each Esc stops the speech first while there is some (the reply is spoken as it is written),
	// then the reply.
	testenv.WaitUntil(t, 15*time.Second, 500*time.Millisecond, "the model to be told to stop", func() bool {
		if _, stopped := si.ended(t); stopped == 1 {
			return true
		}
		d.Key(t, "Escape")
		return false
	})
	time.Sleep(8 * time.Second) // the model would have finished by now
	screen := strings.Join(strings.Fields(d.Read(t)), " ")
	d.Screenshot(t, filepath.Join(shots, "stream-stopped.png"))
	if strings.Contains(screen, "Done.") || strings.Contains(screen, "Writing") || strings.Contains(screen, "Stopping") || !strings.Contains(screen, "Word1") {
		t.Errorf("after Esc the screen read:\n%s", screen)
	}
	if finished, _ := si.ended(t); finished != 1 {
		t.Errorf("the model finished %d replies, want 1", finished)
	}
}
