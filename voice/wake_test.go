package voice_test

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/media"
	"parley/voice"
)

// fakeSpotter hears a phrase when the test says it is said: the next frame fed returns it.
type fakeSpotter struct {
	mu     sync.Mutex
	next   string
	fed    int
	resets int
}

func (s *fakeSpotter) Feed([]int16) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fed++
	p := s.next
	s.next = ""
	return p, nil
}

func (s *fakeSpotter) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.resets++
	return nil
}

func (s *fakeSpotter) hear(p string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = p
}

func (s *fakeSpotter) frames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fed
}

// wakeWorld is a world whose questions wait for the wake phrase.
func wakeWorld(t *testing.T, edit func(*voice.Config)) (*world, *fakeSpotter) {
	spot := &fakeSpotter{}
	w := newWorld(t, func(c *voice.Config) {
		c.Wake = spot
		c.FollowUp = 2 * time.Second
		c.WakeListen = 3 * time.Second
		if edit != nil {
			edit(c)
		}
	})
	return w, spot
}

// wakeAndAsk waits for the loop to wait for the wake phrase, has it heard, and says question once
// the loop listens.
func wakeAndAsk(w *world, spot *fakeSpotter, question media.PCM) {
	w.t.Helper()
	w.waitState("waiting", func(s voice.Status) bool { return s.State == voice.Waiting })
	spot.hear("hey parley")
	w.waitFor(1, voice.Listening)
	w.mic.say(question, 1)
}

func TestLoop_WakeNothingIsSentBeforeTheWakePhrase(t *testing.T) {
	w, spot := wakeWorld(t, nil)
	w.run()
	w.waitState("waiting", func(s voice.Status) bool { return s.State == voice.Waiting })
	// A whole question said without the wake phrase: heard by the spotter alone.
	w.mic.say(corpus.question, 1)
	<-w.mic.quiet()
	start := spot.frames()
	for spot.frames() < start+int(2*time.Second/(20*time.Millisecond)) {
		time.Sleep(time.Millisecond)
	}
	if tr, chats, _ := w.svc.count(); tr != 0 || chats != 0 {
		t.Fatalf("%d transcriptions and %d chat calls before the wake phrase, want none", tr, chats)
	}
	if got := w.states(); got != "0:waiting for the wake phrase" {
		t.Errorf("states %q before the wake phrase, want only waiting", got)
	}
	// The wake phrase, then the question: one turn.
	spot.hear("hey parley")
	w.waitFor(1, voice.Listening)
	w.mic.say(corpus.question, 1)
	w.waitFor(1, voice.Speaking)
	follow := w.waitState("the follow-up window", func(s voice.Status) bool { return s.State == voice.Listening && s.FollowUp })
	if follow.Turn != 2 {
		t.Errorf("follow-up window in turn %d, want 2", follow.Turn)
	}
	// No question within the follow-up window: waiting again, without the follow-up flag.
	back := w.waitState("waiting after the follow-up window", func(s voice.Status) bool {
		return s.State == voice.Waiting && s.Turn == 2
	})
	if back.FollowUp {
		t.Error("FollowUp still set while waiting for the wake phrase")
	}
	if tr, chats, _ := w.svc.count(); tr != 1 || chats != 1 {
		t.Errorf("%d transcriptions and %d chat calls, want one of each", tr, chats)
	}
	if _, ok := w.event(1, voice.TraceWake, -1); !ok {
		t.Error("no wake event in turn 1's trace")
	}
}

func TestLoop_WakeFollowUpQuestionNeedsNoWakePhrase(t *testing.T) {
	w, spot := wakeWorld(t, func(c *voice.Config) { c.FollowUp = 5 * time.Second; c.Turns = 2 })
	w.onStatus = func(s voice.Status) {
		if s.State == voice.Listening && s.FollowUp {
			go w.mic.say(corpus.second, 1)
		}
	}
	done := w.run()
	wakeAndAsk(w, spot, corpus.question)
	if err := w.wait(done); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, chats, _ := w.svc.count(); chats != 2 {
		t.Errorf("%d chat calls, want 2 (the follow-up taken without the wake phrase)", chats)
	}
	if _, ok := w.event(2, voice.TraceWake, -1); ok {
		t.Error("turn 2 has a wake event: it was a follow-up")
	}
}

func TestLoop_WakeWordsAreTakenOffTheQuestion(t *testing.T) {
	w, spot := wakeWorld(t, func(c *voice.Config) { c.Turns = 1 })
	w.svc.transcripts = []string{"Hey, Parley. What is the capital of France?"}
	done := w.run()
	wakeAndAsk(w, spot, corpus.question)
	if err := w.wait(done); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(w.svc.questions) != 1 || w.svc.questions[0] != "What is the capital of France?" {
		t.Errorf("questions sent %q, want the question without the wake phrase", w.svc.questions)
	}
}

func TestLoop_StopWordStopsTheReply(t *testing.T) {
	stop := &fakeSpotter{}
	w, spot := wakeWorld(t, func(c *voice.Config) { c.StopWords = stop })
	w.svc.replies = []string{"Paris is the capital of France. It lies on the Seine. It has two million people. Its river has thirty-seven bridges."}
	// "Stop" is said once the reply's first clip plays.
	var once sync.Once
	w.mic.onFrame = func(int) {
		if len(w.sink.startedTimes()) > 0 {
			once.Do(func() { stop.hear("stop") })
		}
	}
	w.run()
	wakeAndAsk(w, spot, corpus.question)
	w.waitState("waiting after stop", func(s voice.Status) bool { return s.State == voice.Waiting && s.Turn == 1 })
	if len(w.sink.stopTimes()) == 0 {
		t.Error("the player was never stopped")
	}
	if _, ok := w.event(1, voice.TraceStopWord, -1); !ok {
		t.Error("no stop_word event in the trace")
	}
	if got := w.states(); got != "0:waiting for the wake phrase 1:listening 1:hearing speech 1:transcribing 1:thinking 1:speaking 1:waiting for the wake phrase" {
		t.Errorf("states %q, want the reply stopped and the wake phrase waited for", got)
	}
}

func TestLoop_StopWordInTheReplyIsItsEcho(t *testing.T) {
	stop := &fakeSpotter{}
	w, spot := wakeWorld(t, func(c *voice.Config) { c.StopWords = stop; c.Turns = 1 })
	w.svc.replies = []string{"Press stop to end it."}
	var once sync.Once
	w.mic.onFrame = func(int) {
		if len(w.sink.startedTimes()) > 0 {
			once.Do(func() { stop.hear("stop") })
		}
	}
	done := w.run()
	wakeAndAsk(w, spot, corpus.question)
	if err := w.wait(done); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, ok := w.event(1, voice.TraceStopWord, -1); ok {
		t.Error("a stop word the reply says stopped it")
	}
	if _, ok := w.event(1, voice.TracePlaybackEnd, 0); !ok {
		t.Error("the reply did not play to its end")
	}
}

func TestLoop_WakeMuteWhileWaiting(t *testing.T) {
	w, spot := wakeWorld(t, nil)
	w.run()
	w.waitState("waiting", func(s voice.Status) bool { return s.State == voice.Waiting })
	w.loop.SetMuted(true)
	w.waitState("muted", func(s voice.Status) bool { return s.State == voice.Muted })
	n := spot.frames()
	time.Sleep(50 * time.Millisecond)
	w.loop.SetMuted(false)
	w.waitState("waiting again", func(s voice.Status) bool { return s.State == voice.Waiting && !s.Muted })
	if got := spot.frames(); got != n {
		t.Errorf("the spotter was fed %d frames while muted", got-n)
	}
	if _, chats, _ := w.svc.count(); chats != 0 {
		t.Errorf("%d chat calls", chats)
	}
}

// The transcript comes from the service: whatever it holds, the wake phrase's words are taken
// off its start only, and what is left is the rest of it.
func TestWithoutWakeWords(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"Hey, Parley. What time is it?", "What time is it?"},
		{"Parley, what time is it?", "what time is it?"},
		{"hey what time is it", "what time is it"},
		{"Parley hey, what?", "hey, what?"}, // in the phrase's order only
		{"hey parley parley", "parley"},     // each word once
		{"What time is it?", "What time is it?"},
	} {
		if got := voice.WithoutWakeWords(c.q, []string{"hey", "parley"}); got != c.want {
			t.Errorf("WithoutWakeWords(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	if got := voice.WithoutWakeWords("Hey computer, computer viruses?", []string{"hey", "computer"}); got != "computer viruses?" {
		t.Errorf("the question's own word was taken off: %q", got)
	}
}

func FuzzWithoutWakeWords(f *testing.F) {
	for _, s := range []string{"Hey, Parley. What time is it?", "parley", "", "hey hey hey", "Parley, parley... what?", "  \u00a0hey"} {
		f.Add(s)
	}
	phrase := []string{"hey", "parley"}
	f.Fuzz(func(t *testing.T, q string) {
		got := voice.WithoutWakeWords(q, phrase)
		if !strings.HasSuffix(q, got) {
			t.Errorf("WithoutWakeWords(%q) = %q, not the end of it", q, got)
		}
	})
}

// A take that held only the wake phrase sends nothing, and the deadline still holds: the loop
// waits for the phrase again, and what is said then is not sent.
func TestLoop_WakeOnlyTheWakePhraseWaitsAgain(t *testing.T) {
	w, spot := wakeWorld(t, nil)
	w.svc.transcripts = []string{"Hey, Parley."}
	w.run()
	wakeAndAsk(w, spot, corpus.second)
	w.waitState("waiting again", func(s voice.Status) bool { return s.State == voice.Waiting && s.Turn == 1 })
	w.mic.say(corpus.question, 1)
	<-w.mic.quiet()
	start := spot.frames()
	for spot.frames() < start+100 {
		time.Sleep(time.Millisecond)
	}
	if tr, chats, _ := w.svc.count(); tr != 1 || chats != 0 {
		t.Errorf("%d transcriptions and %d chat calls, want the one take of the wake phrase and no chat", tr, chats)
	}
}

// With a listen timeout, the wake phrase is waited for that long (parley voice --wake --once).
func TestLoop_WakeListenTimeout(t *testing.T) {
	w, _ := wakeWorld(t, func(c *voice.Config) { c.ListenTimeout = 2 * time.Second })
	if err := w.wait(w.run()); !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("Run: %v, want ErrNoSpeech", err)
	}
}
