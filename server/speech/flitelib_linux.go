//go:build linux && cgo

package speech

/*
#cgo LDFLAGS: -ldl
#cgo CFLAGS: -I${SRCDIR}/../../internal/dlshim
#include <dlfcn.h>
#include "dlsym.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// flite 2.2's cst_wave (flite/cst_wave.h): the fields read here.
typedef struct {
	const char *type;
	int sample_rate;
	int num_samples;
	int num_channels;
	short *samples;
} parley_wave;

// The functions of libflite.so.1 and libmp3lame.so.0 that Parley calls, looked up with dlsym so
// that the binary needs neither library, nor their headers, to build or to start. Every
// pointer type of the libraries is void* here.
typedef struct {
	int (*flite_init)(void);
	parley_wave *(*flite_text_to_wave)(const char *text, void *voice);
	void (*delete_wave)(parley_wave *w);

	void *(*lame_init)(void);
	int (*lame_set_in_samplerate)(void *gf, int rate);
	int (*lame_set_out_samplerate)(void *gf, int rate);
	int (*lame_set_num_channels)(void *gf, int n);
	int (*lame_set_mode)(void *gf, int mode);
	int (*lame_set_VBR)(void *gf, int mode);
	int (*lame_set_VBR_q)(void *gf, int q);
	int (*lame_set_quality)(void *gf, int q);
	int (*lame_init_params)(void *gf);
	int (*lame_encode_buffer)(void *gf, const short *l, const short *r, int n, unsigned char *out, int size);
	int (*lame_encode_flush)(void *gf, unsigned char *out, int size);
	size_t (*lame_get_lametag_frame)(void *gf, unsigned char *out, size_t size);
	int (*lame_close)(void *gf);
} parley_synth_fn;

static parley_synth_fn parley_sy;

// parley_synth_load opens libflite (global, as its voice libraries need its symbols), its
// English language and lexicon libraries, and libmp3lame, and fills parley_sy. It returns 1,
// or 0 with what went wrong in err (PARLEY_ERRLEN bytes).
static int parley_synth_load(char *err) {
	void *fl = parley_open("libflite.so.1", RTLD_NOW | RTLD_GLOBAL, err);
	if (fl == NULL || parley_open("libflite_usenglish.so.1", RTLD_NOW | RTLD_GLOBAL, err) == NULL ||
	    parley_open("libflite_cmulex.so.1", RTLD_NOW | RTLD_GLOBAL, err) == NULL) {
		return 0;
	}
	void *lame = parley_open("libmp3lame.so.0", RTLD_NOW | RTLD_LOCAL, err);
	if (lame == NULL) return 0;
	if (!parley_sym(fl, "flite_init", (void **)&parley_sy.flite_init, err) ||
	    !parley_sym(fl, "flite_text_to_wave", (void **)&parley_sy.flite_text_to_wave, err) ||
	    !parley_sym(fl, "delete_wave", (void **)&parley_sy.delete_wave, err) ||
	    !parley_sym(lame, "lame_init", (void **)&parley_sy.lame_init, err) ||
	    !parley_sym(lame, "lame_set_in_samplerate", (void **)&parley_sy.lame_set_in_samplerate, err) ||
	    !parley_sym(lame, "lame_set_out_samplerate", (void **)&parley_sy.lame_set_out_samplerate, err) ||
	    !parley_sym(lame, "lame_set_num_channels", (void **)&parley_sy.lame_set_num_channels, err) ||
	    !parley_sym(lame, "lame_set_mode", (void **)&parley_sy.lame_set_mode, err) ||
	    !parley_sym(lame, "lame_set_VBR", (void **)&parley_sy.lame_set_VBR, err) ||
	    !parley_sym(lame, "lame_set_VBR_q", (void **)&parley_sy.lame_set_VBR_q, err) ||
	    !parley_sym(lame, "lame_set_quality", (void **)&parley_sy.lame_set_quality, err) ||
	    !parley_sym(lame, "lame_init_params", (void **)&parley_sy.lame_init_params, err) ||
	    !parley_sym(lame, "lame_encode_buffer", (void **)&parley_sy.lame_encode_buffer, err) ||
	    !parley_sym(lame, "lame_encode_flush", (void **)&parley_sy.lame_encode_flush, err) ||
	    !parley_sym(lame, "lame_get_lametag_frame", (void **)&parley_sy.lame_get_lametag_frame, err) ||
	    !parley_sym(lame, "lame_close", (void **)&parley_sy.lame_close, err)) {
		return 0;
	}
	parley_sy.flite_init();
	return 1;
}

// parley_flite_voice opens one voice's library (libflite_cmu_us_ID.so.1) and registers the
// voice; NULL, with what went wrong in err (PARLEY_ERRLEN bytes), on failure.
static void *parley_flite_voice(const char *lib, const char *reg, char *err) {
	void *h = parley_open(lib, RTLD_NOW | RTLD_LOCAL, err);
	if (h == NULL) return NULL;
	void *(*fn)(const char *) = NULL;
	if (!parley_sym(h, reg, (void **)&fn, err)) return NULL;
	void *v = fn(NULL);
	if (v == NULL) snprintf(err, PARLEY_ERRLEN, "the voice did not register");
	return v;
}

// parley_speak synthesises text with voice and encodes it as lame -m m -V vbrq -q quality
// would: mono, VBR, at the voice's sample rate (at least min_rate), with the LAME tag frame at its head. It
// returns the MP3 in *out (malloc'd, the caller frees it) and its length, or a negative
// number: -1 synthesis failed, -2 the synthesis is empty, -3 out of memory, -4 the encoder
// failed.
static int parley_speak(void *voice, const char *text, int vbrq, int quality, int min_rate, unsigned char **out) {
	*out = NULL;
	parley_wave *w = parley_sy.flite_text_to_wave(text, voice);
	if (w == NULL) return -1;
	if (w->num_samples <= 0 || w->samples == NULL || w->num_channels != 1 || w->sample_rate <= 0) {
		parley_sy.delete_wave(w);
		return -2;
	}
	int n = w->num_samples;
	// lame's bound for its output, 1.25 samples + 7200 bytes, counts samples at the output
	// rate: twice as many or more where a low rate is resampled up. In 64 bits: n is an int.
	int64_t n_out = (int64_t)n;
	if (w->sample_rate < min_rate) n_out = n_out * ((min_rate + w->sample_rate - 1) / w->sample_rate);
	int64_t size64 = n_out + n_out / 4 + 7200;
	if (size64 > INT32_MAX) {
		parley_sy.delete_wave(w);
		return -3;
	}
	int size = (int)size64;
	unsigned char *buf = malloc(size);
	void *gf = parley_sy.lame_init();
	if (buf == NULL || gf == NULL) {
		free(buf);
		if (gf != NULL) parley_sy.lame_close(gf);
		parley_sy.delete_wave(w);
		return -3;
	}
	parley_sy.lame_set_in_samplerate(gf, w->sample_rate);
	if (w->sample_rate < min_rate) parley_sy.lame_set_out_samplerate(gf, min_rate);
	parley_sy.lame_set_num_channels(gf, 1);
	parley_sy.lame_set_mode(gf, 3); // MONO
	parley_sy.lame_set_VBR(gf, 4);  // vbr_mtrh, lame's default VBR mode
	parley_sy.lame_set_VBR_q(gf, vbrq);
	parley_sy.lame_set_quality(gf, quality);
	int got = -4;
	if (parley_sy.lame_init_params(gf) >= 0) {
		int a = parley_sy.lame_encode_buffer(gf, w->samples, w->samples, n, buf, size);
		if (a >= 0) {
			int b = parley_sy.lame_encode_flush(gf, buf + a, size - a);
			if (b >= 0) {
				got = a + b;
				// The first frame was written as a placeholder for the LAME tag, which
				// says how long the stream is: write the tag over it, as lame does.
				unsigned char tag[2880];
				size_t t = parley_sy.lame_get_lametag_frame(gf, tag, sizeof tag);
				if (t > 0 && t <= sizeof tag && t <= (size_t)got) memcpy(buf, tag, t);
			}
		}
	}
	parley_sy.lame_close(gf);
	parley_sy.delete_wave(w);
	if (got < 0) {
		free(buf);
		return got;
	}
	*out = buf;
	return got;
}
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// loadSynthLibrary opens libflite and libmp3lame once per process; later calls return the
// first answer.
var loadSynthLibrary = sync.OnceValue(func() error {
	var msg [C.PARLEY_ERRLEN]C.char
	if C.parley_synth_load(&msg[0]) == 0 {
		return fmt.Errorf("%w: %s", errNoSynthLibrary, C.GoString(&msg[0]))
	}
	return nil
})

// libFlite speaks in this process with flite's voices and encodes with libmp3lame: no program
// starts, and each voice is loaded once. flite's calls are serialised: the library shares its
// lexicon and language tables between voices and does not promise that two utterances may be
// made at once.
type libFlite struct {
	// lock has one slot, held for each call into libflite and over voices and failed: a
	// caller whose context ends while it waits gives up its place.
	lock   semaphore
	voices map[string]unsafe.Pointer
	failed map[string]error // voices whose library did not load
}

// theLibFlite is the process's one libFlite.
var theLibFlite = &libFlite{lock: make(semaphore, 1), voices: map[string]unsafe.Pointer{}, failed: map[string]error{}}

// newLibFliteSpeaker returns a function that speaks with flite's voice id in this process. It
// loads nothing until it is first called (a voice costs about 2 MB once registered, and typed
// conversations never speak): then it opens the libraries and registers the voice, once. Where
// they do not load, every call returns an error wrapping errNoSynthLibrary, and the caller runs
// the programs instead.
func newLibFliteSpeaker(id string) func(ctx context.Context, text string) ([]byte, error) {
	return func(ctx context.Context, text string) ([]byte, error) {
		v, err := theLibFlite.voice(ctx, id)
		if err != nil {
			return nil, err
		}
		return theLibFlite.speak(ctx, v, text)
	}
}

// voice returns flite's voice id, registered at its first use.
func (f *libFlite) voice(ctx context.Context, id string) (unsafe.Pointer, error) {
	if err := loadSynthLibrary(); err != nil {
		return nil, err
	}
	if !isVoiceID(id) {
		return nil, fmt.Errorf("%w: no voice %q", errNoSynthLibrary, id)
	}
	if err := f.lock.acquire(ctx); err != nil {
		return nil, err
	}
	defer f.lock.release()
	if v, ok := f.voices[id]; ok {
		return v, nil
	}
	if err, ok := f.failed[id]; ok {
		return nil, err
	}
	lib := C.CString("libflite_cmu_us_" + id + ".so.1")
	reg := C.CString("register_cmu_us_" + id)
	defer C.free(unsafe.Pointer(lib))
	defer C.free(unsafe.Pointer(reg))
	var msg [C.PARLEY_ERRLEN]C.char
	v := C.parley_flite_voice(lib, reg, &msg[0])
	if v == nil {
		err := fmt.Errorf("%w: %s", errNoSynthLibrary, C.GoString(&msg[0]))
		f.failed[id] = err
		return nil, err
	}
	f.voices[id] = v
	return v, nil
}

// speak synthesises text with voice v and returns it as MP3, encoded as lameArgv says.
func (f *libFlite) speak(ctx context.Context, v unsafe.Pointer, text string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ct := C.CString(text)
	defer C.free(unsafe.Pointer(ct))
	if err := f.lock.acquire(ctx); err != nil {
		return nil, err
	}
	defer f.lock.release()
	var out *C.uchar
	n := C.parley_speak(v, ct, C.int(lameVBRQuality), C.int(lameQuality), C.int(minMP3Rate), &out)
	if n < 0 {
		switch n {
		case -1:
			return nil, errors.New("flite could not synthesise the text")
		case -2:
			return nil, errors.New("flite produced no audio")
		case -3:
			return nil, errors.New("out of memory for speech")
		default:
			return nil, errors.New("libmp3lame could not encode the speech")
		}
	}
	defer C.free(unsafe.Pointer(out))
	if int(n) > maxMP3 {
		return nil, fmt.Errorf("speech longer than %d bytes of MP3", maxMP3)
	}
	return C.GoBytes(unsafe.Pointer(out), n), nil
}
