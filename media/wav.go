package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrTooLong is returned for audio longer than MaxDuration (or holding more than MaxSamples).
var ErrTooLong = fmt.Errorf("audio longer than the %v limit", MaxDuration)

// errTruncated marks input that ends before its headers do.
var errTruncated = errors.New("truncated audio file")

const (
	wavFormatPCM        = 1
	wavFormatFloat      = 3
	wavFormatExtensible = 0xFFFE
	maxFmtChunk         = 1 << 12 // a fmt chunk is 16, 18 or 40 bytes; refuse silly sizes
	maxWAVChannels      = 32
	maxWAVRate          = 768000
)

// wavFormat is what ReadWAV takes from the fmt chunk.
type wavFormat struct {
	format   int // wavFormatPCM or wavFormatFloat after resolving EXTENSIBLE
	channels int
	rate     int
	bytesPer int // bytes per sample of one channel (container size)
}

// ReadWAV reads a RIFF/WAVE (or RF64) file holding 8, 16, 24 or 32-bit integer PCM or 32/64-bit
// float samples, plain or WAVE_FORMAT_EXTENSIBLE, at any rate. Mono and stereo stay as they are;
// more channels are averaged to mono. Unknown chunks are skipped; a data size of 0 or 0xFFFFFFFF
// (a streamed WAV) means "read to the end", and a data chunk cut short yields the frames present.
func ReadWAV(r io.Reader) (PCM, error) {
	var hdr [12]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return PCM{}, ErrNotAudio
	}
	if (string(hdr[0:4]) != "RIFF" && string(hdr[0:4]) != "RF64") || string(hdr[8:12]) != "WAVE" {
		return PCM{}, ErrNotAudio
	}
	var f *wavFormat
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if f == nil {
				return PCM{}, fmt.Errorf("wav: no fmt chunk: %w", errTruncated)
			}
			return PCM{}, fmt.Errorf("wav: no data chunk: %w", errTruncated)
		}
		id := string(ch[0:4])
		size := binary.LittleEndian.Uint32(ch[4:8])
		switch id {
		case "fmt ":
			if size < 16 || size > maxFmtChunk {
				return PCM{}, fmt.Errorf("wav: fmt chunk of %d bytes", size)
			}
			body := make([]byte, size+size&1)
			n, err := io.ReadFull(r, body)
			if err != nil && n < int(size) {
				return PCM{}, fmt.Errorf("wav: fmt chunk: %w", errTruncated)
			}
			pf, err := parseWAVFormat(body[:size])
			if err != nil {
				return PCM{}, err
			}
			f = &pf
		case "data":
			if f == nil {
				return PCM{}, errors.New("wav: data chunk before fmt chunk")
			}
			limit := int64(size)
			if size == 0 || size == 0xFFFFFFFF {
				limit = math.MaxInt64
			}
			return readWAVData(io.LimitReader(r, limit), *f)
		default:
			skip := int64(size) + int64(size&1)
			if n, err := io.CopyN(io.Discard, r, skip); err != nil || n != skip {
				if f == nil {
					return PCM{}, fmt.Errorf("wav: no fmt chunk: %w", errTruncated)
				}
				return PCM{}, fmt.Errorf("wav: no data chunk: %w", errTruncated)
			}
		}
	}
}

// parseWAVFormat checks a fmt chunk body and resolves WAVE_FORMAT_EXTENSIBLE.
func parseWAVFormat(b []byte) (wavFormat, error) {
	le := binary.LittleEndian
	tag := int(le.Uint16(b[0:2]))
	f := wavFormat{
		format:   tag,
		channels: int(le.Uint16(b[2:4])),
		rate:     int(le.Uint32(b[4:8])),
	}
	bits := int(le.Uint16(b[14:16]))
	if tag == wavFormatExtensible {
		if len(b) < 40 {
			return f, fmt.Errorf("wav: extensible fmt chunk of %d bytes", len(b))
		}
		f.format = int(le.Uint16(b[24:26])) // first two bytes of the SubFormat GUID
	}
	if f.channels < 1 || f.channels > maxWAVChannels {
		return f, fmt.Errorf("wav: %d channels: %w", f.channels, ErrUnsupported)
	}
	if f.rate < 1 || f.rate > maxWAVRate {
		return f, fmt.Errorf("wav: sample rate %d: %w", f.rate, ErrUnsupported)
	}
	// The block align is authoritative for the container size; bits may be the valid bits.
	align := int(le.Uint16(b[12:14]))
	if align > 0 && align%f.channels == 0 {
		f.bytesPer = align / f.channels
	} else {
		f.bytesPer = (bits + 7) / 8
	}
	switch f.format {
	case wavFormatPCM:
		if f.bytesPer < 1 || f.bytesPer > 4 {
			return f, fmt.Errorf("wav: %d-bit integer samples: %w", bits, ErrUnsupported)
		}
	case wavFormatFloat:
		if f.bytesPer != 4 && f.bytesPer != 8 {
			return f, fmt.Errorf("wav: %d-bit float samples: %w", bits, ErrUnsupported)
		}
	default:
		return f, fmt.Errorf("wav: format tag 0x%04x: %w", f.format, ErrUnsupported)
	}
	return f, nil
}

// readWAVData converts sample data chunk by chunk, so memory follows the audio actually
// present, never the declared size.
func readWAVData(r io.Reader, f wavFormat) (PCM, error) {
	frameBytes := f.bytesPer * f.channels
	buf := make([]byte, 64*1024/frameBytes*frameBytes)
	var out []int16
	total, limit := 0, maxSamplesAt(f.rate, f.channels)
	for {
		n, err := io.ReadFull(r, buf)
		n -= n % frameBytes // drop a trailing partial frame
		if n > 0 {
			total += n / f.bytesPer
			if total > limit {
				return PCM{}, ErrTooLong
			}
			out = appendWAVSamples(out, buf[:n], f)
		}
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			return PCM{}, fmt.Errorf("wav: reading samples: %w", err)
		}
	}
	p := PCM{Rate: f.rate, Channels: f.channels, Samples: out}
	if f.channels > 2 {
		p = Mono(p)
	}
	return p, nil
}

// appendWAVSamples converts whole frames of raw sample bytes to int16.
func appendWAVSamples(out []int16, b []byte, f wavFormat) []int16 {
	le := binary.LittleEndian
	switch {
	case f.format == wavFormatFloat && f.bytesPer == 4:
		for i := 0; i+4 <= len(b); i += 4 {
			out = append(out, floatTo16(float64(math.Float32frombits(le.Uint32(b[i:])))))
		}
	case f.format == wavFormatFloat:
		for i := 0; i+8 <= len(b); i += 8 {
			out = append(out, floatTo16(math.Float64frombits(le.Uint64(b[i:]))))
		}
	case f.bytesPer == 1:
		for _, v := range b {
			out = append(out, int16(int(v)-128)<<8)
		}
	case f.bytesPer == 2:
		for i := 0; i+2 <= len(b); i += 2 {
			out = append(out, int16(le.Uint16(b[i:])))
		}
	case f.bytesPer == 3:
		for i := 0; i+3 <= len(b); i += 3 {
			out = append(out, int16(uint16(b[i+1])|uint16(b[i+2])<<8))
		}
	case f.bytesPer == 4:
		for i := 0; i+4 <= len(b); i += 4 {
			out = append(out, int16(le.Uint32(b[i:])>>16))
		}
	}
	return out
}

// floatTo16 maps [-1, 1) to int16, saturating; NaN becomes silence.
func floatTo16(v float64) int16 {
	if v != v {
		return 0
	}
	return clamp16(v * 32768)
}

// EncodeWAV returns p as a 16-bit PCM WAV file.
func EncodeWAV(p PCM) []byte {
	var b bytes.Buffer
	b.Grow(44 + 2*len(p.Samples))
	_ = WriteWAV(&b, p) // bytes.Buffer does not fail
	return b.Bytes()
}

// WriteWAV writes p to w as a 16-bit PCM WAV file.
func WriteWAV(w io.Writer, p PCM) error {
	ch := max(p.Channels, 1)
	dataLen := uint64(len(p.Samples)) * 2
	size32 := func(v uint64) uint32 { return uint32(min(v, math.MaxUint32)) }
	le := binary.LittleEndian
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	le.PutUint32(h[4:], size32(36+dataLen))
	copy(h[8:], "WAVEfmt ")
	le.PutUint32(h[16:], 16)
	le.PutUint16(h[20:], wavFormatPCM)
	le.PutUint16(h[22:], uint16(ch))
	le.PutUint32(h[24:], uint32(p.Rate))
	le.PutUint32(h[28:], uint32(p.Rate*ch*2))
	le.PutUint16(h[32:], uint16(ch*2))
	le.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	le.PutUint32(h[40:], size32(dataLen))
	if _, err := w.Write(h); err != nil {
		return err
	}
	buf := make([]byte, 0, 32*1024)
	for i, s := range p.Samples {
		buf = le.AppendUint16(buf, uint16(s))
		if len(buf) == cap(buf) || i == len(p.Samples)-1 {
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	return nil
}
