package vad_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"parley/audio/vad"
)

// A noise that rises a few dB over the floor (a fan starting; brown noise, whose level wanders
// from frame to frame) does not hold back speech that comes later: the detector is in speech within 200 ms of its start, not once
// the speech's loud frames outnumber the noise's.
func TestDetector_SpeechAfterANoiseRises(t *testing.T) {
	for _, level := range []float64{0.003, 0.005, 0.008, 0.01, 0.013, 0.016, 0.02, 0.03} {
		rng := rand.New(rand.NewPCG(5, 6))
		var s []int16
		var brown float64
		add := func(d time.Duration, noise, tone float64) {
			for i := range int(d.Seconds() * 16000) {
				t := float64(i) / 16000
				syllable := 0.5 + 0.5*math.Sin(2*math.Pi*4*t)
				brown = 0.995*brown + 0.1*rng.NormFloat64()
				v := 0.001*rng.NormFloat64() + noise*brown + tone*syllable*(math.Sin(2*math.Pi*200*t)+0.5*math.Sin(2*math.Pi*400*t))
				s = append(s, int16(max(min(v*32767, 32767), -32768)))
			}
		}
		add(time.Second, 0, 0)
		add(3*time.Second, level, 0)
		add(1500*time.Millisecond, level, 0.1)
		d := vad.New(vad.Config{})
		inSpeech := false
		for i := 0; i+frame <= len(s); i += frame {
			d.Feed(s[i : i+frame])
			if d.Position() == 4200*time.Millisecond {
				inSpeech = d.InSpeech()
			}
		}
		if !inSpeech {
			t.Errorf("brown noise at %v: not in speech 200 ms after speech began", level)
		}
	}
}
