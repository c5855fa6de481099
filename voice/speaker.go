// Package voice holds the spoken side of Parley without a UI: a Speaker that says a reply
// sentence by sentence, requesting the first sentence's speech at once and the next ones while
// earlier ones play, so that playback does not wait between sentences when the service is fast
// enough. The desktop app and the terminal share it.
package voice

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"

	"parley/audio/playback"
	"parley/audio/sentence"
	"parley/client"
)

// Synthesizer turns text into speech; *client.Client is one.
type Synthesizer interface {
	Speak(ctx context.Context, req client.SpeechRequest) (*client.Speech, error)
}

// Queue plays clips one after another; *playback.Player is one.
type Queue interface {
	Enqueue(r io.Reader) (playback.ClipID, error)
	Stop()
}

// Lookahead is how many sentences' speech is requested ahead of the one playing.
const Lookahead = 2

// ErrNothingToSay is returned for text with nothing speakable in it.
var ErrNothingToSay = errors.New("nothing to say")

// Speaker says texts through a synthesizer and a playback queue, one text at a time: saying a
// new text, or Stop, ends the one before.
type Speaker struct {
	synth Synthesizer
	queue Queue

	mu     sync.Mutex
	cancel context.CancelFunc
	gen    int

	// trace, when set, is told when each sentence's speech is requested and when it arrives.
	trace func(turn, index int, done bool)
}

// NewSpeaker returns a Speaker over synth and queue.
func NewSpeaker(synth Synthesizer, queue Queue) *Speaker {
	return &Speaker{synth: synth, queue: queue}
}

// Say speaks text with voice ("" for the service's default). The first sentence's speech is
// requested at once, and up to Lookahead sentences are fetched while earlier ones play. Say
// returns when every sentence is queued (playback goes on after), when ctx ends, when Stop is
// called, or at the first failure; onClip, when not nil, is told each clip queued.
func (s *Speaker) Say(ctx context.Context, text, voice string, onClip func(index int, id playback.ClipID)) error {
	return s.say(ctx, 0, text, voice, onClip)
}

// say is Say for turn, which it gives the trace.
func (s *Speaker) say(ctx context.Context, turn int, text, voice string, onClip func(index int, id playback.ClipID)) error {
	chunks := sentence.Split(text, sentence.DefaultMaxLen)
	speakable := chunks[:0:0]
	for _, c := range chunks {
		if strings.TrimSpace(strings.ReplaceAll(c, sentence.CodePlaceholder, "")) != "" {
			speakable = append(speakable, c)
		}
	}
	if len(speakable) == 0 {
		return ErrNothingToSay
	}
	ctx, cancel := context.WithCancel(ctx)
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.gen++
	gen := s.gen
	s.cancel = cancel
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.gen == gen {
			s.cancel = nil
		}
		s.mu.Unlock()
		cancel()
	}()

	type result struct {
		audio []byte
		err   error
	}
	results := make([]chan result, len(speakable))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	// Fetch in order, at most Lookahead+1 requests ahead of what has been queued; each request
	// starts after the one before it has started, so the first sentence is always asked first.
	slots := make(chan struct{}, Lookahead+1)
	go func() {
		for i, text := range speakable {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			started := make(chan struct{})
			go func() {
				if s.trace != nil {
					s.trace(turn, i, false)
				}
				close(started)
				sp, err := s.synth.Speak(ctx, client.SpeechRequest{Text: text, Voice: voice})
				if s.trace != nil {
					s.trace(turn, i, true)
				}
				if err == nil && len(sp.Audio) == 0 {
					err = errors.New("the service returned no audio")
				}
				var audio []byte
				if err == nil {
					audio = sp.Audio
				}
				results[i] <- result{audio, err}
			}()
			<-started
		}
	}()
	for i := range speakable {
		var r result
		select {
		case r = <-results[i]:
		case <-ctx.Done():
			return ctx.Err()
		}
		<-slots
		if r.err != nil {
			return r.err
		}
		// Checked and queued under the lock that Stop cancels under, so a clip is never queued
		// after Stop: either it is queued first, and Stop's queue.Stop ends it, or it is not.
		s.mu.Lock()
		if ctx.Err() != nil {
			s.mu.Unlock()
			return ctx.Err()
		}
		id, err := s.queue.Enqueue(bytes.NewReader(r.audio))
		s.mu.Unlock()
		if err != nil {
			return err
		}
		if onClip != nil {
			onClip(i, id)
		}
	}
	return nil
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
