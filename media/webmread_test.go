package media

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestUnlace(t *testing.T) {
	a, b, c := bytes.Repeat([]byte{1}, 300), []byte{2, 2}, []byte{3, 3, 3}
	tests := []struct {
		name    string
		lacing  byte
		payload []byte
		want    [][]byte
	}{
		{"none", 0, []byte{9, 9}, [][]byte{{9, 9}}},
		{"xiph", 0x02, append(append([]byte{2, 255, 45, 2}, a...), append(b, c...)...), [][]byte{a, b, c}},
		{"fixed", 0x04, []byte{2, 1, 2, 3, 4, 5, 6}, [][]byte{{1, 2}, {3, 4}, {5, 6}}},
		// EBML: first size 300 as a 2-byte vint (0x412C), then 2-300 = -298 as a signed
		// 2-byte vint: -298 + 8191 = 7893 = 0x1ED5 | 0x4000.
		{"ebml", 0x06, append(append([]byte{2, 0x41, 0x2C, 0x5E, 0xD5}, a...), append(b, c...)...), [][]byte{a, b, c}},
	}
	for _, tt := range tests {
		got, err := unlace(tt.payload, tt.lacing)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(got) != len(tt.want) {
			t.Fatalf("%s: %d frames, want %d", tt.name, len(got), len(tt.want))
		}
		for i := range got {
			if !bytes.Equal(got[i], tt.want[i]) {
				t.Errorf("%s: frame %d = %v, want %v", tt.name, i, got[i], tt.want[i])
			}
		}
	}
	for _, bad := range []struct {
		lacing  byte
		payload []byte
	}{{0x02, nil}, {0x02, []byte{1, 255}}, {0x02, []byte{1, 10, 1}}, {0x04, []byte{1, 1, 2, 3}}, {0x06, []byte{2, 0x81, 0x00}}} {
		if _, err := unlace(bad.payload, bad.lacing); err == nil {
			t.Errorf("lacing %x %v accepted", bad.lacing, bad.payload)
		}
	}
}

func TestDecodeWebMOpus_Bad(t *testing.T) {
	good := readFixture(t, "hello.webm")
	vorbis := bytes.Replace(good, []byte("A_OPUS"), []byte("A_VORB"), 1)
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"text", []byte("not webm"), ErrNotAudio},
		{"ebml id only", []byte{0x1A, 0x45, 0xDF, 0xA3}, ErrNotAudio},
		{"vorbis track", vorbis, ErrUnsupported},
		{"header only", good[:40], ErrNotAudio},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := DecodeWebMOpus(tt.data)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	// A recording cut anywhere (the app crashed, the upload broke) gives the audio before the
	// cut or an error, never a panic.
	full, _ := DecodeWebMOpus(good)
	for n := range len(good) {
		p, err := DecodeWebMOpus(good[:n])
		// A cut that loses the last DiscardPadding keeps that frame's padding: up to 20 ms more.
		if err == nil && p.Frames() > full.Frames()+320 {
			t.Fatalf("cut at %d: %d frames, the whole file has %d", n, p.Frames(), full.Frames())
		}
	}
}

func TestUnlace_ReadsWhatTheEncoderLaces(t *testing.T) {
	for _, sizes := range [][]int{{40}, {40, 41}, {0, 1, 254, 255, 256, 509, 510, 40}, {7, 7, 7}, {300, 300}} {
		var data []byte
		for i, n := range sizes {
			data = append(data, bytes.Repeat([]byte{byte(i + 1)}, n)...)
		}
		lacings := map[byte][]byte{0x02: appendXiphLacing(nil, sizes)}
		if len(sizes) > 1 && equalSizes(sizes) {
			lacings[0x04] = []byte{byte(len(sizes) - 1)}
		}
		for lacing, head := range lacings {
			got, err := unlace(append(head, data...), lacing)
			if err != nil {
				t.Fatalf("%v lacing %x: %v", sizes, lacing, err)
			}
			if len(got) != len(sizes) {
				t.Fatalf("%v lacing %x: %d frames", sizes, lacing, len(got))
			}
			for i, f := range got {
				if len(f) != sizes[i] || len(f) > 0 && f[0] != byte(i+1) {
					t.Errorf("%v lacing %x: frame %d has %d bytes", sizes, lacing, i, len(f))
				}
			}
		}
	}
}

// TestDecodeWebMOpus_DiscardPaddingCoversTheBlock checks that DiscardPadding is counted from the
// end of the whole block, as Matroska defines it, even when it reaches past the block's last
// frame.
func TestDecodeWebMOpus_DiscardPaddingCoversTheBlock(t *testing.T) {
	var b bytes.Buffer
	e, err := NewWebMOpusEncoderBlocks(&b, 16000, 1, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	tone := sine(16000, 440, 0.3, 60*time.Millisecond)
	for i := range 3 {
		if err := e.encodeFrame(tone.Samples[i*320 : (i+1)*320]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.writeBlock(480); err != nil { // 30 ms: the last frame and half the one before
		t.Fatal(err)
	}
	p, err := DecodeWebMOpus(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if want := 3*320 - 104 - 480; p.Frames() != want {
		t.Errorf("decoded %d frames, want %d", p.Frames(), want)
	}
}
