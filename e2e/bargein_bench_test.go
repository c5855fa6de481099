package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// BenchmarkVoice_Acknowledgements says 20 acknowledgements ("okay", "uh-huh", "yeah", "right",
// "sure", "got it", each under 0.6 s) over 10 replies of `parley voice --barge-in` in the
// simulated room, as loud as a question that interrupts, and reports how many let the reply go
// on (went_on, of 20 each round): those that paused it, and those it did not hear. Run:
//
//	go test -run '^$' -bench Voice_Acknowledgements -benchtime 1x -timeout 20m ./e2e/
func BenchmarkVoice_Acknowledgements(b *testing.B) {
	said, wentOn := 0, 0
	for b.Loop() {
		r := sayAcknowledgements(b, 10, 2)
		said += r.said
		wentOn += r.wentOn
		if r.questions != 10 {
			b.Logf("%d questions heard, not 10:\n%s", r.questions, r.log)
		}
	}
	b.ReportMetric(float64(wentOn)*20/float64(max(said, 1)), "went_on/20")
	b.ReportMetric(float64(said), "said")
}

// BenchmarkVoice_PhantomTurns counts the turns `parley voice --barge-in` takes that nobody asked:
// 50 replies in the simulated room, 10 in each of five rooms whose echo reaches the microphone
// from 6 dB under to 6 dB over the person's voice (the room's gain −18 to −6 dB, the person's
// questions played at the echo's level measured in the first reply, less the step). Nobody talks
// over a reply: it reports the pauses of a reply for what its own echo was taken for (pauses),
// and the questions heard that were not asked (phantom_turns: a reply's echo, or a question
// heard so badly that under half its words are in what was heard; each is logged). Run:
//
//	go test -run '^$' -bench Voice_PhantomTurns -benchtime 1x -timeout 40m ./e2e/
func BenchmarkVoice_PhantomTurns(b *testing.B) {
	var all phantoms
	for b.Loop() {
		for i, over := range []float64{-6, -3, 0, 3, 6} {
			p := phantomTurns(b, -12+over, over)
			b.Logf("room %d, the echo %+.0f dB against the person: %d pauses and %d phantom turns over %d replies", i+1, over, p.pauses, p.turns, p.replies)
			all.pauses += p.pauses
			all.turns += p.turns
			all.replies += p.replies
		}
	}
	b.ReportMetric(float64(all.pauses), "pauses")
	b.ReportMetric(float64(all.turns), "phantom_turns")
	b.ReportMetric(float64(all.replies), "replies")
}

// phantoms is what phantomTurns counted.
type phantoms struct{ pauses, turns, replies int }

// phantomTurns runs 10 turns of parley voice --barge-in in a room of the given gain, the
// questions after the first played over (the echo's level over the first reply) less echoOver,
// in the quiet after each reply, and counts the replies, the barge-ins (nobody talked over a
// reply) and the questions heard that were not asked.
func phantomTurns(b *testing.B, gain, echoOver float64) phantoms {
	const turns = 10
	v, _ := startInRoom(b, gain, func(trace string) []string {
		return []string{"voice", "--turns", fmt.Sprint(turns), "--barge-in", "--listen-timeout", "60s", "--trace", trace}
	})
	question := say(b, v.dir, "question", theQuestion)
	for turn := range turns {
		if !v.ask(b, turn == 0, question) {
			break
		}
		if turn == 0 {
			v.await(b, "[speaking")
			echo, _ := v.micLevel(b, 2*time.Second)
			b.Logf("the echo reaches the microphone at %.1f dBFS; the person speaks at %.1f dBFS", echo, echo-echoOver)
			question = atLevel(b, question, echo-echoOver)
		}
	}
	v.wait(b)
	var p phantoms
	played := map[int]bool{}
	for _, e := range traceEvents(b, v.trace) {
		switch e.Event {
		case "barge_in":
			p.pauses++
		case "playback_start":
			played[e.Turn] = true
		}
	}
	for _, q := range v.questions() {
		if wordOverlap(q, theQuestion) < 0.5 {
			b.Logf("a question not asked: %q", q)
			p.turns++
		}
	}
	p.replies = len(played)
	return p
}

// BenchmarkVoice_BargeInAtTheEchosLevel asks a question over each of 20 replies of `parley voice
// --barge-in` in the simulated room, 3 s into the reply (5 s into the first), with the person's
// words (the RMS of their loud frames) at the level the echo reaches the microphone (echo+0dB)
// and 6 dB under it (echo+6dB). It reports the tries whose reply stopped for the question
// (stopped, of 20), those among them that paused it within 0.4 s of the question's start
// (within_400ms, of 20), the median time from the start to the pause (pause_ms), and the word
// error rate of the questions heard over a reply against the same questions' recordings heard in
// the quiet after the last reply (wer_over, wer_quiet, in %). The question's start is where its
// speech starts in the recording: the quiet takes give, for each recording, the time from its
// playing to the speech's start in the trace. A try the reply talked through is asked again in
// the quiet after it. PARLEY_BARGE_TRIES=N asks N times instead of 20. Run:
//
//	go test -run '^$' -bench Voice_BargeInAtTheEchosLevel -benchtime 1x -timeout 40m ./e2e/
func BenchmarkVoice_BargeInAtTheEchosLevel(b *testing.B) {
	for _, over := range []float64{0, 6} {
		b.Run(fmt.Sprintf("echo%+.0fdB", over), func(b *testing.B) {
			var r bargeRun
			tries := 20
			if n, err := strconv.Atoi(os.Getenv("PARLEY_BARGE_TRIES")); err == nil && n > 0 {
				tries = n
			}
			for b.Loop() {
				r = bargeOverReplies(b, tries, over)
			}
			b.ReportMetric(float64(len(r.pauses))*20/float64(tries), "stopped/20")
			if len(r.pauses) > 0 {
				slices.Sort(r.pauses)
				b.ReportMetric(r.pauses[len(r.pauses)/2], "pause_ms")
				within := 0
				for _, p := range r.pauses {
					if p <= 400 {
						within++
					}
				}
				b.ReportMetric(float64(within)*20/float64(tries), "within_400ms/20")
			}
			b.ReportMetric(100*r.werOver, "wer_over_%")
			b.ReportMetric(100*r.werQuiet, "wer_quiet_%")
		})
	}
}

// bargeRun is what asking over replies did.
type bargeRun struct {
	pauses            []float64 // for each reply stopped, ms from the question's start to its pause
	werOver, werQuiet float64   // word error rates of the questions heard over a reply, and of the same in the quiet
}

// bargeOverReplies asks spokenQuestions in turn, tries times over a reply (the person echoOver
// dB under the echo's level, measured over the first reply), and then each once in the quiet.
func bargeOverReplies(b *testing.B, tries int, echoOver float64) bargeRun {
	turns := 1 + tries + len(spokenQuestions)
	v := startRoomVoiceAs(b, "a patient guide who explains every step slowly", turns, -12)
	var takes []string
	for i, q := range spokenQuestions {
		takes = append(takes, say(b, v.dir, fmt.Sprint("q", i), q))
	}
	if !v.ask(b, true, takes[0]) {
		b.Fatalf("parley voice ended before the first question:\n%s", v.seen.String())
	}
	v.await(b, "[speaking")
	echo, _ := v.micLevel(b, 2*time.Second)
	b.Logf("the echo reaches the microphone at %.1f dBFS: the person speaks at %.1f dBFS", echo, echo-echoOver)
	for i := range takes {
		takes[i] = atLevel(b, takes[i], echo-echoOver)
	}
	asked := []int{0}         // the question of each turn, from the first
	played := []time.Time{{}} // when each turn's question was played (the first's is not kept)
	for i := range tries {
		time.Sleep(3 * time.Second) // into the reply
		q := (i + 1) % len(takes)
		played = append(played, time.Now())
		playInto(b, v.p, takes[q])
		// Stopped: parley voice listens, and hears the question at once (its first words were
		// heard over the reply). Not: the reply ends, parley voice listens and hears nothing,
		// and the question is asked again in the quiet. Either way its answer is spoken next.
		v.await(b, "[listening")
		if p, _ := v.awaitWithin(1500*time.Millisecond, "[hearing speech"); p == "" {
			time.Sleep(500 * time.Millisecond)
			played[len(played)-1] = time.Now()
			playInto(b, v.p, takes[q])
		}
		v.await(b, "[speaking")
		asked = append(asked, q)
	}
	for q := range takes {
		v.await(b, "[listening") // the reply before, talked through
		time.Sleep(500 * time.Millisecond)
		played = append(played, time.Now())
		playInto(b, v.p, takes[q])
		asked = append(asked, q)
	}
	v.wait(b)
	return bargeResult(b, v, asked, played)
}

// bargeResult reads what a bargeOverReplies run heard: a turn's question was said over a reply
// when the turn before ends in a barge-in that was not resumed. The last len(spokenQuestions)
// turns are the quiet's. played is when each turn's question began to play into the
// microphone: in the quiet, the time from it to the speech's start in the trace (on parley
// voice's clock) is the same for every playing of that recording, and gives where its speech
// started when it was asked over a reply, which the recorder cannot tell under the echo.
func bargeResult(b *testing.B, v *roomVoice, asked []int, played []time.Time) bargeRun {
	heard := v.questions()
	if len(heard) != len(asked) {
		b.Fatalf("%d questions heard, %d asked:\n%s\nstdout:\n%s", len(heard), len(asked), v.seen.String(), v.stdout.String())
	}
	bargeAt, speechAt := map[int]float64{}, map[int]float64{}
	stopped := map[int]bool{}
	for _, e := range traceEvents(b, v.trace) {
		switch e.Event {
		case "barge_in":
			bargeAt[e.Turn], stopped[e.Turn] = e.TimeMS, true
		case "barge_in_resumed":
			stopped[e.Turn] = false
		case "speech_start":
			speechAt[e.Turn] = e.TimeMS
		}
	}
	errs := func(i int) (int, int) {
		ref := spokenQuestions[asked[i]]
		return testenv.WordErrors(ref, normalWords(heard[i])), len(strings.Fields(ref))
	}
	quietErrs := map[int]int{}       // by question, in the quiet after the last reply
	speechAfter := map[int]float64{} // by question: its speech's start on the trace's clock, less when it began to play
	for i := len(heard) - len(spokenQuestions); i < len(heard); i++ {
		quietErrs[asked[i]], _ = errs(i)
		speechAfter[asked[i]] = speechAt[i+1] - float64(played[i].UnixMicro())/1000
		b.Logf("turn %d, in the quiet: heard %q", i+1, heard[i])
	}
	var r bargeRun
	var over, quiet, words int
	for i := 1; i < len(heard)-len(spokenQuestions); i++ {
		turn := i + 1
		if !stopped[turn-1] {
			b.Logf("turn %d: the reply before was talked through; heard in the quiet after it: %q", turn, heard[i])
			continue
		}
		e, n := errs(i)
		pause := bargeAt[turn-1] - (float64(played[i].UnixMicro())/1000 + speechAfter[asked[i]])
		b.Logf("turn %d: the reply before paused %.0f ms after the question's start; heard %q (%d errors, %d in the quiet)", turn, pause, heard[i], e, quietErrs[asked[i]])
		r.pauses = append(r.pauses, pause)
		over += e
		quiet += quietErrs[asked[i]]
		words += n
	}
	r.werOver = float64(over) / float64(max(words, 1))
	r.werQuiet = float64(quiet) / float64(max(words, 1))
	if words == 0 { // nothing heard over a reply: the quiet's own rate
		for i := len(heard) - len(spokenQuestions); i < len(heard); i++ {
			e, n := errs(i)
			quiet += e
			words += n
		}
		r.werQuiet = float64(quiet) / float64(max(words, 1))
	}
	return r
}
