package echo

import (
	"fmt"

	"parley/audio/speexdsp"
)

// loadSpeex loads SpeexDSP once per process: nil, or why not (wrapping ErrUnavailable).
func loadSpeex() error { return unavailable(speexdsp.Load()) }

// unavailable is err, a failure of SpeexDSP, as a canceller's: wrapping ErrUnavailable too.
func unavailable(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, err)
}

// speexState is one SpeexDSP echo canceller and the preprocessor that suppresses its residual
// echo. It is not safe for concurrent use.
type speexState struct {
	echo *speexdsp.Echo
	pre  *speexdsp.Preprocessor
}

func newSpeexState(frame, tail, rate int, o suppression) (*speexState, error) {
	e, err := speexdsp.NewEcho(frame, tail, rate)
	if err != nil {
		return nil, unavailable(err)
	}
	p, err := speexdsp.NewPreprocessor(frame, rate, speexdsp.PreprocessOptions{
		Denoise: o.denoise, NoiseDB: -o.noiseDB, Echo: e, EchoDB: -o.echoDB, EchoActiveDB: -o.echoActiveDB})
	if err != nil {
		e.Close()
		return nil, unavailable(err)
	}
	return &speexState{echo: e, pre: p}, nil
}

// process cancels far's echo from mic into out (each frame samples); suppress runs the
// residual echo suppressor on the result.
func (s *speexState) process(mic, far, out, lin []int16, suppress bool) {
	s.echo.Cancel(mic, far, out)
	copy(lin, out)
	if suppress {
		s.pre.Run(out)
	}
}

// reset forgets the echo path learned.
func (s *speexState) reset() { s.echo.Reset() }

func (s *speexState) close() {
	s.pre.Close()
	s.echo.Close()
}
