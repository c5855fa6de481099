package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestVoice_TranscribeSpokenWords speaks a sentence with espeak-ng, uploads it with the CLI (which
// encodes the WAV as WebM/Opus), and checks that the service's recogniser heard some of its words.
func TestVoice_TranscribeSpokenWords(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "pocketsphinx_continuous")
	s := startService(t)
	key := s.newKey(t, 10)
	env := s.env("PARLEY_API_KEY=" + key)

	wav := filepath.Join(t.TempDir(), "question.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, "what is the weather like in paris today").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	r := mustRun(t, env, "", "transcribe", "--json", wav)
	var tr struct{ Text, Language string }
	if err := json.Unmarshal([]byte(r.Stdout), &tr); err != nil {
		t.Fatalf("transcribe --json printed %q: %v", r.Stdout, err)
	}
	heard := 0
	for _, w := range []string{"what", "is", "the", "weather", "like", "paris", "today"} {
		if strings.Contains(" "+tr.Text+" ", " "+w+" ") {
			heard++
		}
	}
	if heard < 3 || tr.Language == "" {
		t.Errorf("transcript %+v: want at least 3 of the spoken words and a language", tr)
	}

	notAudio := filepath.Join(t.TempDir(), "notes.webm")
	os.WriteFile(notAudio, []byte("this is not audio at all"), 0o600)
	bad := run(t, env, "", "transcribe", "--raw", notAudio)
	if bad.Code != 1 || !strings.Contains(strings.ToLower(bad.Stderr), "audio") {
		t.Errorf("transcribing a text file: %s; want exit 1 saying it is not audio", bad)
	}
}

// TestVoice_SpeakThenPlay asks the service to speak, checks the MP3 it wrote, then plays it with the
// CLI into a PulseAudio null sink while recording the sink's monitor, and checks that sound came out.
func TestVoice_SpeakThenPlay(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "lame", "parec")
	s := startService(t)
	key := s.newKey(t, 10)
	env := s.env("PARLEY_API_KEY=" + key)

	mp3 := filepath.Join(t.TempDir(), "hello.mp3")
	mustRun(t, env, "", "speak", "-o", mp3, "Hello, this is Parley speaking.")
	b, err := os.ReadFile(mp3)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 1000 || !(bytes.HasPrefix(b, []byte("ID3")) || (b[0] == 0xFF && b[1]&0xE0 == 0xE0)) {
		t.Fatalf("speak wrote %d bytes that do not start like an MP3", len(b))
	}

	p := testenv.StartPulse(t)
	capture := filepath.Join(t.TempDir(), "heard.raw")
	stopRec := recordSink(t, p, capture)
	mustRun(t, append(env, p.Env...), "", "play", mp3)
	stopRec()

	raw, err := os.ReadFile(capture)
	if err != nil {
		t.Fatal(err)
	}
	if peak := peakDBFS(raw); peak < -30 {
		t.Errorf("the monitor heard a peak of %.1f dBFS while parley played speech; want louder than -30 dBFS", peak)
	}
}

// peakDBFS is the peak level of little-endian S16 samples, in dB relative to full scale.
func peakDBFS(raw []byte) float64 {
	peak := 0.0
	for i := 0; i+1 < len(raw); i += 2 {
		v := math.Abs(float64(int16(binary.LittleEndian.Uint16(raw[i:]))))
		peak = max(peak, v)
	}
	if peak == 0 {
		return math.Inf(-1)
	}
	return 20 * math.Log10(peak/32768)
}

// TestVoice_RecordThenTranscribe is a spoken turn through real devices: `parley record --vad`
// listens on the monitor of a PulseAudio null sink while paplay speaks into the sink over a quiet
// room-noise bed; the take must end by itself at the end of speech, and the service must hear the
// words in it.
func TestVoice_RecordThenTranscribe(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "sox", "paplay", "pocketsphinx_continuous")
	s := startService(t)
	key := s.newKey(t, 10)
	p := testenv.StartPulse(t)
	env := s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	dir := t.TempDir()

	speech := filepath.Join(dir, "speech.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", speech, "what is the weather like in paris today").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	bed := filepath.Join(dir, "bed.wav")
	if out, err := exec.Command("sox", "-n", "-r", "16000", "-c", "1", "-b", "16", bed, "synth", "30", "whitenoise", "vol", "0.003").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	bedPlay := exec.CommandContext(ctx, "paplay", "--device="+p.Sink, bed)
	bedPlay.Env = env
	if err := bedPlay.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); bedPlay.Wait() }()

	take := filepath.Join(dir, "take.webm")
	rec := exec.CommandContext(ctx, bin, "record", "--device", p.Monitor, "--vad", "--hold", "0.8s", "-o", take)
	rec.Env = env
	var recErr bytes.Buffer
	rec.Stdout, rec.Stderr = &recErr, &recErr
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- rec.Wait() }()
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	if out, err := exec.CommandContext(ctx, "paplay", "--device="+p.Sink, speech).CombinedOutput(); err != nil {
		t.Fatalf("paplay: %v: %s", err, out)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("parley record: %v\n%s", err, recErr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("parley record --vad did not stop at the end of speech:\n%s", recErr.String())
	}
	if !strings.Contains(recErr.String(), "end of speech") {
		t.Errorf("the take did not end at the end of speech: %s", recErr.String())
	}

	r := mustRun(t, env, "", "transcribe", "--json", take)
	var tr struct{ Text string }
	if err := json.Unmarshal([]byte(r.Stdout), &tr); err != nil {
		t.Fatalf("transcribe --json printed %q: %v", r.Stdout, err)
	}
	heard := 0
	for _, w := range []string{"what", "is", "the", "weather", "like", "paris", "today"} {
		if strings.Contains(" "+tr.Text+" ", " "+w+" ") {
			heard++
		}
	}
	if heard < 3 {
		t.Errorf("transcript of the recorded take %q: want at least 3 of the spoken words", tr.Text)
	}
}

// TestVoice_VoicesOfferFlite: with flite installed, `parley voices` lists flite's voices with
// flite-slt as the service's default, and espeak-ng's voices still; both kinds speak.
func TestVoice_VoicesOfferFlite(t *testing.T) {
	testenv.RequireCommands(t, "flite", "espeak-ng", "lame")
	s := startService(t)
	key := s.newKey(t, 10)
	env := s.env("PARLEY_API_KEY=" + key)

	var voices []struct {
		Name, Language, Description string
		Default                     bool
	}
	r := mustRun(t, env, "", "voices", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &voices); err != nil {
		t.Fatalf("voices --json printed %q: %v", r.Stdout, err)
	}
	names := map[string]bool{}
	for i, v := range voices {
		names[v.Name] = true
		if v.Default != (i == 0) {
			t.Errorf("voice %d %+v: want the first, and only it, marked default", i, v)
		}
	}
	if len(voices) == 0 || voices[0].Name != "flite-slt" {
		t.Errorf("voices %+v: want flite-slt first, the default", voices)
	}
	for _, want := range []string{"flite-rms", "flite-awb", "en-us", "en-gb", "de"} {
		if !names[want] {
			t.Errorf("voices lack %s: %s", want, r.Stdout)
		}
	}
	if plain := mustRun(t, env, "", "voices"); !strings.Contains(plain.Stdout, "flite-slt *") {
		t.Errorf("voices does not mark flite-slt the default:\n%s", plain.Stdout)
	}
	for _, v := range []string{"", "flite-rms", "en-gb"} {
		mp3 := filepath.Join(t.TempDir(), "hello.mp3")
		mustRun(t, env, "", "speak", "--voice", v, "-o", mp3, "Hello, this is Parley speaking.")
		if b, err := os.ReadFile(mp3); err != nil || len(b) < 1000 {
			t.Errorf("speak --voice %q wrote %d bytes (%v), want an MP3", v, len(b), err)
		}
	}
}
