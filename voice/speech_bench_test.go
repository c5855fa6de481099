package voice_test

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"parley/client"
	"parley/internal/testenv"
	"parley/server"
	tts "parley/server/speech"
	"parley/server/store"
	"parley/voice"
)

// referenceSpeech starts the reference service in-process with espeak-ng and lame, as `parley
// serve` runs them, and returns a client of a funded account.
func referenceSpeech(b *testing.B) *client.Client {
	b.Helper()
	testenv.RequireCommands(b, "espeak-ng", "lame")
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(b.TempDir(), "parley.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Config{Store: st, TTS: tts.NewEspeak(tts.EspeakOptions{})})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	b.Cleanup(hs.Close)
	key, _, err := st.CreateKey(ctx, 1_000_000)
	if err != nil {
		b.Fatal(err)
	}
	c, err := client.New(client.Options{BaseURL: hs.URL, APIKey: client.APIKey(key)})
	if err != nil {
		b.Fatal(err)
	}
	return c
}

// realSpeech answers transcription and chat at once, and speaks through the reference service.
type realSpeech struct {
	*instantService
	c *client.Client
}

func (s realSpeech) Speak(ctx context.Context, req client.SpeechRequest) (*client.Speech, error) {
	return s.c.Speak(ctx, req)
}

// BenchmarkLoop_FirstSentenceSpeech is the first sentence's speech (text to MP3 data URI, as the
// client returns it) as the loop sees it: from its trace's tts_sent to tts_done for sentence 0,
// against the reference service with espeak-ng. A reply of five sentences must not make it
// slower than a reply of one: the first sentence is requested alone. Goal: p50 ≤ 100 ms on an
// idle machine. sentence-p95-ms is every sentence's speech, what Lookahead has to cover.
// Run it with -benchtime 20x for percentiles over 20 turns.
func BenchmarkLoop_FirstSentenceSpeech(b *testing.B) {
	for _, bc := range []struct{ name, reply string }{
		{"sentences=1", "Paris is the capital of France."},
		{"sentences=5", "Paris is the capital of France. It lies on the Seine. It has many bridges. " +
			"It is known for its museums. About two million people live there."},
	} {
		b.Run(bc.name, func(b *testing.B) {
			speech(b)
			c := referenceSpeech(b)
			const hold = 300 * time.Millisecond
			trace := runBenchTurns(b, realSpeech{&instantService{reply: bc.reply}, c}, hold)
			type key struct{ turn, index int }
			sent := map[key]time.Time{}
			var first, all []time.Duration
			for _, e := range trace {
				k := key{e.Turn, e.Index}
				switch e.Kind {
				case voice.TraceTTSSent:
					sent[k] = e.At
				case voice.TraceTTSDone:
					d := e.At.Sub(sent[k])
					all = append(all, d)
					if e.Index == 0 {
						first = append(first, d)
					}
				}
			}
			if len(first) != b.N {
				b.Fatalf("%d first sentences spoken in %d turns", len(first), b.N)
			}
			b.ReportMetric(ms(percentile(first, 50)), "first-speech-p50-ms")
			b.ReportMetric(ms(percentile(first, 95)), "first-speech-p95-ms")
			b.ReportMetric(ms(percentile(all, 95)), "sentence-p95-ms")
		})
	}
}
