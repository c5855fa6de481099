package speech

import (
	"context"
	"strings"

	"parley/internal/sphinx"
)

// loadLibrary opens libpocketsphinx once per process; later calls return the first answer.
var loadLibrary = sphinx.Load

// libDecoder is one pocketsphinx decoder of libpocketsphinx, with its model loaded.
type libDecoder struct {
	d *sphinx.Decoder
	// stream decodes as pocketsphinx_continuous does (recogniseStream), not in whole pieces.
	stream bool
}

// newLibDecoder loads the library (once) and makes a decoder with args, the program's
// command-line options, that decodes a take in whole pieces (recogniseWhole).
func newLibDecoder(args []string) (recogniser, error) {
	d, err := sphinx.New(args)
	if err != nil {
		return nil, err
	}
	return &libDecoder{d: d}, nil
}

// newStreamDecoder is newLibDecoder for a decoder that decodes as pocketsphinx_continuous does.
func newStreamDecoder(args []string) (recogniser, error) {
	d, err := sphinx.New(args)
	if err != nil {
		return nil, err
	}
	return &libDecoder{d: d, stream: true}, nil
}

// maxPiece and minPiece bound the pieces recogniseWhole decodes one at a time: 30 s of audio at
// most (6 to 9 s of CPU here), cut at the quietest 100 ms after 15 s.
const (
	maxPiece = 30 * 16000
	minPiece = 15 * 16000
)

func (l *libDecoder) recognise(ctx context.Context, samples []int16) (string, error) {
	if l.stream {
		return l.recogniseStream(ctx, samples)
	}
	return l.recogniseWhole(ctx, samples)
}

// recogniseWhole decodes 16 kHz mono samples, from the state the decoder was made in, as whole
// utterances of at most maxPiece samples each: the library then takes the cepstral mean of each
// piece itself (-cmn current) where a stream makes do with the mean of what came before. That
// is what a take needs, recorded whole before it is sent, from a microphone and a room the
// model never heard: on the hearing corpus (BenchmarkHearing) it gets 42% fewer of people's
// words wrong, and half the synthetic ones, than decoding as a stream. It returns one
// hypothesis a line, and checks ctx between pieces.
func (l *libDecoder) recogniseWhole(ctx context.Context, samples []int16) (string, error) {
	d := l.d
	if err := d.Reset(); err != nil {
		return "", err
	}
	var hyps []string
	for _, p := range pieces(samples) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if err := d.Start(); err != nil {
			return "", err
		}
		if err := d.ProcessWhole(p); err != nil {
			return "", err
		}
		if err := d.End(); err != nil {
			return "", err
		}
		if h := d.Hyp(); h != "" {
			hyps = append(hyps, h)
		}
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return strings.Join(hyps, "\n"), nil
}

// pieces cuts samples into stretches of at most maxPiece, each cut at the quietest 100 ms
// (in steps of 20 ms) after minPiece.
func pieces(samples []int16) [][]int16 {
	const window, step = 1600, 320
	var out [][]int16
	for len(samples) > maxPiece {
		cut, least := minPiece, -1.0
		for at := minPiece; at+window <= maxPiece; at += step {
			var e float64
			for _, v := range samples[at : at+window] {
				e += float64(v) * float64(v)
			}
			if least < 0 || e < least {
				cut, least = at+window/2, e
			}
		}
		out = append(out, samples[:cut])
		samples = samples[cut:]
	}
	return append(out, samples)
}

// recogniseStream decodes 16 kHz mono samples as pocketsphinx_continuous -infile does, from the
// state the decoder was made in: in chunks of programChunk samples, ending an utterance (and
// keeping its hypothesis) where the library's voice activity detector hears speech end. It
// returns one hypothesis a line, as the program prints them. It checks ctx between chunks.
func (l *libDecoder) recogniseStream(ctx context.Context, samples []int16) (string, error) {
	d := l.d
	if err := d.Reset(); err != nil {
		return "", err
	}
	if err := d.Start(); err != nil {
		return "", err
	}
	var hyps []string
	inUtt := false
	for off := 0; off < len(samples); off += programChunk {
		if err := ctx.Err(); err != nil {
			if err := d.End(); err != nil {
				return "", err
			}
			return "", err
		}
		if err := d.Process(samples[off:min(off+programChunk, len(samples))]); err != nil {
			return "", err
		}
		speech := d.InSpeech()
		if speech && !inUtt {
			inUtt = true
		}
		if !speech && inUtt {
			if err := d.End(); err != nil {
				return "", err
			}
			hyps = append(hyps, d.Hyp())
			if err := d.Start(); err != nil {
				return "", err
			}
			inUtt = false
		}
	}
	if err := d.End(); err != nil {
		return "", err
	}
	if inUtt {
		hyps = append(hyps, d.Hyp())
	}
	return strings.Join(hyps, "\n"), nil
}

// free releases the decoder and its model; the decoder is not used again.
func (l *libDecoder) free() { l.d.Free() }
