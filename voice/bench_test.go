package voice_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"parley/audio"
	"parley/audio/playback/playbacktest"
	"parley/client"
	"parley/voice"
)

// The benchmarks run the loop on the real clock against a service that answers at once, so
// what the trace shows between the end of speech and the first audio is the hold plus the
// loop's own work: finishing the take's encoding, the calls' encoding and decoding, splitting
// the reply, decoding the first MP3 frames.

// benchMic plays a question, then the room's silence in real time. The question's audio is
// delivered at once up to its last 600 ms, which come in real time, so that the frame that
// ends the question arrives when it would from a device, and the loop has no backlog then.
type benchMic struct {
	mu    sync.Mutex
	queue []int16
	paced int // samples at the end of queue delivered in real time
	next  time.Time
}

func (m *benchMic) say(s []int16) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.queue = append(m.queue[:0], s...)
	m.paced = min(len(s), int(600*time.Millisecond/audio.FrameDuration)*audio.FrameSamples)
}

func (m *benchMic) ReadFrame(ctx context.Context, frame []int16) error {
	m.mu.Lock()
	fast := len(m.queue) > m.paced
	m.mu.Unlock()
	if !fast {
		// Real time: one frame every 20 ms.
		now := time.Now()
		if m.next.Before(now) {
			m.next = now
		}
		select {
		case <-time.After(m.next.Sub(now)):
		case <-ctx.Done():
			return ctx.Err()
		}
		m.next = m.next.Add(audio.FrameDuration)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := copy(frame, m.queue)
	m.queue = m.queue[n:]
	m.paced = min(m.paced, len(m.queue))
	for i := n; i < len(frame); i++ {
		frame[i] = int16((i*7919)%61 - 30) // a quiet room
	}
	return nil
}

// instantService answers every call at once.
type instantService struct {
	mp3   []byte
	reply string
}

func (s *instantService) Transcribe(context.Context, client.TranscribeRequest) (*client.Transcript, error) {
	return &client.Transcript{Text: "What is the capital of France?"}, nil
}

func (s *instantService) Chat(context.Context, string) (string, error) { return s.reply, nil }

func (s *instantService) Speak(context.Context, client.SpeechRequest) (*client.Speech, error) {
	return &client.Speech{MIMEType: "audio/mpeg", Audio: s.mp3}, nil
}

func benchmarkTurns(b *testing.B, reply string) {
	speech(b)
	const hold = 300 * time.Millisecond
	trace := runBenchTurns(b, &instantService{mp3: corpus.mp3, reply: reply}, hold)
	var overhead, first []time.Duration
	for turn := 1; turn <= b.N; turn++ {
		l, ok := voice.TurnLatency(trace, turn, hold)
		if !ok {
			b.Fatalf("turn %d has no complete trace", turn)
		}
		overhead = append(overhead, l.Overhead)
		first = append(first, l.FirstAudio)
	}
	b.ReportMetric(ms(percentile(overhead, 50)), "overhead-p50-ms")
	b.ReportMetric(ms(percentile(overhead, 95)), "overhead-p95-ms")
	b.ReportMetric(ms(percentile(first, 50)), "first-audio-p50-ms")
	b.ReportMetric(ms(percentile(first, 95)), "first-audio-p95-ms")
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, (len(s)*p+99)/100-1)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkLoop_Overhead is the loop's own time per turn: first audio − end of speech −
// silence hold − service time, with a service that answers at once. Goal: p95 ≤ 60 ms.
// Run it with -benchtime 30x for percentiles over 30 turns.
func BenchmarkLoop_Overhead(b *testing.B) {
	benchmarkTurns(b, "Paris is the capital of France.")
}

// BenchmarkLoop_FirstAudio compares the time to first audio of a one-sentence and a
// five-sentence reply: the first sentence is spoken as soon as it is ready, whatever follows.
// Goal: the five-sentence reply within 20 ms of the one-sentence one.
func BenchmarkLoop_FirstAudio(b *testing.B) {
	b.Run("sentences=1", func(b *testing.B) { benchmarkTurns(b, "Paris is the capital of France.") })
	b.Run("sentences=5", func(b *testing.B) {
		benchmarkTurns(b, "Paris is the capital of France. It lies on the Seine. It has many bridges. "+
			"It is known for its museums. About two million people live there.")
	})
}

// benchService is what the loop's benchmarks answer with.
type benchService interface {
	voice.Transcriber
	voice.Chatter
	voice.Synthesizer
}

// runBenchTurns runs b.N turns of the loop with hold, the corpus question said each time it
// listens, answered by svc, timed from here to the end of the last, and returns its trace.
func runBenchTurns(b *testing.B, svc benchService, hold time.Duration) []voice.TraceEvent {
	mic := &benchMic{}
	// The player starts a clip once its first PCM is decoded, as the real one does, and ends it
	// soon after (the rest of the reply does not matter to these figures).
	sink := &playbacktest.Player{Emit: true, Decode: true}
	var mu sync.Mutex
	var trace []voice.TraceEvent
	loop := voice.New(voice.Config{
		Source: mic, Transcriber: svc, Chat: svc, Synth: svc, Player: sink,
		Hold: hold, Turns: b.N,
		OnStatus: func(s voice.Status) {
			if s.State == voice.Listening {
				mic.say(corpus.question.Samples)
			}
		},
		OnTrace: func(e voice.TraceEvent) {
			mu.Lock()
			trace = append(trace, e)
			mu.Unlock()
		},
	})
	sink.Open(loop.PlaybackEvent)
	b.ResetTimer()
	if err := loop.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	return trace
}
