package media

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/hajimehoshi/go-mp3"
)

// compressedLimit is maxSamplesAt for the MP3 and FLAC decoders, lowered by tests: ten minutes
// of compressed audio take long to make and to decode.
var compressedLimit = maxSamplesAt

// mp3ReadSize is how much PCM is asked of the decoder at a time: one MPEG-1 layer III frame of
// stereo 16-bit samples (go-mp3 always yields stereo).
const mp3ReadSize = 1152 * 4

// DecodeMP3 reads MPEG audio (layer III, with or without ID3v2 tags) into 16-bit stereo PCM at
// the file's rate; go-mp3 always yields two channels, a mono file's twice. Input on which the
// decoder panics is an error, not a crash, and the PCM is capped at MaxDuration (ErrTooLong).
func DecodeMP3(data []byte) (p PCM, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = PCM{}, fmt.Errorf("mp3: corrupt stream (the decoder failed: %v)", r)
		}
	}()
	body, err := skipID3v2(data)
	if err != nil {
		return PCM{}, err
	}
	// go-mp3 scans a seekable input whole for its length before returning: hide Seek, as the
	// length is not needed and the scan doubles the work.
	dec, err := mp3.NewDecoder(struct{ io.Reader }{bytes.NewReader(body)})
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return PCM{}, fmt.Errorf("mp3: no audio frame: %w", errTruncated)
		}
		return PCM{}, fmt.Errorf("mp3: %v", err)
	}
	rate := dec.SampleRate()
	if rate <= 0 {
		return PCM{}, fmt.Errorf("mp3: sample rate %d", rate)
	}
	limit := compressedLimit(rate, 2)
	p = PCM{Rate: rate, Channels: 2}
	buf := make([]byte, mp3ReadSize)
	for {
		n, rerr := dec.Read(buf)
		n &^= 3 // whole stereo frames
		if len(p.Samples)+n/2 > limit {
			return PCM{}, ErrTooLong
		}
		for i := 0; i < n; i += 2 {
			p.Samples = append(p.Samples, int16(uint16(buf[i])|uint16(buf[i+1])<<8))
		}
		switch {
		case rerr == nil:
		case errors.Is(rerr, io.EOF) || errors.Is(rerr, io.ErrUnexpectedEOF):
			if len(p.Samples) == 0 {
				return PCM{}, fmt.Errorf("mp3: no audio decoded: %w", errTruncated)
			}
			return p, nil
		default:
			return PCM{}, fmt.Errorf("mp3: %v", rerr)
		}
	}
}

// skipID3v2 returns data after its leading ID3v2 tags. go-mp3 would allocate a tag's declared
// size in one piece, whatever the input holds; here a tag is only a range of data to skip.
func skipID3v2(data []byte) ([]byte, error) {
	for len(data) >= 10 && string(data[:3]) == "ID3" {
		size := 0
		for _, b := range data[6:10] {
			if b >= 0x80 {
				return nil, errors.New("mp3: corrupt ID3 tag size")
			}
			size = size<<7 | int(b)
		}
		size += 10
		if data[5]&0x10 != 0 {
			size += 10 // footer
		}
		if size > len(data) {
			return nil, fmt.Errorf("mp3: ID3 tag longer than the file: %w", errTruncated)
		}
		data = data[size:]
	}
	return data, nil
}
