//go:build (linux || windows) && cgo

package speexdsp

/*
#cgo linux LDFLAGS: -ldl
#cgo windows LDFLAGS: -l:libspeexdsp.a
#cgo CFLAGS: -I${SRCDIR}/../../internal/dlshim
#include "speex_shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// library is the shared library loaded on Linux.
const library = "libspeexdsp.so.1"

var loaded struct {
	once sync.Once
	err  error
}

// Load loads SpeexDSP once per process: nil, or why it cannot be used (wrapping
// ErrUnavailable).
func Load() error {
	loaded.once.Do(func() { loaded.err = open(library) })
	return loaded.err
}

// open opens the library lib and looks its functions up; on failure the functions found
// before stay in use.
func open(lib string) error {
	name := C.CString(lib)
	defer C.free(unsafe.Pointer(name))
	var msg [C.PARLEY_ERRLEN]C.char
	if C.parley_speex_load(name, &msg[0]) == 0 {
		return fmt.Errorf("%w: %s (install libspeexdsp1)", ErrUnavailable, C.GoString(&msg[0]))
	}
	return nil
}

// The requests of speex_echo.h and speex_preprocess.h used here.
const (
	echoSetSamplingRate      = 24
	preSetDenoise            = 0
	preSetAGC                = 2
	preSetDereverb           = 8
	preSetNoiseSuppress      = 18
	preSetEchoSuppress       = 20
	preSetEchoSuppressActive = 22
	preSetEchoState          = 24
)

// Echo is one SpeexDSP echo canceller. It is not safe for concurrent use.
type Echo struct{ st unsafe.Pointer }

// NewEcho makes a canceller of frame samples a frame, with a filter tail samples long, at rate
// Hz.
func NewEcho(frame, tail, rate int) (*Echo, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	st := C.parley_speex_echo_init(C.int(frame), C.int(tail))
	if st == nil {
		return nil, fmt.Errorf("%w: SpeexDSP could not make a canceller of %d samples", ErrUnavailable, tail)
	}
	C.parley_speex_echo_ctl_int(st, echoSetSamplingRate, C.int(rate))
	return &Echo{st: st}, nil
}

// Cancel removes far's echo from mic into out, each a frame long.
func (e *Echo) Cancel(mic, far, out []int16) {
	C.parley_speex_cancel(e.st, (*C.short)(unsafe.Pointer(&mic[0])), (*C.short)(unsafe.Pointer(&far[0])),
		(*C.short)(unsafe.Pointer(&out[0])))
}

// Reset forgets the echo path learned.
func (e *Echo) Reset() { C.parley_speex_echo_reset(e.st) }

// Close frees the canceller; it is not used again.
func (e *Echo) Close() {
	if e.st != nil {
		C.parley_speex_echo_destroy(e.st)
		e.st = nil
	}
}

// Preprocessor is one SpeexDSP preprocessor. It is not safe for concurrent use.
type Preprocessor struct{ st unsafe.Pointer }

// NewPreprocessor makes a preprocessor of frame samples a frame at rate Hz that does what o
// says.
func NewPreprocessor(frame, rate int, o PreprocessOptions) (*Preprocessor, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	st := C.parley_speex_pre_init(C.int(frame), C.int(rate))
	if st == nil {
		return nil, fmt.Errorf("%w: SpeexDSP could not make a preprocessor of %d samples at %d Hz", ErrUnavailable, frame, rate)
	}
	if o.Echo != nil {
		C.parley_speex_pre_ctl_ptr(st, preSetEchoState, o.Echo.st)
		C.parley_speex_pre_ctl_int(st, preSetEchoSuppress, C.int(-o.EchoDB))
		C.parley_speex_pre_ctl_int(st, preSetEchoSuppressActive, C.int(-o.EchoActiveDB))
	}
	C.parley_speex_pre_ctl_int(st, preSetDenoise, boolInt(o.Denoise))
	C.parley_speex_pre_ctl_int(st, preSetAGC, 0)
	C.parley_speex_pre_ctl_int(st, preSetDereverb, 0)
	C.parley_speex_pre_ctl_int(st, preSetNoiseSuppress, C.int(-o.NoiseDB))
	return &Preprocessor{st: st}, nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// Run processes one frame in place.
func (p *Preprocessor) Run(x []int16) {
	C.parley_speex_pre_run(p.st, (*C.short)(unsafe.Pointer(&x[0])))
}

// Close frees the preprocessor; it is not used again.
func (p *Preprocessor) Close() {
	if p.st != nil {
		C.parley_speex_pre_destroy(p.st)
		p.st = nil
	}
}
