//go:build linux && cgo

package playback

/*
#cgo LDFLAGS: -lasound -ldl
#include <alsa/asoundlib.h>
#include <dlfcn.h>

// parleyQuietALSA receives libasound's diagnostics and drops them: when no device can be opened,
// libasound prints a dozen lines for every fallback device the output tries, and its error
// already says what failed.
static void parleyQuietALSA(const char *file, int line, const char *function, int err, const char *fmt, ...) {}

static void parleySilenceALSA(void) { snd_lib_error_set_handler(parleyQuietALSA); }

static void parleyQuietJACK(const char *msg) {}

// parleySilenceJACK loads libjack, if it is installed, and gives it callbacks that drop its error
// and info messages. The output tries every ALSA device, among them the JACK plugin, which loads
// libjack; with no JACK server running, libjack prints five lines of its own to standard error.
// The plugin's later dlopen of the same library finds this copy, callbacks set.
static void parleySilenceJACK(void) {
	void *jack = dlopen("libjack.so.0", RTLD_LAZY | RTLD_LOCAL);
	if (jack == NULL) {
		return;
	}
	void (*setError)(void (*)(const char *)) = (void (*)(void (*)(const char *)))dlsym(jack, "jack_set_error_function");
	void (*setInfo)(void (*)(const char *)) = (void (*)(void (*)(const char *)))dlsym(jack, "jack_set_info_function");
	if (setError != NULL) {
		setError(parleyQuietJACK);
	}
	if (setInfo != NULL) {
		setInfo(parleyQuietJACK);
	}
	// The handle stays open: closing it could unload the library and lose the callbacks.
}
*/
import "C"

import "os"

// silenceALSA stops libasound, and libjack when ALSA's JACK plugin loads it, from printing their
// diagnostics to standard error; errors still reach the output, and from it the caller, as values.
// Setting PARLEY_AUDIO_DEBUG keeps them.
func silenceALSA() {
	if os.Getenv("PARLEY_AUDIO_DEBUG") != "" {
		return
	}
	C.parleySilenceALSA()
	C.parleySilenceJACK()
}
