package e2e

import (
	"slices"
	"testing"
	"time"

	"parley/internal/testenv"
)

// BenchmarkVoice_SpeechEndToFirstAudio measures what a voice assistant is judged by: the time
// from the end of speech to the first sound of the reply, from the trace of `parley voice`, over
// 10 turns of one conversation (spokenQuestions twice, spoken by flite) through the PulseAudio
// null sink, against `parley serve` with its offline responder and local speech engines, with
// the default silence hold. It reports the median and 95th percentile (median_ms, p95_ms) and
// the turns measured. The sink's own delay (0.05 to 1.2 s, NOTES) is not in the figure: both
// events are stamped by the loop. Run:
//
//	go test -run '^$' -bench SpeechEndToFirstAudio -benchtime 1x ./e2e/
func BenchmarkVoice_SpeechEndToFirstAudio(b *testing.B) {
	testenv.RequireCommands(b, "flite", "sox", "paplay", "pocketsphinx_continuous", "lame")
	questions := append(slices.Clone(spokenQuestions), spokenQuestions...)
	var all []time.Duration
	for b.Loop() {
		b.StopTimer()
		s := startService(b)
		key := s.newKey(b, 100)
		p := testenv.StartPulse(b)
		b.StartTimer()
		r := runVoiceTurns(b, s, p, key, questions)
		fa := firstAudio(r.trace)
		if len(fa) != len(questions) {
			b.Fatalf("speech end to first audio measured for %d turns of %d: %v\nstderr:\n%s", len(fa), len(questions), fa, r.stderr)
		}
		for turn := 1; turn <= len(questions); turn++ {
			b.Logf("turn %d: heard %q, first audio %v after the end of speech", turn, r.heard[turn-1], fa[turn].Round(time.Millisecond))
			all = append(all, fa[turn])
		}
	}
	slices.Sort(all)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(all[len(all)/2]), "median_ms")
	b.ReportMetric(ms(all[min(len(all)-1, len(all)*95/100)]), "p95_ms")
	b.ReportMetric(float64(len(all)), "turns")
}
