package server

import (
	"context"
	"errors"
	"net/http"
	"os"
	"sync"
	"time"

	"parley/engine"
	"parley/media"
	"parley/server/speech"
)

// researchAfter is how long a search for a speech recognition server on this computer holds:
// a transcription after it looks again, in the background (that call does not wait).
const researchAfter = time.Minute

// recogniserTimeout bounds one transcription by a recogniser found on this computer: Whisper on
// a CPU takes a few seconds for a question; one that takes longer is given up for PocketSphinx.
const recogniserTimeout = 20 * time.Second

// hearing is the built-in service's own speech recognition: a Whisper server found on this
// computer while one answers (engine.FindRecognisers: speaches, LocalAI, vLLM, whisper.cpp's
// server), else PocketSphinx in this process.
type hearing struct {
	// find searches this computer; tests replace it.
	find func(ctx context.Context) []engine.Recogniser

	mu        sync.Mutex
	found     *foundRecogniser // nil: none found, PocketSphinx hears
	searched  time.Time        // when the last search ended; zero before the first
	searching chan struct{}    // closed when the search under way ends; nil when none runs
}

// foundRecogniser is a recogniser found, with the Transcriber that asks it.
type foundRecogniser struct {
	r engine.Recogniser
	t speech.Transcriber
}

func newHearing() *hearing {
	return &hearing{find: func(ctx context.Context) []engine.Recogniser {
		ports, err := engine.RecogniserPorts(os.Getenv)
		if err != nil {
			return nil
		}
		return engine.FindRecognisers(ctx, ports, engine.DetectTimeout)
	}}
}

// Search looks for a recogniser on this computer now (joining a search under way), within
// engine.DetectTimeout, and returns the one used from now on; ok is false when none answers.
func (h *hearing) Search(ctx context.Context) (engine.Recogniser, bool) {
	h.mu.Lock()
	done := h.startSearch()
	h.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return h.Found()
}

// startSearch starts a search unless one runs, and returns the channel closed when the one
// under way ends. h.mu is held.
func (h *hearing) startSearch() chan struct{} {
	if h.searching == nil {
		h.searching = make(chan struct{})
		go h.search(h.searching)
	}
	return h.searching
}

// search runs one search and keeps what it found; it closes done at its end.
func (h *hearing) search(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*engine.DetectTimeout)
	defer cancel()
	rs := h.find(ctx)
	var f *foundRecogniser
	if len(rs) > 0 {
		f = &foundRecogniser{r: rs[0], t: transcriberOf(rs[0])}
	}
	h.mu.Lock()
	h.found, h.searched, h.searching = f, time.Now(), nil
	h.mu.Unlock()
	close(done)
}

// transcriberOf asks r, a recogniser found on this computer: its owner is checked again at
// each connection.
func transcriberOf(r engine.Recogniser) speech.Transcriber {
	hc := &http.Client{Timeout: recogniserTimeout}
	if r.API == engine.WhisperCppInference {
		return speech.NewWhisperCppTranscriber(r.BaseURL, hc)
	}
	return speech.NewRemoteTranscriber(r.BaseURL, r.Model, "", hc)
}

// Found is the recogniser in use; ok is false while PocketSphinx hears.
func (h *hearing) Found() (engine.Recogniser, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.found == nil {
		return engine.Recogniser{}, false
	}
	return h.found.r, true
}

// current is the recogniser to ask now (nil: PocketSphinx), starting a search in the
// background when the last one is older than researchAfter.
func (h *hearing) current() *foundRecogniser {
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.searched) > researchAfter {
		h.startSearch()
	}
	return h.found
}

// lost drops f, which failed to answer, unless another has taken its place since.
func (h *hearing) lost(f *foundRecogniser) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.found == f {
		h.found, h.searched = nil, time.Time{} // the next call looks again
	}
}

// Transcribe asks the recogniser found, and PocketSphinx (local) when there is none or it fails:
// a Whisper server that stopped, hangs or refuses the audio costs the person nothing but time.
// A recogniser that could not be reached is dropped until a search finds it again.
func (h *hearing) Transcribe(ctx context.Context, audio []byte, mime string, local speech.Transcriber) (speech.Transcript, error) {
	if f := h.current(); f != nil {
		tr, err := f.t.Transcribe(ctx, audio, mime)
		if err == nil || ctx.Err() != nil {
			return tr, err
		}
		if errors.Is(err, speech.ErrNotAudio) || errors.Is(err, media.ErrTooLong) {
			return tr, err // PocketSphinx cannot read it either
		}
		if ue := (*speech.UpstreamError)(nil); !errors.As(err, &ue) || ue.Status == 0 {
			h.lost(f) // not answering at all: not running, or hung
		}
	}
	return local.Transcribe(ctx, audio, mime)
}
