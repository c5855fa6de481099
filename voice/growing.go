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
	text    string
	done    bool
	changed chan struct{} // closed, and replaced, at each change

	// The sentences of text, made again only when it changed.
	splitLen  int
	splitDone bool
	complete  []string
}

// NewGrowing returns a reply of which nothing is written yet.
func NewGrowing() *Growing { return &Growing{changed: make(chan struct{}), splitLen: -1} }

// Add adds the next piece of the reply.
func (g *Growing) Add(piece string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done || piece == "" {
		return
	}
	g.text += piece
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
		g.text = whole
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
	return g.text
}

// Ready reports whether the reply's first sentence is complete (or the reply ended).
func (g *Growing) Ready() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.done || len(g.sentences()) > 0
}

// sentences are the sentences that are complete, with g.mu held: every one of a finished
// reply's; of one still written, those of its settled blocks but the last, which may go on
// (unless its line has ended).
func (g *Growing) sentences() []string {
	if g.splitLen == len(g.text) && g.splitDone == g.done {
		return g.complete
	}
	g.splitLen, g.splitDone = len(g.text), g.done
	if g.done {
		g.complete = chunks(g.text)
		return g.complete
	}
	settled := markdown.SettledBlocks(g.text)
	all := chunks(settled)
	if len(all) > 0 && !endsSentence(settled) {
		all = all[:len(all)-1]
	}
	g.complete = all
	return all
}

// endsSentence reports whether text written so far ends a sentence: its line ended, or a
// sentence's last mark ('.', '?', '!', '…', and a closing quote or bracket after it) is followed
// by a space. A mark at the very end may go on ("3." of "3.5").
func endsSentence(text string) bool {
	if strings.HasSuffix(text, "\n") {
		return true
	}
	t := strings.TrimRight(text, " \t")
	if len(t) == len(text) {
		return false
	}
	t = strings.TrimRight(t, "\"')]”’»")
	return strings.HasSuffix(t, ".") || strings.HasSuffix(t, "?") || strings.HasSuffix(t, "!") || strings.HasSuffix(t, "…")
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

// SayGrowing says a reply while it is written: each sentence as soon as it is complete, the
// rest as Say does. It returns when every sentence of the finished reply is queued, when ctx
// ends, when Stop is called, or at the first failure; ErrNothingToSay when the reply had
// nothing to say.
func (s *Speaker) SayGrowing(ctx context.Context, g *Growing, voice string, onClip func(index int, id playback.ClipID)) error {
	return s.sayFrom(ctx, 0, g, voice, onClip)
}
