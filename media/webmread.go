package media

import (
	"errors"
	"fmt"
	"math"

	"gopkg.in/hraban/opus.v2"
)

// readVint reads an EBML variable-length integer at b. With keepMarker it returns an element ID
// as written; otherwise a data size, with unknown=true for the all-ones value. n is 0 when b
// does not hold a valid vint.
func readVint(b []byte, keepMarker bool) (v uint64, n int, unknown bool) {
	if len(b) == 0 || b[0] == 0 {
		return 0, 0, false
	}
	l := 1
	for b[0]&(0x80>>(l-1)) == 0 {
		l++
	}
	if l > len(b) || (keepMarker && l > 4) {
		return 0, 0, false
	}
	v = uint64(b[0])
	if !keepMarker {
		v &= uint64(0xFF >> l)
	}
	allOnes := v == uint64(0xFF>>l)
	for i := 1; i < l; i++ {
		v = v<<8 | uint64(b[i])
		allOnes = allOnes && b[i] == 0xFF
	}
	return v, l, !keepMarker && allOnes
}

// webmMaster lists the master elements the WebM reader descends into; every other element is
// read or skipped whole. Descending by walking the children in line, rather than by size, is
// what lets unknown-size Segments and Clusters (live recordings) parse.
var webmMaster = map[uint64]bool{
	idEBML: true, idSegment: true, idTracks: true, idTrackEntry: true, idAudio: true,
	idCluster: true, idBlockGroup: true,
}

// webmTrack is what the reader keeps of a TrackEntry.
type webmTrack struct {
	number       uint64
	trackType    uint64
	codec        string
	codecPrivate []byte
	codecDelayNs uint64
	channels     uint64
}

// webmBlock is one block's payload for a track, with the DiscardPadding of its group.
type webmBlock struct {
	track     uint64
	payload   []byte // the frames, still laced
	lacing    byte
	discardNs int64
	timeMs    int64 // the Cluster's Timecode plus the block's, in TimecodeScale units
}

// parseWebM walks the file in line. A file cut short ends the walk with what was read.
func parseWebM(data []byte) (tracks []webmTrack, blocks []webmBlock, err error) {
	var r webmReader
	for pos := 0; pos < len(data); {
		id, idLen, _ := readVint(data[pos:], true)
		if idLen == 0 {
			if pos == 0 {
				return nil, nil, ErrNotAudio
			}
			break // garbage or padding after the last element
		}
		size, sizeLen, unknown := readVint(data[pos+idLen:], false)
		if sizeLen == 0 {
			break
		}
		pos += idLen + sizeLen
		if pos == idLen+sizeLen && id != idEBML {
			return nil, nil, ErrNotAudio
		}
		if webmMaster[id] {
			r.enter(id)
			continue
		}
		if unknown || size > uint64(len(data)-pos) {
			break // an unknown-size leaf or one running past the end: stop with what we have
		}
		r.leaf(id, data[pos:pos+int(size)])
		pos += int(size)
	}
	if r.docType != "" && r.docType != "webm" && r.docType != "matroska" {
		return nil, nil, fmt.Errorf("webm: DocType %q: %w", r.docType, ErrNotAudio)
	}
	return r.tracks, r.blocks, nil
}

// webmReader is what parseWebM has read so far, and where in the file's tree it is.
type webmReader struct {
	docType     string
	tracks      []webmTrack
	blocks      []webmBlock
	track       *webmTrack // the TrackEntry being read, nil before the first
	inGroup     bool       // in a BlockGroup, whose DiscardPadding belongs to its block
	clusterTime int64      // the current Cluster's Timecode
}

// enter notes the start of a master element.
func (r *webmReader) enter(id uint64) {
	switch id {
	case idTrackEntry:
		r.tracks = append(r.tracks, webmTrack{})
		r.track = &r.tracks[len(r.tracks)-1]
	case idBlockGroup:
		r.inGroup = true
	case idCluster:
		r.inGroup = false
		r.clusterTime = 0
	}
}

// leaf reads an element that holds a value; the ones the decoder does not need are skipped.
func (r *webmReader) leaf(id uint64, body []byte) {
	switch id {
	case idDocType:
		r.docType = string(body)
	case idTrackNumber, idTrackType, idCodecDelay, idChannels, idCodecID, idCodecPrivate:
		r.trackField(id, body)
	case idSimpleBlock, idBlock:
		if id == idSimpleBlock {
			r.inGroup = false
		}
		r.block(body)
	case idTimecode:
		r.clusterTime = int64(beUint(body))
	case idDiscardPadding:
		if r.inGroup && len(r.blocks) > 0 {
			r.blocks[len(r.blocks)-1].discardNs = beInt(body)
		}
	}
}

// trackField reads a field of the current TrackEntry; one outside any TrackEntry is skipped.
func (r *webmReader) trackField(id uint64, body []byte) {
	if r.track == nil {
		return
	}
	switch id {
	case idTrackNumber:
		r.track.number = beUint(body)
	case idTrackType:
		r.track.trackType = beUint(body)
	case idCodecDelay:
		r.track.codecDelayNs = beUint(body)
	case idChannels:
		r.track.channels = beUint(body)
	case idCodecID:
		r.track.codec = string(body)
	case idCodecPrivate:
		r.track.codecPrivate = body
	}
}

// block reads a SimpleBlock's or a Block's header (track, time, lacing); one too short for it
// is skipped.
func (r *webmReader) block(body []byte) {
	tn, tl, _ := readVint(body, false)
	if tl == 0 || len(body) < tl+3 {
		return
	}
	rel := int64(int16(uint16(body[tl])<<8 | uint16(body[tl+1])))
	r.blocks = append(r.blocks, webmBlock{track: tn, payload: body[tl+3:], lacing: body[tl+2] & 0x06, timeMs: r.clusterTime + rel})
}

// beUint reads a big-endian unsigned integer of up to 8 bytes (longer bodies keep the last 8).
func beUint(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// beInt reads a big-endian two's complement integer of up to 8 bytes.
func beInt(b []byte) int64 {
	if len(b) == 0 || len(b) > 8 {
		return 0
	}
	v := int64(int8(b[0]))
	for _, c := range b[1:] {
		v = v<<8 | int64(c)
	}
	return v
}

// unlace splits a block payload into its frames (no lacing, Xiph, fixed-size or EBML lacing).
func unlace(payload []byte, lacing byte) ([][]byte, error) {
	if lacing == 0 {
		return [][]byte{payload}, nil
	}
	errLace := errors.New("webm: bad block lacing")
	if len(payload) < 1 {
		return nil, errLace
	}
	count := int(payload[0]) + 1
	p := payload[1:]
	sizes := make([]int, count)
	switch lacing {
	case 0x02: // Xiph: each size but the last as a run of 255s and a final byte below 255
		for i := range count - 1 {
			for {
				if len(p) == 0 {
					return nil, errLace
				}
				c := p[0]
				p = p[1:]
				sizes[i] += int(c)
				if c < 255 {
					break
				}
			}
		}
	case 0x04: // fixed size
		if len(p)%count != 0 {
			return nil, errLace
		}
		for i := range sizes {
			sizes[i] = len(p) / count
		}
	case 0x06: // EBML: the first size, then signed differences
		v, n, _ := readVint(p, false)
		if n == 0 {
			return nil, errLace
		}
		p = p[n:]
		prev := int64(min(v, uint64(len(payload))))
		if count > 1 {
			sizes[0] = int(prev)
		}
		for i := 1; i < count-1; i++ {
			v, n, _ := readVint(p, false)
			if n == 0 {
				return nil, errLace
			}
			p = p[n:]
			prev += int64(v) - (int64(1)<<(7*n-1) - 1)
			if prev < 0 || prev > int64(len(payload)) {
				return nil, errLace
			}
			sizes[i] = int(prev)
		}
	}
	frames := make([][]byte, count)
	for i := range count - 1 {
		if sizes[i] > len(p) {
			return nil, errLace
		}
		frames[i], p = p[:sizes[i]], p[sizes[i]:]
	}
	if lacing == 0x04 {
		frames[count-1] = p[:sizes[count-1]]
	} else {
		frames[count-1] = p
	}
	return frames, nil
}

// DecodeWebMOpus decodes the first Opus audio track of a WebM (or Matroska) file to 16 kHz PCM,
// with the channels the track has. It honours the pre-skip and DiscardPadding; other codecs give
// ErrUnsupported.
func DecodeWebMOpus(data []byte) (PCM, error) {
	tracks, blocks, err := parseWebM(data)
	if err != nil {
		return PCM{}, err
	}
	var tr *webmTrack
	audio := false
	for i := range tracks {
		if tracks[i].codec == "A_OPUS" {
			tr = &tracks[i]
			break
		}
		audio = audio || tracks[i].trackType == 2 || len(tracks[i].codec) > 2 && tracks[i].codec[:2] == "A_"
	}
	if tr == nil {
		if audio {
			return PCM{}, fmt.Errorf("webm: no Opus track: %w", ErrUnsupported)
		}
		return PCM{}, fmt.Errorf("webm: no audio track: %w", ErrNotAudio)
	}
	channels := int(tr.channels)
	preSkip48 := int(tr.codecDelayNs * 48000 / 1e9)
	if tr.codecDelayNs > math.MaxUint32 {
		preSkip48 = 0
	}
	if h, err := parseOpusHead(tr.codecPrivate); err == nil {
		channels = h.channels
		preSkip48 = h.preSkip
	} else if errors.Is(err, ErrUnsupported) {
		return PCM{}, err
	}
	if channels != 1 && channels != 2 {
		return PCM{}, fmt.Errorf("webm: Opus with %d channels: %w", channels, ErrUnsupported)
	}
	d, err := newOpusStream(channels, preSkip48)
	if err != nil {
		return PCM{}, err
	}
	for _, b := range blocks {
		if b.track != tr.number {
			continue
		}
		frames, err := unlace(b.payload, b.lacing)
		if err != nil {
			return PCM{}, err
		}
		d.startBlock()
		for _, f := range frames {
			if err := d.decode(f); err != nil {
				return PCM{}, err
			}
		}
		if b.discardNs > 0 {
			d.discardEnd(int(min(b.discardNs, 1e9) * opusDecodeRate / 1e9))
		}
	}
	return d.pcm(), nil
}

// opusStream decodes packets one after the other to 16 kHz, dropping the pre-skip and keeping
// to MaxDuration.
type opusStream struct {
	dec      *opus.Decoder
	channels int
	skip     int // frames still to drop from the start
	buf      []int16
	out      []int16
	blockLen int // frames the current block added to out
}

// newOpusStream returns a decoder for 1 or 2 channels with a pre-skip in 48 kHz samples.
func newOpusStream(channels, preSkip48 int) (*opusStream, error) {
	dec, err := opus.NewDecoder(opusDecodeRate, channels)
	if err != nil {
		return nil, fmt.Errorf("opus: new decoder: %w", err)
	}
	return &opusStream{
		dec:      dec,
		channels: channels,
		skip:     preSkip48 * opusDecodeRate / 48000,
		buf:      make([]int16, 120*opusDecodeRate/1000*channels), // the longest Opus packet
	}, nil
}

// decode appends one packet's audio; an empty packet is skipped.
func (s *opusStream) decode(packet []byte) error {
	if len(packet) == 0 {
		return nil
	}
	n, err := s.dec.Decode(packet, s.buf)
	if err != nil {
		return fmt.Errorf("opus: corrupt packet: %w", err)
	}
	pcm := s.buf[:n*s.channels]
	if s.skip > 0 {
		k := min(s.skip, n)
		s.skip -= k
		pcm = pcm[k*s.channels:]
	}
	if len(s.out)+len(pcm) > maxSamplesAt(opusDecodeRate, s.channels) {
		return ErrTooLong
	}
	s.out = append(s.out, pcm...)
	s.blockLen += len(pcm) / s.channels
	return nil
}

// startBlock marks the start of a block: DiscardPadding counts from the end of the block, which
// may hold several packets.
func (s *opusStream) startBlock() { s.blockLen = 0 }

// discardEnd drops up to frames frames of the current block's audio: padding the encoder added.
func (s *opusStream) discardEnd(frames int) {
	frames = max(0, min(frames, s.blockLen))
	s.out = s.out[:len(s.out)-frames*s.channels]
	s.blockLen -= frames
}

// pcm returns what was decoded.
func (s *opusStream) pcm() PCM {
	return PCM{Rate: opusDecodeRate, Channels: s.channels, Samples: s.out}
}
