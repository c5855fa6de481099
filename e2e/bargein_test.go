package e2e

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// longPersona makes the offline responder's replies long enough to talk over: it starts each
// one with "As <persona>, ".
const longPersona = "a patient guide who explains every step slowly and thoroughly, with an example for " +
	"each point, and who always checks that the listener has followed before going on to the next one"

// roomVoice runs `parley voice` with barge-in on in a simulated room (the replies come back into
// the microphone reverberated, at the room's gain), and hands its stderr lines, one by one, to
// the test.
type roomVoice struct {
	p      *testenv.Pulse
	dir    string
	cmd    *exec.Cmd
	stdout testenv.SyncBuffer
	lines  chan string
	seen   testenv.SyncBuffer
	trace  string
	exited chan error
}

// questions is what parley voice printed as heard ("You: …"), in order.
func (v *roomVoice) questions() []string {
	var heard []string
	for _, l := range strings.Split(v.stdout.String(), "\n") {
		if q, ok := strings.CutPrefix(l, "You: "); ok {
			heard = append(heard, q)
		}
	}
	return heard
}

func startRoomVoice(t testing.TB, turns int, gain float64, extra ...string) *roomVoice {
	t.Helper()
	return startRoomVoiceAs(t, longPersona, turns, gain, extra...)
}

// startRoomVoiceAs is startRoomVoice with the persona that sets the replies' length.
func startRoomVoiceAs(t testing.TB, persona string, turns int, gain float64, extra ...string) *roomVoice {
	t.Helper()
	v, _ := startInRoom(t, gain, func(trace string) []string {
		return append([]string{"voice", "--turns", fmt.Sprint(turns), "--barge-in",
			"--persona", persona, "--listen-timeout", "60s", "--trace", trace}, extra...)
	})
	return v
}

// startInRoom starts a service, a PulseAudio server with the simulated room at gain, and parley
// with the arguments args makes of the trace file's path, listening to the room's microphone;
// its stderr lines reach the test one by one.
func startInRoom(t testing.TB, gain float64, args func(trace string) []string) (*roomVoice, *service) {
	t.Helper()
	testenv.RequireCommands(t, "flite", "paplay", "parec", "pacat", "sox", "pocketsphinx_continuous", "lame")
	s := startService(t)
	key := s.newKey(t, 100)
	p := testenv.StartPulse(t)
	p.StartRoom(t, gain)
	v := &roomVoice{p: p, dir: t.TempDir(), lines: make(chan string, 256), exited: make(chan error, 1)}
	quietRoom(t, p, v.dir)
	v.trace = filepath.Join(v.dir, "trace.jsonl")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // 10 long replies take 4 minutes
	t.Cleanup(cancel)
	v.cmd = exec.CommandContext(ctx, bin, append(args(v.trace), "--device", p.Monitor)...)
	v.cmd.Env = s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	v.cmd.Stdout = &v.stdout
	stderr, err := v.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := v.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			fmt.Fprintln(&v.seen, sc.Text())
			select {
			case v.lines <- sc.Text():
			default:
			}
		}
		v.exited <- v.cmd.Wait()
	}()
	return v, s
}

// await waits for a stderr line starting with prefix.
func (v *roomVoice) await(t testing.TB, prefix string) {
	t.Helper()
	if !v.awaitOrEnd(t, prefix) {
		err := <-v.exited
		v.exited <- err
		t.Fatalf("parley voice ended (%v) before %s:\n%s\nstdout:\n%s", err, prefix, v.seen.String(), v.stdout.String())
	}
}

// awaitOrEnd is await, but false when parley voice ended first (it stays ended for wait).
func (v *roomVoice) awaitOrEnd(t testing.TB, prefix string) bool {
	t.Helper()
	return v.awaitAny(t, prefix) != ""
}

// awaitAny waits for a stderr line starting with one of prefixes, and returns that prefix; ""
// when parley voice ended first (it stays ended for wait).
func (v *roomVoice) awaitAny(t testing.TB, prefixes ...string) string {
	t.Helper()
	p, ended := v.awaitWithin(90*time.Second, prefixes...)
	if p == "" && !ended {
		t.Fatalf("parley voice never printed %s:\n%s", strings.Join(prefixes, " or "), v.seen.String())
	}
	return p
}

// awaitWithin is awaitAny for at most d: "" when d passed, or when parley voice ended (ended).
func (v *roomVoice) awaitWithin(d time.Duration, prefixes ...string) (prefix string, ended bool) {
	deadline := time.After(d)
	for {
		select {
		case l := <-v.lines:
			for _, p := range prefixes {
				if strings.HasPrefix(l, p) {
					return p, false
				}
			}
		case err := <-v.exited:
			v.exited <- err
			return "", true
		case <-deadline:
			return "", false
		}
	}
}

// ask waits for parley voice to listen, and says the recording wav into the room; false when
// parley voice ended first. The first question waits 2.5 s more: the null sink's monitor takes
// up to 2 s to deliver audio.
func (v *roomVoice) ask(t testing.TB, first bool, wav string) bool {
	t.Helper()
	if !v.awaitOrEnd(t, "[listening") {
		return false
	}
	if first {
		time.Sleep(2500 * time.Millisecond)
	}
	playInto(t, v.p, wav)
	return true
}

// wait waits for parley voice to end, and fails the test unless it ends well.
func (v *roomVoice) wait(t testing.TB) {
	t.Helper()
	select {
	case err := <-v.exited:
		if err != nil {
			t.Fatalf("parley voice: %v\n%s\nstdout:\n%s", err, v.seen.String(), v.stdout.String())
		}
	case <-time.After(2 * time.Minute):
		tr, _ := os.ReadFile(v.trace)
		t.Fatalf("parley voice did not end:\n%s\nstdout:\n%s\ntrace:\n%s", v.seen.String(), v.stdout.String(), tr)
	}
}

// micLevel records the microphone for d and returns the level in dBFS of its loud 20 ms frames:
// their RMS over those louder than -50 dBFS (the echo's words, not its pauses), and the level
// that a tenth of them exceed (its loudest words).
func (v *roomVoice) micLevel(t testing.TB, d time.Duration) (rms, loudest float64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	rec := exec.CommandContext(ctx, "parec", "--device="+v.p.Monitor, "--format=s16le", "--rate=16000", "--channels=1", "--raw")
	rec.Env = append(os.Environ(), v.p.Env...)
	out, _ := rec.Output() // ends when ctx does
	rms, ok := loudLevel(out)
	if !ok {
		t.Fatalf("the microphone heard nothing of the reply in %v", d)
	}
	var levels []float64
	for _, e := range loudFrames(out) {
		levels = append(levels, 10*math.Log10(e))
	}
	slices.Sort(levels)
	return rms, levels[len(levels)*9/10]
}

// loudLevel is the RMS level in dBFS of 16 kHz mono S16LE PCM over its 20 ms frames louder than
// -50 dBFS; false when it has none.
func loudLevel(pcm []byte) (float64, bool) {
	var sum float64
	loud := loudFrames(pcm)
	for _, e := range loud {
		sum += e
	}
	return 10 * math.Log10(sum/float64(max(len(loud), 1))), len(loud) > 0
}

// loudFrames is the mean square (scaled to ±1) of each 20 ms frame of 16 kHz mono S16LE PCM
// louder than -50 dBFS.
func loudFrames(pcm []byte) []float64 {
	var loud []float64
	for i := 0; i+640 <= len(pcm); i += 640 {
		var e float64
		for j := i; j < i+640; j += 2 {
			x := float64(int16(binary.LittleEndian.Uint16(pcm[j:]))) / 32768
			e += x * x
		}
		if e /= 320; 10*math.Log10(e+1e-20) > -50 {
			loud = append(loud, e)
		}
	}
	return loud
}

// atLevel writes wav again with its speech at db dBFS RMS (over its loud frames, as micLevel).
func atLevel(t testing.TB, wav string, db float64) string {
	t.Helper()
	raw, err := exec.Command("sox", wav, "-t", "raw", "-r", "16000", "-c", "1", "-b", "16", "-e", "signed", "-").Output()
	if err != nil {
		t.Fatalf("sox: %v", err)
	}
	level, ok := loudLevel(raw)
	if !ok {
		t.Fatalf("%s is silent", wav)
	}
	out := strings.TrimSuffix(wav, ".wav") + fmt.Sprintf("-at%.0f.wav", db)
	if o, err := exec.Command("sox", wav, "-r", "16000", "-c", "1", "-b", "16", out, "gain", fmt.Sprintf("%.1f", db-level)).CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, o)
	}
	return out
}

// traceEvents reads the events of a --trace file.
func traceEvents(t testing.TB, path string) []traceLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var evs []traceLine
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var e traceLine
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatalf("trace line %q: %v", l, err)
		}
		evs = append(evs, e)
	}
	return evs
}

// TestVoice_BargeInInTheRoom: in a simulated room (the echo 12 dB under the playback), with the
// echo canceller on, a person who speaks over the reply stops it, whether clearly louder than its
// echo (their words on average 14 dB over the echo's loudest tenth, heard on the microphone
// before the canceller) or at the echo's level (the RMS of their words the echo's, heard on what
// the canceller leaves); what they said is the next question, heard from the cleaned frames; and
// the reply's echo starts no turn of its own. At the echo's level, the person may say it twice
// (about 1 try in 20 talks through in BenchmarkVoice_BargeInAtTheEchosLevel), and its words
// under the echo are heard worse: half of them are asked for.
func TestVoice_BargeInInTheRoom(t *testing.T) {
	for _, tc := range []struct {
		name     string
		question string
		level    func(echo, loudest float64) float64
		tries    int
		overlap  float64
	}{
		{"louder than the echo", "what time is it in new york", func(_, loudest float64) float64 { return loudest + 14 }, 1, minOverlap},
		{"at the echo's level", "play some music in the kitchen", func(echo, _ float64) float64 { return echo }, 2, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := startRoomVoice(t, 2, -12)
			first := say(t, v.dir, "first", theQuestion)
			second := say(t, v.dir, "second", tc.question)

			if !v.ask(t, true, first) {
				t.Fatalf("parley voice ended before the first question:\n%s", v.seen.String())
			}
			v.await(t, "[speaking")
			// The echo's level, over two seconds of the reply; the canceller learns the room
			// meanwhile.
			echo, loudest := v.micLevel(t, 2*time.Second)
			time.Sleep(2 * time.Second)
			level := tc.level(echo, loudest)
			t.Logf("the echo reaches the microphone at %.1f dBFS (its loudest tenth over %.1f dBFS): the person speaks at %.1f dBFS",
				echo, loudest, level)
			question := atLevel(t, second, level)
			for try := range tc.tries {
				playInto(t, v.p, question)
				if p, ended := v.awaitWithin(3*time.Second, "[transcribing"); p != "" || ended {
					break // stopped, and its question is being heard
				}
				t.Logf("try %d talked through", try+1)
			}
			v.wait(t)

			var barged bool
			for _, e := range traceEvents(t, v.trace) {
				if e.Event == "barge_in" && e.Turn == 1 {
					barged = true
				}
			}
			if !barged {
				t.Errorf("the reply was not interrupted:\n%s", v.seen.String())
			}
			heard := v.questions()
			if len(heard) != 2 {
				t.Fatalf("heard %d questions, want 2:\n%s", len(heard), v.stdout.String())
			}
			if o := wordOverlap(heard[1], tc.question); o < tc.overlap {
				t.Errorf("the question spoken over the reply was heard as %q: %.0f%% of %q, want %.0f%%",
					heard[1], 100*o, tc.question, 100*tc.overlap)
			}
		})
	}
}

// acknowledgements are said over replies: short words a listener says to show they follow,
// each under 0.6 s as flite says them (without its silence before and after).
var acknowledgements = []string{"okay.", "uh huh.", "yeah.", "right.", "sure.", "got it."}

// ackRun is what saying acknowledgements over replies in the simulated room did.
type ackRun struct {
	said, wentOn int    // acknowledgements said, and those after which the reply went on
	paused       int    // pauses of a reply (each acknowledgement heard pauses it)
	questions    int    // questions parley voice heard
	log          string // its stderr
}

// sayAcknowledgements asks the same question replies times in the simulated room (the echo 12 dB
// under the playback), and says perReply acknowledgements over each reply, 2.5 s apart, each as
// loud as a question that interrupts (14 dB over the echo's loudest tenth, measured over the
// first reply). An acknowledgement stopped the reply when a barge-in in its turn was not
// resumed; the rest went on (paused or not).
func sayAcknowledgements(t testing.TB, replies, perReply int) ackRun {
	// Replies of about 12 s: the acknowledgements take 7 s of each.
	v := startRoomVoiceAs(t, "a patient guide who explains every step slowly", replies, -12)
	question := say(t, v.dir, "question", theQuestion)
	var acks []string
	for i, w := range acknowledgements {
		acks = append(acks, say(t, v.dir, fmt.Sprint("ack", i), w))
	}
	var loudest float64
	said := 0
	for turn := range replies {
		// An acknowledgement that became a question used up a turn: the run may end early.
		if !v.ask(t, turn == 0, question) {
			break
		}
		v.await(t, "[speaking")
		if turn == 0 {
			_, loudest = v.micLevel(t, 2*time.Second)
			for i := range acks {
				acks[i] = atLevel(t, acks[i], loudest+14)
			}
		}
		time.Sleep(time.Second)
		for range perReply {
			playInto(t, v.p, acks[said%len(acks)])
			said++
			time.Sleep(2 * time.Second)
		}
	}
	v.wait(t)

	// Each pause not resumed stopped its reply.
	r := ackRun{said: said, wentOn: said, questions: strings.Count(v.stdout.String(), "You: "), log: v.seen.String()}
	for _, e := range traceEvents(t, v.trace) {
		switch e.Event {
		case "barge_in":
			r.paused++
			r.wentOn--
		case "barge_in_resumed":
			r.wentOn++
		}
	}
	t.Logf("%d acknowledgements over %d replies (the person %.1f dBFS at their loudest tenth): %d paused the reply, %d of %d let it go on; %d questions heard",
		said, replies, loudest+14, r.paused, r.wentOn, said, r.questions)
	return r
}

// TestVoice_AcknowledgementsDoNotInterrupt says two acknowledgements over each of 10 replies in
// the simulated room, as loud as a question that interrupts: at least 18 of the 20 let the reply
// go on, and none becomes a question.
func TestVoice_AcknowledgementsDoNotInterrupt(t *testing.T) {
	r := sayAcknowledgements(t, 10, 2)
	if r.wentOn < 18 {
		t.Errorf("%d of %d acknowledgements let the reply go on, want at least 18:\n%s", r.wentOn, r.said, r.log)
	}
	// Barge-in hears them (each pauses the reply): a reply that went on because nothing was
	// heard would say nothing.
	if r.paused < 18 {
		t.Errorf("%d of %d acknowledgements paused the reply, want at least 18:\n%s", r.paused, r.said, r.log)
	}
	if r.questions != 10 {
		t.Errorf("%d questions heard, want 10 (no acknowledgement is a question):\n%s", r.questions, r.log)
	}
}
