package voice_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"parley/voice"
)

// BenchmarkSpeculation_TranscriptInHand is the time from the end of speech to the transcript in
// hand (speech_end to transcribe_done), on the fake clock, with the 0.9 s hold and a transcriber
// that takes stt, without and with speculative transcription. Without, it is the hold plus stt;
// with, the transcription runs from 250 ms into the hold, so it costs only what passes the
// hold's end. Run with -benchtime 5x (5 turns each).
func BenchmarkSpeculation_TranscriptInHand(b *testing.B) {
	speech(b)
	const hold = 900 * time.Millisecond
	for _, stt := range []time.Duration{250 * time.Millisecond, 650 * time.Millisecond, 1500 * time.Millisecond} {
		for _, spec := range []bool{false, true} {
			b.Run(fmt.Sprintf("stt=%v/speculate=%v", stt, spec), func(b *testing.B) {
				clock := newFakeClock()
				sink := &fakeSink{clock: clock}
				mic := newFakeMic(clock, sink)
				svc := &fakeService{clock: clock, transcribeDelay: stt, chatDelay: 10 * time.Millisecond,
					ttsDelay: 10 * time.Millisecond, mp3: corpus.mp3,
					transcripts: []string{"What is the capital of France?"}, replies: []string{"Paris."}}
				var mu sync.Mutex
				var trace []voice.TraceEvent
				loop := voice.New(voice.Config{
					Source: mic, Transcriber: svc, Chat: svc, Synth: svc, Player: sink, Clock: clock,
					Hold: hold, Speculate: spec, Turns: b.N,
					OnStatus: func(s voice.Status) {
						if s.State == voice.Listening {
							go func() {
								<-clock.After(time.Second)
								mic.say(corpus.question, 1)
							}()
						}
					},
					OnTrace: func(e voice.TraceEvent) {
						mu.Lock()
						trace = append(trace, e)
						mu.Unlock()
					},
				})
				sink.loop, mic.loop = loop, loop
				if err := loop.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				var inHand []time.Duration
				used := 0
				for turn := 1; turn <= b.N; turn++ {
					var end, done time.Time
					for _, e := range trace {
						switch {
						case e.Turn != turn:
						case e.Kind == voice.TraceSpeechEnd:
							end = e.At
						case e.Kind == voice.TraceTranscribeDone:
							done = e.At
							if e.Speculative {
								used++
							}
						}
					}
					inHand = append(inHand, done.Sub(end))
				}
				b.ReportMetric(ms(percentile(inHand, 50)), "end-to-transcript-p50-ms")
				b.ReportMetric(ms(percentile(inHand, 50)-hold), "after-hold-p50-ms")
				b.ReportMetric(float64(used)/float64(b.N), "speculative-share")
			})
		}
	}
}
