//go:build linux && cgo

package echo

import (
	"errors"
	"testing"
)

// A library that is missing, or is not SpeexDSP, is reported as ErrUnavailable, and leaves the
// one loaded before in use.
func TestOpenSpeex_MissingLibraryIsReported(t *testing.T) {
	for _, lib := range []string{"libparley-no-such-library.so.1", "libc.so.6"} {
		err := openSpeex(lib)
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("opening %s: %v, want ErrUnavailable", lib, err)
		}
		t.Logf("%s: %v", lib, err)
	}
	// The library found before is still the one in use.
	if Available() == nil {
		c, err := New()
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
}
