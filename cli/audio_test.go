package cli_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/media"
)

// crashMP3 is the input that panics go-mp3 v0.3.4 inside NewDecoder (NOTES.md).
var crashMP3 = append([]byte("\xff\xf2 000000000\xd0"), bytes.Repeat([]byte("0"), 40)...)

func TestDevices_ListsInputsAndOutputs(t *testing.T) {
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	r := h.run(t, "", "devices")
	if r.Code != 0 || !strings.Contains(r.Stdout, "Inputs:") || !strings.Contains(r.Stdout, "Outputs:") {
		t.Errorf("devices: %s", r)
	}
	r = newHome(t, "PARLEY_AUDIO_BACKEND=nonsense").run(t, "", "devices")
	if r.Code != 2 || !strings.Contains(r.Stderr, "PARLEY_AUDIO_BACKEND") {
		t.Errorf("devices with a bad backend: %s", r)
	}
}

func TestRecord_WritesWebMAndWAV(t *testing.T) {
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	for _, name := range []string{"take.webm", "take.wav"} {
		out := filepath.Join(h.dir, name)
		r := h.run(t, "", "record", "--seconds", "1", "-o", out)
		if r.Code != 0 {
			t.Fatalf("record -o %s: %s", name, r)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		pcm, err := media.Decode(data)
		if err != nil {
			t.Fatalf("%s does not decode: %v", name, err)
		}
		if d := pcm.Duration(); d < 900*time.Millisecond || d > 1100*time.Millisecond {
			t.Errorf("%s lasts %v, want about 1 s", name, d)
		}
		if want := map[string]media.Format{"take.webm": media.FormatWebM, "take.wav": media.FormatWAV}[name]; media.Sniff(data) != want {
			t.Errorf("%s is %v, want %v", name, media.Sniff(data), want)
		}
	}
}

func TestRecord_UsageAndNoSpeech(t *testing.T) {
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	for _, args := range [][]string{
		{"record", "--seconds", "1"},
		{"record", "--seconds", "1", "--vad", "-o", "x.webm"},
		{"record", "--seconds", "-1", "-o", "x.webm"},
		{"record", "--vad", "--hold", "10s", "-o", "x.webm"},
		{"record", "--hold", "1s", "-o", "x.webm"},
	} {
		if r := h.run(t, "", args...); r.Code != 2 {
			t.Errorf("parley %v: %s; want exit 2", args, r)
		}
	}
	// The null device delivers only silence: --vad hears no speech and writes nothing.
	out := filepath.Join(h.dir, "silence.webm")
	r := h.run(t, "", "record", "--vad", "-o", out)
	if r.Code != 1 || r.Stderr == "" {
		t.Errorf("record --vad on silence: %s; want exit 1 with a reason", r)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("record --vad on silence wrote %s", out)
	}
}

func TestPlay_PlaysMP3AndDataURIAndRefusesMalformed(t *testing.T) {
	testenv.RequireCommands(t, "pulseaudio", "espeak-ng", "lame")
	p := testenv.StartPulse(t)
	h := newHome(t, p.Env...)
	dir := t.TempDir()
	wav, mp3 := filepath.Join(dir, "hi.wav"), filepath.Join(dir, "hi.mp3")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, "Hello there.").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	if out, err := exec.Command("lame", "--quiet", wav, mp3).CombinedOutput(); err != nil {
		t.Fatalf("lame: %v: %s", err, out)
	}
	if r := h.run(t, "", "play", mp3); r.Code != 0 {
		t.Fatalf("play mp3: %s", r)
	}
	b, _ := os.ReadFile(mp3)
	uri := filepath.Join(dir, "hi.txt")
	os.WriteFile(uri, []byte("data:audio/mpeg;base64,"+base64.StdEncoding.EncodeToString(b)+"\n"), 0o600)
	if r := h.run(t, "", "play", uri); r.Code != 0 {
		t.Fatalf("play data URI: %s", r)
	}
	if r := h.run(t, string(b), "play", "-"); r.Code != 0 {
		t.Fatalf("play stdin: %s", r)
	}

	for name, data := range map[string][]byte{
		"crash.mp3": crashMP3,
		"text.mp3":  []byte("this is not an mp3 at all"),
		"bad.txt":   []byte("data:audio/mpeg;base64,%%%not-base64%%%"),
	} {
		f := filepath.Join(dir, name)
		os.WriteFile(f, data, 0o600)
		r := h.run(t, "", "play", f)
		if r.Code != 1 || !strings.Contains(strings.ToLower(r.Stderr), "mp3") {
			t.Errorf("play %s: %s; want exit 1 saying it is not a playable MP3", name, r)
		}
	}
}
