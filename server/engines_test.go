package server

import (
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
	"parley/server/speech"
)

// TestEngines_RealSpeechRoundTrip runs the local engines behind the API:
// espeak-ng speaks, pocketsphinx hears.
func TestEngines_RealSpeechRoundTrip(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "pocketsphinx_continuous", "lame")
	e := newEnv(t, 10, func(c *Config) {
		c.STT = speech.NewPocketSphinx(speech.PocketSphinxOptions{})
		c.TTS = speech.NewEspeak(speech.EspeakOptions{})
	})

	r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "Good morning, the harbour is calm."})
	if r.Status != 200 {
		t.Fatalf("speech: %d %s", r.Status, r.Raw)
	}
	uri, _ := r.data()["audio"].(string)
	mp3, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:audio/mpeg;base64,"))
	if !strings.HasPrefix(uri, "data:audio/mpeg;base64,") || err != nil || len(mp3) < 1000 {
		t.Fatalf("audio is not an MP3 data URI: %.60s… (%d bytes, %v)", uri, len(mp3), err)
	}
	if !(strings.HasPrefix(string(mp3), "ID3") || mp3[0] == 0xFF && mp3[1]&0xE0 == 0xE0) {
		t.Errorf("audio does not start like an MP3: % x", mp3[:4])
	}
	if r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "hi", "voice": "no-such-voice"}); r.Status != 422 {
		t.Errorf("unknown voice: %d", r.Status)
	}
	if v := e.do("GET", "/v1/chat/voices", nil); len(v.data()["voices"].([]any)) == 0 {
		t.Errorf("no voices listed: %s", v.Raw)
	}

	wav := filepath.Join(t.TempDir(), "q.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, "what is the weather like in paris today").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	audio, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"data uri": "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(audio),
		"plain":    base64.StdEncoding.EncodeToString(audio),
	} {
		r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": in})
		text, _ := r.data()["text"].(string)
		if r.Status != 200 || !strings.Contains(strings.ToLower(text), "weather") {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	r = e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": base64.StdEncoding.EncodeToString([]byte("this is plainly text, not audio at all"))})
	if r.Status != 415 || r.code() != codeUnsupportedAudio {
		t.Errorf("text as audio: %d %s", r.Status, r.Raw)
	}
	if e.balance() != 10 {
		t.Errorf("speech charged points")
	}
}
