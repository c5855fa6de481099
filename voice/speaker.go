// Package voice holds the spoken side of Parley without a UI: a Speaker that says a reply
// sentence by sentence, requesting the first sentence's speech at once and alone, and the next
// ones a few at a time as earlier ones play, so that playback does not wait between sentences
// when the service is fast enough and a stopped reply was not synthesised far ahead. The desktop
// app and the terminal share it.
package voice

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"parley/audio/playback"
	"parley/audio/sentence"
	"parley/client"
	"parley/voice/speakable"
)

// Synthesizer turns text into speech; *client.Client is one.
type Synthesizer interface {
	Speak(ctx context.Context, req client.SpeechRequest) (*client.Speech, error)
}

// Queue plays clips one after another; *playback.Player is one. Its events must reach the
// Speaker through PlaybackEvent: the Speaker prepares sentences only as earlier ones finish
// playing.
type Queue interface {
	Enqueue(r io.Reader) (playback.ClipID, error)
	Stop()
}

// PlaybackListener is told what a player did; *Loop and *Speaker are ones. Whoever makes a
// player wires its event callback to the listeners of the clips it plays: the voice loop passes
// them on to its Speaker, and push-to-talk's player tells its Speaker directly.
type PlaybackListener interface {
	PlaybackEvent(ev playback.Event)
}

var (
	_ PlaybackListener = (*Loop)(nil)
	_ PlaybackListener = (*Speaker)(nil)
)

// Lookahead is how many sentences' speech is prepared (requested, or queued not yet playing)
// ahead of the sentence playing. A sentence plays for 1 to 4 s; its speech takes about 0.1 s on
// an idle 2-core machine and 0.25 to 0.5 s at the p95 on a busy one (espeak-ng,
// BenchmarkLoop_FirstSentenceSpeech). One sentence ahead covers that while a sentence of a second
// or more plays; the second covers a short one ("Yes.") followed by a slow request. A reply
// stopped early has cost at most Lookahead sentences that were never heard.
const Lookahead = 2

// ErrNothingToSay is returned for text with nothing speakable in it.
var ErrNothingToSay = errors.New("nothing to say")

// Speaker says texts through a synthesizer and a playback queue, one text at a time: saying a
// new text, or Stop, ends the one before. Tell it the queue's events through PlaybackEvent.
type Speaker struct {
	synth Synthesizer
	queue Queue

	mu     sync.Mutex
	cancel context.CancelFunc
	gen    int

	// progress follows the playback of the clips of the text being said.
	progress atomic.Pointer[progress]

	// trace, when set, is told when each sentence's speech is requested and when it arrives.
	trace func(turn, index int, done bool)
}

// NewSpeaker returns a Speaker over synth and queue.
func NewSpeaker(synth Synthesizer, queue Queue) *Speaker {
	return &Speaker{synth: synth, queue: queue}
}

// PlaybackEvent tells the Speaker what the queue did: each clip of its own that ends lets it
// prepare one more sentence. Events of other clips are ignored. It never blocks for long.
func (s *Speaker) PlaybackEvent(ev playback.Event) {
	if p := s.progress.Load(); p != nil && ev.Kind == playback.ClipEnded {
		p.ended(ev.Clip)
	}
}

// Pending reports whether the text being said has sentences not yet queued, or clips that have
// not ended: a QueueDrained event meanwhile is a gap between two sentences (the next one's speech
// is late), not the end of the text.
func (s *Speaker) Pending() bool {
	p := s.progress.Load()
	return p != nil && p.pending()
}

// Say speaks text, a reply in Markdown, with voice ("" for the service's default). Its speakable
// form (see package speakable) is said sentence by sentence: the first sentence's speech is
// requested at once and alone, so nothing competes with it; the next ones once it has arrived, at
// most Lookahead ahead of the sentence playing. Say returns when every sentence is queued
// (playback goes on after), when ctx ends, when Stop is called, or at the first failure; onClip,
// when not nil, is told each clip queued.
func (s *Speaker) Say(ctx context.Context, text, voice string, onClip func(index int, id playback.ClipID)) error {
	return s.say(ctx, 0, text, voice, onClip)
}

// chunks returns the sentences of text to be spoken: none when it holds only code.
func chunks(text string) []string {
	all := sentence.Split(speakable.Text(text), sentence.DefaultMaxLen)
	for _, c := range all {
		if strings.TrimSpace(strings.ReplaceAll(c, sentence.CodePlaceholder, "")) != "" {
			return all
		}
	}
	return nil
}

// say is Say for turn, which it gives the trace.
func (s *Speaker) say(ctx context.Context, turn int, text, voice string, onClip func(index int, id playback.ClipID)) error {
	sentences := chunks(text)
	if len(sentences) == 0 {
		return ErrNothingToSay
	}
	return s.sayFrom(ctx, turn, fixedSentences(sentences), voice, onClip)
}

// sentenceSource gives the sentences of a text to say, in order.
type sentenceSource interface {
	// sentence returns sentence i, waiting until it is known; false when the text ended
	// before it, or ctx did.
	sentence(ctx context.Context, i int) (string, bool)
	// last reports whether sentence i is known to be the text's last.
	last(i int) bool
}

// fixedSentences are the sentences of a whole text.
type fixedSentences []string

func (f fixedSentences) sentence(_ context.Context, i int) (string, bool) {
	if i < len(f) {
		return f[i], true
	}
	return "", false
}

func (f fixedSentences) last(i int) bool { return i == len(f)-1 }

// sayFrom says the sentences of src, as Say does: the first requested at once and alone, the
// next ones once it has arrived, at most Lookahead ahead of the sentence playing. A sentence
// src does not know yet is waited for. It returns ErrNothingToSay when src has none.
func (s *Speaker) sayFrom(ctx context.Context, turn int, src sentenceSource, voice string, onClip func(index int, id playback.ClipID)) error {
	ctx, cancel := context.WithCancel(ctx)
	prog := newProgress()
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.gen++
	gen := s.gen
	s.cancel = cancel
	s.progress.Store(prog)
	s.mu.Unlock()
	// calls are the speech requests: say returns once they have, so none outlives it.
	var calls sync.WaitGroup
	defer func() {
		s.mu.Lock()
		if s.gen == gen {
			s.cancel = nil
		}
		s.mu.Unlock()
		cancel()
		calls.Wait()
		prog.over()
	}()

	type result = speechResult
	fetch := func(ctx context.Context, i int, text string, out chan<- result) {
		out <- s.speech(ctx, turn, i, text, voice)
	}
	// The first sentence is requested alone; each later one once the first has arrived and the
	// sentences before it, less Lookahead, have played. order carries each sentence's result, in
	// order, and is closed after the last.
	order := make(chan chan result, Lookahead+2)
	firstOK := make(chan struct{})
	calls.Go(func() {
		defer close(order)
		for i := 0; ; i++ {
			var text string
			var ok bool
			var early chan result // the first sentence's speech, asked for while it was tentative
			if ts, can := src.(tentativeSource); can && i == 0 {
				text, early, ok = firstSentence(ctx, ts, &calls, fetch)
			} else {
				text, ok = src.sentence(ctx, i)
			}
			if !ok {
				return
			}
			if i > 0 {
				select {
				case <-firstOK:
				case <-ctx.Done():
					return
				}
				if !prog.waitFor(ctx, i-Lookahead) {
					return
				}
			}
			out := early
			if out == nil {
				out = make(chan result, 1)
				calls.Go(func() { fetch(ctx, i, text, out) })
			}
			select {
			case order <- out:
			case <-ctx.Done():
				return
			}
		}
	})
	i := 0
	for out := range order {
		var r result
		select {
		case r = <-out:
		case <-ctx.Done():
			return ctx.Err()
		}
		if r.err != nil {
			return r.err
		}
		if i == 0 {
			close(firstOK)
		}
		// Checked and queued under the lock that Stop cancels under, so a clip is never queued
		// after Stop: either it is queued first, and Stop's queue.Stop ends it, or it is not.
		s.mu.Lock()
		if ctx.Err() != nil {
			s.mu.Unlock()
			return ctx.Err()
		}
		prog.enqueuing()
		id, err := s.queue.Enqueue(bytes.NewReader(r.audio))
		prog.queued(id, err == nil)
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if onClip != nil {
			onClip(i, id)
		}
		if src.last(i) {
			return nil // every sentence is queued: said, as soon as can be
		}
		i++
	}
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case i == 0:
		return ErrNothingToSay
	}
	return nil
}

// speech asks for sentence i's speech, tracing the request and its answer.
func (s *Speaker) speech(ctx context.Context, turn, i int, text, voice string) speechResult {
	if s.trace != nil {
		s.trace(turn, i, false)
	}
	sp, err := s.synth.Speak(ctx, client.SpeechRequest{Text: text, Voice: voice})
	if s.trace != nil && ctx.Err() == nil {
		// A request cancelled (a tentative first sentence that went on, or a Stop) has no
		// answer to trace: its time would count as the speech's. A tentative one dropped is
		// asked again, and traced again.
		s.trace(turn, i, true)
	}
	if err == nil && len(sp.Audio) == 0 {
		err = errors.New("the service returned no audio")
	}
	if err != nil {
		return speechResult{err: err}
	}
	return speechResult{audio: sp.Audio}
}

// speechResult is a sentence's speech, or why there is none.
type speechResult struct {
	audio []byte
	err   error
}

// tentativeSource is a sentenceSource that can also tell a sentence that is probably complete
// before it is sure (a reply still written that ends on a full stop: "It is 3." may go on as
// "3.5").
type tentativeSource interface {
	sentenceSource
	// sentenceOrTentative returns sentence i once it is complete (final), or earlier, as it
	// stands, once it is tentatively complete and differs from seen; false when the text ended
	// before it, or ctx did.
	sentenceOrTentative(ctx context.Context, i int, seen string) (text string, final, ok bool)
}

// firstSentence waits for the first sentence of src, and asks for its speech as soon as it is
// tentatively complete: a model writes the word after a full stop 50–100 ms later, and the
// speech is most often asked for the same sentence. It returns the sentence, and the channel of
// its speech when that was asked already (nil: ask for it); a tentative sentence's speech that is
// not the sentence's is cancelled. Speech costs no points.
func firstSentence(ctx context.Context, src tentativeSource, calls *sync.WaitGroup, fetch func(context.Context, int, string, chan<- speechResult)) (string, chan speechResult, bool) {
	var early struct {
		text string
		out  chan speechResult
		stop context.CancelFunc
	}
	drop := func() {
		if early.stop != nil {
			early.stop()
		}
	}
	for {
		text, final, ok := src.sentenceOrTentative(ctx, 0, early.text)
		switch {
		case !ok:
			drop()
			return "", nil, false
		case final && early.out != nil && text == early.text:
			return text, early.out, true // its speech goes on; sayFrom's end cancels ctx
		case final:
			drop()
			return text, nil, true
		}
		drop()
		tctx, stop := context.WithCancel(ctx)
		out := make(chan speechResult, 1)
		early.text, early.out, early.stop = text, out, stop
		calls.Go(func() { fetch(tctx, 0, text, out) })
	}
}

// progress counts the clips of one text that have finished playing. A clip may end before
// Enqueue has returned its ID: such endings are kept until the ID is known.
type progress struct {
	mu      sync.Mutex
	clips   map[playback.ClipID]bool // the text's clips that have not ended
	early   []playback.ClipID        // clips that ended while one was being queued
	queuing bool
	saying  bool          // say has not returned
	queuedN int           // the text's clips queued
	done    int           // and ended
	changed chan struct{} // closed, and replaced, when done grows
}

func newProgress() *progress {
	return &progress{clips: map[playback.ClipID]bool{}, saying: true, changed: make(chan struct{})}
}

// over notes that say returned: no more clips will be queued.
func (p *progress) over() {
	p.mu.Lock()
	p.saying = false
	p.mu.Unlock()
}

// pending reports whether clips may still be queued, or some queued have not ended.
func (p *progress) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.saying || p.done < p.queuedN
}

// enqueuing notes that a clip is being queued, so that an ending of an unknown clip is kept.
func (p *progress) enqueuing() {
	p.mu.Lock()
	p.queuing = true
	p.mu.Unlock()
}

// queued notes the ID of the clip just queued (ok false: it was not).
func (p *progress) queued(id playback.ClipID, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	early := p.early
	p.queuing, p.early = false, nil
	if !ok {
		return
	}
	p.queuedN++
	for _, e := range early {
		if e == id {
			p.grow()
			return
		}
	}
	p.clips[id] = true
}

// ended notes that a clip ended.
func (p *progress) ended(id playback.ClipID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.clips[id]:
		delete(p.clips, id)
		p.grow()
	case p.queuing && len(p.early) < 64:
		p.early = append(p.early, id)
	}
}

// grow counts one more clip ended, with p.mu held.
func (p *progress) grow() {
	p.done++
	close(p.changed)
	p.changed = make(chan struct{})
}

// waitFor waits until n clips have ended; false when ctx ended first.
func (p *progress) waitFor(ctx context.Context, n int) bool {
	for {
		if ctx.Err() != nil {
			return false // even when clips ended too: nothing is asked for after Stop
		}
		p.mu.Lock()
		done, changed := p.done, p.changed
		p.mu.Unlock()
		if done >= n {
			return true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return false
		}
	}
}

// Stop ends what is being said: no more speech is requested and playback stops.
func (s *Speaker) Stop() {
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.mu.Unlock()
	s.queue.Stop()
}
