// Package echo removes the echo of what Parley plays from what the microphone hears, so that a
// person can talk over a spoken reply at a normal voice.
//
// What the output is handed (Played) is laid on a timeline of 16 kHz samples kept by the wall
// clock, as is each frame the microphone delivers (Cancel). A DelayTracker finds how far behind
// the playback its echo reaches the microphone, and SpeexDSP's adaptive filter, given the
// playback from that far back, removes the echo; its preprocessor then suppresses what the
// filter leaves. With no SpeexDSP here, New fails with ErrUnavailable and nothing changes.
package echo

import (
	"encoding/binary"
	"math"
	"sync"
	"time"
)

const (
	// SampleRate and FrameSamples are the microphone's: 20 ms frames of 16 kHz mono.
	SampleRate   = 16000
	FrameSamples = SampleRate / 50

	blockSamples = int(SampleRate * BlockDuration / time.Second)
	// tail is how much of the echo path the adaptive filter models after the delay: the room's
	// reverberation, and the error of the delay's estimate (margin).
	tail = 6144
	// margin: the playback is given to the filter this much earlier than the delay says, so an
	// estimate up to this much too long still leaves the echo after its cause.
	margin = 40 * time.Millisecond
	// resetAfter: a delay that changes by more than this makes the filter start again.
	resetAfter = 40 * time.Millisecond
	// gapAfter: the playback is behind the clock by more than this only after a gap in it.
	gapAfter = 30 * time.Millisecond
	// resyncAfter: the microphone's frames are taken as contiguous unless the clock says one is
	// further off than this (the device stopped, or the reader fell behind).
	resyncAfter = 100 * time.Millisecond
	// farActiveDBFS is the level above which a block of playback can make an echo.
	farActiveDBFS = -60.0
	// ringSamples holds as much playback as the delay and the filter reach back, and some.
	ringSamples = int(SampleRate * (MaxDelay + 2*time.Second) / time.Second)
	// erleSmoothing is the weight of each frame in the running echo return loss enhancement.
	erleSmoothing = 0.05
)

// suppression is how the preprocessor treats what the filter leaves.
type suppression struct {
	denoise                       bool
	noiseDB, echoDB, echoActiveDB int
}

var defaultSuppression = suppression{denoise: true, noiseDB: -15, echoDB: -40, echoActiveDB: -15}

// Stats tell how the canceller is doing.
type Stats struct {
	// Delay is the echo's delay, when known.
	Delay      time.Duration
	DelayKnown bool
	// ERLE is the running echo return loss enhancement while the playback is heard, in dB: how
	// much quieter the echo is after the canceller than before.
	ERLE float64
	// Active reports that the last frame was processed (the playback could be heard in it).
	Active bool
	// Resets counts the times the filter started again (a new delay, divergence).
	Resets int
}

// Canceller removes the echo of what was Played from the frames given to Cancel. Played may
// be called from any goroutine (the audio output's); Cancel from one at a time.
type Canceller struct {
	now func() time.Time

	mu      sync.Mutex
	origin  time.Time
	started bool
	ring    []int16
	farPos  int64 // where the next sample played goes
	farLast int64 // where the last audible block of playback ended
	conv    converter

	// Cancel's side (under mu too: Played writes what it reads).
	st      *speexState
	tracker *DelayTracker
	micPos  int64
	shift   int64 // the playback is read this many samples back from the microphone's position
	far     []int16
	out     []int16
	stats   Stats
	micP    float64 // smoothed power before and after, for ERLE
	outP    float64
}

// New returns a canceller, or an error wrapping ErrUnavailable when this computer has no
// SpeexDSP (its library, libspeexdsp.so.1 on Linux) or this build cannot load it.
func New() (*Canceller, error) {
	st, err := newSpeexState(FrameSamples, tail, SampleRate, defaultSuppression)
	if err != nil {
		return nil, err
	}
	return &Canceller{
		now: time.Now, st: st, tracker: NewDelayTracker(), ring: make([]int16, ringSamples),
		far: make([]int16, FrameSamples), out: make([]int16, FrameSamples),
	}, nil
}

// Close frees the canceller's state; it must not be used after.
func (c *Canceller) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st != nil {
		c.st.close()
		c.st = nil
	}
}

// position is the timeline's sample at t.
func (c *Canceller) position(t time.Time) int64 {
	if !c.started {
		c.origin, c.started = t, true
	}
	return int64(t.Sub(c.origin)) * SampleRate / int64(time.Second)
}

// Played takes PCM handed to the audio output (signed 16-bit little-endian, interleaved, at
// rate with channels): the output plays it from about now, after what it was handed before.
func (c *Canceller) Played(pcm []byte, rate, channels int) {
	if rate <= 0 || channels <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.position(c.now())
	if c.farPos < now-int64(gapAfter*SampleRate/time.Second) {
		// The output played silence since the last: what comes now starts now.
		c.clearRing(c.farPos, now)
		c.farPos = now
		c.conv.reset()
	}
	c.conv.setFormat(rate, channels)
	c.conv.feed(pcm, func(s int16) {
		c.ring[c.farPos%int64(len(c.ring))] = s
		c.farPos++
		if c.farPos%int64(blockSamples) == 0 {
			start := c.farPos - int64(blockSamples)
			if powerDB(c.power(start, blockSamples)) > farActiveDBFS {
				c.farLast = c.farPos
			}
		}
	})
}

// clearRing silences the timeline from from to to.
func (c *Canceller) clearRing(from, to int64) {
	from = max(from, to-int64(len(c.ring)))
	for p := from; p < to; p++ {
		c.ring[p%int64(len(c.ring))] = 0
	}
}

// read copies the playback at timeline positions from on into dst: silence where nothing was
// played, or not yet.
func (c *Canceller) read(dst []int16, from int64) {
	for i := range dst {
		p := from + int64(i)
		if p < 0 || p >= c.farPos || p < c.farPos-int64(len(c.ring)) {
			dst[i] = 0
			continue
		}
		dst[i] = c.ring[p%int64(len(c.ring))]
	}
}

// power is the mean square of n samples of the playback from position from (scaled to ±1).
func (c *Canceller) power(from int64, n int) float64 {
	var e float64
	for i := range n {
		p := from + int64(i)
		if p < 0 || p >= c.farPos || p < c.farPos-int64(len(c.ring)) {
			continue
		}
		x := float64(c.ring[p%int64(len(c.ring))]) / 32768
		e += x * x
	}
	return e / float64(n)
}

func meanSquare(s []int16) float64 {
	var e float64
	for _, v := range s {
		x := float64(v) / 32768
		e += x * x
	}
	return e / float64(len(s))
}

// Cancel removes the echo from frame (FrameSamples samples the microphone delivered at t), in
// place. A frame in which no playback can be heard is left as it is.
func (c *Canceller) Cancel(frame []int16, t time.Time) {
	if len(frame) != FrameSamples {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.st == nil {
		return
	}
	start := c.position(t) - FrameSamples
	if d := start - c.micPos; d > int64(resyncAfter*SampleRate/time.Second) || d < -int64(resyncAfter*SampleRate/time.Second) {
		c.micPos = start
	}
	pos := c.micPos
	c.micPos += FrameSamples
	for b := 0; b < FrameSamples; b += blockSamples {
		c.tracker.Add(meanSquare(frame[b:b+blockSamples]), c.power(pos+int64(b), blockSamples))
	}
	c.follow()
	// The echo of what was played up to MaxDelay (or the delay) and the filter's tail ago.
	reach := int64(MaxDelay * SampleRate / time.Second)
	if c.stats.DelayKnown {
		reach = c.shift
	}
	c.stats.Active = c.farLast > 0 && pos-reach-tail < c.farLast
	if !c.stats.Active {
		return
	}
	c.read(c.far, pos-c.shift)
	c.st.process(frame, c.far, c.out, true)
	in, out := meanSquare(frame), meanSquare(c.out)
	if in > 0 && powerDB(in) > farActiveDBFS {
		c.micP += erleSmoothing * (in - c.micP)
		c.outP += erleSmoothing * (out - c.outP)
		if c.outP > 0 {
			c.stats.ERLE = 10 * math.Log10(c.micP/c.outP)
		}
	}
	copy(frame, c.out)
}

// follow takes the tracker's delay: the playback is read from that far back, less margin.
func (c *Canceller) follow() {
	d, ok := c.tracker.Delay()
	if !ok {
		return
	}
	shift := max(0, int64((d-margin)*SampleRate/time.Second))
	moved := shift - c.shift
	if !c.stats.DelayKnown || moved > int64(resetAfter*SampleRate/time.Second) || moved < -int64(resetAfter*SampleRate/time.Second) {
		// What the filter learned was of the echo at the old delay.
		c.st.reset()
		c.stats.Resets++
		c.shift = shift
	}
	c.stats.Delay, c.stats.DelayKnown = d, true
}

// Stats returns how the canceller is doing.
func (c *Canceller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// converter turns the output's PCM into the timeline's 16 kHz mono: channels are averaged, and
// the rate changed by linear interpolation after a low-pass (a moving average over the ratio's
// samples, enough for a reference the adaptive filter fits itself to).
type converter struct {
	rate, channels int
	step           float64 // input samples per output sample
	phase          float64 // where the next output sample falls, in input samples from prev
	prev           float64
	acc            []float64 // the low-pass's last inputs
	accSum         float64
	accN           int
	primed         bool
}

func (v *converter) setFormat(rate, channels int) {
	if rate == v.rate && channels == v.channels {
		return
	}
	v.rate, v.channels = rate, channels
	v.step = float64(rate) / SampleRate
	v.acc = make([]float64, max(1, int(math.Round(v.step))))
	v.reset()
}

func (v *converter) reset() {
	v.phase, v.prev, v.accSum, v.accN, v.primed = 0, 0, 0, 0, false
	clear(v.acc)
}

// feed converts pcm, passing each sample out to emit.
func (v *converter) feed(pcm []byte, emit func(int16)) {
	frame := 2 * v.channels
	for len(pcm) >= frame {
		var sum float64
		for ch := range v.channels {
			sum += float64(int16(binary.LittleEndian.Uint16(pcm[2*ch:])))
		}
		pcm = pcm[frame:]
		// Low-pass: the mean of the last len(acc) samples.
		x := sum / float64(v.channels)
		i := v.accN % len(v.acc)
		v.accSum += x - v.acc[i]
		v.acc[i] = x
		v.accN++
		cur := v.accSum / float64(min(v.accN, len(v.acc)))
		if !v.primed {
			v.prev, v.primed = cur, true
			continue
		}
		// Output samples between prev (at 0) and cur (at 1).
		for v.phase < 1 {
			y := v.prev + (cur-v.prev)*v.phase
			emit(int16(max(-32768, min(32767, math.Round(y)))))
			v.phase += v.step
		}
		v.phase--
		v.prev = cur
	}
}
