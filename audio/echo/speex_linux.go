//go:build linux && cgo

package echo

/*
#cgo LDFLAGS: -ldl
#cgo CFLAGS: -I${SRCDIR}/../../internal/dlshim
#include <dlfcn.h>
#include "dlsym.h"
#include <stdlib.h>

// The functions of libspeexdsp.so.1 (SpeexDSP 1.2) that Parley calls, looked up with dlsym so
// that the binary needs neither the library nor its headers to build or to start. Its state
// types are void* here; spx_int16_t is short and spx_int32_t int on every platform it builds on.
typedef struct {
	void *(*echo_state_init)(int frame_size, int filter_length);
	void (*echo_state_destroy)(void *st);
	void (*echo_cancellation)(void *st, const short *rec, const short *play, short *out);
	void (*echo_state_reset)(void *st);
	int (*echo_ctl)(void *st, int request, void *ptr);
	void *(*preprocess_state_init)(int frame_size, int rate);
	void (*preprocess_state_destroy)(void *st);
	int (*preprocess_run)(void *st, short *x);
	int (*preprocess_ctl)(void *st, int request, void *ptr);
} parley_speex_fn;

static parley_speex_fn parley_sx;

// parley_speex_load opens lib and fills parley_sx, only when every function is found. It
// returns 1, or 0 with what went wrong in err (PARLEY_ERRLEN bytes).
static int parley_speex_load(const char *lib, char *err) {
	parley_speex_fn f;
	void *h = parley_open(lib, RTLD_NOW | RTLD_LOCAL, err);
	if (h == NULL) return 0;
	if (!parley_sym(h, "speex_echo_state_init", (void **)&f.echo_state_init, err) ||
	    !parley_sym(h, "speex_echo_state_destroy", (void **)&f.echo_state_destroy, err) ||
	    !parley_sym(h, "speex_echo_cancellation", (void **)&f.echo_cancellation, err) ||
	    !parley_sym(h, "speex_echo_state_reset", (void **)&f.echo_state_reset, err) ||
	    !parley_sym(h, "speex_echo_ctl", (void **)&f.echo_ctl, err) ||
	    !parley_sym(h, "speex_preprocess_state_init", (void **)&f.preprocess_state_init, err) ||
	    !parley_sym(h, "speex_preprocess_state_destroy", (void **)&f.preprocess_state_destroy, err) ||
	    !parley_sym(h, "speex_preprocess_run", (void **)&f.preprocess_run, err) ||
	    !parley_sym(h, "speex_preprocess_ctl", (void **)&f.preprocess_ctl, err)) {
		dlclose(h);
		return 0;
	}
	parley_sx = f;
	return 1;
}

static void *parley_speex_echo_init(int frame, int tail) { return parley_sx.echo_state_init(frame, tail); }
static void parley_speex_echo_destroy(void *st) { parley_sx.echo_state_destroy(st); }
static void parley_speex_echo_reset(void *st) { parley_sx.echo_state_reset(st); }
static void parley_speex_cancel(void *st, const short *rec, const short *play, short *out) {
	parley_sx.echo_cancellation(st, rec, play, out);
}
static int parley_speex_echo_ctl_int(void *st, int request, int v) { return parley_sx.echo_ctl(st, request, &v); }
static void *parley_speex_pre_init(int frame, int rate) { return parley_sx.preprocess_state_init(frame, rate); }
static void parley_speex_pre_destroy(void *st) { parley_sx.preprocess_state_destroy(st); }
static int parley_speex_pre_run(void *st, short *x) { return parley_sx.preprocess_run(st, x); }
static int parley_speex_pre_ctl_int(void *st, int request, int v) { return parley_sx.preprocess_ctl(st, request, &v); }
static int parley_speex_pre_ctl_ptr(void *st, int request, void *p) { return parley_sx.preprocess_ctl(st, request, p); }
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
