package echo

import (
	"context"
	"io"
	"time"

	"parley/audio/vad"
)

// FrameSource delivers the microphone's 20 ms frames; *audio.Capture is one.
type FrameSource interface {
	ReadFrame(ctx context.Context, frame []int16) error
}

// Source is a microphone whose frames have the echo of what Parley plays removed.
type Source struct {
	FrameSource
	c   *Canceller
	raw float64 // the level of the last frame read, before the echo was removed
	// what the canceller said of what it left in it (Stats.Residue, Stats.Converged)
	residue   float64
	converged bool
	linear    float64 // and its level after the adaptive filter (Stats.LinearDB)
}

// NewSource returns src with c applied to every frame it delivers.
func NewSource(src FrameSource, c *Canceller) *Source { return &Source{FrameSource: src, c: c} }

// ReadFrame reads a frame from the microphone and cancels the echo in it.
func (s *Source) ReadFrame(ctx context.Context, frame []int16) error {
	if err := s.FrameSource.ReadFrame(ctx, frame); err != nil {
		return err
	}
	s.raw = vad.FrameDBFS(frame)
	s.c.Cancel(frame, time.Now())
	st := s.c.Stats()
	s.residue, s.converged, s.linear = st.Residue, st.Converged, st.LinearDB
	return nil
}

// Residue is how much what the canceller left in the last frame read resembles the playback
// (Stats.Residue), and whether it has converged (Stats.Converged). Call it from the goroutine
// that reads.
func (s *Source) Residue() (float64, bool) { return s.residue, s.converged }

// LinearDB is the level of the last frame read after the canceller's adaptive filter, before its
// suppressor, in dBFS (Stats.LinearDB); NaN when the canceller did not run on it. Call it from
// the goroutine that reads.
func (s *Source) LinearDB() float64 { return s.linear }

// Uncancelled is the level of the last frame read as the microphone heard it, before the echo
// was removed, in dBFS (vad.FrameDBFS). Call it from the goroutine that reads.
func (s *Source) Uncancelled() float64 { return s.raw }

// Close closes the microphone, when it is an io.Closer.
func (s *Source) Close() error {
	if c, ok := s.FrameSource.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
