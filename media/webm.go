package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"gopkg.in/hraban/opus.v2"
)

// DefaultOpusBitrate is the bitrate WebMOpusEncoder uses when given 0: enough for speech.
const DefaultOpusBitrate = 16000

// opusFrameMs is the Opus frame length the encoder writes.
const opusFrameMs = 20

// clusterFrames is how many 20 ms blocks go into one Cluster (5 s).
const clusterFrames = 250

// maxOpusPacket bounds one encoded Opus packet (libopus's recommended buffer).
const maxOpusPacket = 4000

// EBML and Matroska element IDs used here.
const (
	idEBML               = 0x1A45DFA3
	idEBMLVersion        = 0x4286
	idEBMLReadVersion    = 0x42F7
	idEBMLMaxIDLength    = 0x42F2
	idEBMLMaxSizeLength  = 0x42F3
	idDocType            = 0x4282
	idDocTypeVersion     = 0x4287
	idDocTypeReadVersion = 0x4285
	idSegment            = 0x18538067
	idInfo               = 0x1549A966
	idTimecodeScale      = 0x2AD7B1
	idMuxingApp          = 0x4D80
	idWritingApp         = 0x5741
	idTracks             = 0x1654AE6B
	idTrackEntry         = 0xAE
	idTrackNumber        = 0xD7
	idTrackUID           = 0x73C5
	idTrackType          = 0x83
	idCodecID            = 0x86
	idCodecPrivate       = 0x63A2
	idCodecDelay         = 0x56AA
	idSeekPreRoll        = 0x56BB
	idAudio              = 0xE1
	idSamplingFrequency  = 0xB5
	idChannels           = 0x9F
	idCluster            = 0x1F43B675
	idTimecode           = 0xE7
	idSimpleBlock        = 0xA3
	idBlockGroup         = 0xA0
	idBlock              = 0xA1
	idDiscardPadding     = 0x75A2
)

// unknownSize is the 8-byte EBML "size unknown" value: the element runs until its parent ends
// or a sibling starts, as in a live recording.
var unknownSize = []byte{0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}

// appendID appends an element ID (IDs keep their length marker).
func appendID(b []byte, id uint32) []byte {
	switch {
	case id >= 1<<24:
		return append(b, byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
	case id >= 1<<16:
		return append(b, byte(id>>16), byte(id>>8), byte(id))
	case id >= 1<<8:
		return append(b, byte(id>>8), byte(id))
	}
	return append(b, byte(id))
}

// appendSize appends an EBML data size in the shortest form.
func appendSize(b []byte, n uint64) []byte {
	for l := 1; l <= 8; l++ {
		if n < 1<<(7*l)-1 { // all ones is reserved for "unknown"
			v := n | 1<<(7*l)
			for i := l - 1; i >= 0; i-- {
				b = append(b, byte(v>>(8*i)))
			}
			return b
		}
	}
	return append(b, unknownSize...) // unreachable for sizes below 2^56-1
}

// appendElem appends a whole element with a binary body.
func appendElem(b []byte, id uint32, body []byte) []byte {
	b = appendID(b, id)
	b = appendSize(b, uint64(len(body)))
	return append(b, body...)
}

// appendUint appends an unsigned integer element in the fewest bytes.
func appendUint(b []byte, id uint32, v uint64) []byte {
	n := 1
	for n < 8 && v>>(8*n) != 0 {
		n++
	}
	var body [8]byte
	binary.BigEndian.PutUint64(body[:], v)
	return appendElem(b, id, body[8-n:])
}

// appendFloat appends a 64-bit float element.
func appendFloat(b []byte, id uint32, v float64) []byte {
	var body [8]byte
	binary.BigEndian.PutUint64(body[:], math.Float64bits(v))
	return appendElem(b, id, body[:])
}

// WebMOpusEncoder encodes PCM to Opus in 20 ms frames and writes a WebM file as it goes, the
// way a browser's MediaRecorder does: unknown-size Segment and Clusters, one SimpleBlock per
// frame, written to w as soon as the frame is full. Not safe for concurrent use.
type WebMOpusEncoder struct {
	w        io.Writer
	enc      *opus.Encoder
	rate     int
	channels int
	frame    int     // samples per channel in one frame
	pending  []int16 // a partial frame, interleaved
	packet   []byte
	block    []byte
	frames   int64 // frames encoded
	written  int64 // sample frames given to Write
	err      error // sticky: the first write or encode error
	closed   bool
}

// NewWebMOpusEncoder writes the WebM header to w and returns an encoder for PCM at rate
// (8000, 12000, 16000, 24000 or 48000 Hz) with 1 or 2 channels, coded with the VOIP
// application at bitrate bits per second (DefaultOpusBitrate when 0).
func NewWebMOpusEncoder(w io.Writer, rate, channels, bitrate int) (*WebMOpusEncoder, error) {
	if !validOpusRate(rate) {
		return nil, fmt.Errorf("opus: cannot encode at %d Hz (use 8000, 12000, 16000, 24000 or 48000)", rate)
	}
	if channels != 1 && channels != 2 {
		return nil, fmt.Errorf("opus: cannot encode %d channels (use 1 or 2)", channels)
	}
	if bitrate == 0 {
		bitrate = DefaultOpusBitrate
	}
	enc, err := opus.NewEncoder(rate, channels, opus.AppVoIP)
	if err != nil {
		return nil, fmt.Errorf("opus: new encoder: %w", err)
	}
	if err := enc.SetBitrate(bitrate); err != nil {
		return nil, fmt.Errorf("opus: bitrate %d: %w", bitrate, err)
	}
	e := &WebMOpusEncoder{
		w:        w,
		enc:      enc,
		rate:     rate,
		channels: channels,
		frame:    rate * opusFrameMs / 1000,
		packet:   make([]byte, maxOpusPacket),
	}
	e.pending = make([]int16, 0, e.frame*channels)
	if _, err := w.Write(e.header()); err != nil {
		return nil, fmt.Errorf("webm: writing header: %w", err)
	}
	return e, nil
}

// header returns the EBML header, the start of the Segment, Info and Tracks.
func (e *WebMOpusEncoder) header() []byte {
	var ebml []byte
	ebml = appendUint(ebml, idEBMLVersion, 1)
	ebml = appendUint(ebml, idEBMLReadVersion, 1)
	ebml = appendUint(ebml, idEBMLMaxIDLength, 4)
	ebml = appendUint(ebml, idEBMLMaxSizeLength, 8)
	ebml = appendElem(ebml, idDocType, []byte("webm"))
	ebml = appendUint(ebml, idDocTypeVersion, 4)
	ebml = appendUint(ebml, idDocTypeReadVersion, 2)

	var info []byte
	info = appendUint(info, idTimecodeScale, 1000000)
	info = appendElem(info, idMuxingApp, []byte("parley"))
	info = appendElem(info, idWritingApp, []byte("parley"))

	var audio []byte
	audio = appendFloat(audio, idSamplingFrequency, 48000)
	audio = appendUint(audio, idChannels, uint64(e.channels))

	head := opusHead{channels: e.channels, preSkip: opusPreSkip48k, inputRate: e.rate}
	var track []byte
	track = appendUint(track, idTrackNumber, 1)
	track = appendUint(track, idTrackUID, 1)
	track = appendUint(track, idTrackType, 2) // audio
	track = appendElem(track, idCodecID, []byte("A_OPUS"))
	track = appendElem(track, idCodecPrivate, head.marshal())
	track = appendUint(track, idCodecDelay, opusPreSkip48k*1000000000/48000)
	track = appendUint(track, idSeekPreRoll, 80000000)
	track = appendElem(track, idAudio, audio)

	var b []byte
	b = appendElem(b, idEBML, ebml)
	b = appendID(b, idSegment)
	b = append(b, unknownSize...)
	b = appendElem(b, idInfo, info)
	b = appendElem(b, idTracks, appendElem(nil, idTrackEntry, track))
	return b
}

// Write encodes samples (interleaved, any length); every full 20 ms frame is encoded and
// written at once, a partial one waits for more samples or Close.
func (e *WebMOpusEncoder) Write(samples []int16) error {
	if e.err != nil {
		return e.err
	}
	if e.closed {
		return errors.New("webm: write after close")
	}
	e.written += int64(len(samples) / e.channels)
	need := e.frame * e.channels
	for len(samples) > 0 {
		if len(e.pending) == 0 && len(samples) >= need {
			if err := e.encodeFrame(samples[:need], 0); err != nil {
				return err
			}
			samples = samples[need:]
			continue
		}
		n := min(need-len(e.pending), len(samples))
		e.pending = append(e.pending, samples[:n]...)
		samples = samples[n:]
		if len(e.pending) == need {
			if err := e.encodeFrame(e.pending, 0); err != nil {
				return err
			}
			e.pending = e.pending[:0]
		}
	}
	return nil
}

// encodeFrame encodes one full frame and writes it as a block. A non-zero discard (samples per
// channel at the end that are padding) makes it a BlockGroup carrying DiscardPadding.
func (e *WebMOpusEncoder) encodeFrame(pcm []int16, discard int) error {
	n, err := e.enc.Encode(pcm, e.packet)
	if err != nil {
		e.err = fmt.Errorf("opus: encode: %w", err)
		return e.err
	}
	b := e.block[:0]
	if e.frames%clusterFrames == 0 {
		b = appendID(b, idCluster)
		b = append(b, unknownSize...)
		b = appendUint(b, idTimecode, uint64(e.frames*opusFrameMs))
	}
	rel := int16((e.frames % clusterFrames) * opusFrameMs)
	blk := []byte{0x81, byte(uint16(rel) >> 8), byte(rel), 0x80} // track 1, timecode, keyframe
	if discard == 0 {
		b = appendID(b, idSimpleBlock)
		b = appendSize(b, uint64(len(blk)+n))
		b = append(b, blk...)
		b = append(b, e.packet[:n]...)
	} else {
		blk[3] = 0 // Block flags carry no keyframe bit
		var g []byte
		g = appendID(g, idBlock)
		g = appendSize(g, uint64(len(blk)+n))
		g = append(g, blk...)
		g = append(g, e.packet[:n]...)
		var pad [8]byte
		binary.BigEndian.PutUint64(pad[:], uint64(int64(discard)*1000000000/int64(e.rate)))
		g = appendElem(g, idDiscardPadding, pad[:])
		b = appendElem(b, idBlockGroup, g)
	}
	e.block = b
	e.frames++
	if _, err := e.w.Write(b); err != nil {
		e.err = fmt.Errorf("webm: write: %w", err)
		return e.err
	}
	return nil
}

// Close pads and encodes the last partial frame, adds a frame of silence if the codec delay
// would otherwise cut off the end, and marks the padding with DiscardPadding so decoders
// return exactly the samples written. It does not close w.
func (e *WebMOpusEncoder) Close() error {
	if e.closed {
		return e.err
	}
	e.closed = true
	if e.err != nil {
		return e.err
	}
	delay := opusPreSkip48k * e.rate / 48000
	// Samples per channel the decoder returns after pre-skip, minus what was written.
	spare := func(extra int) int {
		return int((e.frames+int64(extra))*int64(e.frame)) - delay - int(e.written)
	}
	extra := 0
	if len(e.pending) > 0 {
		extra = 1
	}
	if spare(extra) < 0 {
		extra++
	}
	if extra == 0 {
		return nil
	}
	frames := make([]int16, extra*e.frame*e.channels)
	copy(frames, e.pending)
	e.pending = e.pending[:0]
	last := min(spare(extra), e.frame)
	for i := range extra {
		discard := 0
		if i == extra-1 {
			discard = last
		}
		if err := e.encodeFrame(frames[i*e.frame*e.channels:(i+1)*e.frame*e.channels], discard); err != nil {
			return err
		}
	}
	return nil
}

// Duration returns how much audio has been given to Write so far.
func (e *WebMOpusEncoder) Duration() time.Duration {
	return time.Duration(e.written * int64(time.Second) / int64(e.rate))
}

// EncodeWebMOpus encodes p as a WebM/Opus file at bitrate (DefaultOpusBitrate when 0). Audio at
// a rate Opus does not take is resampled to 16 kHz (input up to 16 kHz) or 48 kHz; more than
// two channels are mixed to mono.
func EncodeWebMOpus(p PCM, bitrate int) ([]byte, error) {
	if p.Channels < 1 || p.Rate <= 0 {
		return nil, fmt.Errorf("opus: cannot encode %d channels at %d Hz", p.Channels, p.Rate)
	}
	if p.Channels > 2 {
		p = Mono(p)
	}
	if !validOpusRate(p.Rate) {
		if p.Rate <= 16000 {
			p = Resample(p, 16000)
		} else {
			p = Resample(p, 48000)
		}
	}
	var b bytes.Buffer
	e, err := NewWebMOpusEncoder(&b, p.Rate, p.Channels, bitrate)
	if err != nil {
		return nil, err
	}
	if err := e.Write(p.Samples[:p.Frames()*p.Channels]); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
