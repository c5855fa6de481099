package playback

import (
	"encoding/binary"
	"math"
	"testing"
)

// stereo builds go-mp3-style PCM (S16LE stereo) from per-frame sample values.
func stereo(left, right []int16) []byte {
	b := make([]byte, 0, 4*len(left))
	for i := range left {
		b = binary.LittleEndian.AppendUint16(b, uint16(left[i]))
		b = binary.LittleEndian.AppendUint16(b, uint16(right[i]))
	}
	return b
}

func constant(n int, v int16) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = v
	}
	return s
}

func TestConverter(t *testing.T) {
	tests := []struct {
		name       string
		inRate     int
		out        Format
		left       []int16
		right      []int16
		wantFrames int
		wantValues []int16 // every output sample, when given
	}{
		{"same rate, stereo: unchanged", 48000, Format{48000, 2}, []int16{1, -2, 3}, []int16{4, 5, -6}, 3, []int16{1, 4, -2, 5, 3, -6}},
		{"same rate, mono: mixed down", 48000, Format{48000, 1}, []int16{100, -100, 32767}, []int16{300, -300, 32767}, 3, []int16{200, -200, 32767}},
		{"24 kHz doubled, interpolated", 24000, Format{48000, 1}, []int16{0, 100, 200}, []int16{0, 100, 200}, 6, []int16{0, 50, 100, 150, 200, 200}},
		{"44.1 kHz to 48 kHz keeps a constant", 44100, Format{48000, 2}, constant(4410, 1234), constant(4410, -1234), 4800, nil},
		{"22.05 kHz to 48 kHz", 22050, Format{48000, 2}, constant(2205, 7), constant(2205, 7), 4800, nil},
		{"48 kHz down to 16 kHz", 48000, Format{16000, 1}, constant(4800, -5), constant(4800, -5), 1600, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newConverter(tt.inRate, tt.out)
			in := stereo(tt.left, tt.right)
			// Convert in two uneven pieces to exercise the state kept between calls.
			cut := len(in) / 3 &^ 3
			out := c.convert(nil, in[:cut])
			out = c.convert(out, in[cut:])
			out = c.flush(out)
			frame := 2 * tt.out.Channels
			if got := len(out) / frame; math.Abs(float64(got-tt.wantFrames)) > 2 {
				t.Errorf("got %d frames, want %d (±2)", got, tt.wantFrames)
			}
			if len(out)%frame != 0 {
				t.Fatalf("%d bytes is not whole frames", len(out))
			}
			for i := 0; i+1 < len(out); i += 2 {
				got := int16(binary.LittleEndian.Uint16(out[i:]))
				if tt.wantValues != nil {
					if i/2 >= len(tt.wantValues) || got != tt.wantValues[i/2] {
						t.Fatalf("sample %d = %d, want %v", i/2, got, tt.wantValues)
					}
					continue
				}
				want := tt.left[0]
				if tt.out.Channels == 2 && (i/2)%2 == 1 {
					want = tt.right[0]
				}
				if got != want {
					t.Fatalf("sample %d = %d, want the constant %d", i/2, got, want)
				}
			}
		})
	}
}
