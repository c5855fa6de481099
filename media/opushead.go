package media

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// opusPreSkip48k is libopus's encoder lookahead (2.5 ms + 4 ms delay compensation) for the
// VOIP and AUDIO applications, in 48 kHz samples, as OpusHead counts it.
const opusPreSkip48k = 312

// opusDecodeRate is the rate the decoders here ask libopus for: what speech recognition takes.
const opusDecodeRate = 16000

// opusHead is the identification header of an Opus stream (RFC 7845 section 5.1).
type opusHead struct {
	channels   int
	preSkip    int // in 48 kHz samples
	inputRate  int
	outputGain int16
}

// marshal returns the 19-byte OpusHead for channel mapping family 0.
func (h opusHead) marshal() []byte {
	b := make([]byte, 19)
	copy(b, "OpusHead")
	b[8] = 1
	b[9] = byte(h.channels)
	binary.LittleEndian.PutUint16(b[10:], uint16(h.preSkip))
	binary.LittleEndian.PutUint32(b[12:], uint32(h.inputRate))
	binary.LittleEndian.PutUint16(b[16:], uint16(h.outputGain))
	b[18] = 0
	return b
}

// parseOpusHead reads an OpusHead packet. Only mapping family 0 (mono or stereo) is decoded.
func parseOpusHead(b []byte) (opusHead, error) {
	if len(b) < 19 || string(b[:8]) != "OpusHead" {
		return opusHead{}, errors.New("opus: missing OpusHead")
	}
	if b[8]>>4 != 0 { // major version 0 is the only one defined; minor versions are compatible
		return opusHead{}, fmt.Errorf("opus: OpusHead version %d: %w", b[8], ErrUnsupported)
	}
	h := opusHead{
		channels:   int(b[9]),
		preSkip:    int(binary.LittleEndian.Uint16(b[10:])),
		inputRate:  int(binary.LittleEndian.Uint32(b[12:])),
		outputGain: int16(binary.LittleEndian.Uint16(b[16:])),
	}
	if b[18] != 0 || h.channels < 1 || h.channels > 2 {
		return opusHead{}, fmt.Errorf("opus: %d channels, mapping family %d: %w", h.channels, b[18], ErrUnsupported)
	}
	return h, nil
}

// validOpusRate reports whether libopus encodes at the rate.
func validOpusRate(rate int) bool {
	switch rate {
	case 8000, 12000, 16000, 24000, 48000:
		return true
	}
	return false
}
