package cli_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"parley/audio/echo"
	"parley/media"
)

// TestCancelEcho_RemovesTheEchoOfAFile plays noise shaped into syllables, hears it 150 ms later
// and 6 dB down with a reflection, and has parley cancel-echo clean the recording.
func TestCancelEcho_RemovesTheEchoOfAFile(t *testing.T) {
	if err := echo.Available(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("no echo canceller under CI: %v", err)
		}
		t.Skipf("no echo canceller here: %v", err)
	}
	const rate = 16000
	rng := rand.New(rand.NewPCG(7, 9))
	// Syllables of 80–300 ms with pauses of 50–400 ms, as speech has.
	played := make([]int16, 12*rate)
	var lp float64
	for i := 0; i < len(played); {
		syl := int((0.08 + 0.22*rng.Float64()) * rate)
		amp := 0.05 + 0.15*rng.Float64()
		for j := 0; j < syl && i < len(played); j, i = j+1, i+1 {
			lp = 0.6*lp + 0.4*rng.NormFloat64()
			played[i] = int16(max(-32767, min(32767, 32767*amp*math.Sin(math.Pi*float64(j)/float64(syl))*lp)))
		}
		i += int((0.05 + 0.35*rng.Float64()) * rate)
	}
	heard := make([]int16, len(played))
	for i := range heard {
		v := rng.NormFloat64() * 10
		if j := i - rate*150/1000; j >= 0 {
			v += 0.5 * float64(played[j])
		}
		if j := i - rate*190/1000; j >= 0 {
			v += 0.2 * float64(played[j])
		}
		heard[i] = int16(max(-32768, min(32767, v)))
	}
	dir := t.TempDir()
	write := func(name string, s []int16) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, media.EncodeWAV(media.PCM{Rate: rate, Channels: 1, Samples: s}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pf, hf, out := write("played.wav", played), write("heard.wav", heard), filepath.Join(dir, "cleaned.wav")
	h := newHome(t)
	r := h.run(t, "", "cancel-echo", pf, hf, "-o", out)
	if r.Code != 0 {
		t.Fatalf("parley cancel-echo: %s", r)
	}
	m := regexp.MustCompile(`came out ([0-9.]+) dB quieter \(it reached the microphone (\d+) ms`).FindStringSubmatch(r.Stdout)
	if m == nil {
		t.Fatalf("parley cancel-echo printed %q", r.Stdout)
	}
	if db, _ := strconv.ParseFloat(m[1], 64); db < 15 {
		t.Errorf("the echo came out %.1f dB quieter, want at least 15", db)
	}
	if ms, _ := strconv.Atoi(m[2]); ms < 140 || ms > 160 {
		t.Errorf("the delay found is %d ms, want about 150", ms)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p, err := media.ReadWAV(f); err != nil || p.Frames() < len(heard)-320 {
		t.Errorf("the cleaned recording: %d frames, %v", p.Frames(), err)
	}

	// A recording the canceller cannot hear says how to convert it; a missing file says so.
	stereo := filepath.Join(dir, "stereo.wav")
	if err := os.WriteFile(stereo, media.EncodeWAV(media.PCM{Rate: 48000, Channels: 2, Samples: make([]int16, 9600)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := h.run(t, "", "cancel-echo", pf, stereo); r.Code != 1 || !regexp.MustCompile(`48000 Hz with 2 channels.*sox`).MatchString(r.Stderr) {
		t.Errorf("a stereo recording: %s", r)
	}
	if r := h.run(t, "", "cancel-echo", pf, filepath.Join(dir, "none.wav")); r.Code != 1 || !regexp.MustCompile(`There is no file`).MatchString(r.Stderr) {
		t.Errorf("a missing file: %s", r)
	}
}
