//go:build (linux || windows) && cgo

package echo

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

// speexLibrary is the shared library the canceller loads.
const speexLibrary = "libspeexdsp.so.1"

var speexLoad struct {
	once sync.Once
	err  error
}

// loadSpeex loads SpeexDSP once per process.
func loadSpeex() error {
	speexLoad.once.Do(func() { speexLoad.err = openSpeex(speexLibrary) })
	return speexLoad.err
}

// openSpeex opens the library lib and looks its functions up.
func openSpeex(lib string) error {
	name := C.CString(lib)
	defer C.free(unsafe.Pointer(name))
	var msg [C.PARLEY_ERRLEN]C.char
	if C.parley_speex_load(name, &msg[0]) == 0 {
		return fmt.Errorf("%w: %s (install libspeexdsp1)", ErrUnavailable, C.GoString(&msg[0]))
	}
	return nil
}

// speexState is one SpeexDSP echo canceller and the preprocessor that suppresses its residual
// echo. It is not safe for concurrent use.
type speexState struct {
	echo, pre unsafe.Pointer
	frame     int
}

func newSpeexState(frame, tail, rate int, o suppression) (*speexState, error) {
	if err := loadSpeex(); err != nil {
		return nil, err
	}
	s := &speexState{frame: frame}
	s.echo = C.parley_speex_echo_init(C.int(frame), C.int(tail))
	s.pre = C.parley_speex_pre_init(C.int(frame), C.int(rate))
	if s.echo == nil || s.pre == nil {
		s.close()
		return nil, fmt.Errorf("%w: SpeexDSP could not make a canceller of %d samples", ErrUnavailable, tail)
	}
	C.parley_speex_echo_ctl_int(s.echo, speexEchoSetSamplingRate, C.int(rate))
	C.parley_speex_pre_ctl_ptr(s.pre, speexPreSetEchoState, s.echo)
	C.parley_speex_pre_ctl_int(s.pre, speexPreSetDenoise, boolInt(o.denoise))
	C.parley_speex_pre_ctl_int(s.pre, speexPreSetAGC, 0)
	C.parley_speex_pre_ctl_int(s.pre, speexPreSetDereverb, 0)
	C.parley_speex_pre_ctl_int(s.pre, speexPreSetNoiseSuppress, C.int(o.noiseDB))
	C.parley_speex_pre_ctl_int(s.pre, speexPreSetEchoSuppress, C.int(o.echoDB))
	C.parley_speex_pre_ctl_int(s.pre, speexPreSetEchoSuppressActive, C.int(o.echoActiveDB))
	return s, nil
}

func boolInt(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

// The requests of speex_echo.h and speex_preprocess.h used here.
const (
	speexEchoSetSamplingRate      = 24
	speexPreSetDenoise            = 0
	speexPreSetAGC                = 2
	speexPreSetDereverb           = 8
	speexPreSetNoiseSuppress      = 18
	speexPreSetEchoSuppress       = 20
	speexPreSetEchoSuppressActive = 22
	speexPreSetEchoState          = 24
)

// process cancels far's echo from mic into out (each frame samples); suppress runs the
// residual echo suppressor on the result.
func (s *speexState) process(mic, far, out []int16, suppress bool) {
	C.parley_speex_cancel(s.echo, (*C.short)(unsafe.Pointer(&mic[0])), (*C.short)(unsafe.Pointer(&far[0])),
		(*C.short)(unsafe.Pointer(&out[0])))
	if suppress {
		C.parley_speex_pre_run(s.pre, (*C.short)(unsafe.Pointer(&out[0])))
	}
}

// reset forgets the echo path learned.
func (s *speexState) reset() { C.parley_speex_echo_reset(s.echo) }

func (s *speexState) close() {
	if s.pre != nil {
		C.parley_speex_pre_destroy(s.pre)
		s.pre = nil
	}
	if s.echo != nil {
		C.parley_speex_echo_destroy(s.echo)
		s.echo = nil
	}
}
