package media

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/mewkiz/flac"
	"github.com/mewkiz/flac/frame"
)

// maxFLACRate is the highest sample rate DecodeFLAC takes; the format allows up to 655,350 Hz.
const maxFLACRate = 384000

// DecodeFLAC reads a native FLAC file (with or without a leading ID3v2 tag) into 16-bit PCM at
// its rate: mono and stereo stay as they are, more channels are averaged to mono, and other
// sample sizes are scaled to 16 bits. Input on which the decoder panics is an error, not a crash,
// and the PCM is capped at MaxDuration (ErrTooLong).
func DecodeFLAC(data []byte) (p PCM, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = PCM{}, fmt.Errorf("flac: corrupt stream (the decoder failed: %v)", r)
		}
	}()
	body, err := skipID3v2(data)
	if err != nil {
		return PCM{}, err
	}
	stream, err := flac.New(bytes.NewReader(body))
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return PCM{}, fmt.Errorf("flac: metadata cut short: %w", errTruncated)
		}
		return PCM{}, fmt.Errorf("flac: %v", err)
	}
	info := stream.Info
	rate, channels, bps := int(info.SampleRate), int(info.NChannels), int(info.BitsPerSample)
	switch {
	case rate <= 0 || rate > maxFLACRate:
		return PCM{}, fmt.Errorf("flac: sample rate %d Hz: %w", rate, ErrUnsupported)
	case channels < 1 || channels > 8:
		return PCM{}, fmt.Errorf("flac: %d channels: %w", channels, ErrUnsupported)
	case bps < 4 || bps > 32:
		return PCM{}, fmt.Errorf("flac: %d bits per sample: %w", bps, ErrUnsupported)
	}
	outCh := channels
	if outCh > 2 {
		outCh = 1
	}
	limit := compressedLimit(rate, outCh)
	p = PCM{Rate: rate, Channels: outCh}
	for {
		f, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return PCM{}, fmt.Errorf("flac: %v", err)
		}
		if f.BitsPerSample == 0 {
			f.BitsPerSample = uint8(bps) // "as in the stream info"
		}
		if f.SampleRate != 0 && int(f.SampleRate) != rate {
			return PCM{}, fmt.Errorf("flac: a frame at %d Hz in a %d Hz stream: %w", f.SampleRate, rate, ErrUnsupported)
		}
		if f.Channels.Count() != channels {
			return PCM{}, fmt.Errorf("flac: a frame with %d channels in a %d-channel stream: %w", f.Channels.Count(), channels, ErrUnsupported)
		}
		if err := f.Parse(); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break // a file cut short: keep the frames before
			}
			return PCM{}, fmt.Errorf("flac: %v", err)
		}
		n := int(f.BlockSize)
		for _, sf := range f.Subframes {
			if len(sf.Samples) < n {
				return PCM{}, fmt.Errorf("flac: a subframe holds %d of its %d samples", len(sf.Samples), n)
			}
		}
		if len(p.Samples)+n*outCh > limit {
			return PCM{}, ErrTooLong
		}
		appendFLACFrame(&p, f.Subframes, n, int(f.BitsPerSample))
	}
	if len(p.Samples) == 0 {
		return PCM{}, fmt.Errorf("flac: no audio frame: %w", errTruncated)
	}
	return p, nil
}

// appendFLACFrame appends n frames of the subframes' samples, of bps bits, to p as 16-bit
// samples: interleaved for mono and stereo, averaged to mono for more channels.
func appendFLACFrame(p *PCM, subframes []*frame.Subframe, n, bps int) {
	to16 := func(v int32) int32 {
		if bps > 16 {
			return v >> (bps - 16)
		}
		return v << (16 - bps)
	}
	for i := range n {
		if p.Channels == 1 && len(subframes) > 1 {
			var sum int64
			for _, sf := range subframes {
				sum += int64(to16(sf.Samples[i]))
			}
			p.Samples = append(p.Samples, clamp16(float64(sum)/float64(len(subframes))))
			continue
		}
		for _, sf := range subframes {
			p.Samples = append(p.Samples, clamp16(float64(to16(sf.Samples[i]))))
		}
	}
}
