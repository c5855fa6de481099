package speech

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"parley/internal/sphinx"
)

// recogniser is one resident speech decoder with its model loaded, used by one call at a time.
type recogniser interface {
	// recognise returns the hypotheses for samples (16 kHz mono), one line per utterance, as
	// pocketsphinx_continuous prints them; it stops early, with ctx's error, once ctx is done.
	recognise(ctx context.Context, samples []int16) (string, error)
	// free releases the decoder and its model; it is not used again.
	free()
}

// programChunk is how many samples pocketsphinx_continuous -infile reads and decodes at a time
// (128 ms). The library's voice activity detector is checked after each chunk, so the resident
// recogniser decodes in the same chunks to split the same utterances and hear the same words.
const programChunk = 2048

// programArgs are the options that give the library's decoder the program's default model
// (the library has no default model of its own); with them alone it hears what the program hears.
var programArgs = []string{"-hmm", sphinx.Model, "-lm", sphinx.LM, "-dict", sphinx.Dict}

// residentArgs are the resident decoder's options: the program's model, tuned on the hearing
// corpus (BenchmarkHearing: people's recordings of pocketsphinx-testdata, and questions of five
// synthetic voices, clean and in a room, all sent as the app sends a take), 2026-11-28. Word
// error rate on people / in the room, and CPU time ÷ audio:
//
//	decoded as a stream (as pocketsphinx_continuous does)  people   room     xRT people / room
//	  the program's defaults                                41.3%    72.9%    0.59 / 1.56
//	  until now: -maxhmmpf 5000 -fwdflat no -pl_window 10
//	    -maxwpf 10 -pbeam 1e-40 -wbeam 1e-25                51.1%    77.9%    0.30 / 0.37
//	  the same with the flat-lexicon pass (-fwdflat yes)    42.4%    72.5%    0.39 / 0.52
//	  other language weights, voice-activity thresholds, word insertion penalties, no noise
//	  removal, no split at pauses: 40.2–56.5% on people, 72.5–81.1% in the room
//	decoded in whole pieces (recogniseWhole)
//	  the program's defaults                                25.0%    51.7%    0.33 / 0.88
//	  -maxhmmpf 5000 -pl_window 10 -maxwpf 10
//	    -pbeam 1e-40 -wbeam 1e-25 (chosen)                  25.0%    51.7%    0.23 / 0.40
//	  the same, -maxhmmpf 10000 and the default beams       25.0%    49.5%    0.29 / 0.45
//	  the same, -lw 5 -fwdflatlw 7                          23.9%    52.3%    0.31 / 0.79
//	  the same, -lw 8 -fwdflatlw 9                          29.4%    55.0%    0.15 / 0.23
//	  the same, -vad_threshold 3.0                          25.0%    56.3%    0.28 / 0.46
//	  the same, -remove_silence no                          25.0%    52.6%    0.26 / 0.41
//
// The room figures above were taken with sox's random dither on, which moves them by up to 4
// points from run to run; without it (as BenchmarkHearing now makes the room): the chosen
// options 56.0%, -maxhmmpf 10000 and the default beams 55.3%, -lw 5.5 56.5%, -lw 6 57.8%,
// -silprob 0.1 -fillprob 1e-4 56.5%, wider beams (-beam 1e-60) 56.0%, and -topn 6 54.7% (people
// 25.0% at 0.31×, clean synthetic 15.6% at 0.23×, the room at 0.45×). 2026-11-29, to bring the
// room under 55% within 0.35×: -topn 5 54.7% at 0.47×; -topn 6 -pl_beam 1e-8 -pl_pbeam 1e-8
// 54.7% at 0.44×; -topn 6 -maxhmmpf 3000 58.2% at 0.34×; -topn 5 -maxhmmpf 4000 56.8% at 0.40×;
// -topn 6 -fwdflatbeam 1e-40 -fwdflatwbeam 1e-20 58.0% (people 40.2%). No set reaches both, so
// the chosen options stay. What brought the room under 55% was not an option of the decoder but
// the noise of noisy takes brought down before it (audio/denoise): 52.7% at 0.23×.
//
// Decoding whole pieces is what mattered: the cepstral mean of the take itself, not of what came
// before. The flat-lexicon pass, which the earlier tuning dropped on clean flite speech where it
// cost nothing, is worth 9 points on people when streaming; the rest keeps the CPU at about a
// third under the defaults' for the same words.
var residentArgs = append(append([]string{}, programArgs...), "-maxhmmpf", "5000", "-pl_window", "10",
	"-maxwpf", "10", "-pbeam", "1e-40", "-wbeam", "1e-25")

// maxDecoders bounds the pool whatever the cores: each decoder holds its own copy of the model.
const maxDecoders = 4

// decoderPool keeps up to size decoders loaded and lends each to one call at a time. Decoders
// are made when first needed (or by warm) and kept; one whose call fails is freed, and the
// next call that finds none idle makes a new one.
type decoderPool struct {
	newDecoder func() (recogniser, error)
	slots      chan struct{}   // one per decoder lent out, or being made
	idle       chan recogniser // made, and waiting for a call
	making     chan struct{}   // held while a decoder is made: one at a time
	made       atomic.Int64    // decoders made, for tests and figures
	freed      atomic.Int64    // decoders freed after a failure
	onLend     func()          // a test hook: called when a decoder is lent; nil outside tests
}

func newDecoderPool(size int, newDecoder func() (recogniser, error)) *decoderPool {
	return &decoderPool{
		newDecoder: newDecoder,
		slots:      make(chan struct{}, size),
		idle:       make(chan recogniser, size),
		making:     make(chan struct{}, 1),
	}
}

// poolSize is the number of decoders: one per core Go runs on, at most maxDecoders.
func poolSize() int { return max(1, min(runtime.GOMAXPROCS(0), maxDecoders)) }

// sharedPool is the process's one pool of libpocketsphinx decoders with the default model: the
// service and the app's local service share it, so the model is loaded at most poolSize times.
var sharedPool = sync.OnceValue(func() *decoderPool {
	return newDecoderPool(poolSize(), func() (recogniser, error) { return newLibDecoder(residentArgs) })
})

// get lends a decoder: an idle one, else a new one. It waits for a slot while all decoders are
// lent, until ctx is done. The caller gives it back with put.
func (p *decoderPool) get(ctx context.Context) (recogniser, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	r, err := p.idleOrNew(ctx)
	if err != nil {
		<-p.slots
		return nil, err
	}
	if p.onLend != nil {
		p.onLend()
	}
	return r, nil
}

// idleOrNew returns an idle decoder, or makes one. A decoder being made (by warm, or for
// another call) is waited for, since making one takes most of a second.
func (p *decoderPool) idleOrNew(ctx context.Context) (recogniser, error) {
	select {
	case r := <-p.idle:
		return r, nil
	default:
	}
	select {
	case p.making <- struct{}{}:
	case r := <-p.idle:
		return r, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-p.making }()
	select {
	case r := <-p.idle:
		return r, nil
	default:
	}
	r, err := p.newDecoder()
	if err != nil {
		return nil, err
	}
	p.made.Add(1)
	return r, nil
}

// put gives back a decoder that get lent; failed frees it (its call failed, not merely
// stopped), and a later call makes a new one.
func (p *decoderPool) put(r recogniser, failed bool) {
	if failed {
		r.free()
		p.freed.Add(1)
	} else {
		p.idle <- r
	}
	<-p.slots
}

// warm makes one decoder, unless one is idle already, so that the first call finds it loaded.
// It returns once the decoder is made (or could not be).
func (p *decoderPool) warm() error {
	r, err := p.get(context.Background())
	if err != nil {
		return err
	}
	p.put(r, false)
	return nil
}
