package vad_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"parley/audio/vad"
	"parley/audio/vad/vadtest"
)

const frame = 320 // 20 ms at 16 kHz

// result is what a detector found in one recording.
type result struct {
	starts, ends int
	start, end   time.Duration // the first speech start and end found
	decidedAt    time.Duration // where the first end was decided
}

// detect feeds samples to a detector in 20 ms frames.
func detect(cfg vad.Config, samples []int16) result {
	d := vad.New(cfg)
	var r result
	for i := 0; i+frame <= len(samples); i += frame {
		switch d.Feed(samples[i : i+frame]) {
		case vad.Start:
			r.starts++
			if r.starts == 1 {
				r.start = d.SpeechStart()
			}
		case vad.End:
			r.ends++
			if r.ends == 1 {
				r.end, r.decidedAt = d.SpeechEnd(), d.Position()
			}
		}
	}
	return r
}

// synth builds a signal from segments of (duration, amplitude) of a 200 Hz tone with harmonics
// over white noise at noiseAmp.
func synth(noiseAmp float64, segs ...[2]float64) []int16 {
	rng := rand.New(rand.NewPCG(1, 2))
	var out []int16
	var n int
	for _, s := range segs {
		for range int(s[0] * 16000) {
			t := float64(n) / 16000
			v := s[1] * (math.Sin(2*math.Pi*200*t) + 0.5*math.Sin(2*math.Pi*400*t) + 0.3*math.Sin(2*math.Pi*800*t))
			v += noiseAmp * (rng.Float64()*2 - 1)
			out = append(out, int16(max(min(v*32767, 32767), -32768)))
			n++
		}
	}
	return out
}

func TestDetector_Synthetic(t *testing.T) {
	tests := []struct {
		name       string
		samples    []int16
		starts     int
		ends       int
		start, end time.Duration
	}{
		{"tone after silence", synth(0.001, [2]float64{1, 0}, [2]float64{1, 0.2}, [2]float64{1.5, 0}), 1, 1, time.Second, 2 * time.Second},
		{"pause of 400ms is one take", synth(0.001, [2]float64{0.5, 0}, [2]float64{0.6, 0.2}, [2]float64{0.4, 0}, [2]float64{0.6, 0.2}, [2]float64{1.5, 0}), 1, 1, 500 * time.Millisecond, 2100 * time.Millisecond},
		{"30ms click", synth(0.001, [2]float64{1, 0}, [2]float64{0.03, 0.8}, [2]float64{1.5, 0}), 0, 0, 0, 0},
		{"100ms burst", synth(0.001, [2]float64{1, 0}, [2]float64{0.1, 0.5}, [2]float64{1.5, 0}), 0, 0, 0, 0},
		{"digital silence", make([]int16, 3*16000), 0, 0, 0, 0},
		{"steady noise", synth(0.05, [2]float64{4, 0}), 0, 0, 0, 0},
		{"noise after a device's startup zeros", append(make([]int16, 1600), synth(0.05, [2]float64{3, 0})...), 0, 0, 0, 0},
		{"speech in noise", synth(0.02, [2]float64{1, 0}, [2]float64{1, 0.1}, [2]float64{1.5, 0}), 1, 1, time.Second, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := detect(vad.Config{}, tt.samples)
			if r.starts != tt.starts || r.ends != tt.ends {
				t.Fatalf("got %d starts and %d ends, want %d and %d", r.starts, r.ends, tt.starts, tt.ends)
			}
			if tt.starts == 0 {
				return
			}
			if d := (r.start - tt.start).Abs(); d > 40*time.Millisecond {
				t.Errorf("start at %v, want %v", r.start, tt.start)
			}
			if d := (r.end - tt.end).Abs(); d > 40*time.Millisecond {
				t.Errorf("end at %v, want %v", r.end, tt.end)
			}
			if want := r.end + vad.DefaultHold; r.decidedAt < want || r.decidedAt > want+40*time.Millisecond {
				t.Errorf("end decided at %v, want %v (end + hold)", r.decidedAt, want)
			}
		})
	}
}

func TestConfig_HoldBounds(t *testing.T) {
	for _, tt := range []struct{ in, want time.Duration }{
		{0, vad.DefaultHold}, {100 * time.Millisecond, vad.MinHold}, {time.Minute, vad.MaxHold}, {2 * time.Second, 2 * time.Second},
	} {
		if got := (vad.Config{Hold: tt.in}).WithDefaults().Hold; got != tt.want {
			t.Errorf("Hold %v became %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestDetector_HoldDecidesEnd(t *testing.T) {
	s := synth(0.001, [2]float64{0.5, 0}, [2]float64{1, 0.2}, [2]float64{3, 0})
	for _, hold := range []time.Duration{300 * time.Millisecond, 900 * time.Millisecond, 2 * time.Second} {
		r := detect(vad.Config{Hold: hold}, s)
		if r.ends != 1 || r.decidedAt-r.end < hold || r.decidedAt-r.end > hold+20*time.Millisecond {
			t.Errorf("hold %v: %d ends, decided %v after the end", hold, r.ends, r.decidedAt-r.end)
		}
	}
}

// TestDetector_Corpus runs the detector over espeak-ng speech placed at known offsets, with
// pauses and white noise at several SNRs, and logs the boundary errors in milliseconds.
func TestDetector_Corpus(t *testing.T) {
	cases := vadtest.Build(t)
	hold := vad.DefaultHold
	for _, c := range cases {
		r := detect(vad.Config{}, c.PCM.Samples)
		if !c.Speech {
			t.Logf("%-22s starts=%d", c.Name, r.starts)
			if r.starts != 0 {
				t.Errorf("%s: speech started at %v in a recording with none", c.Name, r.start)
			}
			continue
		}
		startErr := r.start - c.Start
		endErr := r.end - c.End
		decide := r.decidedAt - c.End
		t.Logf("%-22s true %4d–%4d ms  start err %+4d ms  end err %+4d ms  end decided %4d ms after speech",
			c.Name, c.Start.Milliseconds(), c.End.Milliseconds(), startErr.Milliseconds(), endErr.Milliseconds(), decide.Milliseconds())
		if r.starts != 1 || r.ends != 1 {
			t.Errorf("%s: %d starts and %d ends, want one take", c.Name, r.starts, r.ends)
			continue
		}
		if startErr.Abs() > 120*time.Millisecond {
			t.Errorf("%s: start error %v, want within 120 ms", c.Name, startErr)
		}
		// The end may be found early when the last sound is a weak fricative under noise (it is
		// still in the take, which runs until the decision), but never more than hold + 150 ms
		// late, and the take must not cut the speech off.
		if decide > hold+150*time.Millisecond {
			t.Errorf("%s: end decided %v after the speech, want at most hold %v + 150 ms", c.Name, decide, hold)
		}
		if decide < 300*time.Millisecond || endErr < -250*time.Millisecond {
			t.Errorf("%s: end found %v before the true end (decided %v after it): the take would cut speech", c.Name, -endErr, decide)
		}
	}
}
