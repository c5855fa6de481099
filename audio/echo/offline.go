package echo

import (
	"math"
	"time"
)

// offlineAhead is how many frames of playback an output holds before they are heard, in
// Process: the canceller is handed them that far ahead, as Parley's output hands them.
const offlineAhead = 5

// Process cancels the echo of played (PCM at rate with channels, as the output was handed it)
// from heard (16 kHz mono, a recording that began as the playback did) as voice mode does while
// it listens, and returns the cleaned recording: 20 ms frames, the trailing part frame dropped.
// The canceller keeps what it learned; use a new one for another recording.
func (c *Canceller) Process(played []byte, rate, channels int, heard []int16) []int16 {
	start := time.Unix(1000, 0)
	clock := start
	c.now = func() time.Time { return clock }
	defer func() { c.now = time.Now }()
	per := rate * channels * 2 / 50 // bytes of output a frame
	c.Played(played[:min(len(played), offlineAhead*per)], rate, channels, time.Time{})
	out := make([]int16, 0, len(heard))
	for k := 0; (k+1)*FrameSamples <= len(heard); k++ {
		clock = start.Add(time.Duration(k) * 20 * time.Millisecond)
		if from := (k + offlineAhead) * per; from+per <= len(played) {
			c.Played(played[from:from+per], rate, channels, time.Time{})
		}
		f := append([]int16(nil), heard[k*FrameSamples:(k+1)*FrameSamples]...)
		c.Cancel(f, clock.Add(20*time.Millisecond))
		out = append(out, f...)
	}
	return out
}

// ERLE is the echo return loss enhancement from heard to out over samples [from, to), in dB,
// counting the 20 ms frames in which heard has sound (the echo's, when nothing else was said).
func ERLE(heard, out []int16, from, to int) float64 {
	var in, left float64
	for i := from; i+FrameSamples <= min(to, len(heard), len(out)); i += FrameSamples {
		m := meanSquare(heard[i : i+FrameSamples])
		if powerDB(m) < farActiveDBFS+10 {
			continue
		}
		in += m
		left += meanSquare(out[i : i+FrameSamples])
	}
	if in == 0 {
		return 0
	}
	return 10 * math.Log10(in/max(left, 1e-12))
}
