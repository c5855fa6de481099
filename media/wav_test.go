package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"testing"
	"time"
)

// wavSpec describes a WAV file for buildWAV.
type wavSpec struct {
	bits       int  // 8, 16, 24, 32 (int) or 32/64 with float
	float      bool // IEEE float samples
	extensible bool // WAVE_FORMAT_EXTENSIBLE fmt chunk
	oddChunk   bool // an odd-sized unknown chunk (with its pad byte) before data
	streamSize uint32
	streamed   bool // data size written as streamSize (0 or 0xFFFFFFFF)
}

// buildWAV encodes p in the layout spec asks for, with samples exact for a round trip.
func buildWAV(p PCM, s wavSpec) []byte {
	le := binary.LittleEndian
	var data []byte
	for _, v := range p.Samples {
		switch {
		case s.float && s.bits == 32:
			data = le.AppendUint32(data, math.Float32bits(float32(v)/32768))
		case s.float:
			data = le.AppendUint64(data, math.Float64bits(float64(v)/32768))
		case s.bits == 8:
			data = append(data, byte(int(v>>8)+128))
		case s.bits == 16:
			data = le.AppendUint16(data, uint16(v))
		case s.bits == 24:
			data = append(data, 0x5A, byte(v), byte(v>>8))
		case s.bits == 32:
			data = le.AppendUint32(data, uint32(int32(v)<<16|0x1234))
		}
	}
	tag := uint16(wavFormatPCM)
	if s.float {
		tag = wavFormatFloat
	}
	align := p.Channels * s.bits / 8
	var fmtc []byte
	fmtTag := tag
	if s.extensible {
		fmtTag = wavFormatExtensible
	}
	fmtc = le.AppendUint16(fmtc, fmtTag)
	fmtc = le.AppendUint16(fmtc, uint16(p.Channels))
	fmtc = le.AppendUint32(fmtc, uint32(p.Rate))
	fmtc = le.AppendUint32(fmtc, uint32(p.Rate*align))
	fmtc = le.AppendUint16(fmtc, uint16(align))
	fmtc = le.AppendUint16(fmtc, uint16(s.bits))
	if s.extensible {
		fmtc = le.AppendUint16(fmtc, 22)
		fmtc = le.AppendUint16(fmtc, uint16(s.bits))
		fmtc = le.AppendUint32(fmtc, 0) // channel mask
		fmtc = le.AppendUint16(fmtc, tag)
		fmtc = append(fmtc, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71)
	}
	var b []byte
	b = append(b, "RIFF\x00\x00\x00\x00WAVE"...)
	b = append(b, "fmt "...)
	b = le.AppendUint32(b, uint32(len(fmtc)))
	b = append(b, fmtc...)
	if s.oddChunk {
		b = append(b, "LIST"...)
		b = le.AppendUint32(b, 5)
		b = append(b, "abcde\x00"...)
	}
	b = append(b, "data"...)
	size := uint32(len(data))
	if s.streamed {
		size = s.streamSize
	}
	b = le.AppendUint32(b, size)
	b = append(b, data...)
	le.PutUint32(b[4:], uint32(len(b)-8))
	return b
}

// testTone returns a deterministic signal covering the full int16 range at its peaks.
func testTone(rate, channels int, d time.Duration) PCM {
	n := int(int64(rate) * int64(d) / int64(time.Second))
	p := PCM{Rate: rate, Channels: channels, Samples: make([]int16, n*channels)}
	for i := range n {
		for c := range channels {
			v := math.Sin(2*math.Pi*440*float64(i)/float64(rate) + float64(c))
			p.Samples[i*channels+c] = clamp16(v * 32767)
		}
	}
	if n > 2 {
		p.Samples[0], p.Samples[channels] = math.MinInt16, math.MaxInt16
	}
	return p
}

func TestReadWAV_RoundTrip(t *testing.T) {
	tests := []struct {
		name     string
		spec     wavSpec
		channels int
		exact    bool // 8-bit keeps only the top byte
	}{
		{"8-bit mono", wavSpec{bits: 8}, 1, false},
		{"16-bit mono", wavSpec{bits: 16}, 1, true},
		{"16-bit stereo", wavSpec{bits: 16}, 2, true},
		{"24-bit stereo", wavSpec{bits: 24}, 2, true},
		{"32-bit mono", wavSpec{bits: 32}, 1, true},
		{"float32 stereo", wavSpec{bits: 32, float: true}, 2, true},
		{"float64 mono", wavSpec{bits: 64, float: true}, 1, true},
		{"extensible 24-bit", wavSpec{bits: 24, extensible: true}, 2, true},
		{"extensible float", wavSpec{bits: 32, float: true, extensible: true}, 1, true},
		{"odd chunk", wavSpec{bits: 16, oddChunk: true}, 1, true},
		{"streamed size 0", wavSpec{bits: 16, streamed: true, streamSize: 0}, 2, true},
		{"streamed size max", wavSpec{bits: 16, streamed: true, streamSize: 0xFFFFFFFF, oddChunk: true}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := testTone(22050, tt.channels, 300*time.Millisecond)
			got, err := ReadWAV(bytes.NewReader(buildWAV(want, tt.spec)))
			if err != nil {
				t.Fatalf("ReadWAV: %v", err)
			}
			if got.Rate != want.Rate || got.Channels != want.Channels || len(got.Samples) != len(want.Samples) {
				t.Fatalf("got %d Hz %d ch %d samples, want %d Hz %d ch %d samples",
					got.Rate, got.Channels, len(got.Samples), want.Rate, want.Channels, len(want.Samples))
			}
			for i := range want.Samples {
				w := want.Samples[i]
				if !tt.exact {
					w = w &^ 0xFF
				}
				if got.Samples[i] != w {
					t.Fatalf("sample %d = %d, want %d", i, got.Samples[i], w)
				}
			}
			if d := got.Duration(); d != 300*time.Millisecond {
				t.Errorf("Duration = %v, want 300ms", d)
			}
		})
	}
}

func TestEncodeWAV_ReadBack(t *testing.T) {
	want := testTone(16000, 2, time.Second)
	got, err := ReadWAV(bytes.NewReader(EncodeWAV(want)))
	if err != nil {
		t.Fatal(err)
	}
	if got.Rate != 16000 || got.Channels != 2 || !equalSamples(got.Samples, want.Samples) {
		t.Fatalf("EncodeWAV/ReadWAV changed the audio: %d Hz %d ch %d samples", got.Rate, got.Channels, len(got.Samples))
	}
	if len(EncodeWAV(want)) != 44+2*len(want.Samples) {
		t.Errorf("EncodeWAV size %d, want %d", len(EncodeWAV(want)), 44+2*len(want.Samples))
	}
}

func equalSamples(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadWAV_ManyChannelsDownmix(t *testing.T) {
	p := PCM{Rate: 8000, Channels: 4, Samples: []int16{100, 200, 300, 400, -4, -4, -4, -4}}
	got, err := ReadWAV(bytes.NewReader(buildWAV(p, wavSpec{bits: 16})))
	if err != nil {
		t.Fatal(err)
	}
	if got.Channels != 1 || !equalSamples(got.Samples, []int16{250, -4}) {
		t.Fatalf("got %d ch %v, want 1 ch [250 -4]", got.Channels, got.Samples)
	}
}

func TestReadWAV_Bad(t *testing.T) {
	good := buildWAV(testTone(16000, 1, 100*time.Millisecond), wavSpec{bits: 16})
	alaw := bytes.Clone(good)
	binary.LittleEndian.PutUint16(alaw[20:], 6)
	zeroCh := bytes.Clone(good)
	binary.LittleEndian.PutUint16(zeroCh[22:], 0)
	hugeFmt := bytes.Clone(good)
	binary.LittleEndian.PutUint32(hugeFmt[16:], 0xFFFFFFF0)
	tests := []struct {
		name string
		data []byte
		want error // nil: any error
	}{
		{"empty", nil, ErrNotAudio},
		{"text", []byte("hello, this is not a wav file at all"), ErrNotAudio},
		{"riff not wave", []byte("RIFF\x10\x00\x00\x00AVI LIST"), ErrNotAudio},
		{"header only", good[:12], nil},
		{"cut in fmt", good[:30], nil},
		{"no data chunk", good[:36], nil},
		{"a-law", alaw, ErrUnsupported},
		{"zero channels", zeroCh, ErrUnsupported},
		{"huge fmt", hugeFmt, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadWAV(bytes.NewReader(tt.data))
			if err == nil {
				t.Fatal("ReadWAV accepted a broken file")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestReadWAV_TruncatedDataKeepsWholeFrames(t *testing.T) {
	b := buildWAV(testTone(16000, 2, 100*time.Millisecond), wavSpec{bits: 16})
	got, err := ReadWAV(bytes.NewReader(b[:len(b)-3]))
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames() != 1600-1 || len(got.Samples)%2 != 0 {
		t.Fatalf("got %d frames (%d samples), want 1599 whole frames", got.Frames(), len(got.Samples))
	}
}

// endlessReader yields zeros forever: a streamed WAV that never ends.
type endlessReader struct{}

func (endlessReader) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

func TestReadWAV_RefusesOverLimit(t *testing.T) {
	// A 1 kHz file is capped by duration, so resampling it to 48 kHz stays bounded too.
	low := buildWAV(PCM{Rate: 1000, Channels: 1}, wavSpec{bits: 16, streamed: true})
	if _, err := ReadWAV(io.MultiReader(bytes.NewReader(low), endlessReader{})); !errors.Is(err, ErrTooLong) {
		t.Fatalf("endless 1 kHz WAV: err = %v, want ErrTooLong", err)
	}
	if testing.Short() {
		t.Skip("reads over 100 MB")
	}
	hdr := buildWAV(PCM{Rate: 48000, Channels: 2}, wavSpec{bits: 16, streamed: true})
	_, err := ReadWAV(io.MultiReader(bytes.NewReader(hdr), endlessReader{}))
	if !errors.Is(err, ErrTooLong) {
		t.Fatalf("err = %v, want ErrTooLong", err)
	}
}
