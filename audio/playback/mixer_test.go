package playback

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"testing"
)

// pcmOf returns s16le PCM of the given samples.
func pcmOf(s ...int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

func ramp(n int, start int16) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = start + int16(i)
	}
	return s
}

// dribble returns at most n bytes a read, then nothing (0, nil) every other read, like a decoder
// that has only part of the next period ready.
type dribble struct {
	r     io.Reader
	n     int
	empty bool
}

func (d *dribble) Read(b []byte) (int, error) {
	d.empty = !d.empty
	if d.empty {
		return 0, nil
	}
	return d.r.Read(b[:min(len(b), d.n)])
}

func mixPeriods(m *mixer, periods, frames int) []byte {
	var out []byte
	acc := make([]int32, frames*OutputFormat.Channels)
	for range periods {
		buf := make([]byte, frames*2*OutputFormat.Channels)
		m.mix(buf, acc)
		out = append(out, buf...)
	}
	return out
}

func TestMixer(t *testing.T) {
	const frames = 8 // a period
	samples := ramp(3*frames*OutputFormat.Channels, 100)
	src := pcmOf(samples...)
	half := make([]int16, len(samples))
	for i, v := range samples {
		half[i] = int16(math.Round(float64(v) * 0.5))
	}
	loud := make([]int16, len(samples))
	for i := range loud {
		loud[i] = 30000
	}
	clipped := make([]int16, len(samples))
	for i := range clipped {
		clipped[i] = 32767
	}
	silence := make([]byte, frames*2*OutputFormat.Channels)
	tests := []struct {
		name    string
		sources []io.Reader
		volume  float64
		want    []byte // what the three periods hold
	}{
		{"one voice plays as decoded", []io.Reader{bytes.NewReader(src)}, 1, src},
		{"volume set before it plays applies from its first sample", []io.Reader{bytes.NewReader(src)}, 0.5, pcmOf(half...)},
		{"two voices add up, clipped", []io.Reader{bytes.NewReader(pcmOf(loud...)), bytes.NewReader(pcmOf(loud...))}, 1, pcmOf(clipped...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &mixer{}
			var voices []voice
			for _, r := range tt.sources {
				v := m.newVoice(r)
				v.SetVolume(tt.volume)
				v.Play()
				voices = append(voices, v)
			}
			if got := mixPeriods(m, 3, frames); !bytes.Equal(got, tt.want) {
				t.Errorf("mixed %v, want %v", got, tt.want)
			}
			for _, v := range voices {
				if !v.IsPlaying() {
					t.Error("a voice stopped before its source ended")
				}
			}
			if got := mixPeriods(m, 1, frames); !bytes.Equal(got, silence) {
				t.Errorf("after the sources: %v, want silence", got)
			}
			for _, v := range voices {
				if v.IsPlaying() {
					t.Error("a voice whose source ended still plays")
				}
			}
			if !m.idle() {
				t.Error("the mixer is not idle after its voices ended")
			}
		})
	}
}

// TestMixer_PartialReads: a source that gives odd byte counts and sometimes nothing plays whole,
// in order, with silence only where it had nothing ready.
func TestMixer_PartialReads(t *testing.T) {
	src := pcmOf(ramp(200, 1)...)
	m := &mixer{}
	v := m.newVoice(&dribble{r: bytes.NewReader(src), n: 7})
	v.Play()
	var got []byte
	for v.IsPlaying() {
		got = append(got, mixPeriods(m, 1, 16)...)
	}
	var heard []byte
	for i := 0; i+1 < len(got); i += 2 {
		if got[i] != 0 || got[i+1] != 0 {
			heard = append(heard, got[i:i+2]...)
		}
	}
	if !bytes.Equal(heard, src) {
		t.Errorf("heard %d bytes %v, want the source's %d", len(heard), heard, len(src))
	}
}

// TestMixer_PauseAndClose: a paused or closed voice is not mixed from the next period on.
func TestMixer_PauseAndClose(t *testing.T) {
	const frames = 4
	for _, stop := range []string{"Pause", "Close"} {
		t.Run(stop, func(t *testing.T) {
			m := &mixer{}
			v := m.newVoice(bytes.NewReader(pcmOf(ramp(100, 1)...)))
			v.Play()
			mixPeriods(m, 1, frames)
			if stop == "Pause" {
				v.Pause()
			} else {
				v.Close()
			}
			if got := mixPeriods(m, 1, frames); !bytes.Equal(got, make([]byte, len(got))) {
				t.Errorf("after %s: %v, want silence", stop, got)
			}
			if v.IsPlaying() || !m.idle() {
				t.Errorf("after %s the voice still plays", stop)
			}
		})
	}
}
