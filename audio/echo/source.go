package echo

import (
	"context"
	"io"
	"time"
)

// FrameSource delivers the microphone's 20 ms frames; *audio.Capture is one.
type FrameSource interface {
	ReadFrame(ctx context.Context, frame []int16) error
}

// Source is a microphone whose frames have the echo of what Parley plays removed.
type Source struct {
	FrameSource
	c *Canceller
}

// NewSource returns src with c applied to every frame it delivers.
func NewSource(src FrameSource, c *Canceller) *Source { return &Source{FrameSource: src, c: c} }

// ReadFrame reads a frame from the microphone and cancels the echo in it.
func (s *Source) ReadFrame(ctx context.Context, frame []int16) error {
	if err := s.FrameSource.ReadFrame(ctx, frame); err != nil {
		return err
	}
	s.c.Cancel(frame, time.Now())
	return nil
}

// Close closes the microphone, when it is an io.Closer.
func (s *Source) Close() error {
	if c, ok := s.FrameSource.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
