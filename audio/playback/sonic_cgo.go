//go:build (linux || windows) && cgo

package playback

/*
#cgo linux LDFLAGS: -ldl
#cgo windows LDFLAGS: -l:libsonic.a
#cgo CFLAGS: -I${SRCDIR}/../../internal/dlshim
#include "sonic_shim.h"
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

// sonicLibrary is the shared library the speech rate loads.
const sonicLibrary = "libsonic.so.0"

var sonicLoad struct {
	once sync.Once
	err  error
}

// loadSonic loads libsonic once per process.
func loadSonic() error {
	sonicLoad.once.Do(func() {
		name := C.CString(sonicLibrary)
		defer C.free(unsafe.Pointer(name))
		var msg [C.PARLEY_ERRLEN]C.char
		if C.parley_sonic_load(name, &msg[0]) == 0 {
			sonicLoad.err = fmt.Errorf("%w: %s (install libsonic0)", ErrNoSpeed, C.GoString(&msg[0]))
		}
	})
	return sonicLoad.err
}

// sonicStream is one libsonic stream. It is not safe for concurrent use.
type sonicStream struct {
	p        unsafe.Pointer
	channels int
}

func newSonicStream(rate, channels int, speed float64) (*sonicStream, error) {
	if err := loadSonic(); err != nil {
		return nil, err
	}
	p := C.parley_sonic_create(C.int(rate), C.int(channels))
	if p == nil {
		return nil, fmt.Errorf("%w: libsonic could not make a stream", ErrNoSpeed)
	}
	C.parley_sonic_set_speed(p, C.float(speed))
	return &sonicStream{p: p, channels: channels}, nil
}

// write hands frames of interleaved samples to the stream.
func (s *sonicStream) write(pcm []int16) bool {
	if len(pcm) < s.channels {
		return true
	}
	return C.parley_sonic_write(s.p, (*C.short)(unsafe.Pointer(&pcm[0])), C.int(len(pcm)/s.channels)) != 0
}

// read takes what the stream has made into buf, returning the samples read.
func (s *sonicStream) read(buf []int16) int {
	n := C.parley_sonic_read(s.p, (*C.short)(unsafe.Pointer(&buf[0])), C.int(len(buf)/s.channels))
	return int(n) * s.channels
}

// available is how many frames the stream has made and not yet given.
func (s *sonicStream) available() int { return int(C.parley_sonic_available(s.p)) }

// flush makes the stream give out what it holds.
func (s *sonicStream) flush() bool { return C.parley_sonic_flush(s.p) != 0 }

func (s *sonicStream) close() {
	if s.p != nil {
		C.parley_sonic_destroy(s.p)
		s.p = nil
	}
}
