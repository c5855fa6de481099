package voice_test

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"parley/audio/vad/vadtest"
	"parley/client"
	"parley/internal/testenv"
	"parley/media"
	stt "parley/server/speech"
	"parley/voice"
)

// pausedQuestion is a spoken question with one pause inside it. Mid-phrase questions pause
// after a word that announces more ("and", "the", "to"); clause questions pause where the first
// part already reads as a whole question ("how far is the moon | in miles"), which is where an
// adaptive end of turn can cut a question that the fixed hold would not.
type pausedQuestion struct {
	kind          string
	first, second string
}

var pausedQuestions = []pausedQuestion{
	{"mid-phrase", "what is the weather like in paris and", "how warm will it be tomorrow"},
	{"mid-phrase", "tell me about the", "history of the roman empire"},
	{"mid-phrase", "i would like to", "book a table for two people"},
	{"mid-phrase", "can you tell me the", "distance from london to paris"},
	{"mid-phrase", "what is the difference between a", "lake and a pond"},
	{"mid-phrase", "how long does it take to", "boil an egg"},
	{"mid-phrase", "please remind me to call my mother because", "it is her birthday"},
	{"mid-phrase", "what time is it in tokyo and", "what time is it in new york"},
	{"clause", "what is the capital of france", "and how many people live there"},
	{"clause", "how far is the moon", "in miles"},
	{"clause", "tell me a joke", "about a cat"},
	{"clause", "what time does the store open", "on sunday"},
	{"clause", "play some music", "by the beatles"},
	{"clause", "what is the weather like today", "in berlin"},
	{"clause", "how do i make pancakes", "without eggs"},
	{"clause", "who wrote hamlet", "and when"},
}

// questionPauses are the pauses inside the questions: the fixed 0.9 s hold cuts the two longer.
var questionPauses = []time.Duration{500 * time.Millisecond, 800 * time.Millisecond, 1100 * time.Millisecond, 1400 * time.Millisecond}

// sayFlite speaks text with flite's slt voice, as 16 kHz mono without the silence around it.
func sayFlite(tb testing.TB, dir, name, text string) media.PCM {
	tb.Helper()
	raw := filepath.Join(dir, name+".flite.wav")
	out := filepath.Join(dir, name+".wav")
	for _, c := range [][]string{{"flite", "-voice", "slt", "-t", text, "-o", raw}, {"sox", raw, "-r", "16000", "-c", "1", "-b", "16", out}} {
		if b, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			tb.Fatalf("%s: %v\n%s", c[0], err, b)
		}
	}
	return audible(vadtest.Read(tb, out))
}

// simulatedRecogniser runs the real recogniser while the simulated clock stands still (the
// microphone waits for it), then answers after latency on that clock: the recogniser's words,
// at the speed of a resident one.
type simulatedRecogniser struct {
	rec     stt.Transcriber
	clock   *fakeClock
	latency time.Duration

	busy  sync.Mutex
	mu    sync.Mutex
	cache map[[32]byte]string
	calls int
}

func (s *simulatedRecogniser) Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error) {
	key := sha256.Sum256(req.Audio)
	s.busy.Lock()
	s.mu.Lock()
	text, ok := s.cache[key]
	s.mu.Unlock()
	if !ok {
		tr, err := s.rec.Transcribe(context.Background(), req.Audio, req.MIMEType)
		if err != nil {
			s.busy.Unlock()
			return nil, err
		}
		text = tr.Text
		s.mu.Lock()
		s.cache[key] = text
		s.calls++
		s.mu.Unlock()
	}
	s.busy.Unlock()
	if err := s.clock.sleep(ctx, s.latency); err != nil {
		return nil, err
	}
	return &client.Transcript{Text: text}, nil
}

// waitIdle returns once no recognition is running: the microphone calls it before each frame.
func (s *simulatedRecogniser) waitIdle() {
	s.busy.Lock()
	defer s.busy.Unlock()
}

// endOfTurnResult is what one question became in one mode.
type endOfTurnResult struct {
	cut   bool          // the question was ended in its pause
	wait  time.Duration // from the end of speech to the end of the question, when not cut
	heard string
}

// runPausedQuestion says first, the pause, and second into a loop with cfg, and reports whether
// the loop ended the question in the pause.
func runPausedQuestion(tb testing.TB, first, second media.PCM, gap time.Duration, rec voice.Transcriber, edit func(*voice.Config), wait func()) endOfTurnResult {
	tb.Helper()
	clock := newFakeClock()
	sink := &fakeSink{clock: clock}
	mic := newFakeMic(clock, sink)
	svc := &fakeService{clock: clock, mp3: corpus.mp3, transcripts: []string{"x"}, replies: []string{"Yes."}}
	var mu sync.Mutex
	var trace []voice.TraceEvent
	var heard string
	var started time.Time
	cfg := voice.Config{
		Source: mic, Transcriber: rec, Chat: svc, Synth: svc, Player: sink, Clock: clock,
		Hold: 900 * time.Millisecond, Turns: 1,
		OnStatus: func(s voice.Status) {
			if s.Turn == 1 && s.State == voice.Listening {
				go func() {
					<-clock.After(500 * time.Millisecond)
					mu.Lock()
					started = clock.Now()
					mu.Unlock()
					mic.say(first, 1)
					mic.say(pause(gap), 1)
					mic.say(second, 1)
				}()
			}
		},
		OnTrace: func(e voice.TraceEvent) {
			mu.Lock()
			trace = append(trace, e)
			mu.Unlock()
		},
		OnHeard: func(_ int, q string) { heard = q },
	}
	if edit != nil {
		edit(&cfg)
	}
	loop := voice.New(cfg)
	sink.loop, mic.loop = loop, loop
	if wait != nil {
		mic.onFrame = func(int) { wait() }
	}
	if err := loop.Run(context.Background()); err != nil {
		tb.Fatal(err)
	}
	var end, sent time.Time
	for _, e := range trace {
		switch {
		case e.Turn != 1:
		case e.Kind == voice.TraceSpeechEnd:
			end = e.At
		case e.Kind == voice.TraceTranscribeSent:
			sent = e.At
		}
	}
	// The second part starts after the first and the pause (give it a frame of slack).
	secondAt := started.Add(first.Duration() + gap)
	return endOfTurnResult{cut: end.Before(secondAt), wait: sent.Sub(end), heard: heard}
}

// BenchmarkAdaptiveHold_CutQuestions measures, on 16 questions spoken by flite with a pause
// inside each (0.5, 0.8, 1.1 and 1.4 s: 64 cases), how many the loop cuts in the middle with
// the fixed 0.9 s hold and with the adaptive end of turn, whose speculative transcripts come
// from the real pocketsphinx answering 250 ms after each call on the simulated clock (a
// resident recogniser), or 1 s (slower than the adaptive end of turn can use). It also reports
// the wait from the end of speech to the end of the question. Run it once:
// go test -run '^$' -bench AdaptiveHold_CutQuestions -benchtime 1x -v ./voice/
func BenchmarkAdaptiveHold_CutQuestions(b *testing.B) {
	testenv.RequireCommands(b, "flite", "sox", "pocketsphinx_continuous")
	speech(b)
	dir := b.TempDir()
	parts := make([]questionAudio, len(pausedQuestions))
	for i, q := range pausedQuestions {
		parts[i] = questionAudio{sayFlite(b, dir, fmt.Sprintf("q%da", i), q.first), sayFlite(b, dir, fmt.Sprintf("q%db", i), q.second)}
	}
	sphinx := stt.NewPocketSphinx(stt.PocketSphinxOptions{})
	for _, latency := range []time.Duration{250 * time.Millisecond, time.Second} {
		b.Run(fmt.Sprintf("stt=%v", latency), func(b *testing.B) {
			benchmarkCutQuestions(b, parts, sphinx, latency)
		})
	}
}

// questionAudio is a paused question's two parts, spoken.
type questionAudio struct{ first, second media.PCM }

func benchmarkCutQuestions(b *testing.B, parts []questionAudio, sphinx stt.Transcriber, latency time.Duration) {
	rec := &simulatedRecogniser{rec: sphinx, latency: latency, cache: map[[32]byte]string{}}
	instant := &instantService{}
	for b.Loop() {
		type tally struct {
			n, cut    int
			waitTotal time.Duration
			waitN     int
		}
		results := map[string]*tally{}
		add := func(key string, r endOfTurnResult) {
			t := results[key]
			if t == nil {
				t = &tally{}
				results[key] = t
			}
			t.n++
			if r.cut {
				t.cut++
			} else {
				t.waitTotal += r.wait
				t.waitN++
			}
		}
		for i, q := range pausedQuestions {
			for _, gap := range questionPauses {
				fixed := runPausedQuestion(b, parts[i].first, parts[i].second, gap, instant, nil, nil)
				adaptive := runPausedQuestion(b, parts[i].first, parts[i].second, gap, rec, func(c *voice.Config) {
					c.AdaptiveHold = true
					rec.clock = c.Clock.(*fakeClock)
				}, rec.waitIdle)
				for _, k := range []string{"all", q.kind, fmt.Sprintf("pause=%v", gap)} {
					add("fixed/"+k, fixed)
					add("adaptive/"+k, adaptive)
				}
				b.Logf("%-10s pause %v  fixed: cut %-5v  adaptive: cut %-5v wait %4dms  heard %q",
					q.kind, gap, fixed.cut, adaptive.cut, adaptive.wait.Milliseconds(), adaptive.heard)
			}
		}
		for _, mode := range []string{"fixed", "adaptive"} {
			for _, k := range []string{"all", "mid-phrase", "clause", "pause=500ms", "pause=800ms", "pause=1.1s", "pause=1.4s"} {
				t := results[mode+"/"+k]
				wait := time.Duration(0)
				if t.waitN > 0 {
					wait = t.waitTotal / time.Duration(t.waitN)
				}
				b.Logf("%-8s %-12s cut %2d of %2d (%3.0f%%), mean wait after speech %v", mode, k, t.cut, t.n, 100*float64(t.cut)/float64(t.n), wait.Round(time.Millisecond))
			}
		}
		b.ReportMetric(100*float64(results["fixed/all"].cut)/float64(results["fixed/all"].n), "fixed-cut-%")
		b.ReportMetric(100*float64(results["adaptive/all"].cut)/float64(results["adaptive/all"].n), "adaptive-cut-%")
		b.ReportMetric(ms(results["adaptive/all"].waitTotal/time.Duration(max(results["adaptive/all"].waitN, 1))), "adaptive-wait-ms")
		b.ReportMetric(ms(results["fixed/all"].waitTotal/time.Duration(max(results["fixed/all"].waitN, 1))), "fixed-wait-ms")
		b.ReportMetric(float64(rec.calls), "recogniser-runs")
	}
}
