package media

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
)

// tones is rate Hz audio of secs seconds: the sum of sines at freqs (Hz) with amplitudes amps,
// with white noise of amplitude noise.
func tones(rate int, secs float64, freqs, amps []float64, noise float64) PCM {
	n := int(secs * float64(rate))
	r := rand.New(rand.NewPCG(1, 2))
	s := make([]int16, n)
	for i := range s {
		x := noise * r.NormFloat64()
		for j, f := range freqs {
			x += amps[j] * math.Sin(2*math.Pi*f*float64(i)/float64(rate))
		}
		s[i] = int16(max(-32768, min(32767, x)))
	}
	return PCM{Rate: rate, Channels: 1, Samples: s}
}

func TestNarrowband(t *testing.T) {
	voiced := []float64{220, 700, 1200, 2500, 3400}
	amps := []float64{6000, 4000, 3000, 1000, 500}
	withHiss := append(append([]float64{}, voiced...), 6000)
	hissAmps := append(append([]float64{}, amps...), 150) // 30 dB under the loudest tone
	cases := []struct {
		name   string
		p      PCM
		narrow bool
		judged bool
	}{
		{"telephone band at 16 kHz", tones(16000, 1, voiced, amps, 0), true, true},
		{"telephone band at 8 kHz", tones(8000, 1, voiced, amps, 0), true, true},
		{"telephone band resampled to 48 kHz", Resample(tones(8000, 1, voiced, amps, 0), 48000), true, true},
		{"with sound at 6 kHz", tones(16000, 1, withHiss, hissAmps, 0), false, true},
		{"white noise at 16 kHz", tones(16000, 1, nil, nil, 3000), false, true},
		{"white noise at 44.1 kHz, stereo", stereo(tones(44100, 1, nil, nil, 3000)), false, true},
		{"too short to tell", tones(16000, 0.2, voiced, amps, 0), false, false},
		{"silence", tones(16000, 2, nil, nil, 0), false, false},
		{"nothing", PCM{Rate: 16000, Channels: 1}, false, false},
	}
	for _, c := range cases {
		b, ok := MeasureBand(c.p)
		if ok != c.judged || Narrowband(c.p) != c.narrow {
			t.Errorf("%s: measured %+v (judged %v), narrowband %v; want judged %v, narrowband %v",
				c.name, b, ok, Narrowband(c.p), c.judged, c.narrow)
		}
	}
}

func stereo(p PCM) PCM {
	s := make([]int16, 2*len(p.Samples))
	for i, v := range p.Samples {
		s[2*i], s[2*i+1] = v, v/2
	}
	return PCM{Rate: p.Rate, Channels: 2, Samples: s}
}

func TestFFT(t *testing.T) {
	const n = 64
	re, im := make([]float64, n), make([]float64, n)
	for i := range re {
		re[i] = math.Cos(2 * math.Pi * 5 * float64(i) / n)
	}
	fft(re, im)
	for k := range n {
		want := 0.0
		if k == 5 || k == n-5 {
			want = n / 2
		}
		if got := math.Hypot(re[k], im[k]); math.Abs(got-want) > 1e-9 {
			t.Errorf("bin %d: %.6f, want %.1f", k, got, want)
		}
	}
}

// FuzzMeasureBand: any samples at any rate are measured without a panic, and a share of
// energy is never above all of it.
func FuzzMeasureBand(f *testing.F) {
	f.Add(16000, 1, make([]byte, 4096))
	f.Add(8000, 2, []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, rate, channels int, raw []byte) {
		s := make([]int16, len(raw)/2)
		for i := range s {
			s[i] = int16(binary.LittleEndian.Uint16(raw[2*i:]))
		}
		p := PCM{Rate: rate%200000 + 1, Channels: channels%8 + 1, Samples: s}
		if b, ok := MeasureBand(p); ok && (b.HighDB > 1e-9 || math.IsNaN(b.HighDB)) {
			t.Errorf("measured %+v", b)
		}
	})
}
