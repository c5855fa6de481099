package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestVoiceLoop_OnceHearsAndAnswers is one hands-free turn through real devices and the real
// reference service: `parley voice --once` listens on the monitor of a PulseAudio null sink,
// paplay speaks a flite question into the sink, the service's pocketsphinx transcribes it,
// the built-in responder answers, and the reply is spoken back into the sink, where parec hears
// it. The question must be in the conversation's history, and the trace must hold every event.
func TestVoiceLoop_OnceHearsAndAnswers(t *testing.T) {
	testenv.RequireCommands(t, "flite", "paplay", "parec", "pocketsphinx_continuous", "lame")
	s := startService(t)
	key := s.newKey(t, 10)
	p := testenv.StartPulse(t)
	env := s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	dir := t.TempDir()

	question := say(t, dir, "question", theQuestion)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	trace := filepath.Join(dir, "turn.jsonl")
	cmd := exec.CommandContext(ctx, bin, "voice", "--once", "--device", p.Monitor, "--hold", "0.8s", "--trace", trace)
	cmd.Env = env
	var stdout strings.Builder
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Follow the states it prints.
	states := followStates(stderr, "listening", "thinking")
	states.wait(t, "listening")
	time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
	playInto(t, p, question)
	// Once the question has gone to the chat, all the sink plays is the reply: record it.
	states.wait(t, "thinking")
	heard := filepath.Join(dir, "reply.raw")
	stopRec := recordSink(t, p, heard)
	waitErr := cmd.Wait()
	time.Sleep(500 * time.Millisecond) // what the sink still held
	stopRec()
	if waitErr != nil {
		t.Fatalf("parley voice --once: %v\nstdout:\n%s\nstderr:\n%s", waitErr, stdout.String(), states.text())
	}
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), states.text())

	// It printed what it heard and the reply, and the states in order.
	m := regexp.MustCompile(`(?m)^You: (.+)$`).FindStringSubmatch(stdout.String())
	if m == nil || !strings.Contains(stdout.String(), "\nAssistant: ") {
		t.Fatalf("stdout holds no question and reply:\n%s", stdout.String())
	}
	if o := wordOverlap(m[1], theQuestion); o < minOverlap {
		t.Errorf("said %q, heard %q: %.0f%% of the words, want at least %.0f%%", theQuestion, m[1], 100*o, 100*minOverlap)
	}
	stateText := states.text()
	checkStatesInOrder(t, stateText, "[listening", "[hearing speech]", "[transcribing]", "[thinking]", "[speaking]")

	// The reply was heard on the sink.
	raw, err := os.ReadFile(heard)
	if err != nil {
		t.Fatal(err)
	}
	if peak := peakDBFS(raw); peak < -30 {
		t.Errorf("the sink's monitor heard a peak of %.1f dBFS while the reply was spoken; want louder than -30 dBFS", peak)
	}

	// The question is in the conversation's history.
	id := regexp.MustCompile(`conversation (\S+)`).FindStringSubmatch(stateText)
	if id == nil {
		t.Fatalf("no conversation ID on stderr:\n%s", stateText)
	}
	h := mustRun(t, env, "", "history", "--json", strings.TrimSuffix(id[1], ","))
	if !strings.Contains(h.Stdout, m[1]) {
		t.Errorf("the history of %s does not hold the question %q:\n%s", id[1], m[1], h.Stdout)
	}

	// The trace has every event of the turn, in time order.
	checkOneTurnTrace(t, trace)
}

// stateLines follows the state lines `parley voice` prints on standard error: all the text so
// far, and a channel per state awaited that closes when a line opens with "[" and its name.
type stateLines struct {
	mu   sync.Mutex
	all  strings.Builder
	seen map[string]chan struct{}
}

// followStates reads r's lines until it ends, noting the states named.
func followStates(r io.Reader, names ...string) *stateLines {
	l := &stateLines{seen: map[string]chan struct{}{}}
	for _, k := range names {
		l.seen[k] = make(chan struct{})
	}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.add(sc.Text())
		}
	}()
	return l
}

// add notes one line, closing the channel of the state it opens with.
func (l *stateLines) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all.WriteString(line + "\n")
	for k, ch := range l.seen {
		if strings.HasPrefix(line, "["+k) {
			select {
			case <-ch:
			default:
				close(ch)
			}
		}
	}
}

// text is what was printed so far.
func (l *stateLines) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.all.String()
}

// wait waits up to 30 s for a line of state k.
func (l *stateLines) wait(t *testing.T, k string) {
	t.Helper()
	select {
	case <-l.seen[k]:
	case <-time.After(30 * time.Second):
		t.Fatalf("parley voice never printed [%s]:\n%s", k, l.text())
	}
}

// checkStatesInOrder checks that each of want is in text, after the one before.
func checkStatesInOrder(t *testing.T, text string, want ...string) {
	t.Helper()
	last := -1
	for _, st := range want {
		i := strings.Index(text, st)
		if i < last {
			t.Errorf("state %s missing or out of order in:\n%s", st, text)
		}
		last = i
	}
}

// checkOneTurnTrace checks a --trace file of one turn: every event is of turn 1, in time order
// (playback_start, playback_end, speech_start and speech_end excepted), and each step of the turn
// has its events.
func checkOneTurnTrace(t *testing.T, trace string) {
	t.Helper()
	f, err := os.Open(trace)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	kinds := map[string]bool{}
	prev := -1.0
	dec := json.NewDecoder(f)
	for {
		var e struct {
			TimeMS float64 `json:"t_ms"`
			Turn   int     `json:"turn"`
			Event  string  `json:"event"`
		}
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("trace: %v", err)
		}
		kinds[e.Event] = true
		if e.Turn != 1 {
			t.Errorf("trace event of turn %d", e.Turn)
		}
		if e.Event != "playback_start" && e.Event != "playback_end" && e.TimeMS < prev-0.001 && e.Event != "speech_start" && e.Event != "speech_end" {
			t.Errorf("trace event %s at %.1f ms after one at %.1f ms", e.Event, e.TimeMS, prev)
		}
		prev = max(prev, e.TimeMS)
	}
	for _, k := range []string{"speech_start", "speech_end", "transcribe_sent", "transcribe_done", "chat_sent", "chat_done", "tts_sent", "tts_done", "playback_start", "playback_end"} {
		if !kinds[k] {
			t.Errorf("the trace has no %s event", k)
		}
	}
}

// TestVoiceLoop_OnceWithoutSpeechExitsNonZero: silence on the microphone ends --once after the
// listen timeout with a message, and nothing is charged.
func TestVoiceLoop_OnceWithoutSpeechExitsNonZero(t *testing.T) {
	s := startService(t)
	key := s.newKey(t, 10)
	p := testenv.StartPulse(t)
	env := s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	r := run(t, env, "", "voice", "--once", "--device", p.Monitor, "--listen-timeout", "4s")
	if r.Code != 1 || !strings.Contains(r.Stderr, "No speech was heard in 4s") {
		t.Fatalf("voice --once in silence: %s; want exit 1 saying no speech was heard", r)
	}
	st := mustRun(t, env, "", "status", "--json")
	if !strings.Contains(st.Stdout, `"balance": 10`) {
		t.Errorf("status after a silent --once: %s; want the balance untouched at 10", st.Stdout)
	}
}

// TestVoiceLoop_ReplySpokenInItsLanguage: `parley voice` against the service in front of a model
// that answers in German speaks the reply with the service's German voice (its log names the
// voice of each speech request); with --voice, every reply is spoken in the voice chosen.
func TestVoiceLoop_ReplySpokenInItsLanguage(t *testing.T) {
	testenv.RequireCommands(t, "flite", "paplay", "parec", "pocketsphinx_continuous", "lame", "espeak-ng")
	si := startStandIn(t, standInSettings{Addr: "127.0.0.1:0",
		Reply: "Morgen wird es in Paris sonnig, mit einer leichten Brise aus Westen und bis zu zwanzig Grad."})
	s := startServiceEnv(t, si.portsEnv, "--llm", "auto")
	key := s.newKey(t, 10)
	p := testenv.StartPulse(t)
	env := s.env(append([]string{"PARLEY_API_KEY=" + key, "PARLEY_AUDIO_BACKEND=pulse"}, p.Env...)...)
	question := say(t, t.TempDir(), "question", theQuestion)
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{nil, "voice=de"},
		{[]string{"--voice", "flite-rms"}, "voice=flite-rms"},
	} {
		from := len(s.logs.String())
		ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
		cmd := exec.CommandContext(ctx, bin, append([]string{"voice", "--once", "--device", p.Monitor, "--hold", "0.8s"}, tt.flags...)...)
		cmd.Env = env
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		states := followStates(stderr, "listening")
		states.wait(t, "listening")
		time.Sleep(2500 * time.Millisecond) // the null sink's monitor takes up to 2 s to deliver audio
		playInto(t, p, question)
		err = cmd.Wait()
		cancel()
		if err != nil {
			t.Fatalf("parley voice --once %v: %v\n%s", tt.flags, err, states.text())
		}
		log := s.logs.String()[from:]
		var spoken []string
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, "path=/v1/chat/speech") {
				spoken = append(spoken, line)
			}
		}
		if len(spoken) == 0 {
			t.Fatalf("%v: no speech request in the service's log:\n%s", tt.flags, log)
		}
		for _, line := range spoken {
			if !strings.Contains(line, tt.want) {
				t.Errorf("%v: the reply was spoken so: %s; want %s", tt.flags, line, tt.want)
			}
		}
	}
}
