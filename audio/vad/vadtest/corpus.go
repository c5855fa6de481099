// Package vadtest builds a speech corpus for voice detection tests with espeak-ng and sox:
// utterances placed at known offsets, inner pauses, clicks and white noise at chosen SNRs, each
// with its true speech boundaries measured on the clean signal.
package vadtest

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/media"
)

// Case is one corpus recording.
type Case struct {
	// Name says what the case holds, such as "pause350ms/snr20".
	Name string
	// Path is the WAV file (16 kHz mono 16-bit).
	Path string
	// PCM is the file's audio.
	PCM media.PCM
	// Speech is false for recordings that hold no speech (noise, clicks, silence).
	Speech bool
	// Start and End are the true speech boundaries, measured on the clean signal.
	Start, End time.Duration
	// SNR is the speech-to-noise ratio in dB, +Inf for a clean recording.
	SNR float64
}

// Require skips (or, under CI, fails) a test that needs the corpus tools.
func Require(t testing.TB) {
	t.Helper()
	testenv.RequireCommands(t, "espeak-ng", "sox")
}

// run runs a command and fails the test with its output if it fails.
func run(t testing.TB, name string, args ...string) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// secs formats a duration for sox.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// Say speaks text with espeak-ng into dir and returns a 16 kHz mono 16-bit WAV of it at half
// amplitude (so added noise does not clip).
func Say(t testing.TB, dir, name, text string) string {
	t.Helper()
	raw := filepath.Join(dir, name+".espeak.wav")
	out := filepath.Join(dir, name+".wav")
	run(t, "espeak-ng", "-v", "en-us", "-w", raw, text)
	run(t, "sox", raw, "-r", "16000", "-c", "1", "-b", "16", out, "vol", "0.5")
	return out
}

// Compose joins the WAV files in parts with the given gaps of silence between them, after lead
// and before trail of silence, into dir/name.wav.
func Compose(t testing.TB, dir, name string, lead time.Duration, parts []string, gaps []time.Duration, trail time.Duration) string {
	t.Helper()
	cur := parts[0]
	for i, next := range parts[1:] {
		padded := filepath.Join(dir, fmt.Sprintf("%s.part%d.wav", name, i))
		run(t, "sox", cur, padded, "pad", "0", secs(gaps[i]))
		joined := filepath.Join(dir, fmt.Sprintf("%s.join%d.wav", name, i))
		run(t, "sox", padded, next, joined)
		cur = joined
	}
	out := filepath.Join(dir, name+".wav")
	run(t, "sox", cur, out, "pad", secs(lead), secs(trail))
	return out
}

// Click writes dir/name.wav: a burst of white noise of length d at amplitude vol, after lead
// and before trail of silence.
func Click(t testing.TB, dir, name string, d time.Duration, vol float64, lead, trail time.Duration) string {
	t.Helper()
	out := filepath.Join(dir, name+".wav")
	run(t, "sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", out,
		"synth", secs(d), "whitenoise", "vol", fmt.Sprint(vol), "pad", secs(lead), secs(trail))
	return out
}

// Noise writes dir/name.wav: d of white noise at amplitude vol (sox's whitenoise, repeatable).
func Noise(t testing.TB, dir, name string, d time.Duration, vol float64) string {
	t.Helper()
	out := filepath.Join(dir, name+".wav")
	run(t, "sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", out,
		"synth", secs(d), "whitenoise", "vol", fmt.Sprint(vol))
	return out
}

// AddNoise mixes white noise into the clean file at snr dB below the speech's RMS (measured
// over its true boundaries) with sox -m, and returns dir/name.wav.
func AddNoise(t testing.TB, dir, name, clean string, snr float64) string {
	t.Helper()
	p := Read(t, clean)
	start, end := Boundaries(p)
	speech := p.Samples[int(start.Seconds()*16000):int(end.Seconds()*16000)]
	noiseFile := Noise(t, dir, name+".noise", p.Duration()+time.Second, 1)
	n := Read(t, noiseFile)
	scale := rms(speech) / math.Pow(10, snr/20) / rms(n.Samples)
	out := filepath.Join(dir, name+".wav")
	run(t, "sox", "-m", "-v", "1", clean, "-v", fmt.Sprintf("%.6f", scale), noiseFile, out,
		"trim", "0", secs(p.Duration()))
	return out
}

// Read reads a WAV file.
func Read(t testing.TB, path string) media.PCM {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := media.ReadWAV(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

func rms(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(len(s), 1)))
}

// Boundaries returns where speech starts and ends in a clean recording: the first and last
// 10 ms frames whose energy is within 40 dB of the loudest frame.
func Boundaries(p media.PCM) (start, end time.Duration) {
	const frame = 160
	var energies []float64
	top := 0.0
	for i := 0; i+frame <= len(p.Samples); i += frame {
		e := rms(p.Samples[i : i+frame])
		energies = append(energies, e)
		top = max(top, e)
	}
	limit := top / 100 // -40 dB
	first, last := -1, -1
	for i, e := range energies {
		if e >= limit && e > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0
	}
	ms := func(i int) time.Duration { return time.Duration(i) * 10 * time.Millisecond }
	return ms(first), ms(last + 1)
}

// SNRs are the noise levels every speech case is built at, besides clean.
var SNRs = []float64{30, 20, 10}

// Build writes the standard corpus into a temporary directory: utterances with leading and
// trailing silence, two phrases with 350 and 400 ms pauses (each one take), each clean and at
// every SNR; and recordings with no speech: white noise alone and 30 ms clicks.
func Build(t testing.TB) []Case {
	t.Helper()
	return BuildIn(t, t.TempDir())
}

// BuildIn is Build writing into dir, for a corpus shared by several tests.
func BuildIn(t testing.TB, dir string) []Case {
	t.Helper()
	Require(t)
	weather := Say(t, dir, "weather", "What is the weather like in Paris today?")
	lights := Say(t, dir, "lights", "Turn on the lights.")
	kitchen := Say(t, dir, "kitchen", "In the kitchen, please.")
	type speechSpec struct {
		name        string
		lead, trail time.Duration
		parts       []string
		gaps        []time.Duration
	}
	specs := []speechSpec{
		{"lead1s", time.Second, 1500 * time.Millisecond, []string{weather}, nil},
		{"lead300ms", 300 * time.Millisecond, 1500 * time.Millisecond, []string{lights}, nil},
		{"pause350ms", 800 * time.Millisecond, 1500 * time.Millisecond, []string{lights, kitchen}, []time.Duration{350 * time.Millisecond}},
		{"pause400ms", 1200 * time.Millisecond, 2 * time.Second, []string{kitchen, weather}, []time.Duration{400 * time.Millisecond}},
	}
	var cases []Case
	for _, s := range specs {
		clean := Compose(t, dir, s.name, s.lead, s.parts, s.gaps, s.trail)
		p := Read(t, clean)
		start, end := Boundaries(p)
		cases = append(cases, Case{Name: s.name + "/clean", Path: clean, PCM: p, Speech: true, Start: start, End: end, SNR: math.Inf(1)})
		for _, snr := range SNRs {
			name := fmt.Sprintf("%s.snr%g", s.name, snr)
			noisy := AddNoise(t, dir, name, clean, snr)
			cases = append(cases, Case{Name: fmt.Sprintf("%s/snr%g", s.name, snr), Path: noisy, PCM: Read(t, noisy),
				Speech: true, Start: start, End: end, SNR: snr})
		}
	}
	for _, vol := range []float64{0.003, 0.02, 0.1} {
		name := fmt.Sprintf("noise%g", vol)
		path := Noise(t, dir, name, 4*time.Second, vol)
		cases = append(cases, Case{Name: "noise/vol" + fmt.Sprint(vol), Path: path, PCM: Read(t, path)})
	}
	click := Click(t, dir, "click", 30*time.Millisecond, 0.5, time.Second, 2*time.Second)
	cases = append(cases, Case{Name: "click/silence", Path: click, PCM: Read(t, click)})
	bed := Noise(t, dir, "clickbed", 3030*time.Millisecond, 0.005)
	mixed := filepath.Join(dir, "click-noise.wav")
	run(t, "sox", "-m", "-v", "1", click, "-v", "1", bed, mixed)
	cases = append(cases, Case{Name: "click/noise", Path: mixed, PCM: Read(t, mixed)})
	return cases
}
