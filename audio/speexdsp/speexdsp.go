// Package speexdsp is Parley's binding of SpeexDSP 1.2: its echo canceller and its
// preprocessor (noise suppressor, residual echo suppressor). On Linux the library
// (libspeexdsp.so.1) is opened with dlopen when first needed, so that the binary builds and
// starts without it; on Windows it is linked statically from the library the Makefile
// cross-builds; elsewhere every call fails with ErrUnavailable.
package speexdsp

import "errors"

// ErrUnavailable is wrapped by the errors of Load, NewEcho and NewPreprocessor when SpeexDSP
// cannot be used here: its library is not installed, or this build has none.
var ErrUnavailable = errors.New("SpeexDSP is not available")

// PreprocessOptions are what a Preprocessor does to each frame. Automatic gain control and
// dereverberation are always off.
type PreprocessOptions struct {
	Denoise bool // suppress steady noise
	NoiseDB int  // by at most this many dB (a positive number)
	// Echo, when set, is the canceller whose residual echo the preprocessor suppresses, by at
	// most EchoDB dB, or EchoActiveDB while the near end speaks too.
	Echo                 *Echo
	EchoDB, EchoActiveDB int
}
