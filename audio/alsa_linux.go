//go:build linux

package audio

/*
#cgo LDFLAGS: -lasound
#include <alsa/asoundlib.h>

static void parley_alsa_quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {}

static void parley_quiet_alsa(void) { snd_lib_error_set_handler(parley_alsa_quiet); }
*/
import "C"

import (
	"os"
	"sync"
)

var quietALSA sync.Once

// silenceALSA stops libasound from printing its own diagnostics on stderr (dozens of lines on
// a machine without a sound card); the failure still comes back as an error. Setting
// PARLEY_AUDIO_DEBUG keeps them.
func silenceALSA() {
	quietALSA.Do(func() {
		if os.Getenv("PARLEY_AUDIO_DEBUG") == "" {
			C.parley_quiet_alsa()
		}
	})
}
