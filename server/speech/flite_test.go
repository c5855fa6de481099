package speech

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/media"
)

func TestParseFliteVoices(t *testing.T) {
	cases := []struct {
		out  string
		want []string
	}{
		{"Voices available: kal awb_time kal16 awb rms slt \n", []string{"kal", "awb_time", "kal16", "awb", "rms", "slt"}},
		{"Voices available: slt \n", []string{"slt"}},
		{"", nil},
		{"usage: flite TEXT/FILE [WAVEFILE]\n", nil},
		{"Voices available:\n", nil},
		{"Voices available: slt ../../etc/x -rf Slt http://x/y.flitevox\n", []string{"slt"}},
		{"warning: x\r\nVoices available: rms\r\n", []string{"rms"}},
	}
	for _, c := range cases {
		if got := parseFliteVoices([]byte(c.out)); !slices.Equal(got, c.want) {
			t.Errorf("parseFliteVoices(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

func FuzzParseFliteVoices(f *testing.F) {
	f.Add([]byte("Voices available: kal awb_time kal16 awb rms slt \n"))
	f.Add([]byte("Voices available: slt \n"))
	f.Add([]byte("Voices available: \xff\xfe -voice /dev/null\x00\nVoices available: a"))
	f.Fuzz(func(t *testing.T, out []byte) {
		for _, id := range parseFliteVoices(out) {
			if !isVoiceID(id) || strings.HasPrefix(id, "-") || strings.ContainsAny(id, "/.") {
				t.Fatalf("voice ID %q is not a plain name", id)
			}
		}
	})
}

// fakeFlite writes a stand-in for flite into a directory of its own that lists the given voices
// and speaks nothing, and returns its path.
func fakeFlite(t *testing.T, list string) string {
	t.Helper()
	return fakeEngine(t, "echo '"+list+"'")
}

func TestBuiltIn_Voices(t *testing.T) {
	cases := []struct {
		name, flite, def string
		wantFirst        string
		wantFlite        []string
	}{
		{"flite with every voice", fakeFlite(t, "Voices available: kal awb_time kal16 awb rms slt "), "", "flite-slt",
			[]string{"flite-slt", "flite-rms", "flite-awb", "flite-kal16", "flite-kal"}},
		{"flite without slt", fakeFlite(t, "Voices available: kal rms"), "", "flite-rms", []string{"flite-rms", "flite-kal"}},
		{"no flite", "/nonexistent/flite", "", "en-us", nil},
		{"flite that lists nothing", fakeFlite(t, "usage: flite"), "", "en-us", nil},
		{"default asked for", fakeFlite(t, "Voices available: slt rms"), "de", "de", []string{"flite-slt", "flite-rms"}},
		{"unknown default", fakeFlite(t, "Voices available: slt"), "klingon", "flite-slt", []string{"flite-slt"}},
		{"flite voice as default", fakeFlite(t, "Voices available: slt rms"), "flite-rms", "flite-rms", []string{"flite-rms", "flite-slt"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := NewBuiltIn(t.Context(), BuiltInOptions{Flite: c.flite, DefaultVoice: c.def}).Voices()
			if vs[0].Name != c.wantFirst {
				t.Errorf("default voice %q, want %q", vs[0].Name, c.wantFirst)
			}
			var fl []string
			names := map[string]bool{}
			for _, v := range vs {
				if names[v.Name] {
					t.Errorf("voice %q listed twice", v.Name)
				}
				names[v.Name] = true
				if strings.HasPrefix(v.Name, "flite-") {
					fl = append(fl, v.Name)
				}
				if v.Language == "" || v.Description == "" {
					t.Errorf("voice %+v has no language or description", v)
				}
			}
			if !slices.Equal(fl, c.wantFlite) {
				t.Errorf("flite voices %q, want %q", fl, c.wantFlite)
			}
			for _, v := range espeakVoices { // every espeak-ng voice name keeps working
				if !names[v.Name] {
					t.Errorf("espeak-ng voice %q not offered", v.Name)
				}
			}
		})
	}
}

func TestBuiltIn_FliteMissingAtSynthesis(t *testing.T) {
	dir := t.TempDir()
	fl := filepath.Join(dir, "flite")
	if err := os.WriteFile(fl, []byte("#!/bin/sh\necho 'Voices available: slt'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tts := NewBuiltIn(t.Context(), BuiltInOptions{Flite: fl})
	os.Remove(fl) // uninstalled while the service runs
	_, err := tts.Synthesize(t.Context(), "hello", "flite-slt")
	var missing *EngineMissingError
	if !errors.As(err, &missing) || missing.Package != "flite" {
		t.Errorf("err = %v, want *EngineMissingError naming the package flite", err)
	}
}

func TestCheckBuiltIn(t *testing.T) {
	fl := fakeFlite(t, "Voices available: slt")
	cases := []struct {
		name string
		o    BuiltInOptions
		pkg  string // "" for nil
	}{
		{"flite without espeak-ng", BuiltInOptions{Flite: fl, Espeak: "no-such-espeak", Lame: os.Args[0]}, ""},
		{"neither", BuiltInOptions{Flite: "no-such-flite", Espeak: "no-such-espeak", Lame: os.Args[0]}, "espeak-ng"},
		{"no lame", BuiltInOptions{Flite: fl, Lame: "no-such-lame"}, "lame"},
	}
	for _, c := range cases {
		err := CheckBuiltIn(c.o)
		var missing *EngineMissingError
		if c.pkg == "" && err != nil || c.pkg != "" && (!errors.As(err, &missing) || missing.Package != c.pkg) {
			t.Errorf("%s: CheckBuiltIn = %v, want missing %q", c.name, err, c.pkg)
		}
	}
}

// fliteWAV speaks text with flite's slt voice, as the NOTES' recipe does.
func fliteWAV(t *testing.T, text string) media.PCM {
	t.Helper()
	f := filepath.Join(t.TempDir(), "flite.wav")
	if out, err := exec.CommandContext(t.Context(), "flite", "-voice", "slt", "-t", text, "-o", f).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v: %s", err, out)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	p, err := media.Decode(b)
	if err != nil {
		t.Fatalf("decode flite WAV: %v", err)
	}
	return p
}

func TestBuiltIn_SynthesizesMP3(t *testing.T) {
	testenv.RequireCommands(t, "flite", "espeak-ng", "lame")
	tts := NewBuiltIn(t.Context(), BuiltInOptions{})
	if vs := tts.Voices(); vs[0].Name != "flite-slt" {
		t.Fatalf("default voice %q with flite installed, want flite-slt", vs[0].Name)
	}
	slt := fliteWAV(t, weather)
	cases := []struct {
		name, text, voice string
		want              time.Duration // flite's own rendering of the text, or 0 for "> 0.5 s"
	}{
		{"default voice", weather, "", slt.Duration()},
		{"named voice", weather, "flite-slt", slt.Duration()},
		{"another flite voice", weather, "flite-rms", 0},
		{"espeak-ng voice", weather, "en-us", 0},
		{"leading dash", "-voice kal -o /tmp/x is not an option", "", 0},
		{"leading newline and dash", "\n-lv", "flite-awb", 0},
		{"not English", "Grüße aus 東京, naïve café.", "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b, err := tts.Synthesize(t.Context(), c.text, c.voice)
			if err != nil {
				t.Fatal(err)
			}
			checkSpokenMP3(t, b, c.want, "flite")
		})
	}
}

func TestPipe_NamesTheProgramThatFailed(t *testing.T) {
	testenv.RequireCommands(t, "sh", "cat")
	speak := fakeEngine(t, "cat >/dev/null; exec head -c 200000 /dev/zero")
	badLame := fakeEngine(t, "echo 'lame: bad flag' >&2; exit 2")
	badSpeaker := fakeEngine(t, "echo 'no voice' >&2; exit 4")
	lame := fakeEngine(t, "cat")
	cases := []struct {
		name          string
		first, second string
		want          string
	}{
		{"encoder fails without reading", speak, badLame, "lame: bad flag"},
		{"speaker fails", badSpeaker, lame, "no voice"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := pipe(t.Context(), 10*time.Second, strings.NewReader("hello"), 1<<20, []string{c.first}, []string{c.second}, nil)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want one saying %q", err, c.want)
			}
		})
	}
	out, err := pipe(t.Context(), 10*time.Second, strings.NewReader("hello"), 1<<20, []string{"cat"}, []string{"cat"}, nil)
	if err != nil || string(out) != "hello" {
		t.Errorf("cat | cat = %q, %v; want hello", out, err)
	}
	if _, err := pipe(t.Context(), 10*time.Second, strings.NewReader("hello"), 3, []string{"cat"}, []string{"cat"}, nil); err == nil {
		t.Error("output over the cap: no error")
	}
	// Through a file, as flite writes it: the encoder gets a header at once, then the samples.
	samples := []byte{1, 0, 2, 0, 3, 0, 4, 0}
	wavPath := filepath.Join(t.TempDir(), "fixture.wav")
	if err := os.WriteFile(wavPath, media.EncodeWAV(media.PCM{Rate: 16000, Channels: 1, Samples: []int16{1, 2, 3, 4}}), 0o600); err != nil {
		t.Fatal(err)
	}
	toFile := fakeEngine(t, `cat >/dev/null; cp "`+wavPath+`" "$1"`)
	file := &wavFile{path: filepath.Join(t.TempDir(), "speech.wav"), rate: 16000}
	out, err = pipe(t.Context(), 10*time.Second, strings.NewReader("hello"), 1<<20, []string{toFile, file.path}, []string{"cat"}, file)
	if want := append(streamingWAVHeader(16000), samples...); err != nil || !bytes.Equal(out, want) {
		t.Errorf("through a file = % x, %v; want % x", out, err, want)
	}
	file.rate = 22050
	if _, err = pipe(t.Context(), 10*time.Second, strings.NewReader("hello"), 1<<20, []string{toFile, file.path}, []string{"cat"}, file); !errors.Is(err, errWAVFormat) {
		t.Errorf("a WAV at another rate: err = %v, want errWAVFormat", err)
	}
	file.rate = 16000
	_, err = pipe(t.Context(), 10*time.Second, strings.NewReader("hello"), 1<<20, []string{toFile, file.path}, []string{badLame}, file)
	if err == nil || !strings.Contains(err.Error(), "lame: bad flag") {
		t.Errorf("through a file to a failing encoder: err = %v, want one saying lame: bad flag", err)
	}
}

func TestWAVSamples(t *testing.T) {
	wav := media.EncodeWAV(media.PCM{Rate: 16000, Channels: 1, Samples: []int16{1, -1, 300}})
	if got, err := wavSamples(wav, 16000); err != nil || !bytes.Equal(got, []byte{1, 0, 0xff, 0xff, 0x2c, 1}) {
		t.Errorf("wavSamples = % x, %v", got, err)
	}
	stereo := media.EncodeWAV(media.PCM{Rate: 16000, Channels: 2, Samples: []int16{1, 2}})
	for name, b := range map[string][]byte{
		"other rate": wav, "stereo": stereo, "empty": nil, "not RIFF": []byte("RIFX0000WAVE"),
		"no data": wav[:36], "header only": streamingWAVHeader(8000)[:36],
	} {
		rate := 16000
		if name == "other rate" {
			rate = 22050
		}
		if _, err := wavSamples(b, rate); !errors.Is(err, errWAVFormat) {
			t.Errorf("%s: err = %v, want errWAVFormat", name, err)
		}
	}
	if got, err := wavSamples(append(streamingWAVHeader(8000), 5, 0, 6), 8000); err != nil || !bytes.Equal(got, []byte{5, 0}) {
		t.Errorf("streaming header, cut samples: % x, %v; want 05 00", got, err)
	}
}

func FuzzWAVSamples(f *testing.F) {
	f.Add(media.EncodeWAV(media.PCM{Rate: 16000, Channels: 1, Samples: []int16{1, 2, 3}}))
	f.Add(append(streamingWAVHeader(16000), 1, 2, 3))
	f.Add([]byte("RIFF\xff\xff\xff\xffWAVEfmt \xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pcm, err := wavSamples(b, 16000)
		if err != nil && !errors.Is(err, errWAVFormat) {
			t.Fatalf("err = %v, want errWAVFormat", err)
		}
		if err == nil && (len(pcm)%2 != 0 || len(pcm) > len(b)) {
			t.Fatalf("%d bytes of samples from %d bytes", len(pcm), len(b))
		}
	})
}
