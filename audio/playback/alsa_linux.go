//go:build linux && cgo

package playback

/*
#cgo LDFLAGS: -lasound
#include <alsa/asoundlib.h>

// parleyQuietALSA receives libasound's diagnostics and drops them: when no device can be opened,
// libasound prints a dozen lines for every fallback device oto tries, and oto's error already
// says what failed.
static void parleyQuietALSA(const char *file, int line, const char *function, int err, const char *fmt, ...) {}

static void parleySilenceALSA(void) { snd_lib_error_set_handler(parleyQuietALSA); }
*/
import "C"

// silenceALSA stops libasound from printing its diagnostics to standard error; errors still
// reach oto, and from it the caller, as values.
func silenceALSA() { C.parleySilenceALSA() }
