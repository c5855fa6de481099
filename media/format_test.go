package media

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"testing"
	"time"
)

// update rewrites testdata/hello.webm: go test ./media/ -run TestWebMFixture -args -update
var update = flag.Bool("update", false, "rewrite testdata/hello.webm from testdata/hello.wav")

func TestSniff(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want Format
	}{
		{"wav", []byte("RIFF\x24\x00\x00\x00WAVEfmt "), FormatWAV},
		{"rf64", []byte("RF64\xff\xff\xff\xffWAVEds64"), FormatWAV},
		{"avi is not wav", []byte("RIFF\x24\x00\x00\x00AVI LIST"), FormatUnknown},
		{"webm", []byte{0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86}, FormatWebM},
		{"ogg", []byte("OggS\x00\x02"), FormatOgg},
		{"mp3 id3", []byte("ID3\x04\x00"), FormatMP3},
		{"mp3 frame sync mpeg1 layer3", []byte{0xFF, 0xFB, 0x90, 0x64}, FormatMP3},
		{"mp3 frame sync mpeg2", []byte{0xFF, 0xF3, 0x40}, FormatMP3},
		{"reserved mpeg version", []byte{0xFF, 0xEB, 0x90}, FormatUnknown},
		{"flac", []byte("fLaC\x00\x00\x00\x22"), FormatFLAC},
		{"json", []byte(`{"text":"hi"}`), FormatUnknown},
		{"empty", nil, FormatUnknown},
		{"one byte", []byte{0xFF}, FormatUnknown},
	}
	for _, tt := range tests {
		if got := Sniff(tt.data); got != tt.want {
			t.Errorf("%s: Sniff = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestFormatNames(t *testing.T) {
	tests := []struct {
		f          Format
		name, mime string
	}{
		{FormatUnknown, "unknown", "application/octet-stream"},
		{FormatWAV, "wav", "audio/wav"},
		{FormatWebM, "webm", "audio/webm"},
		{FormatOgg, "ogg", "audio/ogg"},
		{FormatMP3, "mp3", "audio/mpeg"},
		{FormatFLAC, "flac", "audio/flac"},
	}
	for _, tt := range tests {
		if tt.f.String() != tt.name || tt.f.MIME() != tt.mime {
			t.Errorf("%d: %q %q, want %q %q", tt.f, tt.f.String(), tt.f.MIME(), tt.name, tt.mime)
		}
	}
}

func TestDecode(t *testing.T) {
	wav := readFixture(t, "hello.wav")
	tests := []struct {
		name    string
		data    []byte
		wantErr error
		rate    int
	}{
		{"wav keeps its rate", wav, nil, 16000},
		{"webm", readFixture(t, "hello.webm"), nil, 16000},
		{"ogg", readFixture(t, "hello.opus"), nil, 16000},
		{"mp3 keeps its rate", readFixture(t, "hello.mp3"), nil, 16000},
		{"flac keeps its rate", readFixture(t, "hello.flac"), nil, 16000},
		{"text", []byte("hello, I am a text file\n"), ErrNotAudio, 0},
		{"json", []byte(`{"audio": "UklGRg=="}`), ErrNotAudio, 0},
		{"html", []byte("<!doctype html><title>x</title>"), ErrNotAudio, 0},
		{"empty", nil, ErrNotAudio, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Decode(tt.data)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err == nil && (p.Rate != tt.rate || p.Frames() == 0) {
				t.Fatalf("decoded %d frames at %d Hz", p.Frames(), p.Rate)
			}
		})
	}
}

func TestWebMFixture(t *testing.T) {
	ref, err := ReadWAV(bytes.NewReader(readFixture(t, "hello.wav")))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		b, err := EncodeWebMOpus(ref, UploadBitrate)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/hello.webm", b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The committed file decodes to the original length: a change to the muxer or demuxer
	// that breaks files already on users' disks shows here.
	got, err := DecodeWebMOpus(readFixture(t, "hello.webm"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Frames() != ref.Frames() {
		t.Errorf("hello.webm decodes to %d frames, hello.wav has %d", got.Frames(), ref.Frames())
	}
	if r := correlation(envelope(ref), envelope(got)); r < 0.9 {
		t.Errorf("energy envelope correlation %.3f, want > 0.9", r)
	}
	// hello-unlaced.webm is the earlier format, one unlaced block per 20 ms frame: files
	// recorded before lacing still decode to the exact length.
	old, err := DecodeWebMOpus(readFixture(t, "hello-unlaced.webm"))
	if err != nil {
		t.Fatal(err)
	}
	if old.Frames() != ref.Frames() {
		t.Errorf("hello-unlaced.webm decodes to %d frames, hello.wav has %d", old.Frames(), ref.Frames())
	}
}

func TestPrepareUpload(t *testing.T) {
	wav := readFixture(t, "hello.wav")
	ref, _ := ReadWAV(bytes.NewReader(wav))
	raw := EncodeWAV(ref)[44:]
	stereo44 := EncodeWAV(Resample(PCM{Rate: 16000, Channels: 2, Samples: interleave(ref.Samples)}, 44100))
	ogg := readFixture(t, "hello.opus")
	webm := readFixture(t, "hello.webm")
	mp3 := append([]byte("ID3\x04\x00\x00\x00\x00\x00\x00"), make([]byte, 100)...)
	flac := []byte("fLaC\x00\x00\x00\x22")
	tests := []struct {
		name      string
		file      string
		data      []byte
		mime      string
		reencoded bool
		wantErr   error
	}{
		{"wav", "hello.wav", wav, "audio/webm", true, nil},
		{"stereo 44.1k wav", "x.WAV", stereo44, "audio/webm", true, nil},
		{"raw pcm", "take.pcm", raw, "audio/webm", true, nil},
		{"raw by .raw", "take.RAW", raw, "audio/webm", true, nil},
		{"webm as is", "a.webm", webm, "audio/webm", false, nil},
		{"ogg as is", "a.opus", ogg, "audio/ogg", false, nil},
		{"mp3 as is", "a.mp3", mp3, "audio/mpeg", false, nil},
		{"flac as is", "a.flac", flac, "audio/flac", false, nil},
		{"text", "notes.txt", []byte("buy milk"), "", false, ErrNotAudio},
		{"pcm name but no samples", "x.pcm", nil, "", false, nil},
		{"text named wav", "x.wav", []byte("buy milk"), "", false, ErrNotAudio},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, mime, err := PrepareUpload(tt.file, tt.data)
			if tt.mime == "" {
				if err == nil {
					t.Fatalf("accepted, gave %s", mime)
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if mime != tt.mime {
				t.Errorf("mime %q, want %q", mime, tt.mime)
			}
			if !tt.reencoded {
				if !bytes.Equal(out, tt.data) {
					t.Error("a file meant to go as it is was changed")
				}
				return
			}
			p, err := DecodeWebMOpus(out)
			if err != nil {
				t.Fatal(err)
			}
			if p.Rate != 16000 || p.Channels != 1 {
				t.Errorf("upload is %d Hz %d ch, want 16 kHz mono", p.Rate, p.Channels)
			}
			if d := p.Duration() - ref.Duration(); d < -2*time.Millisecond || d > 2*time.Millisecond {
				t.Errorf("upload holds %v, the file %v", p.Duration(), ref.Duration())
			}
			if kbps := float64(len(out)) * 8 / ref.Duration().Seconds() / 1000; kbps > 20 {
				t.Errorf("upload at %.1f kbit/s, want about 16", kbps)
			}
		})
	}
}

// interleave duplicates mono samples into stereo.
func interleave(m []int16) []int16 {
	s := make([]int16, 2*len(m))
	for i, v := range m {
		s[2*i], s[2*i+1] = v, v
	}
	return s
}
