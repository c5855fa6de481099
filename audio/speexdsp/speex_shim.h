// The calls of SpeexDSP 1.2 that audio/speexdsp makes, the same names on every platform it builds on:
// on Linux looked up in libspeexdsp.so.1 with dlsym (the binary needs neither the library nor its
// headers to build or to start), on Windows linked statically from the library the Makefile
// cross-builds (speexdsp-windows), so parley.exe carries it.
#ifndef PARLEY_SPEEX_SHIM_H
#define PARLEY_SPEEX_SHIM_H

#include <stdlib.h>

#ifdef _WIN32

#include <speex/speex_echo.h>
#include <speex/speex_preprocess.h>

#define PARLEY_ERRLEN 512

static int parley_speex_load(const char *lib, char *err) { (void)lib; (void)err; return 1; }
static void *parley_speex_echo_init(int frame, int tail) { return speex_echo_state_init(frame, tail); }
static void parley_speex_echo_destroy(void *st) { speex_echo_state_destroy(st); }
static void parley_speex_echo_reset(void *st) { speex_echo_state_reset(st); }
static void parley_speex_cancel(void *st, const short *rec, const short *play, short *out) {
	speex_echo_cancellation(st, rec, play, out);
}
static int parley_speex_echo_ctl_int(void *st, int request, int v) { return speex_echo_ctl(st, request, &v); }
static void *parley_speex_pre_init(int frame, int rate) { return speex_preprocess_state_init(frame, rate); }
static void parley_speex_pre_destroy(void *st) { speex_preprocess_state_destroy(st); }
static int parley_speex_pre_run(void *st, short *x) { return speex_preprocess_run(st, x); }
static int parley_speex_pre_ctl_int(void *st, int request, int v) { return speex_preprocess_ctl(st, request, &v); }
static int parley_speex_pre_ctl_ptr(void *st, int request, void *p) { return speex_preprocess_ctl(st, request, p); }

#else

#include <dlfcn.h>
#include "dlsym.h"
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

#endif

#endif
