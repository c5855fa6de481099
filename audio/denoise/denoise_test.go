package denoise

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"parley/audio/speexdsp"
)

const rate = 16000

// take is 4 s of a 440 Hz tone sounded in half-second bursts with half-second pauses, at
// speechDB (dBFS of the tone's RMS), over white noise noiseDB under it, always the same.
func take(noiseDB float64) []int16 {
	r := rand.New(rand.NewPCG(1, 2))
	s := make([]int16, 4*rate)
	tone := 0.1 * 32768 * math.Sqrt2 // RMS 0.1 of full scale
	noise := 0.1 * 32768 * math.Pow(10, -noiseDB/20)
	for i := range s {
		x := r.NormFloat64() * noise
		if (i/(rate/2))%2 == 0 {
			x += tone * math.Sin(2*math.Pi*440*float64(i)/rate)
		}
		s[i] = int16(max(-32768, min(32767, math.Round(x))))
	}
	return s
}

// level is the RMS level in dB of s[from:to].
func level(s []int16, from, to int) float64 {
	var sum float64
	for _, v := range s[from:to] {
		sum += float64(v) * float64(v)
	}
	return 10 * math.Log10(sum/float64(to-from)+1)
}

func TestSNR_MeasuresTheNoiseInThePauses(t *testing.T) {
	for _, db := range []float64{15, 25, 40} {
		got := SNR(take(db), rate)
		if math.Abs(got-db) > 1.5 {
			t.Errorf("tone %v dB over the noise: SNR %.1f dB", db, got)
		}
	}
	if got := SNR(make([]int16, rate/10), rate); got != 0 {
		t.Errorf("a tenth of a second: SNR %v, want 0 (too short to tell)", got)
	}
	if got := SNR(take(20), 0); got != 0 {
		t.Errorf("no sample rate: SNR %v, want 0", got)
	}
}

func TestNoisy_OnlyUnderTheThreshold(t *testing.T) {
	if !Noisy(take(20), rate) {
		t.Error("a take 20 dB over its noise is not noisy")
	}
	if Noisy(take(45), rate) {
		t.Error("a take 45 dB over its noise is noisy")
	}
	if Noisy(make([]int16, 4*rate), rate) {
		t.Error("silence is noisy")
	}
	clean := take(45)
	if got := IfNoisy(clean, rate); &got[0] != &clean[0] {
		t.Error("IfNoisy changed a clean take")
	}
}

// The noise in the pauses comes down by about what was asked; the bursts keep their level.
func TestSuppress_BringsTheNoiseDown(t *testing.T) {
	s := take(20)
	out, err := Suppress(s, rate, SuppressDB)
	if errors.Is(err, speexdsp.ErrUnavailable) {
		t.Skipf("SpeexDSP: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(s) {
		t.Fatalf("%d samples out of %d", len(out), len(s))
	}
	// The last pause (3.5–4 s, past its first 100 ms) and burst (3–3.5 s), once it has learned.
	pauseFrom, pauseTo := 3*rate+rate/2+rate/10, 4*rate
	burstFrom, burstTo := 3*rate+rate/10, 3*rate+rate/2
	fell := level(s, pauseFrom, pauseTo) - level(out, pauseFrom, pauseTo)
	kept := level(s, burstFrom, burstTo) - level(out, burstFrom, burstTo)
	t.Logf("noise down %.1f dB, tone down %.1f dB", fell, kept)
	if fell < SuppressDB-4 {
		t.Errorf("the noise came down %.1f dB, want about %d", fell, SuppressDB)
	}
	if math.Abs(kept) > 2 {
		t.Errorf("the tone moved %.1f dB", kept)
	}
	// IfNoisy suppresses a noisy take the same way.
	if got := IfNoisy(s, rate); level(got, pauseFrom, pauseTo) != level(out, pauseFrom, pauseTo) {
		t.Error("IfNoisy did not suppress a noisy take")
	}
	// A take of less than a frame, and one of no whole frame, come back at their length.
	for _, n := range []int{1, 319, 321} {
		out, err := Suppress(s[:n], rate, SuppressDB)
		if err != nil || len(out) != n {
			t.Errorf("%d samples: %d back, %v", n, len(out), err)
		}
	}
	if _, err := Suppress(s, 0, SuppressDB); err == nil {
		t.Error("no sample rate: no error")
	}
}

// The samples of an upload are outside data: any of them, at any rate, gives a take of the
// same length and no crash.
func FuzzIfNoisy(f *testing.F) {
	f.Add([]byte{0, 0, 0xff, 0x7f, 0, 0x80}, 16000)
	f.Add(make([]byte, 2*4000), 8000)
	f.Fuzz(func(t *testing.T, b []byte, r int) {
		r = 8000 + (r%5+5)%5*8000 // 8, 16, 24, 32 or 40 kHz
		s := make([]int16, len(b)/2)
		for i := range s {
			s[i] = int16(uint16(b[2*i]) | uint16(b[2*i+1])<<8)
		}
		if got := IfNoisy(s, r); len(got) != len(s) {
			t.Fatalf("%d samples in, %d out", len(s), len(got))
		}
	})
}

// BenchmarkSuppress measures the suppressor's cost as a share of the audio's time (xRT): what
// it adds to the recognition of a noisy take.
//
//	go test -run '^$' -bench Suppress ./audio/denoise/
func BenchmarkSuppress(b *testing.B) {
	s := take(20)
	if _, err := Suppress(s, rate, SuppressDB); err != nil {
		b.Skipf("SpeexDSP: %v", err)
	}
	for b.Loop() {
		IfNoisy(s, rate)
	}
	audio := float64(len(s)) / rate
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/audio, "xRT")
}
