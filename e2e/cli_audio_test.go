package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// The audio libraries (libasound, libpulse, libjack) read the process's environment and keep
// one audio context per process, and a library's diagnostics go to the process's standard
// error: these tests run the binary.

// crashMP3 is the input that panics go-mp3 v0.3.4 inside NewDecoder (NOTES.md).
var crashMP3 = append([]byte("\xff\xf2 000000000\xd0"), bytes.Repeat([]byte("0"), 40)...)

func TestCLI_PlayPlaysMP3AndDataURIAndRefusesMalformed(t *testing.T) {
	testenv.RequireCommands(t, "pulseaudio", "espeak-ng", "lame")
	p := testenv.StartPulse(t)
	h := newCLIHome(t, p.Env...)
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

// noSoundServer returns the environment of a machine with no sound card and no sound server,
// the same on every machine: ALSA reads only a configuration whose default device is on a card
// that is not there, beside a JACK plugin and a rate converter (plugins ALSA lists among its
// PCMs); PulseAudio's socket and JACK's server do not exist.
func noSoundServer(t *testing.T) []string {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "asound.conf")
	err := os.WriteFile(conf, []byte(`pcm.!default { type hw card 99 }
pcm.jack {
	type jack
	playback_ports { 0 system:playback_1 1 system:playback_2 }
	capture_ports { 0 system:capture_1 1 system:capture_2 }
	hint { show on description "JACK Audio Connection Kit" }
}
pcm.lavrate {
	type rate
	slave { pcm "default" rate 48000 }
	converter "lavrate"
	hint { show on description "Rate Converter Plugin Using Libav/FFmpeg Library" }
}
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"ALSA_CONFIG_PATH=" + conf,
		"PULSE_SERVER=unix:" + filepath.Join(t.TempDir(), "no-pulse"),
		"JACK_NO_START_SERVER=1",
		"JACK_DEFAULT_SERVER=parley-test-no-such-server",
	}
}

func TestCLI_PlayNoSoundServerIsOneLine(t *testing.T) {
	h := newCLIHome(t, noSoundServer(t)...)
	mp3, err := filepath.Abs("../media/testdata/hello.mp3")
	if err != nil {
		t.Fatal(err)
	}
	r := h.run(t, "", "play", mp3)
	if r.Code != 1 || !strings.Contains(strings.ToLower(r.Stderr), "no audio output device") {
		t.Errorf("play with no sound server: %s; want exit 1 saying there is no audio output", r)
	}
	oneLine(t, "play with no sound server", r)
}

func TestCLI_PlayNotAudioFailsBeforeOpeningTheDevice(t *testing.T) {
	// With PARLEY_AUDIO_DEBUG set, libasound and libjack print their diagnostics: opening the
	// device here would add lines of theirs to parley's one.
	h := newCLIHome(t, append(noSoundServer(t), "PARLEY_AUDIO_DEBUG=1")...)
	txt := filepath.Join(h.dir, "notaudio.txt")
	if err := os.WriteFile(txt, []byte("These are notes, not audio.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := h.run(t, "", "play", txt)
	if r.Code != 1 || !strings.Contains(r.Stderr, "notaudio.txt is not an MP3 file") {
		t.Errorf("play notaudio.txt: %s; want exit 1 saying it is not an MP3 file", r)
	}
	oneLine(t, "play notaudio.txt", r)
}

func TestCLI_DevicesNoSoundServerListsNoPlugins(t *testing.T) {
	r := newCLIHome(t, noSoundServer(t)...).run(t, "", "devices")
	if r.Code != 1 || r.Stdout != "" || !strings.Contains(strings.ToLower(r.Stderr), "no audio device found") {
		t.Errorf("devices with no sound card or server: %s; want exit 1 saying no devices were found", r)
	}
	oneLine(t, "devices with no sound card or server", r)
}

// alsaPlugins are PCMs that Debian's libasound2-plugins and alsa.conf list beside devices.
var alsaPlugins = []string{"null", "lavrate", "samplerate", "speexrate", "jack", "oss", "pulse", "speex", "upmix", "vdownmix"}

func TestCLI_DevicesListsDevicesAndMarksTheDefault(t *testing.T) {
	testenv.RequireCommands(t, "pulseaudio")
	p := testenv.StartPulse(t)
	for _, backend := range []string{"pulse", "alsa"} {
		t.Run(backend, func(t *testing.T) {
			h := newCLIHome(t, append(p.Env, "PARLEY_AUDIO_BACKEND="+backend)...)
			r := h.run(t, "", "devices", "--json")
			var got struct {
				Backend         string
				Inputs, Outputs []struct {
					ID, Name string
					Default  bool
				}
			}
			if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &got) != nil {
				t.Fatalf("devices --json: %s", r)
			}
			for kind, devs := range map[string][]struct {
				ID, Name string
				Default  bool
			}{"inputs": got.Inputs, "outputs": got.Outputs} {
				defaults := 0
				for _, d := range devs {
					for _, plugin := range alsaPlugins {
						if backend == "alsa" && d.ID == plugin {
							t.Errorf("%s lists the ALSA plugin %q (%s)", kind, d.ID, d.Name)
						}
					}
					if d.Default {
						defaults++
					}
				}
				if len(devs) == 0 || defaults != 1 {
					t.Errorf("%s: %d devices, %d marked default; want one default:\n%s", kind, len(devs), defaults, r.Stdout)
				}
			}
			r = h.run(t, "", "devices")
			if r.Code != 0 || strings.Count(r.Stdout, "\n* ") != 2 {
				t.Errorf("devices: %s; want one input and one output marked with '*'", r)
			}
		})
	}
}
