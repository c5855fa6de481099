//go:build linux && cgo

package speexdsp

import (
	"errors"
	"testing"
)

// A library that is missing, or is not SpeexDSP, is reported as ErrUnavailable, and leaves the
// one loaded before in use.
func TestOpen_MissingLibraryIsReported(t *testing.T) {
	for _, lib := range []string{"libparley-no-such-library.so.1", "libc.so.6"} {
		err := open(lib)
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("opening %s: %v, want ErrUnavailable", lib, err)
		}
		t.Logf("%s: %v", lib, err)
	}
	// The library found before is still the one in use.
	if Load() == nil {
		e, err := NewEcho(320, 3200, 16000)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		p, err := NewPreprocessor(320, 16000, PreprocessOptions{Denoise: true, NoiseDB: 6, Echo: e, EchoDB: 40, EchoActiveDB: 15})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		mic, far, out := make([]int16, 320), make([]int16, 320), make([]int16, 320)
		e.Cancel(mic, far, out)
		p.Run(out)
	}
}
