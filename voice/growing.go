package voice

import (
	"context"
	"strings"
	"sync"

	"parley/audio/playback"
	"parley/markdown"
)

// Growing is a reply still being written (a streamed reply): a Speaker says its sentences as
// each is complete, with the rules of a whole reply applied to what is written so far (no half
// link, and a table or a code block only once it is whole: markdown.SettledBlocks). Its methods
// are safe for concurrent use.
type Growing struct {
	mu      sync.Mutex
	text    strings.Builder
	done    bool
	changed chan struct{} // closed, and replaced, at each change

	// complete are the sentences handed out as complete, split when the text was splitAt bytes
	// long (-1: never); only new text with a mark that may end a sentence or a clause is split
	// again.
	splitAt   int
	splitDone bool
	complete  []string
	// tentative is the next sentence after complete when only its full stop holds it back
	// (endsSentence): complete unless the next piece goes on with it ("3." as "3.5").
	tentative string
}

// NewGrowing returns a reply of which nothing is written yet.
func NewGrowing() *Growing { return &Growing{changed: make(chan struct{}), splitAt: -1} }

// Add adds the next piece of the reply.
func (g *Growing) Add(piece string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || piece == "" {
		return
	}
	g.text.WriteString(piece)
	g.notify()
}

// Finish ends the reply: whole is the reply as stored ("" keeps what was written, for a reply
// that ended without one: nothing more is said of it after what is complete).
func (g *Growing) Finish(whole string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return
	}
	if whole != "" {
		g.text.Reset()
		g.text.WriteString(whole)
	}
	g.done = true
	g.notify()
}

func (g *Growing) notify() {
	close(g.changed)
	g.changed = make(chan struct{})
}

// Text is the reply as written so far.
func (g *Growing) Text() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.text.String()
}

// Ready reports whether the reply's first sentence is complete, or only its full stop holds it
// back (its speech is asked for then: see firstSentence), or the reply ended.
func (g *Growing) Ready() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done || len(g.sentences()) > 0 || g.tentative != ""
}

// Probes appended to what is written so far (its settled Markdown), to see which of its
// sentences more text cannot change: one that starts a new sentence, and one that goes on with
// the last (a long first sentence is cut for a fast first sound where a clause ends, which
// depends on its length).
const (
	probeNext = " Zed."
	probeOn   = " and so the sentence goes on for quite a few more words than this"
)

// sentences are the sentences that are complete, with g.mu held: every one of a finished
// reply's; of one still written, those of its settled blocks (markdown.SettledBlocks) that split
// the same however it goes on: with a new sentence after it, or with more of its last sentence.
// The last one is complete only when a sentence mark and a space (or a line's end) follow it.
func (g *Growing) sentences() []string {
	text := g.text.String()
	switch {
	case g.splitAt == len(text) && g.splitDone == g.done:
		return g.complete
	case !g.done && g.splitAt >= 0 && !strings.ContainsAny(text[max(0, g.splitAt-4):], ".!?…,;:\n"):
		// Nothing came that may end a sentence or a clause, nor follows one that did (the
		// space after a full stop, after its closing quote).
		return g.complete
	}
	g.splitAt, g.splitDone = len(text), g.done
	g.tentative = ""
	var now []string
	if g.done {
		now = chunks(text)
	} else {
		settled := markdown.SettledBlocks(text)
		base := chunks(settled)
		n := stablePrefix(base, chunks(settled+probeNext), 1)
		if n < len(base) {
			n = min(n, stablePrefix(base, chunks(settled+probeOn), 0))
		} else if n > 0 && !endsSentence(settled) {
			n-- // "It is 3." may go on as "3.5"
			if n == len(g.complete) {
				g.tentative = base[n]
			}
		}
		now = base[:n]
	}
	// What was handed out stays: a reply whose earlier sentences split otherwise now (which the
	// probes are there to prevent) goes on after them.
	if k := len(g.complete); len(now) > k {
		g.complete = append(g.complete, now[k:]...)
	}
	return g.complete
}

// stablePrefix is how many of base's first chunks probed has too, the same, not counting
// probed's last drop chunks (the probe's own).
func stablePrefix(base, probed []string, drop int) int {
	probed = probed[:max(0, len(probed)-drop)]
	n := 0
	for n < len(base) && n < len(probed) && base[n] == probed[n] {
		n++
	}
	return n
}

// endsSentence reports whether text written so far ends its last sentence whatever comes next:
// its line ended, or it ends in '!' or '?' (and a closing quote or bracket) followed by a space.
// A full stop or an ellipsis ends a sentence only before what does not start with a small letter
// ("3." may go on as "3.5", "away... and" goes on), so the next word is waited for.
func endsSentence(text string) bool {
	if strings.HasSuffix(text, "\n") {
		return true
	}
	t := strings.TrimRight(text, " \t")
	if len(t) == len(text) {
		return false
	}
	t = strings.TrimRight(t, "\"')]”’»")
	return strings.HasSuffix(t, "?") || strings.HasSuffix(t, "!")
}

// sentence is sentence i of the reply, waiting until it is complete; false when the reply
// ended before it, or ctx did.
func (g *Growing) sentence(ctx context.Context, i int) (string, bool) {
	for {
		g.mu.Lock()
		all := g.sentences()
		done, changed := g.done, g.changed
		g.mu.Unlock()
		switch {
		case i < len(all):
			return all[i], true
		case done:
			return "", false
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", false
		}
	}
}

// sentenceOrTentative is sentence, returning early (final false) with sentence i as it stands
// once only its full stop holds it back, and it is not seen.
func (g *Growing) sentenceOrTentative(ctx context.Context, i int, seen string) (string, bool, bool) {
	for {
		g.mu.Lock()
		all := g.sentences()
		done, changed, tentative := g.done, g.changed, g.tentative
		g.mu.Unlock()
		switch {
		case i < len(all):
			return all[i], true, true
		case done:
			return "", false, false
		case i == len(all) && tentative != "" && tentative != seen:
			return tentative, false, true
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return "", false, false
		}
	}
}

// last reports whether sentence i is the finished reply's last.
func (g *Growing) last(i int) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done && i == len(g.sentences())-1
}

// SayGrowing says a reply while it is written: each sentence as soon as it is complete, the
// rest as Say does. It returns when every sentence of the finished reply is queued, when ctx
// ends, when Stop is called, or at the first failure; ErrNothingToSay when the reply had
// nothing to say.
func (s *Speaker) SayGrowing(ctx context.Context, g *Growing, voice string, onClip func(index int, id playback.ClipID)) error {
	return s.sayFrom(ctx, 0, g, voice, onClip)
}
