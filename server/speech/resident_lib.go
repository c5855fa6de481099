package speech

import (
	"context"
	"strings"

	"parley/internal/sphinx"
)

// loadLibrary opens libpocketsphinx once per process; later calls return the first answer.
var loadLibrary = sphinx.Load

// libDecoder is one pocketsphinx decoder of libpocketsphinx, with its model loaded.
type libDecoder struct{ d *sphinx.Decoder }

// newLibDecoder loads the library (once) and makes a decoder with args, the program's
// command-line options.
func newLibDecoder(args []string) (recogniser, error) {
	d, err := sphinx.New(args)
	if err != nil {
		return nil, err
	}
	return &libDecoder{d}, nil
}

// recognise decodes 16 kHz mono samples as pocketsphinx_continuous -infile does, from the state
// the decoder was made in: in chunks of programChunk samples, ending an utterance (and keeping
// its hypothesis) where the library's voice activity detector hears speech end. It returns one
// hypothesis a line, as the program prints them. It checks ctx between chunks.
func (l *libDecoder) recognise(ctx context.Context, samples []int16) (string, error) {
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
