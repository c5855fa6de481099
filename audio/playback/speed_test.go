package playback_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"slices"
	"testing"

	"parley/audio/playback"
	"parley/internal/testenv"
)

// decodeAtSpeed decodes an MP3 fixture into the output format at a speed.
func decodeAtSpeed(t *testing.T, name string, speed float64) []float64 {
	t.Helper()
	s := playback.NewStreamAtSpeed(t.Context(), bytes.NewReader(readFixture(t, name)), playback.OutputFormat, speed)
	defer s.Close()
	pcm, err := io.ReadAll(s)
	if err != nil {
		t.Fatalf("%s at %v×: %v", name, speed, err)
	}
	return samples(pcm, playback.OutputFormat.Channels)
}

// pitch is the median fundamental frequency of the voiced 40 ms frames of x (autocorrelation
// between 70 and 500 Hz, frames within 20 dB of the loudest and at least 0.5 correlated).
func pitch(x []float64, rate int) float64 {
	frame := rate * 40 / 1000
	loudest := 0.0
	for i := 0; i+frame <= len(x); i += frame / 2 {
		loudest = max(loudest, energy(x[i:i+frame]))
	}
	var f0s []float64
	for i := 0; i+frame <= len(x); i += frame / 2 {
		w := x[i : i+frame]
		if energy(w) < loudest/100 {
			continue
		}
		lo, hi := rate/500, rate/70
		r := make([]float64, hi+2)
		best := 0.0
		for l := lo; l <= hi+1; l++ {
			var c, a, b float64
			for j := 0; j+l < len(w); j++ {
				c += w[j] * w[j+l]
				a += w[j] * w[j]
				b += w[j+l] * w[j+l]
			}
			r[l] = c / math.Sqrt(a*b+1e-12)
			best = max(best, r[l])
		}
		// The period is the first peak nearly as high as the highest: its multiples correlate
		// as well.
		lag := 0
		for l := lo + 1; l <= hi; l++ {
			if r[l] >= 0.9*best && r[l] >= r[l-1] && r[l] >= r[l+1] {
				lag = l
				break
			}
		}
		if best >= 0.5 && lag > 0 {
			f0s = append(f0s, float64(rate)/float64(lag))
		}
	}
	if len(f0s) == 0 {
		return 0
	}
	slices.Sort(f0s)
	return f0s[len(f0s)/2]
}

func energy(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v * v
	}
	return s / float64(len(x))
}

// A reply played faster or slower lasts 1/speed as long, within 5%, at the same pitch, within 5%:
// espeak-ng's voice, and a 440 Hz tone.
func TestStream_SpeedKeepsThePitch(t *testing.T) {
	if err := playback.SpeedAvailable(); err != nil {
		requireOrSkip(t, err)
	}
	rate := playback.OutputFormat.SampleRate
	for _, name := range []string{"speech-slt-24k-mono.mp3", "tone440-24k-mono.mp3"} {
		base := decodeAtSpeed(t, name, 1)
		f0 := pitch(base, rate)
		if f0 == 0 {
			t.Fatalf("%s: no pitch found at 1×", name)
		}
		for _, speed := range []float64{0.75, 1.5, 2} {
			got := decodeAtSpeed(t, name, speed)
			ratio := float64(len(got)) / float64(len(base))
			if want := 1 / speed; math.Abs(ratio-want)/want > 0.05 {
				t.Errorf("%s at %v×: lasts %.3f of 1×, want %.3f ±5%%", name, speed, ratio, want)
			}
			if p := pitch(got, rate); math.Abs(p-f0)/f0 > 0.05 {
				t.Errorf("%s at %v×: pitch %.1f Hz, at 1× %.1f Hz (want within 5%%)", name, speed, p, f0)
			}
			t.Logf("%s at %v×: %.3f of the length, pitch %.1f Hz (1×: %.1f)", name, speed, ratio, pitch(got, rate), f0)
		}
	}
}

// Speeds out of range are brought into it; 1 plays the clip untouched, byte for byte.
func TestClampSpeed(t *testing.T) {
	for in, want := range map[float64]float64{0: 1, -1: 1, math.NaN(): 1, math.Inf(1): 1, 0.5: 0.75, 3: 2, 1.25: 1.25} {
		if got := playback.ClampSpeed(in); got != want {
			t.Errorf("ClampSpeed(%v) = %v, want %v", in, got, want)
		}
	}
	plain := decodeAtSpeed(t, "speech-22k-mono.mp3", 1)
	whole, err := playback.DecodeAll(t.Context(), bytes.NewReader(readFixture(t, "speech-22k-mono.mp3")), playback.OutputFormat)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain, samples(whole, playback.OutputFormat.Channels)) {
		t.Error("at 1× the clip is not played as made")
	}
}

// requireOrSkip fails under CI, where make test installs libsonic0, and skips elsewhere.
func requireOrSkip(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, playback.ErrNoSpeed) {
		t.Fatal(err)
	}
	if testenv.InCI() {
		t.Fatalf("CI=true and %v", err)
	}
	t.Skip(err)
}
