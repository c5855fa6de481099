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
	// at is where frame k of the output starts in played, in bytes: whole samples of every
	// channel, at any rate (11,025 Hz has no whole number of samples in 20 ms).
	at := func(k int) int { return min(len(played), k*rate/50*channels*2) }
	c.Played(played[:at(offlineAhead)], rate, channels, time.Time{})
	out := make([]int16, 0, len(heard))
	for k := 0; (k+1)*FrameSamples <= len(heard); k++ {
		clock = start.Add(time.Duration(k) * 20 * time.Millisecond)
		if from, to := at(k+offlineAhead), at(k+offlineAhead+1); from < to {
			c.Played(played[from:to], rate, channels, time.Time{})
		}
		f := append([]int16(nil), heard[k*FrameSamples:(k+1)*FrameSamples]...)
		c.Cancel(f, clock.Add(20*time.Millisecond))
		if c.afterFrame != nil {
			c.afterFrame()
		}
		out = append(out, f...)
	}
	return out
}

// ERLE is the echo return loss enhancement from heard to out over samples [from, to), in dB,
// counting the 20 ms frames in which heard has sound (the echo's, when nothing else was said);
// 0 when it has none.
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
