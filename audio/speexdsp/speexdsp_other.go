//go:build !(linux || windows) || !cgo

package speexdsp

import "fmt"

// Load reports that this build has no SpeexDSP.
func Load() error { return fmt.Errorf("%w: this build of Parley has none", ErrUnavailable) }

// Echo is not available in this build.
type Echo struct{}

// NewEcho fails: this build has no SpeexDSP.
func NewEcho(frame, tail, rate int) (*Echo, error) { return nil, Load() }

func (e *Echo) Cancel(mic, far, out []int16) {}
func (e *Echo) Reset()                       {}
func (e *Echo) Close()                       {}

// Preprocessor is not available in this build.
type Preprocessor struct{}

// NewPreprocessor fails: this build has no SpeexDSP.
func NewPreprocessor(frame, rate int, o PreprocessOptions) (*Preprocessor, error) { return nil, Load() }

func (p *Preprocessor) Run(x []int16) {}
func (p *Preprocessor) Close()        {}
