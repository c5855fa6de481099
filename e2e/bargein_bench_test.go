package e2e

import (
	"fmt"
	"os"
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
// over a reply, so each barge-in is a phantom, and so is each question heard that is not the one
// asked. Run:
//
//	go test -run '^$' -bench Voice_PhantomTurns -benchtime 1x -timeout 40m ./e2e/
func BenchmarkVoice_PhantomTurns(b *testing.B) {
	phantoms, replies := 0, 0
	for b.Loop() {
		for i, over := range []float64{-6, -3, 0, 3, 6} {
			p, n := phantomTurns(b, -12+over, over)
			b.Logf("room %d, the echo %+.0f dB against the person: %d phantoms over %d replies", i+1, over, p, n)
			phantoms += p
			replies += n
		}
	}
	b.ReportMetric(float64(phantoms), "phantoms")
	b.ReportMetric(float64(replies), "replies")
}

// phantomTurns runs 10 turns of parley voice --barge-in in a room of the given gain, the
// questions after the first played over (the echo's level over the first reply) less echoOver,
// in the quiet after each reply, and returns the phantoms (barge-ins, and questions heard that
// were not asked) and the replies.
func phantomTurns(b *testing.B, gain, echoOver float64) (phantoms, replies int) {
	const turns = 10
	v, _ := startInRoom(b, gain, func(trace string) []string {
		return []string{"voice", "--turns", fmt.Sprint(turns), "--barge-in", "--listen-timeout", "60s", "--trace", trace}
	})
	question := say(b, v.dir, "question", theQuestion)
	for turn := range turns {
		if !v.awaitOrEnd(b, "[listening") {
			break
		}
		if turn == 0 {
			time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
		}
		playInto(b, v.p, question)
		if turn == 0 {
			v.await(b, "[speaking")
			echo, _ := v.micLevel(b, 2*time.Second)
			b.Logf("the echo reaches the microphone at %.1f dBFS; the person speaks at %.1f dBFS", echo, echo-echoOver)
			question = atLevel(b, question, echo-echoOver)
		}
	}
	v.wait(b)
	played := map[int]bool{}
	for _, e := range traceEvents(b, v.trace) {
		switch e.Event {
		case "barge_in":
			phantoms++
		case "playback_start":
			played[e.Turn] = true
		}
	}
	for _, l := range strings.Split(v.stdout.String(), "\n") {
		if q, ok := strings.CutPrefix(l, "You: "); ok && wordOverlap(q, theQuestion) < 0.5 {
			b.Logf("a phantom question: %q", q)
			phantoms++
		}
	}
	return phantoms, len(played)
}

// BenchmarkVoice_BargeInAtTheEchosLevel asks a question over each of 20 replies of `parley voice
// --barge-in` in the simulated room, 3 s into the reply, with the person's words (the RMS of
// their loud frames) at the level the echo reaches the microphone (echo0dB) and 6 dB under it
// (echo+6dB), and reports the tries whose reply stopped (paused) within 0.4 s of the speech's
// start as the loop's voice activity found it (stopped, of 20), those stopped later
// (stopped_late), and the word error rate of the questions heard over the reply against the same
// recordings heard in the quiet after a reply (wer_over, wer_quiet, in %). A try the reply
// talked through is asked again in the quiet after it, and counted there too.
// PARLEY_BARGE_TRIES=N asks N times instead of 20. Run:
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
			b.ReportMetric(float64(r.inTime)*20/float64(tries), "stopped/20")
			b.ReportMetric(float64(r.late), "stopped_late")
			b.ReportMetric(100*r.werOver, "wer_over_%")
			b.ReportMetric(100*r.werQuiet, "wer_quiet_%")
		})
	}
}

// bargeRun is what asking over replies did.
type bargeRun struct {
	inTime, late      int     // replies stopped within 0.4 s of the question's start, and later
	werOver, werQuiet float64 // word error rates of the questions heard over a reply and in quiet
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
	v.await(b, "[listening")
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(b, v.p, takes[0])
	v.await(b, "[speaking")
	echo, _ := v.micLevel(b, 2*time.Second)
	b.Logf("the echo reaches the microphone at %.1f dBFS: the person speaks at %.1f dBFS", echo, echo-echoOver)
	for i := range takes {
		takes[i] = atLevel(b, takes[i], echo-echoOver)
	}
	asked := []int{0} // the question of each turn, from the first
	for i := range tries {
		time.Sleep(3 * time.Second)
		q := (i + 1) % len(takes)
		playInto(b, v.p, takes[q])
		// Stopped: parley voice listens, and hears the question at once (its first words were
		// heard over the reply). Not: the reply ends, parley voice listens and hears nothing,
		// and the question is asked again in the quiet.
		v.await(b, "[listening")
		if p, _ := v.awaitWithin(1500*time.Millisecond, "[hearing speech"); p == "" {
			time.Sleep(500 * time.Millisecond)
			playInto(b, v.p, takes[q])
			v.await(b, "[speaking")
		}
		asked = append(asked, q)
	}
	for q := range takes {
		v.await(b, "[listening") // the reply before, talked through
		time.Sleep(500 * time.Millisecond)
		playInto(b, v.p, takes[q])
		asked = append(asked, q)
	}
	v.wait(b)
	return bargeResult(b, v, asked)
}

// bargeResult reads what a bargeOverReplies run heard: a turn's question was said over a reply
// when the turn before ends in a barge-in that was not resumed.
func bargeResult(b *testing.B, v *roomVoice, asked []int) bargeRun {
	var heard []string
	for _, l := range strings.Split(v.stdout.String(), "\n") {
		if q, ok := strings.CutPrefix(l, "You: "); ok {
			heard = append(heard, q)
		}
	}
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
	var r bargeRun
	var over, quiet [2]int // word errors, words
	for i, h := range heard {
		turn := i + 1
		ref := spokenQuestions[asked[i]]
		errs, words := testenv.WordErrors(ref, normalWords(h)), len(strings.Fields(ref))
		if turn > 1 && stopped[turn-1] {
			late := bargeAt[turn-1] - speechAt[turn]
			b.Logf("turn %d: the reply before stopped %.0f ms after the question's start; heard %q (%d errors)", turn, late, h, errs)
			if late <= 400 {
				r.inTime++
			} else {
				r.late++
			}
			over[0] += errs
			over[1] += words
			continue
		}
		b.Logf("turn %d, in the quiet: heard %q (%d errors)", turn, h, errs)
		if turn > 1 {
			quiet[0] += errs
			quiet[1] += words
		}
	}
	r.werOver = float64(over[0]) / float64(max(over[1], 1))
	r.werQuiet = float64(quiet[0]) / float64(max(quiet[1], 1))
	return r
}

// normalWords is a transcript as the questions are written: lower case, without punctuation.
func normalWords(s string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		if strings.ContainsRune(".,?!", r) {
			return -1
		}
		return r
	}, s))
}
