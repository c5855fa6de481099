package playback

import (
	"io"
	"math"
	"sync"
)

// mixer sums the voices playing into the PCM an output writes to its device, one period at a
// time. A voice's source is read when its PCM is mixed, on the device's writer goroutine, so it
// must not block: the player's clipReader returns what the decoder has ready, possibly nothing.
// Nothing is buffered between the source and the period: a voice's BufferedSize is always 0.
type mixer struct {
	mu      sync.Mutex
	playing []*mixVoice
}

// mixVoice is one clip's voice on a mixer.
type mixVoice struct {
	m   *mixer
	src io.Reader

	mu      sync.Mutex
	state   voiceState
	volume  float64
	applied float64 // the volume at the end of the last period mixed: a change ramps from it
	partial []byte  // the start of a frame the source returned without its end
	scratch []byte
}

type voiceState int

const (
	voicePaused voiceState = iota
	voicePlaying
	voiceFinished // its source ended and all it gave was mixed
	voiceClosed
)

func (m *mixer) newVoice(r io.Reader) voice {
	return &mixVoice{m: m, src: r, volume: 1, applied: 1}
}

// idle reports whether no voice is playing.
func (m *mixer) idle() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.playing) == 0
}

// mix fills period (whole frames of PCM in OutputFormat) with the sum of the voices playing,
// clipped; silence when none plays.
func (m *mixer) mix(period []byte, acc []int32) {
	m.mu.Lock()
	voices := append([]*mixVoice(nil), m.playing...)
	m.mu.Unlock()
	clear(acc)
	for _, v := range voices {
		v.mixInto(acc, len(period))
	}
	for i, s := range acc {
		s = min(max(s, math.MinInt16), math.MaxInt16)
		period[2*i] = byte(s)
		period[2*i+1] = byte(s >> 8)
	}
}

// mixInto reads up to n bytes of PCM from the voice's source and adds them to acc, at the voice's
// volume. A source with nothing ready leaves the rest of the period silent; one that ended
// finishes the voice.
func (v *mixVoice) mixInto(acc []int32, n int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.state != voicePlaying {
		return
	}
	if cap(v.scratch) < n {
		v.scratch = make([]byte, n)
	}
	buf := v.scratch[:n]
	got := copy(buf, v.partial)
	v.partial = v.partial[:0]
	var err error
	for got < n && err == nil {
		var k int
		k, err = v.src.Read(buf[got:])
		got += k
		if k == 0 {
			break
		}
	}
	frame := 2 * OutputFormat.Channels
	whole := got / frame * frame
	if err == nil {
		v.partial = append(v.partial, buf[whole:got]...)
	}
	// Ramp a volume change over the period, so that it does not click.
	samples := whole / 2
	from, to := v.applied, v.volume
	for i := range samples {
		g := to
		if from != to {
			g = from + (to-from)*float64(i)/float64(samples)
		}
		s := int16(uint16(buf[2*i]) | uint16(buf[2*i+1])<<8)
		acc[i] += int32(math.Round(float64(s) * g))
	}
	if samples > 0 {
		v.applied = to
	}
	if err != nil {
		v.state = voiceFinished
		v.m.remove(v)
	}
}

func (m *mixer) remove(v *mixVoice) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, p := range m.playing {
		if p == v {
			m.playing = append(m.playing[:i], m.playing[i+1:]...)
			return
		}
	}
}

// Play starts the voice, or resumes it after Pause.
func (v *mixVoice) Play() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.state != voicePaused {
		return
	}
	v.state = voicePlaying
	v.applied = v.volume // the volume set before it plays applies from its first sample
	v.m.mu.Lock()
	v.m.playing = append(v.m.playing, v)
	v.m.mu.Unlock()
}

// Pause stops the voice at once: the next period is mixed without it.
func (v *mixVoice) Pause() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.state != voicePlaying {
		return
	}
	v.state = voicePaused
	v.m.remove(v)
}

// IsPlaying reports whether the voice plays: it was started, not paused, and its source has not
// ended.
func (v *mixVoice) IsPlaying() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.state == voicePlaying
}

// BufferedSize is 0: a voice's PCM is read when it is mixed.
func (v *mixVoice) BufferedSize() int { return 0 }

// SetVolume sets the voice's gain, from 0 to 1, from the next period on.
func (v *mixVoice) SetVolume(x float64) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.volume = x
}

// Close stops the voice for good.
func (v *mixVoice) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.state == voicePlaying {
		v.m.remove(v)
	}
	v.state = voiceClosed
	return nil
}
