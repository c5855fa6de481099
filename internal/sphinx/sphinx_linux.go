//go:build linux && cgo

package sphinx

/*
#cgo LDFLAGS: -ldl
#cgo CFLAGS: -I${SRCDIR}/../dlshim
#include <dlfcn.h>
#include "dlsym.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The functions of libpocketsphinx.so.3 and libsphinxbase.so.3 (0.8+5prealpha) that Parley
// calls, looked up with dlsym so that the binary needs neither library, nor their headers, to
// build or to start. Every pointer type of the libraries is void* here.
typedef struct {
	const void *(*ps_args)(void);
	void *(*cmd_ln_parse_r)(void *inout, const void *defn, int32_t argc, char **argv, int32_t strict);
	int (*cmd_ln_free_r)(void *config);
	void *(*ps_init)(void *config);
	int (*ps_free)(void *ps);
	int (*ps_start_utt)(void *ps);
	int (*ps_process_raw)(void *ps, const int16_t *data, size_t n, int no_search, int full_utt);
	int (*ps_end_utt)(void *ps);
	const char *(*ps_get_hyp)(void *ps, int32_t *score);
	uint8_t (*ps_get_in_speech)(void *ps);
	int (*ps_start_stream)(void *ps);
	void *(*ps_get_feat)(void *ps);
	void (*err_set_logfp)(FILE *fp);
} parley_ps;

// The leading fields of sphinxbase 0.8+5prealpha's feat_t and cmn_t (sphinxbase/feat.h and
// cmn.h), as far as the ones read here: the live cepstral mean normalisation's state.
typedef struct {
	int refcount;
	char *name;
	int32_t cepsize, n_stream;
	uint32_t *stream_len;
	int32_t window_size, n_sv;
	uint32_t *sv_len;
	int32_t **subvecs;
	float *sv_buf;
	int32_t sv_dim;
	int cmn;
	int32_t varnorm;
	int agc;
	void (*compute_feat)(void *fcb, float **input, float **feat);
	void *cmn_struct;
} parley_feat_head;

typedef struct {
	float *cmn_mean, *cmn_var, *sum;
	int32_t nframe, veclen;
} parley_cmn_head;

// parley_decoder is a decoder with its configuration, and the initial state of its live
// cepstral mean normalisation (the mean, the running sum and its count of frames), which each
// utterance updates and each call restores.
typedef struct {
	void *ps, *config;
	parley_cmn_head *cmn;
	float *cmn0, *sum0;
	int32_t nframe0;
} parley_decoder;

static parley_ps parley_fn;

// parley_ps_load opens the two libraries (sphinxbase first and global, as pocketsphinx needs
// its symbols) and fills parley_fn. It returns 1, or 0 with what went wrong in err
// (PARLEY_ERRLEN bytes).
static int parley_ps_load(char *err) {
	void *base = parley_open("libsphinxbase.so.3", RTLD_NOW | RTLD_GLOBAL, err);
	if (base == NULL) return 0;
	void *ps = parley_open("libpocketsphinx.so.3", RTLD_NOW | RTLD_GLOBAL, err);
	if (ps == NULL) return 0;
	if (!parley_sym(ps, "ps_args", (void **)&parley_fn.ps_args, err) ||
	    !parley_sym(base, "cmd_ln_parse_r", (void **)&parley_fn.cmd_ln_parse_r, err) ||
	    !parley_sym(base, "cmd_ln_free_r", (void **)&parley_fn.cmd_ln_free_r, err) ||
	    !parley_sym(ps, "ps_init", (void **)&parley_fn.ps_init, err) ||
	    !parley_sym(ps, "ps_free", (void **)&parley_fn.ps_free, err) ||
	    !parley_sym(ps, "ps_start_utt", (void **)&parley_fn.ps_start_utt, err) ||
	    !parley_sym(ps, "ps_process_raw", (void **)&parley_fn.ps_process_raw, err) ||
	    !parley_sym(ps, "ps_end_utt", (void **)&parley_fn.ps_end_utt, err) ||
	    !parley_sym(ps, "ps_get_hyp", (void **)&parley_fn.ps_get_hyp, err) ||
	    !parley_sym(ps, "ps_get_in_speech", (void **)&parley_fn.ps_get_in_speech, err) ||
	    !parley_sym(ps, "ps_start_stream", (void **)&parley_fn.ps_start_stream, err) ||
	    !parley_sym(ps, "ps_get_feat", (void **)&parley_fn.ps_get_feat, err) ||
	    !parley_sym(base, "err_set_logfp", (void **)&parley_fn.err_set_logfp, err)) {
		return 0;
	}
	// No log at all: the library writes its log to one process-wide FILE, which -logfn would
	// reopen (and close under other decoders) at every ps_init.
	parley_fn.err_set_logfp(NULL);
	return 1;
}

static void parley_ps_free(parley_decoder *d) {
	if (d == NULL) return;
	if (d->ps != NULL) parley_fn.ps_free(d->ps);
	if (d->config != NULL) parley_fn.cmd_ln_free_r(d->config);
	free(d->cmn0);
	free(d->sum0);
	free(d);
}

// parley_ps_new parses argv into a configuration and makes a decoder of it; NULL on failure.
static parley_decoder *parley_ps_new(int argc, char **argv) {
	parley_decoder *d = calloc(1, sizeof *d);
	if (d == NULL) return NULL;
	d->config = parley_fn.cmd_ln_parse_r(NULL, parley_fn.ps_args(), argc, argv, 0);
	if (d->config != NULL) d->ps = parley_fn.ps_init(d->config);
	if (d->ps == NULL) {
		parley_ps_free(d);
		return NULL;
	}
	parley_feat_head *feat = parley_fn.ps_get_feat(d->ps);
	d->cmn = NULL;
	// The mean is restored only where the layout copied above is the library's: there the
	// mean's length, read through cmn_t, is the cepstrum's size, read through feat_t. A library
	// of another layout decodes on, its calls then not quite independent of the ones before.
	if (feat != NULL && feat->cmn_struct != NULL && feat->cepsize > 0 && feat->cepsize <= 64 &&
	    ((parley_cmn_head *)feat->cmn_struct)->veclen == feat->cepsize) {
		d->cmn = feat->cmn_struct;
	}
	if (d->cmn != NULL) {
		size_t n = (size_t)d->cmn->veclen;
		d->cmn0 = calloc(n, sizeof(float));
		d->sum0 = calloc(n, sizeof(float));
		if (d->cmn0 == NULL || d->sum0 == NULL) {
			parley_ps_free(d);
			return NULL;
		}
		memcpy(d->cmn0, d->cmn->cmn_mean, n * sizeof(float));
		memcpy(d->sum0, d->cmn->sum, n * sizeof(float));
		d->nframe0 = d->cmn->nframe;
	}
	return d;
}

// parley_ps_reset puts the decoder's state back as ps_init left it, as a program started
// afresh has it: the noise estimate (ps_start_stream) and the live cepstral mean with its
// running sum and count. (The library's cmn_live_set is not that: it sets the count to 500
// frames, so that the first utterance's own mean moves the one used far less than in a
// program started afresh, whose count is 0.)
static int parley_ps_reset(parley_decoder *d) {
	if (parley_fn.ps_start_stream(d->ps) < 0) return -1;
	if (d->cmn != NULL) {
		size_t n = (size_t)d->cmn->veclen;
		memcpy(d->cmn->cmn_mean, d->cmn0, n * sizeof(float));
		memcpy(d->cmn->sum, d->sum0, n * sizeof(float));
		d->cmn->nframe = d->nframe0;
	}
	return 0;
}

static int parley_ps_start(void *ps) { return parley_fn.ps_start_utt(ps); }
static int parley_ps_end(void *ps) { return parley_fn.ps_end_utt(ps); }
static int parley_ps_process(void *ps, const int16_t *data, size_t n, int full) {
	return parley_fn.ps_process_raw(ps, data, n, 0, full);
}
static int parley_ps_in_speech(void *ps) { return parley_fn.ps_get_in_speech(ps); }
static const char *parley_ps_hyp(void *ps) { return parley_fn.ps_get_hyp(ps, NULL); }
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// Load opens libpocketsphinx once per process; later calls return the first answer, nil or
// an error wrapping ErrNoLibrary with the loader's words.
var Load = sync.OnceValue(func() error {
	var msg [C.PARLEY_ERRLEN]C.char
	if C.parley_ps_load(&msg[0]) == 0 {
		return fmt.Errorf("%w: %s", ErrNoLibrary, C.GoString(&msg[0]))
	}
	return nil
})

// Decoder is one pocketsphinx decoder of libpocketsphinx, with its model loaded. It is used by
// one goroutine at a time.
type Decoder struct {
	d  *C.parley_decoder
	ps unsafe.Pointer // d.ps
}

// New loads the library (once) and makes a decoder with args, pocketsphinx_continuous's
// command-line options (-hmm, -dict, -lm or -kws, ...).
func New(args []string) (*Decoder, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	argv := make([]*C.char, len(args)+1)
	for i, a := range args {
		argv[i] = C.CString(a)
	}
	defer func() {
		for _, p := range argv[:len(args)] {
			C.free(unsafe.Pointer(p))
		}
	}()
	cargv := (**C.char)(C.malloc(C.size_t(len(argv)) * C.size_t(unsafe.Sizeof(argv[0]))))
	defer C.free(unsafe.Pointer(cargv))
	copy(unsafe.Slice(cargv, len(argv)), argv)
	d := C.parley_ps_new(C.int(len(args)), cargv)
	if d == nil {
		return nil, errors.New("pocketsphinx could not load its model")
	}
	return &Decoder{d: d, ps: d.ps}, nil
}

// Reset puts the decoder's state back as New left it: the noise estimate and the cepstral mean.
func (d *Decoder) Reset() error {
	if d.ps == nil {
		return errFreed
	}
	if C.parley_ps_reset(d.d) < 0 {
		return errors.New("pocketsphinx failed to reset its decoder")
	}
	return nil
}

// Start begins an utterance.
func (d *Decoder) Start() error {
	if d.ps == nil {
		return errFreed
	}
	if C.parley_ps_start(d.ps) < 0 {
		return errors.New("pocketsphinx failed to start an utterance")
	}
	return nil
}

// End ends the utterance; Hyp then has its final hypothesis.
func (d *Decoder) End() error {
	if d.ps == nil {
		return errFreed
	}
	if C.parley_ps_end(d.ps) < 0 {
		return errors.New("pocketsphinx failed to end an utterance")
	}
	return nil
}

// Process decodes 16 kHz mono samples of the utterance under way.
func (d *Decoder) Process(samples []int16) error { return d.process(samples, false) }

// ProcessWhole decodes samples as a whole utterance, in one call: the library then normalises
// the cepstrum by the utterance's own mean (-cmn current), where a stream must make do with the
// mean of what came before.
func (d *Decoder) ProcessWhole(samples []int16) error { return d.process(samples, true) }

func (d *Decoder) process(samples []int16, whole bool) error {
	if d.ps == nil {
		return errFreed
	}
	if len(samples) == 0 {
		return nil
	}
	full := C.int(0)
	if whole {
		full = 1
	}
	if C.parley_ps_process(d.ps, (*C.int16_t)(unsafe.Pointer(&samples[0])), C.size_t(len(samples)), full) < 0 {
		return errors.New("pocketsphinx failed to process audio")
	}
	return nil
}

// InSpeech reports whether the library's voice activity detector hears speech in the audio
// processed last.
func (d *Decoder) InSpeech() bool { return d.ps != nil && C.parley_ps_in_speech(d.ps) != 0 }

// Hyp returns the current hypothesis ("" for none): in keyword search, the phrases detected
// since the utterance started.
func (d *Decoder) Hyp() string {
	if d.ps == nil {
		return ""
	}
	h := C.parley_ps_hyp(d.ps)
	if h == nil {
		return ""
	}
	return C.GoString(h)
}

// Free releases the decoder and its model; it is not used again.
func (d *Decoder) Free() {
	if d.d != nil {
		C.parley_ps_free(d.d)
	}
	d.d, d.ps = nil, nil
}
