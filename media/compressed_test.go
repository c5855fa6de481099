package media

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

// The MP3 and FLAC fixtures are made from hello.wav:
//
//	lame --quiet -m m -V 6 --tt hello --id3v2-only hello.wav hello.mp3   (as the service's speech)
//	sox hello.wav hello.flac
//	sox hello.wav -b 24 -c 2 -r 44100 hello-stereo24.flac trim 0 0.4

// crashMP3 is the input that panics go-mp3 v0.3.4 inside NewDecoder (NOTES.md).
var crashMP3 = append([]byte("\xff\xf2 000000000\xd0"), bytes.Repeat([]byte("0"), 40)...)

func refWAV(t *testing.T) PCM {
	t.Helper()
	ref, err := ReadWAV(bytes.NewReader(readFixture(t, "hello.wav")))
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func TestDecodeMP3_LameFile(t *testing.T) {
	ref := refWAV(t)
	got, err := DecodeMP3(readFixture(t, "hello.mp3"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Rate != 16000 || got.Channels != 2 {
		t.Fatalf("decoded %d Hz %d ch, want 16000 Hz stereo", got.Rate, got.Channels)
	}
	// MP3 pads the start (encoder delay) and the end to whole frames: up to about 150 ms more.
	if d := got.Duration() - ref.Duration(); d < 0 || d > 150*time.Millisecond {
		t.Errorf("decoded %v, the WAV holds %v", got.Duration(), ref.Duration())
	}
	mono := Mono(got)
	if r := rms(mono.Samples, 0) / rms(ref.Samples, 0); r < 0.7 || r > 1.3 {
		t.Errorf("level ratio %.2f to the WAV, want about 1", r)
	}
}

func TestDecodeFLAC_SoxFiles(t *testing.T) {
	ref := refWAV(t)
	got, err := DecodeFLAC(readFixture(t, "hello.flac"))
	if err != nil {
		t.Fatal(err)
	}
	// FLAC is lossless: the samples come back exactly.
	if got.Rate != ref.Rate || got.Channels != ref.Channels || !equalSamples(got.Samples, ref.Samples) {
		t.Errorf("decoded %d Hz %d ch, %d samples; the WAV is %d Hz %d ch, %d samples, and they differ",
			got.Rate, got.Channels, len(got.Samples), ref.Rate, ref.Channels, len(ref.Samples))
	}

	st, err := DecodeFLAC(readFixture(t, "hello-stereo24.flac"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Rate != 44100 || st.Channels != 2 {
		t.Fatalf("decoded %d Hz %d ch, want 44100 Hz stereo", st.Rate, st.Channels)
	}
	if d := st.Duration() - 400*time.Millisecond; d < -time.Millisecond || d > time.Millisecond {
		t.Errorf("decoded %v, want 400 ms", st.Duration())
	}
	// 24-bit samples scale to 16 bits: the level matches the 16-bit original's first 400 ms.
	head := ref.Samples[:6400]
	if r := rms(Mono(st).Samples, 0) / rms(head, 0); r < 0.9 || r > 1.1 {
		t.Errorf("level ratio %.2f to the WAV, want 1", r)
	}
}

func TestDecodeCompressed_Malformed(t *testing.T) {
	mp3 := readFixture(t, "hello.mp3")
	flac := readFixture(t, "hello.flac")
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"go-mp3 crasher", crashMP3},
		{"mp3 sync then text", []byte("\xff\xfbthis is not an mp3 frame at all")},
		{"ID3 tag larger than the file", []byte("ID3\x04\x00\x00\x7f\x7f\x7f\x7f")},
		{"ID3 tag with a corrupt size", []byte("ID3\x04\x00\x00\xff\xff\xff\xff")},
		{"ID3 tag and nothing else", mp3[:10+0x5e]},
		{"mp3 cut in its first frame", mp3[:10+0x5e+20]},
		{"flac header only", []byte("fLaC\x00\x00\x00\x22")},
		{"flac metadata cut short", flac[:30]},
		{"flac without frames", flac[:42]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Decode(tt.data)
			if err == nil {
				t.Fatalf("decoded %d samples, want an error", len(p.Samples))
			}
		})
	}
	// A file cut short keeps the audio before the cut.
	if p, err := Decode(flac[:len(flac)/2]); err != nil || p.Frames() == 0 {
		t.Errorf("half a FLAC file: %d frames, %v", p.Frames(), err)
	}
	if p, err := Decode(mp3[:len(mp3)/2]); err != nil || p.Frames() == 0 {
		t.Errorf("half an MP3 file: %d frames, %v", p.Frames(), err)
	}
}

func TestDecodeCompressed_CapsTheAudioProduced(t *testing.T) {
	old := compressedLimit
	t.Cleanup(func() { compressedLimit = old })
	compressedLimit = func(rate, channels int) int { return rate * channels / 2 } // half a second
	for _, name := range []string{"hello.mp3", "hello.flac"} {
		if _, err := Decode(readFixture(t, name)); !errors.Is(err, ErrTooLong) {
			t.Errorf("%s (0.84 s) with a 0.5 s cap: err = %v, want ErrTooLong", name, err)
		}
	}
}
