package e2e

import (
	"fmt"
	"slices"
	"strings"
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
	// The fixed hold (the first goal) and the adaptive end of turn (its second), both
	// with speculative transcription, as parley voice runs by default.
	b.Run("fixed-hold", func(b *testing.B) { benchSpeechEndToFirstAudio(b, "--adaptive-hold=false") })
	b.Run("adaptive", func(b *testing.B) { benchSpeechEndToFirstAudio(b, "--adaptive-hold=true") })
	// The speech rate (libsonic) must not delay the first sound: the fixed hold at 1.5×, to set
	// beside fixed-hold.
	b.Run("fixed-hold-speed-1.5", func(b *testing.B) { benchSpeechEndToFirstAudio(b, "--adaptive-hold=false", "--speed", "1.5") })
}

// benchSpeechEndToFirstAudio is BenchmarkVoice_SpeechEndToFirstAudio with parley voice's extra
// arguments.
func benchSpeechEndToFirstAudio(b *testing.B, extra ...string) {
	questions := append(slices.Clone(spokenQuestions), spokenQuestions...)
	var all []time.Duration
	speculative := 0
	for b.Loop() {
		b.StopTimer()
		s := startService(b)
		key := s.newKey(b, 100)
		p := testenv.StartPulse(b)
		b.StartTimer()
		r := runVoiceTurns(b, s, p, key, questions, extra...)
		fa := firstAudio(r.trace)
		if len(fa) != len(questions) {
			b.Fatalf("speech end to first audio measured for %d turns of %d: %v\nstderr:\n%s", len(fa), len(questions), fa, r.stderr)
		}
		ph := turnPhases(r.trace)
		for turn := 1; turn <= len(questions); turn++ {
			b.Logf("turn %d: heard %q, first audio %v after the end of speech (%s)", turn, r.heard[turn-1], fa[turn].Round(time.Millisecond), ph[turn])
			all = append(all, fa[turn])
		}
		speculative += speculativeTurns(r.trace)
	}
	slices.Sort(all)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(all[len(all)/2]), "median_ms")
	b.ReportMetric(ms(all[min(len(all)-1, len(all)*95/100)]), "p95_ms")
	b.ReportMetric(float64(len(all)), "turns")
	b.ReportMetric(float64(speculative), "speculative_turns")
}

// turnPhases says, for each turn of a trace, where the time from the end of speech to the first
// audio went: until the transcript was in hand (the hold, and any transcription after it), the
// chat, the first sentence's speech, and the start of its playback.
func turnPhases(trace []traceLine) map[int]string {
	at := map[int]map[string]float64{}
	sent := map[int]int{}
	for _, e := range trace {
		if e.Event == "transcribe_spec_sent" {
			sent[e.Turn]++
		}
		if at[e.Turn] == nil {
			at[e.Turn] = map[string]float64{}
		}
		key := e.Event
		if e.Sentence != nil && *e.Sentence != 0 {
			continue
		}
		// The first of each event, but the last speculative call: the one the turn may use.
		if _, ok := at[e.Turn][key]; !ok || strings.HasPrefix(key, "transcribe_spec_") {
			at[e.Turn][key] = e.TimeMS
		}
	}
	out := map[int]string{}
	for turn, t := range at {
		out[turn] = fmt.Sprintf("transcript %.0f ms, chat %.0f ms, first speech %.0f ms, playback start %.0f ms",
			t["transcribe_done"]-t["speech_end"], t["chat_done"]-t["transcribe_done"],
			t["tts_done"]-t["chat_done"], t["playback_start"]-t["tts_done"])
		if sentAt, ok := t["transcribe_spec_sent"]; ok {
			out[turn] += fmt.Sprintf("; %d speculative calls, the last sent at %.0f ms", sent[turn], sentAt-t["speech_end"])
			if done, ok := t["transcribe_spec_done"]; ok && done > sentAt {
				out[turn] += fmt.Sprintf(", answered in %.0f ms", done-sentAt)
			}
		}
	}
	return out
}
