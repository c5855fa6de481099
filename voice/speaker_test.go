package voice_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"parley/audio/playback/playbacktest"
	"parley/audio/sentence"
	"parley/client"
	"parley/voice"
	"parley/voice/speakable"
)

// fakeSynth answers each sentence with its own text as "audio", after the test releases it.
type fakeSynth struct {
	mu        sync.Mutex
	asked     []string
	cancelled []string
	release   map[string]chan struct{}
	failText  string
	asks      chan struct{} // one value per request, when not nil
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
			f.mu.Lock()
			f.cancelled = append(f.cancelled, req.Text)
			f.mu.Unlock()
			return nil, ctx.Err()
		}
	}
	if req.Text == f.failText {
		return nil, &client.Error{StatusCode: 502}
	}
	return &client.Speech{MIMEType: "audio/mpeg", Audio: []byte(req.Text)}, nil
}

func (f *fakeSynth) cancelledSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(slices.Values(f.cancelled))
}

func (f *fakeSynth) askedSoFar() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// newSpeaker returns a speaker over s and a player that ends each clip as soon as it is given,
// before Enqueue returns (as a player whose clip fails at once may).
func newSpeaker(s voice.Synthesizer) (*voice.Speaker, *playbacktest.Player) {
	sp, q := newSpeakerPlayer(s)
	q.EndAtOnce = true
	return sp, q
}

// newSpeakerPlayer returns a speaker over s and a player whose clips end when the test says,
// wired to tell the speaker as the app's player callback does.
func newSpeakerPlayer(s voice.Synthesizer) (*voice.Speaker, *playbacktest.Player) {
	q := playbacktest.New()
	sp := voice.NewSpeaker(s, q)
	q.Open(sp.PlaybackEvent)
	return sp, q
}

const reply = "The tide turns at six. Wind from the west, force four. Hold course two seven zero. Keep a lookout for the ferry."

func TestSpeaker_FirstSentenceFirstAndAlone(t *testing.T) {
	s := &fakeSynth{release: map[string]chan struct{}{"The tide turns at six.": make(chan struct{})}, asks: make(chan struct{}, 10)}
	sp, q := newSpeaker(s)
	done := make(chan error, 1)
	go func() { done <- sp.Say(t.Context(), reply, "en-gb", nil) }()
	<-s.asks
	// While the first sentence's speech is being made, nothing else competes with it.
	if got := s.askedSoFar(); !slices.Equal(got, []string{"The tide turns at six."}) {
		t.Errorf("asked %q while the first sentence is pending, want it alone", got)
	}
	close(s.release["The tide turns at six."])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"The tide turns at six.", "Wind from the west, force four.", "Hold course two seven zero.", "Keep a lookout for the ferry."}
	if got := q.Clips(); !slices.Equal(got, want) {
		t.Errorf("clips %q, want %q", got, want)
	}
}

func TestSpeaker_LaterSentencesInOrder(t *testing.T) {
	// The second sentence's speech comes back after the third's and fourth's: the clips still
	// play in order.
	second := "Wind from the west, force four."
	s := &fakeSynth{release: map[string]chan struct{}{second: make(chan struct{})}, asks: make(chan struct{}, 10)}
	sp, q := newSpeaker(s)
	done := make(chan error, 1)
	go func() { done <- sp.Say(t.Context(), reply, "", nil) }()
	for range 4 {
		<-s.asks
	}
	close(s.release[second])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := []string{"The tide turns at six.", second, "Hold course two seven zero.", "Keep a lookout for the ferry."}
	if got := q.Clips(); !slices.Equal(got, want) {
		t.Errorf("clips %q, want %q", got, want)
	}
}

func TestSpeaker_FirstClauseOfALongFirstSentence(t *testing.T) {
	// A long first sentence is asked for in two parts, the first ending at its first clause;
	// together they say the same words.
	text := "When you get to the **station** tomorrow morning, take the second exit and walk north along the river. Then call me."
	s := &fakeSynth{}
	sp, q := newSpeaker(s)
	if err := sp.Say(t.Context(), text, "", nil); err != nil {
		t.Fatal(err)
	}
	if asked := s.askedSoFar(); len(asked) == 0 || asked[0] != "When you get to the station tomorrow morning," {
		t.Errorf("first request %q", asked)
	}
	if got, want := strings.Fields(strings.Join(q.Clips(), " ")), strings.Fields(strings.ReplaceAll(text, "**", "")); !slices.Equal(got, want) {
		t.Errorf("words spoken %q, want %q", got, want)
	}
}

func TestSpeaker_LookaheadFollowsPlayback(t *testing.T) {
	s := &fakeSynth{asks: make(chan struct{}, 10)}
	sp, q := newSpeakerPlayer(s)
	done := make(chan error, 1)
	go func() { done <- sp.Say(t.Context(), reply, "", nil) }()
	// Nothing has played: the first sentence and Lookahead after it are prepared, no more.
	for range 1 + voice.Lookahead {
		<-q.Added
	}
	if got := s.askedSoFar(); len(got) != 1+voice.Lookahead {
		t.Errorf("asked %q before any clip ended, want %d sentences", got, 1+voice.Lookahead)
	}
	if !sp.Pending() {
		t.Error("not pending while sentences are still to be queued")
	}
	q.EndNext() // the first sentence has played
	<-q.Added
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := q.Clips(); len(got) != 4 {
		t.Errorf("clips %q", got)
	}
	// Everything is queued; three clips have yet to end.
	for range 3 {
		if !sp.Pending() {
			t.Error("not pending while clips play")
		}
		q.EndNext()
	}
	if sp.Pending() {
		t.Error("pending after every clip ended")
	}
}

func TestSpeaker_StopCancelsWhatIsPrepared(t *testing.T) {
	// The first sentence plays; the next two are being made when Stop comes: both calls are
	// cancelled, and nothing more is queued.
	later := []string{"Hold course two seven zero.", "Wind from the west, force four."} // sorted
	s := &fakeSynth{release: map[string]chan struct{}{later[0]: make(chan struct{}), later[1]: make(chan struct{})},
		asks: make(chan struct{}, 10)}
	sp, q := newSpeakerPlayer(s)
	done := make(chan error, 1)
	go func() { done <- sp.Say(t.Context(), reply, "", nil) }()
	for range 1 + voice.Lookahead {
		<-s.asks
	}
	sp.Stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Say after Stop = %v", err)
	}
	if got := s.cancelledSoFar(); !slices.Equal(got, later) {
		t.Errorf("cancelled %q, want %q", got, later)
	}
	if got := q.Clips(); len(got) != 1 || q.Stops() != 1 {
		t.Errorf("clips %q, %d stops", got, q.Stops())
	}
}

func TestSpeaker_StopAndErrors(t *testing.T) {
	s := &fakeSynth{release: map[string]chan struct{}{"The tide turns at six.": make(chan struct{})}, asks: make(chan struct{}, 10)}
	sp, q := newSpeaker(s)
	done := make(chan error, 1)
	go func() { done <- sp.Say(context.Background(), reply, "", nil) }()
	<-s.asks
	sp.Stop()
	if err := <-done; !errors.Is(err, context.Canceled) || len(q.Clips()) != 0 || q.Stops() != 1 {
		t.Errorf("after Stop: err %v, clips %q, stops %d", err, q.Clips(), q.Stops())
	}

	s = &fakeSynth{failText: "Hold course two seven zero."}
	sp, q = newSpeaker(s)
	err := sp.Say(t.Context(), reply, "", nil)
	var ce *client.Error
	if !errors.As(err, &ce) || len(q.Clips()) != 2 {
		t.Errorf("a failed sentence: err %v, clips %q; want the error after the first two", err, q.Clips())
	}

	if err := sp.Say(t.Context(), "```\ncode\n```", "", nil); !errors.Is(err, voice.ErrNothingToSay) {
		t.Errorf("code only: %v", err)
	}
}

// longReply is a reply of about 49 KB in Markdown, like the one of issue 17 that made 570 speech
// calls while its first sentences played.
func longReply() string {
	para := "## Part\n\nThe harbour was **busy** that morning, and the ferries left on time. " +
		"Fishing boats came in with the tide. See [the timetable](https://ferries.example/times) for details.\n\n" +
		"- Check the weather before you sail.\n- Carry a radio.\n- Tell someone where you are going.\n\n" +
		"> Keep a lookout at all times.\n\nThe lighthouse has stood since 1850. It was rebuilt twice, once after a storm. " +
		"Its lamp can be seen from twenty miles away on a clear night.\n\n"
	var b strings.Builder
	for b.Len() < 49*1024 {
		b.WriteString(para)
	}
	return b.String()
}

// playedFor plays the clips the speaker queues one after another at speaking speed, about 15
// characters a second, on a simulated clock, and returns after d of playback (mid-clip) with
// the number of clips that started. The speaker's speech comes at once: playback never waits.
func playedFor(t *testing.T, q *playbacktest.Player, done <-chan error, d time.Duration) int {
	t.Helper()
	const perRune = 65 * time.Millisecond
	var now time.Duration
	started := 0
	for now < d {
		var clip string
		select {
		case clip = <-q.Added:
		case err := <-done:
			t.Fatalf("Say returned %v after %v of playback", err, now)
		}
		started++
		length := time.Duration(utf8.RuneCountInString(clip)) * perRune
		if now+length > d {
			break // the clip playing when the person presses Esc
		}
		now += length
		q.EndNext()
	}
	return started
}

func TestSpeaker_LongReplyStoppedAfter5s(t *testing.T) {
	text := longReply()
	s := &fakeSynth{}
	sp, q := newSpeakerPlayer(s)
	done := make(chan error, 1)
	go func() { done <- sp.Say(t.Context(), text, "", nil) }()
	started := playedFor(t, q, done, 5*time.Second)
	sp.Stop() // Esc
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Say after Stop = %v", err)
	}
	calls := len(s.askedSoFar())
	sentences := len(sentence.Split(speakable.Text(text), sentence.DefaultMaxLen))
	t.Logf("a %d KB reply of %d sentences, stopped after 5 s of speech with %d sentences heard: %d speech calls (Lookahead %d)",
		len(text)/1024, sentences, started, calls, voice.Lookahead)
	if calls > started+voice.Lookahead {
		t.Errorf("%d speech calls for %d sentences heard, want at most %d", calls, started, started+voice.Lookahead)
	}
}

// askedWithin waits for s's next speech request, failing the test if none comes.
func askedWithin(t *testing.T, s *fakeSynth) {
	t.Helper()
	select {
	case <-s.asks:
	case <-time.After(10 * time.Second):
		t.Fatalf("no speech was asked for; asked so far: %q", s.askedSoFar())
	}
}

// A reply written up to a full stop has its first sentence's speech asked for at once, before
// the next word shows that the sentence ended ("3." may go on as "3.5"): the model writes that
// word 50–100 ms later, which the speech's time then covers. Once the next word confirms it, that
// speech is the one played, not asked for again.
func TestSpeaker_GrowingFirstSentenceAskedAtItsFullStop(t *testing.T) {
	first := "It is warm today."
	s := &fakeSynth{release: map[string]chan struct{}{first: make(chan struct{})}, asks: make(chan struct{}, 10)}
	sp, q := newSpeaker(s)
	g := voice.NewGrowing()
	done := make(chan error, 1)
	go func() { done <- sp.SayGrowing(t.Context(), g, "", nil) }()
	g.Add("It is warm")
	g.Add(" today.")
	askedWithin(t, s)
	if got := s.askedSoFar(); !slices.Equal(got, []string{first}) {
		t.Fatalf("asked %q before the next word, want the first sentence", got)
	}
	g.Add(" It will rain.")
	g.Finish("")
	close(s.release[first])
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := q.Clips(); !slices.Equal(got, []string{first, "It will rain."}) {
		t.Errorf("clips %q", got)
	}
	if got := s.askedSoFar(); !slices.Equal(got, []string{first, "It will rain."}) {
		t.Errorf("asked %q: the first sentence's speech was asked for twice", got)
	}
}

// When the next piece goes on with the sentence, the speech asked for at its full stop is
// cancelled and never played; the whole sentence is said.
func TestSpeaker_GrowingTentativeSentenceThatGoesOn(t *testing.T) {
	s := &fakeSynth{release: map[string]chan struct{}{"It is 3.": make(chan struct{})}, asks: make(chan struct{}, 10)}
	sp, q := newSpeaker(s)
	g := voice.NewGrowing()
	done := make(chan error, 1)
	go func() { done <- sp.SayGrowing(t.Context(), g, "", nil) }()
	g.Add("It is 3.")
	askedWithin(t, s)
	g.Add("5 degrees outside. Stay warm.")
	g.Finish("")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	clips := q.Clips()
	if len(clips) != 2 || !strings.HasPrefix(clips[0], "It is 3.5") || clips[1] != "Stay warm." {
		t.Errorf("clips %q, want the whole first sentence, then the second", clips)
	}
	if got := s.cancelledSoFar(); !slices.Equal(got, []string{"It is 3."}) {
		t.Errorf("cancelled %q, want the tentative sentence's speech", got)
	}
}
