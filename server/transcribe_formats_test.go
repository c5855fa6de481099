package server

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
	"parley/media"
	"parley/server/speech"
)

// heardWords counts how many of want's words are in got.
func heardWords(got, want string) int {
	have := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(got)) {
		have[w] = true
	}
	n := 0
	for _, w := range strings.Fields(want) {
		if have[w] {
			n++
		}
	}
	return n
}

// TestTranscribe_SpeechMP3AndFLACRoundTrip sends the service's own speech (an MP3 data URI) back
// to be transcribed, as `parley speak` then `parley transcribe` does, and a FLAC file likewise,
// through the local engines: espeak-ng and lame speak, pocketsphinx hears.
func TestTranscribe_SpeechMP3AndFLACRoundTrip(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "lame", "pocketsphinx_continuous", "sox")
	e := newEnv(t, 10, func(c *Config) {
		c.STT = speech.NewPocketSphinx(speech.PocketSphinxOptions{})
		c.TTS = speech.NewEspeak(speech.EspeakOptions{})
	})
	const said = "what is the weather like in paris today"

	r := e.do("POST", "/v1/chat/speech", map[string]any{"text": said})
	uri, _ := r.data()["audio"].(string)
	if r.Status != 200 || !strings.HasPrefix(uri, "data:audio/mpeg;base64,") {
		t.Fatalf("speech: %d %.200s", r.Status, r.Raw)
	}
	wav := filepath.Join(t.TempDir(), "q.wav")
	flac := filepath.Join(t.TempDir(), "q.flac")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, said).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	if out, err := exec.Command("sox", wav, "-r", "44100", "-c", "2", flac).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v %s", err, out)
	}
	flacBytes, err := os.ReadFile(flac)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"speech MP3 data URI as returned": uri,
		"speech MP3 as plain base64":      strings.TrimPrefix(uri, "data:audio/mpeg;base64,"),
		"FLAC 44.1 kHz stereo":            "data:audio/flac;base64," + base64.StdEncoding.EncodeToString(flacBytes),
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": in})
			text, _ := r.data()["text"].(string)
			if r.Status != 200 || heardWords(text, said) < 3 {
				t.Errorf("transcribe: %d %s; want 200 and at least 3 of %q", r.Status, r.Raw, said)
			}
		})
	}
}

// TestTranscribe_TooLongAudio: audio past the decoders' ten-minute cap is refused as too large,
// not reported as a failure of the service.
func TestTranscribe_TooLongAudio(t *testing.T) {
	e := newEnv(t, 10, func(c *Config) {
		c.STT = speech.NewPocketSphinx(speech.PocketSphinxOptions{Binary: "/nonexistent/pocketsphinx_continuous"})
	})
	// Eleven minutes of silence at 1 kHz: 1.3 MB, well under the upload limit.
	long := media.EncodeWAV(media.PCM{Rate: 1000, Channels: 1, Samples: make([]int16, 11*60*1000)})
	r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": base64.StdEncoding.EncodeToString(long)})
	if r.Status != 413 || r.code() != codeAudioTooLarge {
		t.Errorf("eleven minutes of audio: %d %s; want 413 %s", r.Status, r.Raw, codeAudioTooLarge)
	}
}
