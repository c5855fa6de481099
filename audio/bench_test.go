package audio

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"parley/audio/vad/vadtest"
	"parley/media"
)

// benchSpeech returns about 12 s of espeak-ng speech after 1 s of silence and followed by 2 s
// of it, clean or with white noise at snr dB (0 means clean).
func benchSpeech(b *testing.B, snr float64) (media.PCM, time.Duration) {
	b.Helper()
	vadtest.Require(b)
	dir := b.TempDir()
	s := vadtest.Say(b, dir, "long", "The weather in Paris today is mild, with a light breeze from the west "+
		"and a few clouds in the afternoon. Tomorrow will be warmer, so remember to take "+
		"a hat and some water if you walk along the river.")
	clean := vadtest.Compose(b, dir, "long-padded", time.Second, []string{s}, nil, 2*time.Second)
	p := vadtest.Read(b, clean)
	start, end := vadtest.Boundaries(p)
	if snr == 0 {
		return p, end - start
	}
	return vadtest.Read(b, vadtest.AddNoise(b, dir, "long-noisy", clean, snr)), end - start
}

// requestBody builds the transcribe request body the client sends: the take as a base64 data
// URI in JSON.
func requestBody(t *Take) []byte {
	head := `{"audio":"data:` + t.MIME + `;base64,`
	body := make([]byte, len(head)+base64.StdEncoding.EncodedLen(len(t.Audio))+2)
	n := copy(body, head)
	base64.StdEncoding.Encode(body[n:], t.Audio)
	copy(body[len(body)-2:], `"}`)
	return body
}

// BenchmarkEndOfSpeechToBody measures the time from the voice detector's end-of-speech
// decision to a complete transcribe request body: closing the encoder (the audio was encoded
// while it was recorded) and base64/JSON. It also reports the body's size per second of speech.
func BenchmarkEndOfSpeechToBody(b *testing.B) {
	clean, speech := benchSpeech(b, 0)
	noisy, _ := benchSpeech(b, 30)
	for _, tc := range []struct {
		name string
		p    media.PCM
		enc  Encoding
	}{{"webm/clean", clean, EncodingWebMOpus}, {"webm/snr30", noisy, EncodingWebMOpus}, {"wav/clean", clean, EncodingWAV}} {
		p, enc := tc.p, tc.enc
		b.Run(tc.name, func(b *testing.B) {
			var body []byte
			var take *Take
			for b.Loop() {
				b.StopTimer()
				w, err := newTakeWriter(TakeOptions{VAD: true, Encoding: enc})
				if err != nil {
					b.Fatal(err)
				}
				var r StopReason
				for s := p.Samples; len(s) >= frameSamples; s = s[frameSamples:] {
					var stop bool
					if r, stop = w.frame(s[:frameSamples]); stop {
						break
					}
				}
				if r != StopEndOfSpeech {
					b.Fatalf("stopped by %v", r)
				}
				b.StartTimer()
				take, err = w.finish(r, nil)
				if err != nil {
					b.Fatal(err)
				}
				body = requestBody(take)
			}
			b.ReportMetric(float64(len(body))/speech.Seconds(), "body-B/s-speech")
			b.ReportMetric(float64(len(body))/take.Duration.Seconds(), "body-B/s-take")
			b.ReportMetric(float64(len(take.Audio))/take.Duration.Seconds(), "audio-B/s")
		})
	}
}

// BenchmarkProcess measures the whole pipeline (detector, meter, Opus encoder) on recorded
// speech, as a multiple of real time.
func BenchmarkProcess(b *testing.B) {
	p, _ := benchSpeech(b, 30)
	levels := make(chan Level, 1)
	for b.Loop() {
		if _, err := Process(context.Background(), p, TakeOptions{Levels: levels}); err != nil {
			b.Fatal(err)
		}
	}
	perOp := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(p.Duration().Seconds()/perOp, "x-realtime")
}
