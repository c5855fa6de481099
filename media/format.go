package media

import (
	"bytes"
	"errors"
	"strings"
)

// Format names an audio container, as told by its first bytes.
type Format int

// The containers Sniff tells apart.
const (
	FormatUnknown Format = iota
	FormatWAV
	FormatWebM
	FormatOgg
	FormatMP3
	FormatFLAC
)

// ErrNotAudio is returned for data that is not a container this package reads.
var ErrNotAudio = errors.New("not an audio file this service can read (send WAV, WebM/Opus, Ogg/Opus, MP3 or FLAC)")

// ErrUnsupported is returned for a recognised container holding a codec or layout this package
// does not decode (WebM Vorbis, Ogg FLAC, A-law WAV, FLAC at 192 kHz, ...).
var ErrUnsupported = errors.New("audio format not supported (send WAV, WebM/Opus, Ogg/Opus, MP3 or FLAC)")

// String returns the short name ("wav", "webm", ...), "unknown" for FormatUnknown.
func (f Format) String() string {
	switch f {
	case FormatWAV:
		return "wav"
	case FormatWebM:
		return "webm"
	case FormatOgg:
		return "ogg"
	case FormatMP3:
		return "mp3"
	case FormatFLAC:
		return "flac"
	}
	return "unknown"
}

// MIME returns the media type to send the format with.
func (f Format) MIME() string {
	switch f {
	case FormatWAV:
		return "audio/wav"
	case FormatWebM:
		return "audio/webm"
	case FormatOgg:
		return "audio/ogg"
	case FormatMP3:
		return "audio/mpeg"
	case FormatFLAC:
		return "audio/flac"
	}
	return "application/octet-stream"
}

// Sniff tells the container from its magic bytes.
func Sniff(data []byte) Format {
	switch {
	case len(data) >= 12 && (bytes.HasPrefix(data, []byte("RIFF")) || bytes.HasPrefix(data, []byte("RF64"))) &&
		string(data[8:12]) == "WAVE":
		return FormatWAV
	case bytes.HasPrefix(data, []byte{0x1A, 0x45, 0xDF, 0xA3}):
		return FormatWebM
	case bytes.HasPrefix(data, []byte("OggS")):
		return FormatOgg
	case bytes.HasPrefix(data, []byte("fLaC")):
		return FormatFLAC
	case bytes.HasPrefix(data, []byte("ID3")):
		return FormatMP3
	case len(data) >= 2 && data[0] == 0xFF && data[1]&0xE0 == 0xE0 && data[1]&0x18 != 0x08 && data[1]&0x06 != 0:
		// MPEG audio frame sync: 11 set bits, a valid version (not "reserved") and a layer.
		return FormatMP3
	}
	return FormatUnknown
}

// Decode reads WAV, WebM/Opus, Ogg/Opus, MP3 or FLAC; anything else is ErrNotAudio. WAV, MP3 and
// FLAC keep their rate (MP3 comes out as stereo); Opus comes out at 16 kHz.
func Decode(data []byte) (PCM, error) {
	switch Sniff(data) {
	case FormatWAV:
		return ReadWAV(bytes.NewReader(data))
	case FormatWebM:
		return DecodeWebMOpus(data)
	case FormatOgg:
		return DecodeOggOpus(data)
	case FormatMP3:
		return DecodeMP3(data)
	case FormatFLAC:
		return DecodeFLAC(data)
	}
	return PCM{}, ErrNotAudio
}

// UploadBitrate is the Opus bitrate PrepareUpload encodes speech at.
const UploadBitrate = 16000

// PrepareUpload turns a file into what `parley transcribe` uploads: WAV and raw PCM (a name
// ending .pcm or .raw, read as 16 kHz mono s16le) become WebM/Opus at 16 kbit/s, 16 kHz mono;
// WebM, Ogg, MP3 and FLAC go as they are; anything else is ErrNotAudio.
func PrepareUpload(name string, data []byte) (out []byte, mime string, err error) {
	lower := strings.ToLower(name)
	if strings.HasSuffix(lower, ".pcm") || strings.HasSuffix(lower, ".raw") {
		if Sniff(data) == FormatUnknown {
			if len(data)/2 > maxSamplesAt(16000, 1) {
				return nil, "", ErrTooLong
			}
			p := PCM{Rate: 16000, Channels: 1, Samples: make([]int16, len(data)/2)}
			for i := range p.Samples {
				p.Samples[i] = int16(uint16(data[2*i]) | uint16(data[2*i+1])<<8)
			}
			return encodeUpload(p)
		}
	}
	switch f := Sniff(data); f {
	case FormatWAV:
		p, err := ReadWAV(bytes.NewReader(data))
		if err != nil {
			return nil, "", err
		}
		return encodeUpload(p)
	case FormatWebM, FormatOgg, FormatMP3, FormatFLAC:
		return data, f.MIME(), nil
	}
	return nil, "", ErrNotAudio
}

// encodeUpload encodes speech as 16 kHz mono WebM/Opus.
func encodeUpload(p PCM) ([]byte, string, error) {
	if p.Frames() == 0 {
		return nil, "", errors.New("the audio file holds no samples")
	}
	out, err := EncodeWebMOpus(To16kMono(p), UploadBitrate)
	if err != nil {
		return nil, "", err
	}
	return out, FormatWebM.MIME(), nil
}
