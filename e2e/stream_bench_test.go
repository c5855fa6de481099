package e2e

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// BenchmarkVoice_StreamedReplyFirstAudio measures, for `parley voice` against `parley serve` in
// front of a model that writes 150 tokens, the time from the end of the person's speech to the
// first sound of the reply (the loop's trace), over 5 questions spoken by flite into the
// PulseAudio null sink, each in a run of its own that is stopped once the reply is heard.
// "laptop" writes 20 tokens a second after 300 ms (the whole reply takes 7.8 s); "at-once"
// answers at once, the floor. It reports the median and the slowest (median_ms, max_ms). Run:
// go test -run '^$' -bench Voice_StreamedReplyFirstAudio -benchtime 1x ./e2e/
func BenchmarkVoice_StreamedReplyFirstAudio(b *testing.B) {
	b.Run("laptop", func(b *testing.B) { benchStreamedFirstAudio(b, 300*time.Millisecond, 20) })
	b.Run("at-once", func(b *testing.B) { benchStreamedFirstAudio(b, 0, 1e6) })
}

func benchStreamedFirstAudio(b *testing.B, first time.Duration, tps float64) {
	testenv.RequireCommands(b, "flite", "sox", "paplay", "pocketsphinx_continuous", "lame")
	var all []time.Duration
	for range b.N {
		si := startStandIn(b, standInSettings{Addr: "127.0.0.1:0", LongOn: "*", LongTokens: 150, FirstToken: first, TokensPerSecond: tps})
		s := startService(b, "--llm-url", si.url, "--llm-model", standInModel)
		key := s.newKey(b, 100)
		p := testenv.StartPulse(b)
		for _, q := range spokenQuestions {
			d := firstAudioOfOneTurn(b, s, p, key, q)
			b.Logf("%q: first audio %v after the end of speech", q, d.Round(time.Millisecond))
			all = append(all, d)
		}
	}
	slices.Sort(all)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(all[len(all)/2]), "median_ms")
	b.ReportMetric(ms(all[len(all)-1]), "max_ms")
	b.ReportMetric(float64(len(all)), "turns")
}

// firstAudioOfOneTurn runs `parley voice` for one question, spoken into the room once it listens,
// and stops it once the first sentence of the reply plays: it returns the time from the end of
// speech to that sound, from the trace.
func firstAudioOfOneTurn(b *testing.B, s *service, p *testenv.Pulse, key, question string) time.Duration {
	b.Helper()
	dir := b.TempDir()
	wav := say(b, dir, "question", question)
	quietRoom(b, p, dir)
	tracePath := filepath.Join(dir, "trace.jsonl")
	cmd := exec.Command(bin, "voice", "--turns", "1", "--device", p.Monitor, "--listen-timeout", "60s", "--trace", tracePath)
	cmd.Env = s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	defer testenv.EndProcess(cmd, os.Interrupt, exited, 10*time.Second)
	listening := make(chan struct{}, 1)
	var lines testenv.SyncBuffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(&lines, sc.Text())
			if strings.HasPrefix(sc.Text(), "[listening") {
				select {
				case listening <- struct{}{}:
				default:
				}
			}
		}
	}()
	select {
	case <-listening:
	case <-time.After(60 * time.Second):
		b.Fatalf("parley voice never listened:\n%s", lines.String())
	}
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(b, p, wav)
	var d time.Duration
	testenv.Poll(b, 60*time.Second, 100*time.Millisecond, func() error {
		if _, err := os.Stat(tracePath); err != nil {
			return err
		}
		tr := readTrace(b, tracePath)
		var ok bool
		if d, ok = firstAudio(tr)[1]; !ok {
			return fmt.Errorf("no first audio yet:\n%s", lines.String())
		}
		b.Logf("phases: %s", streamPhases(tr))
		return nil
	})
	return d
}

// streamPhases says where the time to a streamed reply's first sound went: the transcript, the
// first sentence's speech asked and answered, and its playback's start, from the end of speech.
func streamPhases(trace []traceLine) string {
	at := map[string]float64{}
	for _, e := range trace {
		if e.Turn != 1 || e.Sentence != nil && *e.Sentence != 0 {
			continue
		}
		if _, ok := at[e.Event]; !ok {
			at[e.Event] = e.TimeMS
		}
	}
	end := at["speech_end"]
	return fmt.Sprintf("transcript %.0f ms, chat sent %.0f, speech asked %.0f, speech done %.0f, playback %.0f, chat done %.0f",
		at["transcribe_done"]-end, at["chat_sent"]-end, at["tts_sent"]-end, at["tts_done"]-end, at["playback_start"]-end, at["chat_done"]-end)
}
