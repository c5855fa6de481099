package voice_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/vad/vadtest"
	"parley/media"
	"parley/voice"
)

// noise makes d of a steady noise of kind ("white", "pink", "brown", or "hum": a fan's motor
// and its air) at level dBFS RMS.
func noise(kind string, d time.Duration, level float64) []float64 {
	rng := rand.New(rand.NewPCG(7, uint64(len(kind))))
	n := int(d.Seconds() * audio.SampleRate)
	out := make([]float64, n)
	var b [7]float64
	var brown float64
	for i := range out {
		w := rng.NormFloat64()
		switch kind {
		case "white":
			out[i] = w
		case "pink": // Paul Kellet's filter
			b[0] = 0.99886*b[0] + w*0.0555179
			b[1] = 0.99332*b[1] + w*0.0750759
			b[2] = 0.96900*b[2] + w*0.1538520
			b[3] = 0.86650*b[3] + w*0.3104856
			b[4] = 0.55000*b[4] + w*0.5329522
			b[5] = -0.7616*b[5] - w*0.0168980
			out[i] = b[0] + b[1] + b[2] + b[3] + b[4] + b[5] + b[6] + w*0.5362
			b[6] = w * 0.115926
		case "brown":
			brown = 0.995*brown + w*0.1
			out[i] = brown
		case "hum":
			t := float64(i) / audio.SampleRate
			for h := 1; h <= 6; h++ {
				out[i] += math.Sin(2*math.Pi*100*float64(h)*t+float64(h)) / float64(h)
			}
			out[i] += 0.3 * w
		}
	}
	scale := math.Pow(10, level/20) * 32768 / rmsOf(out)
	for i := range out {
		out[i] *= scale
	}
	return out
}

func rmsOf(s []float64) float64 {
	var sum float64
	for _, v := range s {
		sum += v * v
	}
	return math.Sqrt(sum / float64(max(len(s), 1)))
}

// pcmOf rounds samples to 16 bits.
func pcmOf(s []float64) media.PCM {
	p := media.PCM{Rate: audio.SampleRate, Channels: 1, Samples: make([]int16, len(s))}
	for i, v := range s {
		p.Samples[i] = clamp16(v)
	}
	return p
}

var noiseKinds = []string{"white", "pink", "brown", "hum"}

// A steady noise that starts while the loop listens is never uploaded, whatever its colour and
// level: the loop goes on listening until its timeout.
func TestLoop_SteadyNoiseIsNotSent(t *testing.T) {
	speech(t)
	for _, kind := range noiseKinds {
		for _, level := range []float64{-50, -40, -30, -20} {
			t.Run(fmt.Sprintf("%s at %v dBFS", kind, level), func(t *testing.T) {
				w := newWorld(t, func(c *voice.Config) { c.ListenTimeout = 15 * time.Second })
				started := false
				w.onStatus = func(s voice.Status) {
					if s.State == voice.Listening && !started {
						started = true
						go func() {
							<-w.clock.After(time.Second) // the room is quiet, then the fan starts
							w.mic.say(pcmOf(noise(kind, 20*time.Second, level)), 1)
						}()
					}
				}
				err := w.wait(w.run())
				if !errors.Is(err, voice.ErrNoSpeech) {
					t.Errorf("Run = %v, want ErrNoSpeech; states %s", err, w.states())
				}
				if n, c, _ := w.svc.count(); n != 0 || c != 0 {
					t.Errorf("%d transcriptions and %d chats for %s noise", n, c, kind)
				}
			})
		}
	}
}

// A question asked over such a noise, at 10 and 20 dB over it, is still heard and sent whole.
func TestLoop_SpeechOverSteadyNoiseIsSent(t *testing.T) {
	speech(t)
	q := corpus.question
	from, to := vadtest.Boundaries(q)
	speechRMS := 0.0
	for _, v := range q.Samples[int(from.Seconds()*audio.SampleRate):int(to.Seconds()*audio.SampleRate)] {
		speechRMS += float64(v) * float64(v)
	}
	speechRMS = math.Sqrt(speechRMS / float64(int((to-from).Seconds()*audio.SampleRate)))
	speechDB := 20 * math.Log10(speechRMS/32768)
	for _, kind := range noiseKinds {
		for _, snr := range []float64{20, 10} {
			t.Run(fmt.Sprintf("%s at %v dB SNR", kind, snr), func(t *testing.T) {
				w := newWorld(t, func(c *voice.Config) {
					c.Turns = 1
					c.Encoding = audio.EncodingWAV
				})
				// The fan starts a second after the loop listens; the question comes 3 s later.
				mix := noise(kind, 10*time.Second, speechDB-snr)
				at := 3 * audio.SampleRate
				for i, v := range q.Samples {
					mix[at+i] += float64(v)
				}
				started := false
				w.onStatus = func(s voice.Status) {
					if s.State == voice.Listening && !started {
						started = true
						go func() {
							<-w.clock.After(time.Second)
							w.mic.say(pcmOf(mix), 1)
						}()
					}
				}
				if err := w.wait(w.run()); err != nil {
					t.Fatalf("Run = %v; states %s", err, w.states())
				}
				w.svc.mu.Lock()
				defer w.svc.mu.Unlock()
				if len(w.svc.uploads) != 1 || len(w.svc.questions) != 1 {
					t.Fatalf("%d uploads and %d chats, want one question", len(w.svc.uploads), len(w.svc.questions))
				}
				take, err := media.Decode(w.svc.uploads[0])
				if err != nil {
					t.Fatal(err)
				}
				if take.Duration() < to-from {
					t.Errorf("the take sent lasts %v; the question's speech %v", take.Duration(), to-from)
				}
			})
		}
	}
}
