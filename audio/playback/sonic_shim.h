// The calls of libsonic (Bill Cox's Sonic, 0.2) that audio/playback makes, the same names on every
// platform it builds on: on Linux looked up in libsonic.so.0 with dlsym (the binary needs neither
// the library nor its header to build or to start), on Windows linked statically from the library
// the Makefile cross-builds (sonic-windows), so parley.exe carries it.
#ifndef PARLEY_SONIC_SHIM_H
#define PARLEY_SONIC_SHIM_H

#include <stdlib.h>

#ifdef _WIN32

#include <sonic.h>

#define PARLEY_ERRLEN 512

static int parley_sonic_load(const char *lib, char *err) { (void)lib; (void)err; return 1; }
static void *parley_sonic_create(int rate, int channels) { return sonicCreateStream(rate, channels); }
static void parley_sonic_destroy(void *s) { sonicDestroyStream(s); }
static void parley_sonic_set_speed(void *s, float speed) { sonicSetSpeed(s, speed); }
static void parley_sonic_set_quality(void *s, int q) { sonicSetQuality(s, q); }
static int parley_sonic_write(void *s, short *pcm, int frames) { return sonicWriteShortToStream(s, pcm, frames); }
static int parley_sonic_read(void *s, short *pcm, int frames) { return sonicReadShortFromStream(s, pcm, frames); }
static int parley_sonic_flush(void *s) { return sonicFlushStream(s); }
static int parley_sonic_available(void *s) { return sonicSamplesAvailable(s); }

#else

#include <dlfcn.h>
#include "dlsym.h"
// sonicStream is a pointer to the library's own struct: void* here.
typedef struct {
	void *(*create)(int sampleRate, int numChannels);
	void (*destroy)(void *s);
	void (*set_speed)(void *s, float speed);
	void (*set_quality)(void *s, int quality);
	int (*write)(void *s, short *samples, int numSamples);
	int (*read)(void *s, short *samples, int maxSamples);
	int (*flush)(void *s);
	int (*available)(void *s);
} parley_sonic_fn;

static parley_sonic_fn parley_so;

// parley_sonic_load opens lib and fills parley_so, only when every function is found. It returns
// 1, or 0 with what went wrong in err (PARLEY_ERRLEN bytes).
static int parley_sonic_load(const char *lib, char *err) {
	parley_sonic_fn f;
	void *h = parley_open(lib, RTLD_NOW | RTLD_LOCAL, err);
	if (h == NULL) return 0;
	if (!parley_sym(h, "sonicCreateStream", (void **)&f.create, err) ||
	    !parley_sym(h, "sonicDestroyStream", (void **)&f.destroy, err) ||
	    !parley_sym(h, "sonicSetSpeed", (void **)&f.set_speed, err) ||
	    !parley_sym(h, "sonicSetQuality", (void **)&f.set_quality, err) ||
	    !parley_sym(h, "sonicWriteShortToStream", (void **)&f.write, err) ||
	    !parley_sym(h, "sonicReadShortFromStream", (void **)&f.read, err) ||
	    !parley_sym(h, "sonicFlushStream", (void **)&f.flush, err) ||
	    !parley_sym(h, "sonicSamplesAvailable", (void **)&f.available, err)) {
		dlclose(h);
		return 0;
	}
	parley_so = f;
	return 1;
}

static void *parley_sonic_create(int rate, int channels) { return parley_so.create(rate, channels); }
static void parley_sonic_destroy(void *s) { parley_so.destroy(s); }
static void parley_sonic_set_speed(void *s, float speed) { parley_so.set_speed(s, speed); }
static void parley_sonic_set_quality(void *s, int q) { parley_so.set_quality(s, q); }
static int parley_sonic_write(void *s, short *pcm, int frames) { return parley_so.write(s, pcm, frames); }
static int parley_sonic_read(void *s, short *pcm, int frames) { return parley_so.read(s, pcm, frames); }
static int parley_sonic_flush(void *s) { return parley_so.flush(s); }
static int parley_sonic_available(void *s) { return parley_so.available(s); }

#endif
#endif
