package voice_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/voice"
)

// streamingService is the fake service with a chat that streams: the reply's first word after
// first, then a word every every, on the fake clock; it ends where it is when stopped.
type streamingService struct {
	*fakeService
	first, every time.Duration

	smu     sync.Mutex
	stopped []bool // per call: the person's Stop came
}

func (f *streamingService) ChatStream(ctx context.Context, q string, onText func(string), stop <-chan struct{}) (string, error) {
	f.mu.Lock()
	n := len(f.questions)
	f.questions = append(f.questions, q)
	reply := f.replies[min(n, len(f.replies)-1)]
	f.mu.Unlock()
	f.smu.Lock()
	f.stopped = append(f.stopped, false)
	f.smu.Unlock()
	var written []string
	for i, w := range strings.Fields(reply) {
		wait := f.every
		if i == 0 {
			wait = f.first
		}
		select {
		case <-f.clock.After(wait):
		case <-stop:
			f.smu.Lock()
			f.stopped[n] = true
			f.smu.Unlock()
			return strings.Join(written, " "), nil
		case <-ctx.Done():
			return "", ctx.Err()
		}
		if i > 0 {
			w = " " + w
		}
		written = append(written, strings.TrimSpace(w))
		onText(w)
	}
	return reply, nil
}

func (f *streamingService) stops() []bool {
	f.smu.Lock()
	defer f.smu.Unlock()
	return append([]bool(nil), f.stopped...)
}

func newStreamingWorld(t *testing.T, edit func(*voice.Config)) (*world, *streamingService) {
	var svc *streamingService
	w := newWorld(t, func(c *voice.Config) {
		svc = &streamingService{first: 300 * time.Millisecond, every: 50 * time.Millisecond}
		c.Chat = svc
		if edit != nil {
			edit(c)
		}
	})
	svc.fakeService = w.svc
	return w, svc
}

// TestLoop_StreamedReplyIsSpokenWhileWritten: the first sentence of a streamed reply is spoken
// before the model has finished writing it, and every sentence is spoken once, in order.
func TestLoop_StreamedReplyIsSpokenWhileWritten(t *testing.T) {
	long := "Paris is the capital of France. It lies on the Seine, a river that crosses the north of the country. " +
		"It has many bridges, among them the Pont Neuf, which is the oldest. It has museums, such as the Louvre."
	w, _ := newStreamingWorld(t, func(c *voice.Config) { c.Turns = 1 })
	w.svc.replies = []string{long}
	w.onStatus = func(s voice.Status) {
		if s.Turn == 1 && s.State == voice.Listening {
			go w.mic.say(corpus.question, 1)
		}
	}
	if err := w.wait(w.run()); err != nil {
		t.Fatal(err)
	}
	firstAudio, ok := w.event(1, voice.TracePlaybackStart, 0)
	chatDone, ok2 := w.event(1, voice.TraceChatDone, -1)
	if !ok || !ok2 {
		t.Fatalf("trace %v", w.traceOf(1))
	}
	if !firstAudio.Before(chatDone) {
		t.Errorf("first audio at %v, the reply was whole at %v: it waited for the whole reply", firstAudio, chatDone)
	}
	w.svc.mu.Lock()
	asked := slices.Sorted(slices.Values(w.svc.ttsAsked)) // asked ahead, so not in order
	w.svc.mu.Unlock()
	want := slices.Sorted(slices.Values(strings.SplitAfter(long, ". ")))
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if !slices.Equal(asked, want) {
		t.Errorf("spoken %q\nwant     %q", asked, want)
	}
	if got := len(w.sink.startedTimes()); got != 4 {
		t.Errorf("%d clips played, want 4", got)
	}
}

// TestLoop_BargeInStopsTheStream: a person who talks over a streamed reply stops it being written
// (the service is told), and their question is the next turn's.
func TestLoop_BargeInStopsTheStream(t *testing.T) {
	long := "Paris is the capital of France. " + strings.Repeat("It has many bridges and museums and parks. ", 40)
	w, svc := newStreamingWorld(t, func(c *voice.Config) { c.Turns = 2; c.BargeIn = true })
	w.mic.echoGain = 0.1
	w.svc.replies = []string{long, "About a thousand kilometres."}
	w.svc.transcripts = []string{"What is the capital of France?", "And how far away is it?"}
	talkOver(w, corpus.second)
	if err := w.wait(w.run()); err != nil {
		t.Fatal(err)
	}
	if stops := svc.stops(); len(stops) != 2 || !stops[0] || stops[1] {
		t.Errorf("stops per call %v, want the first stopped", stops)
	}
	if len(w.svc.questions) != 2 || w.svc.questions[1] != "And how far away is it?" {
		t.Errorf("questions %q", w.svc.questions)
	}
}

// TestLoop_StopWhileStreaming: Stop while a streamed reply is written ends it where it is, and
// Run returns once its call has.
func TestLoop_StopWhileStreaming(t *testing.T) {
	w, svc := newStreamingWorld(t, nil)
	w.svc.replies = []string{strings.Repeat("Word after word. ", 200)}
	w.onStatus = func(s voice.Status) {
		switch {
		case s.Turn == 1 && s.State == voice.Listening:
			go w.mic.say(corpus.question, 1)
		case s.Turn == 1 && s.State == voice.Speaking:
			go w.loop.Stop()
		}
	}
	if err := w.wait(w.run()); err != nil {
		t.Fatal(err)
	}
	if stops := svc.stops(); len(stops) != 1 || !stops[0] {
		t.Errorf("stops %v", stops)
	}
}
