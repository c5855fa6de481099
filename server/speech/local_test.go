package speech

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hajimehoshi/go-mp3"

	"parley/internal/testenv"
	"parley/media"
)

const weather = "what is the weather like in paris today"

// espeakWAV speaks text with espeak-ng -w, as the NOTES' test recipe does.
func espeakWAV(t *testing.T, text string) media.PCM {
	t.Helper()
	testenv.RequireCommands(t, "espeak-ng")
	f := filepath.Join(t.TempDir(), "speech.wav")
	if out, err := exec.CommandContext(t.Context(), "espeak-ng", "-v", "en-us", "-w", f, text).CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v: %s", err, out)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := media.Decode(b)
	if err != nil {
		t.Fatalf("decode espeak WAV: %v", err)
	}
	return p
}

// heard counts how many of want's words appear in got.
func heard(got, want string) int {
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

// stereo duplicates a mono signal into two channels.
func stereo(p media.PCM) media.PCM {
	s := make([]int16, 0, 2*len(p.Samples))
	for _, v := range p.Samples {
		s = append(s, v, v)
	}
	return media.PCM{Rate: p.Rate, Channels: 2, Samples: s}
}

func TestPocketSphinx_RecognisesSpeech(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "pocketsphinx_continuous")
	speech := espeakWAV(t, weather)
	if speech.Rate != 22050 || speech.Channels != 1 {
		t.Fatalf("espeak-ng made %d Hz, %d channels; the stereo case below assumes 22050 Hz mono", speech.Rate, speech.Channels)
	}
	webm, err := media.EncodeWebMOpus(media.To16kMono(speech), 24000)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		audio []byte
		mime  string
	}{
		{"webm opus, sniffed", webm, ""},
		{"webm opus, typed", webm, "audio/webm"},
		{"wav 22050 Hz stereo", media.EncodeWAV(stereo(speech)), "audio/wav"},
	}
	stt := NewPocketSphinx(PocketSphinxOptions{})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := stt.Transcribe(t.Context(), c.audio, c.mime)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("heard %q", got.Text)
			if got.Language != "en" {
				t.Errorf("Language = %q, want en", got.Language)
			}
			if n := heard(got.Text, weather); n < 3 {
				t.Errorf("heard %q: %d words of %q, want at least 3", got.Text, n, weather)
			}
		})
	}
}

func TestPocketSphinx_Silence(t *testing.T) {
	testenv.RequireCommands(t, "pocketsphinx_continuous")
	silence := media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 16000)}
	got, err := NewPocketSphinx(PocketSphinxOptions{}).Transcribe(t.Context(), media.EncodeWAV(silence), "")
	if err != nil {
		t.Fatal(err)
	}
	if got.Text != "" {
		t.Errorf("heard %q in silence, want nothing", got.Text)
	}
}

func TestPocketSphinx_NotAudio(t *testing.T) {
	random := make([]byte, 4096)
	rand.Read(random)
	random[0] = 0 // not an MPEG frame sync, which the decoder would hunt past
	cases := map[string][]byte{
		"json":       []byte(`{"audio":"data:audio/webm;base64,AAAA"}`),
		"random":     random,
		"empty":      nil,
		"broken mp3": []byte("ID3\x04\x00\x00\x00\x00\x00\x00this is a tag and no MPEG audio"),
		"broken wav": []byte("RIFF\x24\x00\x00\x00WAVEfmt \x10\x00"),
	}
	stt := NewPocketSphinx(PocketSphinxOptions{Binary: "/nonexistent/pocketsphinx_continuous"})
	for name, audio := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := stt.Transcribe(t.Context(), audio, "")
			if !errors.Is(err, ErrNotAudio) {
				t.Fatalf("err = %v, want ErrNotAudio", err)
			}
		})
	}
	_, err := stt.Transcribe(t.Context(), cases["json"], "")
	if !errors.Is(err, media.ErrNotAudio) {
		t.Errorf("json: err = %v, want it to wrap media.ErrNotAudio too", err)
	}
}

func TestMissingEngines(t *testing.T) {
	audio := media.EncodeWAV(media.PCM{Rate: 16000, Channels: 1, Samples: make([]int16, 1600)})
	_, err := NewPocketSphinx(PocketSphinxOptions{Binary: "no-such-pocketsphinx"}).Transcribe(t.Context(), audio, "")
	var missing *EngineMissingError
	if !errors.As(err, &missing) {
		t.Fatalf("err = %v, want *EngineMissingError", err)
	}
	want := "speech recognition needs no-such-pocketsphinx: install the Debian packages pocketsphinx pocketsphinx-en-us"
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if err := CheckPocketSphinx(PocketSphinxOptions{Binary: "no-such-pocketsphinx"}); !errors.As(err, &missing) || missing.Package != pocketSphinxPackages {
		t.Errorf("CheckPocketSphinx = %v", err)
	}

	cases := []struct {
		o       EspeakOptions
		pkg     string
		message string
	}{
		{EspeakOptions{Binary: "no-such-espeak"}, "espeak-ng", "speech synthesis needs no-such-espeak: install the Debian package espeak-ng"},
		{EspeakOptions{Binary: os.Args[0], Lame: "no-such-lame"}, "lame", "speech synthesis needs no-such-lame: install the Debian package lame"},
	}
	for _, c := range cases {
		if err := CheckEspeak(c.o); !errors.As(err, &missing) || missing.Package != c.pkg {
			t.Errorf("CheckEspeak(%+v) = %v, want missing %s", c.o, err, c.pkg)
		}
		_, err := NewEspeak(c.o).Synthesize(t.Context(), "hello", "")
		if !errors.As(err, &missing) || err.Error() != c.message {
			t.Errorf("Synthesize with %+v: err = %v, want %q", c.o, err, c.message)
		}
	}
}

// decodeMP3 decodes an MP3 with go-mp3 (under recover: it panics on some malformed input) and
// returns its duration.
func decodeMP3(b []byte) (d time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("go-mp3 panicked: %v", r)
		}
	}()
	dec, err := mp3.NewDecoder(bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(io.Discard, io.LimitReader(dec, 100<<20))
	if err != nil {
		return 0, err
	}
	// go-mp3 always yields 16-bit stereo.
	return time.Duration(n/4) * time.Second / time.Duration(dec.SampleRate()), nil
}

func TestEspeak_SynthesizesMP3(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "lame")
	if err := CheckEspeak(EspeakOptions{}); err != nil {
		t.Fatal(err)
	}
	tts := NewEspeak(EspeakOptions{})
	speech := espeakWAV(t, weather)
	cases := []struct {
		name, text, voice string
		want              time.Duration // espeak's own rendering of the text, or 0 for "> 0.5 s"
	}{
		{"default voice", weather, "", speech.Duration()},
		{"named voice", weather, "en-us", speech.Duration()},
		{"german", "Wie wird das Wetter heute in Paris?", "de", 0},
		{"leading dash", "-v xx --help is not an option", "", 0},
		{"leading newline and dash", "\n--stdout", "en-gb", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, err := tts.Synthesize(t.Context(), c.text, c.voice)
			if err != nil {
				t.Fatal(err)
			}
			checkSpokenMP3(t, b, c.want, "espeak-ng")
		})
	}
}

func TestEspeak_Refuses(t *testing.T) {
	tts := NewEspeak(EspeakOptions{Binary: "/nonexistent/espeak-ng"})
	cases := []struct {
		name, text, voice string
		want              error
	}{
		{"unknown voice", "hello", "klingon", ErrUnknownVoice},
		{"voice espeak has but not offered", "hello", "yue", ErrUnknownVoice},
		{"empty text", "", "", ErrEmptyText},
		{"blank text", " \n\t", "", ErrEmptyText},
		{"too long", strings.Repeat("é", MaxTextRunes+1), "", ErrTextTooLong},
	}
	for _, c := range cases {
		if _, err := tts.Synthesize(t.Context(), c.text, c.voice); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.want)
		}
	}
}

func TestEspeak_Voices(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng")
	out, err := exec.CommandContext(t.Context(), "espeak-ng", "--voices").Output()
	if err != nil {
		t.Fatal(err)
	}
	installed := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n")[1:] {
		if f := strings.Fields(line); len(f) > 1 {
			installed[f[1]] = true
		}
	}
	vs := NewEspeak(EspeakOptions{DefaultVoice: "de"}).Voices()
	if len(vs) < 8 || vs[0].Name != "de" {
		t.Fatalf("Voices() = %v, want about 10 with the default first", vs)
	}
	for _, v := range vs {
		if !installed[v.Name] || v.Language == "" || v.Description == "" {
			t.Errorf("voice %+v: not in espeak-ng --voices, or undescribed", v)
		}
	}
}

func TestEspeak_CancelledWhileWaiting(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	tts := NewEspeak(EspeakOptions{Binary: os.Args[0], Lame: os.Args[0]})
	if _, err := tts.Synthesize(ctx, "hello", ""); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// fakeEngine writes an executable script standing in for an engine program.
func fakeEngine(t *testing.T, script string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "engine")
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestLocalEngines_ProgramFails(t *testing.T) {
	testenv.RequireCommands(t, "sh", "sleep")
	hang := fakeEngine(t, "exec sleep 30")
	fail := fakeEngine(t, "echo 'model not found' >&2; exit 3")
	cases := []struct {
		name string
		bin  string
		want string // the error must hold this
	}{
		{"hangs", hang, "took longer than"},
		{"fails", fail, "model not found"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := NewPocketSphinx(PocketSphinxOptions{Binary: c.bin, Timeout: 300 * time.Millisecond}).
				Transcribe(t.Context(), wavTake, "")
			var up *UpstreamError
			if !errors.As(err, &up) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("transcribe: err = %v, want *UpstreamError saying %q", err, c.want)
			}
			_, err = NewEspeak(EspeakOptions{Binary: c.bin, Lame: c.bin, Timeout: 300 * time.Millisecond}).
				Synthesize(t.Context(), "hello", "")
			if !errors.As(err, &up) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("synthesize: err = %v, want *UpstreamError saying %q", err, c.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v: the timeout did not stop the program", d)
			}
		})
	}
}

// checkSpokenMP3 fails unless b is an MP3 of more than 0.5 s and, when want is not 0, lasts
// within 30% of want, the length of the engine's own WAV of the same text.
func checkSpokenMP3(t *testing.T, b []byte, want time.Duration, engine string) {
	t.Helper()
	if media.Sniff(b) != media.FormatMP3 {
		t.Fatalf("output starts % x, not an MP3", b[:min(len(b), 4)])
	}
	d, err := decodeMP3(b)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if d < 500*time.Millisecond {
		t.Errorf("MP3 lasts %v, want more than 0.5 s", d)
	}
	if want > 0 && (d < want*7/10 || d > want*13/10) {
		t.Errorf("MP3 lasts %v, %s's WAV of the same text %v", d, engine, want)
	}
}
