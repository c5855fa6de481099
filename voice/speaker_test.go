package voice_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"
	"testing"

	"parley/audio/playback"
	"parley/client"
	"parley/voice"
)

// fakeSynth answers each sentence with its own text as "audio", after the test releases it.
type fakeSynth struct {
	mu       sync.Mutex
	asked    []string
	release  map[string]chan struct{}
	failText string
	asks     chan struct{} // one value per request, when not nil
}

func (f *fakeSynth) Speak(ctx context.Context, req client.SpeechRequest) (*client.Speech, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req.Text)
	ch := f.release[req.Text]
	f.mu.Unlock()
	if f.asks != nil {
		f.asks <- struct{}{}
	}
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if req.Text == f.failText {
		return nil, &client.Error{StatusCode: 502}
	}
	return &client.Speech{MIMEType: "audio/mpeg", Audio: []byte(req.Text)}, nil
}

func (f *fakeSynth) askedSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

type fakeQueue struct {
	mu      sync.Mutex
	clips   []string
	stopped int
}

func (q *fakeQueue) Enqueue(r io.Reader) (playback.ClipID, error) {
	b, _ := io.ReadAll(r)
	q.mu.Lock()
	defer q.mu.Unlock()
	q.clips = append(q.clips, string(b))
	return playback.ClipID(len(q.clips)), nil
}

func (q *fakeQueue) Stop() {
	q.mu.Lock()
	q.stopped++
	q.mu.Unlock()
}

const reply = "The tide turns at six. Wind from the west, force four. Hold course two seven zero. Keep a lookout for the ferry."

func TestSpeaker_FirstSentenceFirstAndInOrder(t *testing.T) {
	// The second sentence's speech comes back before the first's: the clips still play in order.
	s := &fakeSynth{release: map[string]chan struct{}{"The tide turns at six.": make(chan struct{})}, asks: make(chan struct{}, 10)}
	q := &fakeQueue{}
	sp := voice.NewSpeaker(s, q)
	done := make(chan error, 1)
	go func() { done <- sp.Say(t.Context(), reply, "en-gb", nil) }()
	for range 1 + voice.Lookahead {
		<-s.asks // the first sentence blocks, so no more than these can be asked
	}
	// While the first sentence's speech is still being made, it has been asked for, and no more
	// than Lookahead sentences after it.
	if got := s.askedSoFar(); !slices.Contains(got, "The tide turns at six.") || slices.Contains(got, "Keep a lookout for the ferry.") {
		t.Errorf("asked %q while the first sentence is pending", got)
	}
	if n := len(s.askedSoFar()); n > 1+voice.Lookahead {
		t.Errorf("%d requests in flight, want at most %d", n, 1+voice.Lookahead)
	}
	close(s.release["The tide turns at six."])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"The tide turns at six.", "Wind from the west, force four.", "Hold course two seven zero.", "Keep a lookout for the ferry."}
	if len(q.clips) != len(want) {
		t.Fatalf("clips %q", q.clips)
	}
	for i := range want {
		if q.clips[i] != want[i] {
			t.Errorf("clip %d = %q, want %q", i, q.clips[i], want[i])
		}
	}
}

func TestSpeaker_StopAndErrors(t *testing.T) {
	s := &fakeSynth{release: map[string]chan struct{}{"The tide turns at six.": make(chan struct{})}, asks: make(chan struct{}, 10)}
	q := &fakeQueue{}
	sp := voice.NewSpeaker(s, q)
	done := make(chan error, 1)
	go func() { done <- sp.Say(context.Background(), reply, "", nil) }()
	<-s.asks
	sp.Stop()
	if err := <-done; !errors.Is(err, context.Canceled) || len(q.clips) != 0 || q.stopped != 1 {
		t.Errorf("after Stop: err %v, clips %q, stops %d", err, q.clips, q.stopped)
	}

	s = &fakeSynth{failText: "Hold course two seven zero."}
	q = &fakeQueue{}
	err := voice.NewSpeaker(s, q).Say(t.Context(), reply, "", nil)
	var ce *client.Error
	if !errors.As(err, &ce) || len(q.clips) != 2 {
		t.Errorf("a failed sentence: err %v, clips %q; want the error after the first two", err, q.clips)
	}

	if err := voice.NewSpeaker(s, q).Say(t.Context(), "```\ncode\n```", "", nil); !errors.Is(err, voice.ErrNothingToSay) {
		t.Errorf("code only: %v", err)
	}
}
