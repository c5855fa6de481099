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

// clusterFrames is how many 20 ms frames go into one Cluster (5 s): a block whose first frame
// lies this far past the Cluster's start opens a new Cluster.
const clusterFrames = 250

// DefaultFramesPerBlock is how many 20 ms Opus frames WebMOpusEncoder laces into one block
// (60 ms): each block costs 6 to 9 bytes of header, about 300 B/s when every frame has its own.
const DefaultFramesPerBlock = 3

// maxFramesPerBlock bounds FramesPerBlock: more delays the stream for a saving under 1 B/s.
const maxFramesPerBlock = 50

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
	idDefaultDuration    = 0x23E383
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

// appendFloat32 appends a 32-bit float element (EBML floats are 4 or 8 bytes).
func appendFloat32(b []byte, id uint32, v float32) []byte {
	var body [4]byte
	binary.BigEndian.PutUint32(body[:], math.Float32bits(v))
	return appendElem(b, id, body[:])
}

// WebMOpusEncoder encodes PCM to Opus in 20 ms frames and writes a WebM file as it goes, the
// way a browser's MediaRecorder does: unknown-size Segment and Clusters, written to w as soon as
// each block is full. A block holds FramesPerBlock frames (DefaultFramesPerBlock) laced
// together, which saves most of the per-block header; Close writes the last, partial one.
//
// The lacing is Xiph lacing: a frame count, then each size but the last as a run of 255s and a
// final byte below 255. Opus frames at speech bitrates are under 255 bytes, so each size costs
// one byte (EBML lacing's signed differences cost two once sizes differ by more than 63). When
// all the frames have one size (digital silence) it is fixed-size lacing, just the count, as
// mkvmerge chooses too. Matroska and WebM allow both in SimpleBlock and Block, and ffmpeg
// (libavformat), mkvtoolnix (libmatroska) and libwebm's parser read them; Chromium's own MSE WebM parser does not take laced
// blocks, so these files are for upload and decoders, not for MediaSource. Not safe for
// concurrent use.
type WebMOpusEncoder struct {
	w            io.Writer
	enc          *opus.Encoder
	rate         int
	channels     int
	frame        int     // samples per channel in one frame
	perBlock     int     // frames laced into one block
	pending      []int16 // a partial frame, interleaved
	packet       []byte
	laced        []byte // the encoded frames waiting for the block, one after the other
	sizes        []int  // their sizes
	block        []byte
	frames       int64 // frames encoded
	blockStart   int64 // index of the first frame waiting for the block
	clusterStart int64 // index of the first frame of the open Cluster, -1 before the first
	written      int64 // sample frames given to Write
	err          error // sticky: the first write or encode error
	closed       bool
}

// NewWebMOpusEncoder writes the WebM header to w and returns an encoder for PCM at rate
// (8000, 12000, 16000, 24000 or 48000 Hz) with 1 or 2 channels, coded with the VOIP
// application at bitrate bits per second (DefaultOpusBitrate when 0), DefaultFramesPerBlock
// frames to a block.
func NewWebMOpusEncoder(w io.Writer, rate, channels, bitrate int) (*WebMOpusEncoder, error) {
	return NewWebMOpusEncoderBlocks(w, rate, channels, bitrate, 0)
}

// NewWebMOpusEncoderBlocks is NewWebMOpusEncoder with framesPerBlock 20 ms frames laced into
// each block (1 to 50; DefaultFramesPerBlock when 0). 1 writes one unlaced block per frame.
func NewWebMOpusEncoderBlocks(w io.Writer, rate, channels, bitrate, framesPerBlock int) (*WebMOpusEncoder, error) {
	if !validOpusRate(rate) {
		return nil, fmt.Errorf("opus: cannot encode at %d Hz (use 8000, 12000, 16000, 24000 or 48000)", rate)
	}
	if channels != 1 && channels != 2 {
		return nil, fmt.Errorf("opus: cannot encode %d channels (use 1 or 2)", channels)
	}
	if framesPerBlock == 0 {
		framesPerBlock = DefaultFramesPerBlock
	}
	if framesPerBlock < 1 || framesPerBlock > maxFramesPerBlock {
		return nil, fmt.Errorf("webm: %d frames per block (use 1 to %d)", framesPerBlock, maxFramesPerBlock)
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
		w:            w,
		enc:          enc,
		rate:         rate,
		channels:     channels,
		frame:        rate * opusFrameMs / 1000,
		perBlock:     framesPerBlock,
		packet:       make([]byte, maxOpusPacket),
		clusterStart: -1,
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
	audio = appendFloat32(audio, idSamplingFrequency, 48000)
	audio = appendUint(audio, idChannels, uint64(e.channels))

	head := opusHead{channels: e.channels, preSkip: opusPreSkip48k, inputRate: e.rate}
	var track []byte
	track = appendUint(track, idTrackNumber, 1)
	track = appendUint(track, idTrackUID, 1)
	track = appendUint(track, idTrackType, 2) // audio
	track = appendElem(track, idCodecID, []byte("A_OPUS"))
	track = appendElem(track, idCodecPrivate, head.marshal())
	// DefaultDuration times the frames after the first in a laced block (ffmpeg leaves them
	// without a timestamp otherwise).
	track = appendUint(track, idDefaultDuration, opusFrameMs*1000000)
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

// Write encodes samples (interleaved, any length); every full 20 ms frame is encoded at once
// and every full block written at once, a partial frame waits for more samples or Close.
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
			if err := e.addFrame(samples[:need]); err != nil {
				return err
			}
			samples = samples[need:]
			continue
		}
		n := min(need-len(e.pending), len(samples))
		e.pending = append(e.pending, samples[:n]...)
		samples = samples[n:]
		if len(e.pending) == need {
			if err := e.addFrame(e.pending); err != nil {
				return err
			}
			e.pending = e.pending[:0]
		}
	}
	return nil
}

// addFrame encodes one full frame and writes the block if that fills it.
func (e *WebMOpusEncoder) addFrame(pcm []int16) error {
	if err := e.encodeFrame(pcm); err != nil {
		return err
	}
	if len(e.sizes) == e.perBlock {
		return e.writeBlock(0)
	}
	return nil
}

// encodeFrame encodes one full frame into the waiting block.
func (e *WebMOpusEncoder) encodeFrame(pcm []int16) error {
	n, err := e.enc.Encode(pcm, e.packet)
	if err != nil {
		e.err = fmt.Errorf("opus: encode: %w", err)
		return e.err
	}
	e.laced = append(e.laced, e.packet[:n]...)
	e.sizes = append(e.sizes, n)
	e.frames++
	return nil
}

// writeBlock writes the waiting frames as one block, Xiph-laced when there are several, in a
// new Cluster when the open one is full. A non-zero discard (samples per channel at the end of
// the block that are padding) makes it a BlockGroup carrying DiscardPadding.
func (e *WebMOpusEncoder) writeBlock(discard int) error {
	if len(e.sizes) == 0 {
		return nil
	}
	e.block, e.clusterStart = e.appendBlock(e.block[:0], discard)
	e.blockStart += int64(len(e.sizes))
	e.laced = e.laced[:0]
	e.sizes = e.sizes[:0]
	if _, err := e.w.Write(e.block); err != nil {
		e.err = fmt.Errorf("webm: write: %w", err)
		return e.err
	}
	return nil
}

// AppendPending appends to b the frames encoded so far that wait for their block to fill, as the
// block writeBlock would write (with its Cluster header when it would start one), and changes
// nothing: what has been written followed by AppendPending's bytes is a whole WebM file of all
// the audio encoded so far. A snapshot of a take being recorded is 60 ms more up to date so.
func (e *WebMOpusEncoder) AppendPending(b []byte) []byte {
	if e.err != nil || len(e.sizes) == 0 {
		return b
	}
	b, _ = e.appendBlock(b, 0)
	return b
}

// appendBlock appends the waiting frames to b as one block, after a Cluster header when the open
// cluster is full, and returns the cluster the block is in; it changes nothing else but the
// scratch space of e.packet.
func (e *WebMOpusEncoder) appendBlock(b []byte, discard int) ([]byte, int64) {
	clusterStart := e.clusterStart
	if clusterStart < 0 || e.blockStart-clusterStart >= clusterFrames {
		clusterStart = e.blockStart
		b = appendID(b, idCluster)
		b = append(b, unknownSize...)
		b = appendUint(b, idTimecode, uint64(clusterStart*opusFrameMs))
	}
	rel := int16((e.blockStart - clusterStart) * opusFrameMs) // below 5 s: fits
	flags := byte(0)
	var lace []byte
	switch {
	case len(e.sizes) > 1 && equalSizes(e.sizes):
		flags = 0x04 // fixed-size lacing: just the count (frames of digital silence)
		lace = append(e.packet[:0], byte(len(e.sizes)-1))
	case len(e.sizes) > 1:
		flags = 0x02 // Xiph lacing
		lace = appendXiphLacing(e.packet[:0], e.sizes)
	}
	size := uint64(4 + len(lace) + len(e.laced))
	if discard == 0 {
		b = appendID(b, idSimpleBlock)
		b = appendSize(b, size)
		flags |= 0x80 // keyframe: every Opus packet decodes on its own
	} else {
		// The Block's own header, and DiscardPadding (an 8-byte signed integer) after it.
		b = appendID(b, idBlockGroup)
		b = appendSize(b, uint64(len(appendID(nil, idBlock))+len(appendSize(nil, size)))+size+2+1+8)
		b = appendID(b, idBlock)
		b = appendSize(b, size)
	}
	b = append(b, 0x81, byte(uint16(rel)>>8), byte(rel), flags) // track 1, timecode, flags
	b = append(b, lace...)
	b = append(b, e.laced...)
	if discard != 0 {
		var pad [8]byte
		binary.BigEndian.PutUint64(pad[:], uint64(int64(discard)*1000000000/int64(e.rate)))
		b = appendElem(b, idDiscardPadding, pad[:])
	}
	return b, clusterStart
}

// equalSizes reports whether all sizes are the same.
func equalSizes(sizes []int) bool {
	for _, n := range sizes[1:] {
		if n != sizes[0] {
			return false
		}
	}
	return true
}

// appendXiphLacing appends the lacing header of a block holding frames of these sizes: the
// frame count less one, then each size but the last as 255s and a final byte below 255.
func appendXiphLacing(b []byte, sizes []int) []byte {
	b = append(b, byte(len(sizes)-1))
	for _, n := range sizes[:len(sizes)-1] {
		for ; n >= 255; n -= 255 {
			b = append(b, 255)
		}
		b = append(b, byte(n))
	}
	return b
}

// Close pads and encodes the last partial frame, adds a frame of silence if the codec delay
// would otherwise cut off the end, writes the waiting frames and marks the padding of the last
// one with DiscardPadding so decoders return exactly the samples written. It does not close w.
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
	frames := make([]int16, extra*e.frame*e.channels)
	copy(frames, e.pending)
	e.pending = e.pending[:0]
	last := 0
	if extra > 0 {
		last = min(spare(extra), e.frame)
	}
	for i := range extra {
		if i == extra-1 {
			// The padded frame goes alone in the last block: mkvextract and ffmpeg apply a
			// laced block's DiscardPadding to each of its frames, not once at its end.
			if err := e.writeBlock(0); err != nil {
				return err
			}
		}
		if err := e.encodeFrame(frames[i*e.frame*e.channels : (i+1)*e.frame*e.channels]); err != nil {
			return err
		}
		if i < extra-1 && len(e.sizes) == e.perBlock {
			if err := e.writeBlock(0); err != nil {
				return err
			}
		}
	}
	return e.writeBlock(last)
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
