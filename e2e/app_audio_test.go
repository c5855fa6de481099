package e2e

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_PushToTalkAndSpokenReply is a spoken turn through the real app and real audio devices:
// the app runs under Xvfb against `parley serve`, with a PulseAudio null sink as its speakers and
// the sink's monitor as its microphone. Ctrl+M starts push-to-talk; a question spoken by
// flite is played into the sink, so the app hears it; the voice detector ends the take; the
// transcript lands in the composer for review (the default); Enter sends it; and the reply,
// spoken with auto-speak on, is heard on the sink.
func TestApp_PushToTalkAndSpokenReply(t *testing.T) {
	testenv.RequireCommands(t, "flite", "sox", "lame", "paplay", "parec", "pocketsphinx_continuous", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	p := testenv.StartPulse(t) // sets PULSE_SERVER and ALSA_CONFIG_PATH for this process and its children
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY="+key, "PARLEY_AUDIO_BACKEND=pulse")
	dir := t.TempDir()
	shots := screenshotDir(t)

	question := say(t, dir, "question", theQuestion)
	// A quiet room: the monitor of an idle null sink delivers exact zeros, which the recorder
	// takes for a muted microphone after 2 s.
	quietRoom(t, p, dir)

	// Spoken replies on; transcripts reviewed in the composer (the default).
	home := t.TempDir()
	prefs := filepath.Join(home, "config", "fyne", "io.github.parley", "preferences.json")
	os.MkdirAll(filepath.Dir(prefs), 0o700)
	if err := os.WriteFile(prefs, []byte(`{"auto_speak": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	a := startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)

	// Push-to-talk, and the question spoken into the room.
	ask := func() {
		t.Helper()
		d.Key(t, "ctrl+m")
		d.WaitForText(t, "Listening", 10*time.Second) // the composer shows the take under way
		time.Sleep(2500 * time.Millisecond)           // the null sink's monitor takes up to 2 s to deliver audio
		playInto(t, p, question)
	}
	ask()
	d.Screenshot(t, filepath.Join(shots, "voice-recording.png"))

	// The detector ends the take; the transcript lands in the composer, not yet sent.
	screen := waitForAnyText(t, d, 30*time.Second, "weather", "what is")
	d.Screenshot(t, filepath.Join(shots, "voice-transcript.png"))
	if r := run(t, env, "", "conversations", "--json"); firstID(r.Stdout) != "" {
		t.Fatalf("the transcript was sent without review; the screen read:\n%s", screen)
	}

	// Record the speakers from here on: the question has been played out, so what is loud on
	// the sink now is the app speaking.
	heard := filepath.Join(dir, "reply.raw")
	stopRec := recordSink(t, p, heard)

	d.Key(t, "Return")
	var sent struct {
		ID string
		historyJSON
	}
	testenv.WaitUntil(t, 30*time.Second, poll, "the transcript and its reply to reach the service", func() bool {
		sent.ID = firstID(run(t, env, "", "conversations", "--json").Stdout)
		if sent.ID == "" {
			return false
		}
		sent.historyJSON = history(t, env, sent.ID)
		return len(sent.Messages) == 2 && sent.Messages[1].Role == "assistant"
	})
	said := strings.ToLower(sent.Messages[0].Content)
	if o := wordOverlap(said, theQuestion); o < minOverlap {
		t.Errorf("the message sent was %q: %.0f%% of the spoken words, want at least %.0f%%", said, 100*o, 100*minOverlap)
	}
	d.WaitForText(t, "you asked about", 20*time.Second)

	// The reply is a few sentences of speech: give it time to play, then look for it.
	loud := waitForSpeech(t, heard, 30*time.Second)
	stopRec()
	raw, _ := os.ReadFile(heard)
	t.Logf("sent %q; the speakers carried %v of speech-level sound (peak %.1f dBFS) in the %v after",
		said, loud, peakDBFS(raw), time.Duration(len(raw)/32)*time.Millisecond)
	d.Screenshot(t, filepath.Join(shots, "voice-reply.png"))
	if loud < time.Second {
		t.Errorf("the speakers carried %v of speech-level sound (peak %.1f dBFS) after the reply arrived; want at least 1 s",
			loud, peakDBFS(raw))
	}

	// With "send transcripts immediately" on, the next start sends what it hears at once.
	a.stop(t)
	var saved map[string]any
	b, err := os.ReadFile(prefs)
	if err != nil || json.Unmarshal(b, &saved) != nil {
		t.Fatalf("reading the app's preferences: %v: %s", err, b)
	}
	saved["send_transcripts"] = true
	b, _ = json.Marshal(saved)
	if err := os.WriteFile(prefs, b, 0o600); err != nil {
		t.Fatal(err)
	}
	startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	ask()
	testenv.WaitUntil(t, 30*time.Second, poll, "the transcript to be sent without Enter", func() bool {
		var list []map[string]any
		if json.Unmarshal([]byte(run(t, env, "", "conversations", "--json").Stdout), &list) != nil || len(list) != 2 {
			return false
		}
		for _, c := range list {
			id, _ := c["id"].(string)
			if id == sent.ID {
				continue
			}
			h := history(t, env, id)
			return len(h.Messages) == 2 && wordOverlap(h.Messages[0].Content, theQuestion) >= minOverlap
		}
		return false
	})
}

// waitForAnyText waits until the screen shows one of texts (read by tesseract) and returns what
// it read.
func waitForAnyText(t *testing.T, d *testenv.Display, timeout time.Duration, texts ...string) string {
	t.Helper()
	var got string
	testenv.Poll(t, timeout, poll, func() error {
		got = strings.Join(strings.Fields(d.Read(t)), " ")
		for _, s := range texts {
			if strings.Contains(strings.ToLower(got), s) {
				return nil
			}
		}
		return fmt.Errorf("the screen showed none of %q; it read:\n%s", texts, got)
	})
	return got
}

// waitForSpeech watches a growing recording (16 kHz mono S16LE) until it holds at least 1 s of
// speech-level sound followed by 2 s of quiet (the reply ended), or until timeout; it returns
// how much speech-level sound it holds.
func waitForSpeech(t *testing.T, path string, timeout time.Duration) time.Duration {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		loud, quietAfter := loudness(raw)
		if (loud >= time.Second && quietAfter >= 2*time.Second) || time.Now().After(deadline) {
			return loud
		}
		time.Sleep(250 * time.Millisecond) // polling a file parec writes
	}
}

// loudness measures 16 kHz mono S16LE audio in 50 ms windows: how long it is louder than
// -35 dBFS RMS (speech played at full scale is; the room-noise bed, near -50 dBFS, is not), and
// how long it has been quiet since the last loud window.
func loudness(raw []byte) (loud, quietAfter time.Duration) {
	const window = 800 // samples: 50 ms at 16 kHz
	threshold := 32768 * math.Pow(10, -35.0/20)
	for i := 0; i+2*window <= len(raw); i += 2 * window {
		sum := 0.0
		for j := i; j < i+2*window; j += 2 {
			v := float64(int16(binary.LittleEndian.Uint16(raw[j:])))
			sum += v * v
		}
		if math.Sqrt(sum/window) > threshold {
			loud += 50 * time.Millisecond
			quietAfter = 0
		} else {
			quietAfter += 50 * time.Millisecond
		}
	}
	return loud, quietAfter
}
