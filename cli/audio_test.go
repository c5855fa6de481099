package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/media"
)

// crashMP3 is the input that panics go-mp3 v0.3.4 inside NewDecoder (NOTES.md).
var crashMP3 = append([]byte("\xff\xf2 000000000\xd0"), bytes.Repeat([]byte("0"), 40)...)

func TestDevices_ListsInputsAndOutputs(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	h := newHome(t, "PARLEY_AUDIO_BACKEND=null")
	x := filepath.Join(h.dir, "x.webm") // the home was the working directory of the binary's runs
	for _, args := range [][]string{
		{"record", "--seconds", "1"},
		{"record", "--seconds", "1", "--vad", "-o", x},
		{"record", "--seconds", "-1", "-o", x},
		{"record", "--vad", "--hold", "10s", "-o", x},
		{"record", "--hold", "1s", "-o", x},
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

// oneLine fails the test unless s is exactly one line of text.
func oneLine(t *testing.T, what string, r result) {
	t.Helper()
	if s := strings.TrimSuffix(r.Stderr, "\n"); s == "" || strings.Contains(s, "\n") {
		t.Errorf("%s: standard error holds %d lines, want one:\n%s", what, strings.Count(r.Stderr, "\n"), r.Stderr)
	}
}

// TestPlay_SaysWhatTheFileIs names the files as a person in their folder would, so it runs in
// the home (t.Chdir), which the process shares: not in parallel. Every file fails before the
// audio output is opened; e2e's TestCLI_PlayNotAudioFailsBeforeOpeningTheDevice shows that on a
// process with no sound server.
func TestPlay_SaysWhatTheFileIs(t *testing.T) {
	h := newHome(t)
	t.Chdir(h.dir)
	files := map[string][]byte{
		"notaudio.txt": []byte("These are notes, not audio.\n"),
		"empty.wav":    nil,
		"damaged.mp3":  crashMP3,
	}
	wav, err := os.ReadFile(wavFile(t))
	if err != nil {
		t.Fatal(err)
	}
	files["hello.wav"] = wav
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(h.dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for name, want := range map[string]string{
		"notaudio.txt": "parley: notaudio.txt is not an MP3 file; parley play plays MP3",
		"hello.wav":    "parley: hello.wav is a WAV file; parley play plays MP3 (the service's speech).",
		"empty.wav":    "parley: empty.wav is empty: give an MP3 file.",
		"damaged.mp3":  "parley: damaged.mp3 is a damaged MP3 file: it cannot be decoded.",
	} {
		r := h.run(t, "", "play", name)
		if r.Code != 1 || !strings.HasPrefix(r.Stderr, want) || strings.Contains(r.Stderr, "mp3:") || strings.Contains(r.Stderr, "holds no audio") {
			t.Errorf("play %s: %s; want exit 1 and %q, without the decoder's words", name, r, want)
		}
		oneLine(t, "play "+name, r)
	}
}
