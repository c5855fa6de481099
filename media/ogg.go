package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// oggCRCTable is the CRC-32 of Ogg pages: polynomial 0x04C11DB7, no reflection, initial 0.
var oggCRCTable = func() (t [256]uint32) {
	for i := range t {
		r := uint32(i) << 24
		for range 8 {
			if r&0x80000000 != 0 {
				r = r<<1 ^ 0x04C11DB7
			} else {
				r <<= 1
			}
		}
		t[i] = r
	}
	return t
}()

// oggCRC returns the checksum of b.
func oggCRC(crc uint32, b []byte) uint32 {
	for _, c := range b {
		crc = crc<<8 ^ oggCRCTable[byte(crc>>24)^c]
	}
	return crc
}

// oggPage is one parsed page; segments holds the lacing values, body the packet data.
type oggPage struct {
	flags    byte
	granule  int64
	serial   uint32
	segments []byte
	body     []byte
}

// nextOggPage finds the next valid page at or after pos, skipping garbage and pages whose
// checksum fails. It returns the page and the position after it; ok is false at the end.
func nextOggPage(data []byte, pos int) (page oggPage, next int, ok bool) {
	for pos < len(data) {
		i := bytes.Index(data[pos:], []byte("OggS"))
		if i < 0 {
			return oggPage{}, len(data), false
		}
		pos += i
		h := data[pos:]
		if len(h) < 27 || h[4] != 0 {
			pos++
			continue
		}
		nseg := int(h[26])
		if len(h) < 27+nseg {
			pos++
			continue
		}
		bodyLen := 0
		for _, l := range h[27 : 27+nseg] {
			bodyLen += int(l)
		}
		end := 27 + nseg + bodyLen
		if len(h) < end {
			pos++
			continue
		}
		crc := oggCRC(0, h[:22])
		crc = oggCRC(crc, []byte{0, 0, 0, 0})
		crc = oggCRC(crc, h[26:end])
		if crc != binary.LittleEndian.Uint32(h[22:26]) {
			pos++
			continue
		}
		return oggPage{
			flags:    h[5],
			granule:  int64(binary.LittleEndian.Uint64(h[6:14])),
			serial:   binary.LittleEndian.Uint32(h[14:18]),
			segments: h[27 : 27+nseg],
			body:     h[27+nseg : end],
		}, pos + end, true
	}
	return oggPage{}, pos, false
}

// DecodeOggOpus decodes the first Opus stream of an Ogg file to 16 kHz PCM with the stream's
// channels, honouring the pre-skip and the end trimming the last granule position gives.
// Pages with a bad checksum are skipped; other Ogg codecs give ErrUnsupported.
func DecodeOggOpus(data []byte) (PCM, error) {
	if !bytes.HasPrefix(data, []byte("OggS")) {
		return PCM{}, ErrNotAudio
	}
	var (
		serial      uint32
		found       bool
		sawStream   bool
		packetNo    int
		partial     []byte // a packet continued on the next page
		inPartial   bool
		lastGranule int64 = -1
		head        opusHead
		d           *opusStream
	)
	handle := func(pkt []byte) error {
		defer func() { packetNo++ }()
		switch packetNo {
		case 0:
			h, err := parseOpusHead(pkt)
			if err != nil {
				return err
			}
			head = h
			d, err = newOpusStream(h.channels, h.preSkip)
			return err
		case 1:
			if !bytes.HasPrefix(pkt, []byte("OpusTags")) {
				return errors.New("ogg: missing OpusTags")
			}
			return nil
		}
		return d.decode(pkt)
	}
	for pos := 0; ; {
		page, next, ok := nextOggPage(data, pos)
		if !ok {
			break
		}
		pos = next
		if !found {
			if page.flags&0x02 == 0 {
				continue
			}
			sawStream = true
			if !bytes.HasPrefix(page.body, []byte("OpusHead")) {
				continue
			}
			found, serial = true, page.serial
		}
		if page.serial != serial {
			continue
		}
		continued := page.flags&0x01 != 0
		if continued != inPartial {
			// A page went missing: drop the fragment, or the tail of a packet whose start is gone.
			partial, inPartial = partial[:0], false
		}
		skipTail := continued && !inPartial
		body := page.body
		for _, l := range page.segments {
			seg := body[:l]
			body = body[l:]
			if skipTail {
				skipTail = l == 255
				continue
			}
			if inPartial || l == 255 {
				partial = append(partial, seg...)
				inPartial = true
				if l == 255 {
					continue
				}
				seg = partial
			}
			if err := handle(seg); err != nil {
				return PCM{}, err
			}
			partial, inPartial = partial[:0], false
		}
		if page.granule != -1 && packetNo > 2 {
			lastGranule = page.granule
		}
		if page.flags&0x04 != 0 {
			break
		}
	}
	if !found {
		if sawStream {
			return PCM{}, fmt.Errorf("ogg: no Opus stream: %w", ErrUnsupported)
		}
		return PCM{}, fmt.Errorf("ogg: no stream found: %w", ErrNotAudio)
	}
	if d == nil || packetNo < 2 {
		return PCM{}, fmt.Errorf("ogg: stream ends before its headers: %w", errTruncated)
	}
	p := d.pcm()
	if lastGranule >= 0 {
		end := (lastGranule - int64(head.preSkip)) * opusDecodeRate / 48000
		if end >= 0 && end < int64(p.Frames()) {
			p.Samples = p.Samples[:end*int64(p.Channels)]
		}
	}
	return p, nil
}
