package media

import (
	"math"
	"testing"
	"time"
)

// sine returns a mono sine of freq Hz at amplitude amp (of full scale).
func sine(rate int, freq, amp float64, d time.Duration) PCM {
	n := int(int64(rate) * int64(d) / int64(time.Second))
	p := PCM{Rate: rate, Channels: 1, Samples: make([]int16, n)}
	for i := range n {
		p.Samples[i] = clamp16(amp * 32767 * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return p
}

// rms returns the root mean square of samples, ignoring edge margins of skip samples.
func rms(s []int16, skip int) float64 {
	if len(s) <= 2*skip {
		return 0
	}
	s = s[skip : len(s)-skip]
	sum := 0.0
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(len(s)))
}

// zeroCrossings counts sign changes from negative to non-negative.
func zeroCrossings(s []int16) int {
	n := 0
	for i := 1; i < len(s); i++ {
		if s[i-1] < 0 && s[i] >= 0 {
			n++
		}
	}
	return n
}

func TestResample_SineKeepsFrequencyAndLevel(t *testing.T) {
	tests := []struct{ from, to int }{{44100, 16000}, {48000, 16000}, {16000, 48000}, {8000, 16000}, {22050, 16000}}
	for _, tt := range tests {
		in := sine(tt.from, 1000, 0.5, time.Second)
		out := Resample(in, tt.to)
		if out.Rate != tt.to || out.Channels != 1 {
			t.Fatalf("%d→%d: got %d Hz %d ch", tt.from, tt.to, out.Rate, out.Channels)
		}
		if d := out.Duration() - in.Duration(); d < -time.Millisecond || d > time.Millisecond {
			t.Errorf("%d→%d: duration %v, want %v", tt.from, tt.to, out.Duration(), in.Duration())
		}
		if zc := zeroCrossings(out.Samples); zc < 999 || zc > 1001 {
			t.Errorf("%d→%d: %d zero crossings in 1 s, want 1000 (frequency changed)", tt.from, tt.to, zc)
		}
		inR, outR := rms(in.Samples, tt.from/20), rms(out.Samples, tt.to/20)
		if db := 20 * math.Log10(outR/inR); math.Abs(db) > 1 {
			t.Errorf("%d→%d: level changed by %.2f dB", tt.from, tt.to, db)
		}
	}
}

func TestResample_RemovesWhatTheNewRateCannotCarry(t *testing.T) {
	// 12 kHz is above the 8 kHz Nyquist limit of 16 kHz audio: it must not alias to 4 kHz.
	in := sine(48000, 12000, 0.5, time.Second)
	out := Resample(in, 16000)
	inR, outR := rms(in.Samples, 2400), rms(out.Samples, 800)
	if db := 20 * math.Log10(outR/inR+1e-12); db > -40 {
		t.Fatalf("12 kHz tone after 48k→16k is only %.1f dB down, want < -40 dB", db)
	}
}

func TestResample_KeepsChannels(t *testing.T) {
	l := sine(44100, 500, 0.5, 200*time.Millisecond)
	st := PCM{Rate: 44100, Channels: 2, Samples: make([]int16, 2*len(l.Samples))}
	for i, v := range l.Samples {
		st.Samples[2*i], st.Samples[2*i+1] = v, -v
	}
	out := Resample(st, 16000)
	if out.Channels != 2 || out.Frames() != 3200 {
		t.Fatalf("got %d ch %d frames, want 2 ch 3200 frames", out.Channels, out.Frames())
	}
	for i := 0; i < out.Frames(); i++ {
		if d := int(out.Samples[2*i]) + int(out.Samples[2*i+1]); d < -1 || d > 1 {
			t.Fatalf("frame %d: channels %d and %d are no longer opposite", i, out.Samples[2*i], out.Samples[2*i+1])
		}
	}
}

func TestMonoAndTo16kMono(t *testing.T) {
	p := PCM{Rate: 16000, Channels: 2, Samples: []int16{100, 300, -5, -6, 32767, 32767}}
	m := Mono(p)
	if m.Channels != 1 || !equalSamples(m.Samples, []int16{200, -6, 32767}) {
		t.Fatalf("Mono = %v", m.Samples)
	}
	if got := To16kMono(testTone(44100, 2, time.Second)); got.Rate != 16000 || got.Channels != 1 || got.Frames() != 16000 {
		t.Fatalf("To16kMono: %d Hz %d ch %d frames", got.Rate, got.Channels, got.Frames())
	}
	if (PCM{}).Duration() != 0 || (PCM{Rate: 8000}).Frames() != 0 {
		t.Fatal("zero PCM has a length")
	}
}
