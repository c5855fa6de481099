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

// residentArgs are the resident decoder's options: the program's model, tuned for speed. At most
// 5,000 active HMMs a frame (the program allows 30,000), no flat-lexicon second pass, and a
// phone lookahead of 10 frames instead of 5 took a 2 s question from about 270 to 190 ms of CPU
// with the same word error rate on the test corpus (TestResident_SameWordsAsProgram logs the
// rates). At most 10 word exits a frame (the program allows 20) and narrower phone and word
// beams (1e-40 and 1e-25 for 1e-48 and 7e-29) took the corpus another 20% faster (11.3–12.2 s to
// 9.2–9.4 s), still at the same rate. Fewer HMMs, narrower beams still (-wbeam 1e-20 with
// -maxwpf 5: 58%) or half the frames (-ds 2) were faster, and heard less. At most 3,000 HMMs
// was 18% faster at the same rate on the corpus, but heard nothing at all of one question in
// ten through the null sink (the search lost every path), so it is not used. Neither is
// decoding the two halves of a take on two decoders at once, split at its quietest 100 ms:
// 37% faster, but 51.5% of the corpus's words wrong instead of 41.5%.
var residentArgs = append(append([]string{}, programArgs...), "-maxhmmpf", "5000", "-fwdflat", "no", "-pl_window", "10",
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
