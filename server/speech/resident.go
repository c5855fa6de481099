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
// synthetic voices, clean and in a room, all sent as the app sends a take), 2026-11-28:
//
//	options (after the program's model)                    people   room     xRT people/room
//	the program's defaults                                 41.3%    72.9%    0.59 / 1.56
//	until now: -maxhmmpf 5000 -fwdflat no -pl_window 10
//	  -maxwpf 10 -pbeam 1e-40 -wbeam 1e-25                 51.1%    77.9%    0.30 / 0.37
//	the same with the flat-lexicon pass (-fwdflat yes)     42.4%    72.5%    0.39 / 0.52
//	  and -vad_threshold 3.0 (chosen)                      42.4%    73.8%    0.31 / 0.39
//	  -lw 5 -fwdflatlw 7 instead                           40.2%    73.7%    0.44 / 1.04
//	  -lw 9 -fwdflatlw 9 instead                           56.5%    79.8%    0.17 / 0.25
//	  -remove_noise no instead                             44.6%    81.1%    0.23 / 0.53
//	  -wip 0.2 instead                                     42.4%    74.4%    0.29 / 0.45
//	  the take decoded whole, not split at its pauses      42.4%    74.3%    0.33 / 0.50
//	-maxhmmpf 10000 -pl_window 10 (default beams)          41.3%    74.3%    0.59 / 1.05
//
// The flat-lexicon pass, which the earlier tuning had dropped on clean flite speech where it
// cost nothing, is worth 9 points on people; the rest of the earlier tuning keeps the CPU at
// half the defaults' for about a point. A higher voice-activity threshold splits a noisy take
// less and costs a fifth less CPU there. No option brings the room under 72%: PocketSphinx's
// generic model does not hear through reverberation and noise.
var residentArgs = append(append([]string{}, programArgs...), "-maxhmmpf", "5000", "-pl_window", "10",
	"-maxwpf", "10", "-pbeam", "1e-40", "-wbeam", "1e-25", "-vad_threshold", "3.0")

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
