package wake

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"parley/audio"
	"parley/audio/vad/vadtest"
	"parley/internal/testenv"
	"parley/media"
)

// voices speak the corpus: flite's four 16 kHz voices and two of espeak-ng's.
var voices = []string{"slt", "awb", "rms", "kal16", "espeak:en-us", "espeak:en+f3"}

// conditions are how a take reaches the microphone: as said with the room's quiet noise floor,
// in a reverberant room, and with white noise 20 dB under the speech.
var conditions = []string{"quiet", "room", "noise"}

// questions follow the wake phrase.
var questions = []string{
	"what is the weather like today",
	"set a timer for ten minutes",
	"tell me a joke",
	"how tall is the eiffel tower",
	"turn off the lights",
}

// requireSpotter skips the test (or fails it under CI=true) unless phrases can be spotted here
// and the corpus can be made.
func requireSpotter(t testing.TB) {
	t.Helper()
	testenv.RequireCommands(t, "flite", "espeak-ng", "sox")
	if err := Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the wake-word spotter is unavailable under CI: %v", err)
		}
		t.Skipf("the wake-word spotter is unavailable: %v", err)
	}
}

var sayMu sync.Mutex

// say renders text with voice in condition into a 16 kHz mono take in dir, with 0.6 s of the
// room's quiet before and after.
func say(t testing.TB, dir, voice, condition, text string) media.PCM {
	t.Helper()
	sayMu.Lock()
	defer sayMu.Unlock()
	name := strings.NewReplacer(":", "-", "+", "-", " ", "_").Replace(voice + "-" + condition + "-" + text)
	if len(name) > 100 {
		name = name[:100]
	}
	raw := filepath.Join(dir, name+".raw.wav")
	if v, ok := strings.CutPrefix(voice, "espeak:"); ok {
		run(t, "espeak-ng", "-v", v, "-w", raw, text)
	} else {
		run(t, "flite", "-voice", voice, "-t", text, "-o", raw)
	}
	clean := filepath.Join(dir, name+".clean.wav")
	run(t, "sox", raw, "-r", "16000", "-c", "1", "-b", "16", clean, "norm", "-6", "pad", "0.6", "0.6")
	out := filepath.Join(dir, name+".wav")
	switch condition {
	case "quiet":
		// A microphone in a quiet room: white noise at about -66 dBFS.
		noise := vadtest.Noise(t, dir, name+".floor", 30e9, 0.001)
		run(t, "sox", "-m", clean, noise, out, "trim", "0", fmt.Sprint(durationOf(t, clean)))
	case "room":
		noise := vadtest.Noise(t, dir, name+".floor", 30e9, 0.001)
		rev := filepath.Join(dir, name+".rev.wav")
		run(t, "sox", clean, rev, "reverb", "50", "50", "80", "gain", "-3")
		run(t, "sox", "-m", rev, noise, out, "trim", "0", fmt.Sprint(durationOf(t, rev)))
	case "noise":
		out = vadtest.AddNoise(t, dir, name+".noisy", clean, 20)
	default:
		t.Fatalf("unknown condition %q", condition)
	}
	return vadtest.Read(t, out)
}

func durationOf(t testing.TB, path string) float64 {
	return vadtest.Read(t, path).Duration().Seconds()
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// spot feeds pcm to s frame by frame, and returns the phrases heard.
func spot(t testing.TB, s *Spotter, pcm media.PCM) []string {
	t.Helper()
	var heard []string
	for off := 0; off+audio.FrameSamples <= len(pcm.Samples); off += audio.FrameSamples {
		p, err := s.Feed(pcm.Samples[off : off+audio.FrameSamples])
		if err != nil {
			t.Fatal(err)
		}
		if p != "" {
			heard = append(heard, p)
		}
	}
	return heard
}
