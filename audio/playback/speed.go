package playback

import (
	"encoding/binary"
	"errors"
	"math"
)

// The speeds a person may choose for spoken replies (Player.SetSpeed): 1 is as the service made
// the audio.
const (
	MinSpeed = 0.75
	MaxSpeed = 2.0
)

// ErrNoSpeed means replies can only be played at the speed they were made: libsonic, which
// changes the speed without changing the pitch, is not installed or not in this build.
var ErrNoSpeed = errors.New("the speech rate cannot be changed")

// SpeedAvailable says whether spoken replies can be played faster or slower: nil, or an error
// wrapping ErrNoSpeed that says why not.
func SpeedAvailable() error { return loadSonic() }

// ClampSpeed brings a speed into [MinSpeed, MaxSpeed]; anything not a number is 1.
func ClampSpeed(s float64) float64 {
	if math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
		return 1
	}
	return min(max(s, MinSpeed), MaxSpeed)
}

// sameSpeed is how close to 1 a speed plays the audio untouched.
const sameSpeed = 0.005

// stretcher plays PCM faster or slower without changing its pitch (libsonic's pitch-synchronous
// overlap-add, the method espeak-ng uses for its fast speech). It holds about two pitch periods
// (31 ms) before its first output, and keeps its state from one chunk to the next.
type stretcher struct {
	s        *sonicStream
	channels int
	in, out  []int16
}

// newStretcher returns a stretcher for PCM of f at speed, or nil when speed plays it as it is.
func newStretcher(f Format, speed float64) (*stretcher, error) {
	speed = ClampSpeed(speed)
	if math.Abs(speed-1) < sameSpeed {
		return nil, nil
	}
	s, err := newSonicStream(f.SampleRate, f.Channels, speed)
	if err != nil {
		return nil, err
	}
	return &stretcher{s: s, channels: f.Channels}, nil
}

// process hands pcm (signed 16-bit little-endian, interleaved) to the stretcher and appends to
// dst what it has made so far.
func (t *stretcher) process(dst, pcm []byte) []byte {
	n := len(pcm) / 2
	if cap(t.in) < n {
		t.in = make([]int16, n)
	}
	in := t.in[:n]
	for i := range in {
		in[i] = int16(binary.LittleEndian.Uint16(pcm[2*i:]))
	}
	t.s.write(in)
	return t.drain(dst)
}

// finish gives out what the stretcher still holds, at the end of the clip, and frees it.
func (t *stretcher) finish(dst []byte) []byte {
	t.s.flush()
	dst = t.drain(dst)
	t.s.close()
	return dst
}

// close frees the stretcher when the clip ends early.
func (t *stretcher) close() { t.s.close() }

func (t *stretcher) drain(dst []byte) []byte {
	for {
		frames := t.s.available()
		if frames <= 0 {
			return dst
		}
		if want := frames * t.channels; cap(t.out) < want {
			t.out = make([]int16, want)
		}
		got := t.s.read(t.out[:frames*t.channels])
		if got <= 0 {
			return dst
		}
		for _, v := range t.out[:got] {
			dst = binary.LittleEndian.AppendUint16(dst, uint16(v))
		}
	}
}
