package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/voice"
)

// spokenQuestions are questions flite's slt voice speaks and pocketsphinx hears word for word
// from a WAV file (checked on Debian 12), each the question of one turn.
var spokenQuestions = []string{
	theQuestion,
	"what time is it in new york",
	"play some music in the kitchen",
	"what is the capital of france",
	"tell me about the history of the lighthouse",
}

// minOverlap is the share of a question's words that the transcript of it must hold. Through the
// null sink and Opus, pocketsphinx heard 86% ("the line pounds" for "the lighthouse") to 100% of
// each of spokenQuestions.
const minOverlap = 0.7

// wordOverlap is the share of question's distinct words that transcript holds (case aside).
func wordOverlap(transcript, question string) float64 {
	heard := map[string]bool{}
	for _, w := range strings.Fields(normalWords(transcript)) {
		heard[w] = true
	}
	want := map[string]bool{}
	for _, w := range strings.Fields(strings.ToLower(question)) {
		want[w] = true
	}
	n := 0
	for w := range want {
		if heard[w] {
			n++
		}
	}
	return float64(n) / float64(max(len(want), 1))
}

// normalWords is a transcript as the questions are written: lower case, without the punctuation
// around its words.
func normalWords(s string) string {
	words := strings.Fields(strings.ToLower(s))
	for i, w := range words {
		words[i] = strings.Trim(w, ".,?!")
	}
	return strings.Join(words, " ")
}

// personPause is how long the person waits after a reply before asking the next question: longer
// than the loop's echo guard.
const personPause = voice.DefaultEchoGuard + 500*time.Millisecond

// traceLine is one line of `parley voice --trace`.
type traceLine struct {
	TimeMS      float64 `json:"t_ms"`
	Turn        int     `json:"turn"`
	Event       string  `json:"event"`
	Sentence    *int    `json:"sentence"`
	Speculative bool    `json:"speculative"`
}

// voiceRun is what one `parley voice --turns N` printed and traced.
type voiceRun struct {
	stdout, stderr string
	trace          []traceLine
	heard          []string // each turn's "You: " line
	conversation   string
}

// runVoiceTurns runs `parley voice --turns len(questions)` against s through the PulseAudio
// null sink of p, with a quiet room-noise bed, and speaks question i (spoken by flite) into the
// sink once the loop listens for turn i. The replies are played into the same sink, so the
// microphone hears them as a person's would. It fails tb unless the run exits 0.
func runVoiceTurns(tb testing.TB, s *service, p *testenv.Pulse, key string, questions []string, extra ...string) voiceRun {
	tb.Helper()
	env := s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	dir := tb.TempDir()
	wavs := make([]string, len(questions))
	for i, q := range questions {
		wavs[i] = say(tb, dir, fmt.Sprintf("question%d", i+1), q)
	}
	quietRoom(tb, p, dir)

	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(len(questions))*40*time.Second)
	defer cancel()
	tracePath := filepath.Join(dir, "turns.jsonl")
	args := append([]string{"voice", "--turns", fmt.Sprint(len(questions)), "--device", p.Monitor,
		"--listen-timeout", "60s", "--trace", tracePath}, extra...)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = env
	var stdout testenv.SyncBuffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	// Each "[listening" line on stderr is the loop ready for a turn; "[thinking" is a question
	// heard and sent; "[Didn't catch that" is one heard as no words, which a person says again.
	var errText testenv.SyncBuffer
	events := make(chan string, 8*len(questions)+16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(&errText, sc.Text())
			for _, e := range []string{"[listening", "[thinking", "[Didn't catch that"} {
				if strings.HasPrefix(sc.Text(), e) {
					select {
					case events <- e:
					default: // nobody reads past the last question
					}
				}
			}
		}
	}()
	stderrSoFar := errText.String
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// next waits for one of the events named, skipping others.
	next := func(what string, want ...string) string {
		for {
			select {
			case e := <-events:
				if slices.Contains(want, e) {
					return e
				}
			case err := <-exited:
				exited <- err
				tb.Fatalf("parley voice ended while the test waited for %s: %v\nstdout:\n%s\nstderr:\n%s", what, err, stdout.String(), stderrSoFar())
			case <-ctx.Done():
				tb.Fatalf("parley voice never got to %s:\nstdout:\n%s\nstderr:\n%s", what, stdout.String(), stderrSoFar())
			}
		}
	}
	missed := 0
	ready := false
	for i := 0; i < len(wavs); {
		if !ready {
			next(fmt.Sprintf("listen for turn %d", i+1), "[listening")
		}
		if i == 0 && missed == 0 {
			time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
		} else {
			// The person's pause before the next question. "[listening" is printed when the reply
			// ends, but the loop ignores the microphone for voice.DefaultEchoGuard more (the
			// reply's echo): a question begun at once loses its first words.
			time.Sleep(personPause)
		}
		playInto(tb, p, wavs[i])
		if next(fmt.Sprintf("turn %d's question to be sent", i+1), "[thinking", "[Didn't catch that") == "[thinking" {
			i, ready = i+1, false
			continue
		}
		// Heard as no words (on a busy machine, a reply's late echo can open a turn that the
		// question then falls into): said again, as a person does, a few times at most in a run.
		missed++
		tb.Logf("turn %d: Parley did not catch the question; saying it again (%d so far)", i+1, missed)
		if missed > 2 {
			tb.Fatalf("Parley did not catch a question %d times:\nstdout:\n%s\nstderr:\n%s", missed, stdout.String(), stderrSoFar())
		}
		ready = true // "[listening" came before the notice
	}
	select {
	case err = <-exited:
	case <-ctx.Done():
		err = <-exited
	}
	r := voiceRun{stdout: stdout.String(), stderr: stderrSoFar()}
	if err != nil {
		tb.Fatalf("parley %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, r.stdout, r.stderr)
	}
	for _, m := range regexp.MustCompile(`(?m)^You: (.*)$`).FindAllStringSubmatch(r.stdout, -1) {
		r.heard = append(r.heard, m[1])
	}
	if m := regexp.MustCompile(`conversation (\S+)`).FindStringSubmatch(r.stderr); m != nil {
		r.conversation = strings.TrimSuffix(m[1], ",")
	}
	r.trace = readTrace(tb, tracePath)
	return r
}

// readTrace reads a --trace file.
func readTrace(tb testing.TB, path string) []traceLine {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []traceLine
	dec := json.NewDecoder(f)
	for {
		var e traceLine
		if err := dec.Decode(&e); err == io.EOF {
			return out
		} else if err != nil {
			tb.Fatalf("trace %s: %v", path, err)
		}
		out = append(out, e)
	}
}

// firstAudio is each turn's time from the end of speech to the first sentence starting to play,
// from a trace; a turn without both events is left out.
func firstAudio(trace []traceLine) map[int]time.Duration {
	end, start := map[int]float64{}, map[int]float64{}
	for _, e := range trace {
		switch {
		case e.Event == "speech_end":
			end[e.Turn] = e.TimeMS
		case e.Event == "playback_start" && e.Sentence != nil && *e.Sentence == 0:
			if _, ok := start[e.Turn]; !ok {
				start[e.Turn] = e.TimeMS
			}
		}
	}
	out := map[int]time.Duration{}
	for turn, t := range start {
		if e, ok := end[turn]; ok {
			out[turn] = time.Duration((t - e) * float64(time.Millisecond))
		}
	}
	return out
}

// speculativeTurns counts the turns whose transcript came from a speculative transcription.
func speculativeTurns(trace []traceLine) int {
	n := 0
	for _, e := range trace {
		if e.Event == "transcribe_done" && e.Speculative {
			n++
		}
	}
	return n
}

// turnEvents are the events every spoken turn's trace holds.
var turnEvents = []string{"speech_start", "speech_end", "transcribe_sent", "transcribe_done", "chat_sent",
	"chat_done", "tts_sent", "tts_done", "playback_start", "playback_end"}

// TestVoiceLoop_FiveTurns is a spoken conversation of five turns through real devices and the
// real reference service: `parley voice --turns 5` listens on the monitor of a PulseAudio null
// sink, and each question, spoken by flite, is played into the sink once the loop listens again;
// pocketsphinx in the service transcribes it, the built-in responder answers, and the reply is
// spoken into the same sink, which the microphone hears too. Every turn must complete, each
// transcript must hold most of its question's words (never the reply's echo), the conversation
// must hold the five questions and replies, and the trace must hold every event of every turn.
func TestVoiceLoop_FiveTurns(t *testing.T) {
	testenv.RequireCommands(t, "flite", "sox", "paplay", "pocketsphinx_continuous", "lame")
	s := startService(t)
	key := s.newKey(t, 100)
	p := testenv.StartPulse(t)
	r := runVoiceTurns(t, s, p, key, spokenQuestions)
	t.Logf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	replies := regexp.MustCompile(`(?m)^Assistant: `).FindAllString(r.stdout, -1)
	if len(r.heard) != len(spokenQuestions) || len(replies) != len(spokenQuestions) {
		t.Fatalf("want %d questions and replies on stdout:\n%s", len(spokenQuestions), r.stdout)
	}
	for i, q := range spokenQuestions {
		o := wordOverlap(r.heard[i], q)
		t.Logf("turn %d: said %q, heard %q: %.0f%% of the words", i+1, q, r.heard[i], 100*o)
		if o < minOverlap {
			t.Errorf("turn %d: said %q, heard %q: %.0f%% of its words, want at least %.0f%%", i+1, q, r.heard[i], 100*o, 100*minOverlap)
		}
	}

	// The conversation holds the five questions as heard, and a reply to each.
	if r.conversation == "" {
		t.Fatalf("no conversation ID on stderr:\n%s", r.stderr)
	}
	env := s.env("PARLEY_API_KEY=" + key)
	h := history(t, env, r.conversation)
	if len(h.Messages) != 2*len(spokenQuestions) {
		t.Fatalf("the conversation has %d messages, want %d: %+v", len(h.Messages), 2*len(spokenQuestions), h.Messages)
	}
	for i, heard := range r.heard {
		if q, a := h.Messages[2*i], h.Messages[2*i+1]; q.Role != "user" || q.Content != heard || a.Role != "assistant" || a.Content == "" {
			t.Errorf("messages %d and %d are %+v and %+v; want the question %q and its reply", 2*i, 2*i+1, q, a, heard)
		}
	}

	// The trace holds every event of each turn, of turns 1 to 5 only, in time order (speech and
	// playback events are stamped with when they happened, and may be reported late).
	got := map[int]map[string]bool{}
	prev := -1.0
	for _, e := range r.trace {
		if e.Turn < 1 || e.Turn > len(spokenQuestions) {
			t.Errorf("trace event %s of turn %d", e.Event, e.Turn)
			continue
		}
		if got[e.Turn] == nil {
			got[e.Turn] = map[string]bool{}
		}
		got[e.Turn][e.Event] = true
		if !slices.Contains([]string{"speech_start", "speech_end", "playback_start", "playback_end"}, e.Event) {
			if e.TimeMS < prev-0.001 {
				t.Errorf("trace event %s of turn %d at %.1f ms, after one at %.1f ms", e.Event, e.Turn, e.TimeMS, prev)
			}
			prev = max(prev, e.TimeMS)
		}
	}
	for turn := 1; turn <= len(spokenQuestions); turn++ {
		for _, k := range turnEvents {
			if !got[turn][k] {
				t.Errorf("the trace has no %s event for turn %d", k, turn)
			}
		}
	}
	if fa := firstAudio(r.trace); len(fa) != len(spokenQuestions) {
		t.Errorf("speech end to first audio measured for %d turns, want %d: %v", len(fa), len(spokenQuestions), fa)
	}
}
