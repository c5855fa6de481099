// Package echo removes the echo of what Parley plays from what the microphone hears, so that a
// person can talk over a spoken reply at a normal voice.
//
// What the output is handed (Played) is laid on a timeline of 16 kHz samples, as is each frame
// the microphone delivers (Cancel). A DelayTracker finds, to 10 ms, how far behind the playback
// its echo reaches the microphone; a search around that finds it to the sample, and follows it
// as it moves; and SpeexDSP's adaptive filter, given the playback from that far back, removes
// the echo, its preprocessor suppressing what the filter leaves. With no SpeexDSP here, New
// fails with ErrUnavailable and nothing changes.
//
// The delay moves. Each side's samples follow on from each other, so each is placed right
// after the one before, but the two devices' clocks drift apart, an output that ran dry plays
// silence (the echo comes later from then on), and a sound server's buffers grow and shrink.
// In the simulated room of the tests (two null sinks and a pipe between them) the echo's delay
// drifted by 1–2 ms a second and jumped by 2–17 ms every few seconds. A change the filter would
// take seconds to learn is, as long as the room itself has not changed, just a shift: the fine
// search finds it within half a second, and the playback is read from the new place, the
// filter keeping what it learned. A change beyond the search's reach (another output, a long
// silence) is the tracker's, and the filter starts again.
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
	// margin: the playback is given to the filter this much earlier than the delay says, so the
	// echo's first sound is never before its cause.
	margin = 20 * time.Millisecond
	// coarseJump: a tracker's delay this far from the one followed means the echo path
	// changed beyond the fine search's reach, and the filter starts again.
	coarseJump = 30 * time.Millisecond
	// The fine search matches the microphone's last fineSpan every frame but one in
	// fineWideEvery within fineNear of the delay followed (the small steps a drift and a sound
	// server make), and in the other within fineReach.
	fineNear      = 4 * time.Millisecond
	fineReach     = 25 * time.Millisecond
	fineSpan      = 120 * time.Millisecond
	fineEvery     = 40 * time.Millisecond
	fineWideEvery = 5
	// fineCorrelation is the least correlation a fine match must have to be believed, after a
	// second search agrees; fineSure, at once.
	fineCorrelation = 0.3
	fineSure        = 0.6
	// farSlack: where the output says when its PCM is heard, a placement this far from where the
	// PCM before it ends is taken as the output's own moving (it ran dry, a sound server's
	// buffer changed), not as the noise of its word.
	farSlack = 3 * time.Millisecond
	// gapAfter: the playback is behind the clock by more than this only after a gap in it (an
	// output takes its PCM in pieces as it plays, a little late at times).
	gapAfter = 100 * time.Millisecond
	// The microphone's frames are taken as contiguous unless the clock says one was lost (the
	// next frame starts more than lostAfter later), or that they run far ahead of it (a device
	// delivers its frames in bursts, so the frames of one burst are read at the same moment,
	// each a frame earlier than the next in fact).
	lostAfter  = 100 * time.Millisecond
	burstAhead = time.Second
	// farActiveDBFS is the level above which a block of playback can make an echo.
	farActiveDBFS = -60.0
	// ringSamples holds as much playback as the delay and the filter reach back, and some.
	ringSamples = int(SampleRate * (MaxDelay + 2*time.Second) / time.Second)
	// micRingSamples holds the microphone's recent frames, for the fine search.
	micRingSamples = SampleRate
	// erleSmoothing is the weight of each frame in the running echo return loss enhancement.
	erleSmoothing = 0.05
	// convergeFrames is how many frames the filter needs after it starts (again), with the
	// playback's echo possibly in them and the microphone hearing something, before what it
	// leaves is trusted (Stats.Converged).
	convergeFrames = 100
	// residueGateDBFS: what the canceller leaves is compared with the playback (Stats.Residue)
	// only in frames at least this loud.
	residueGateDBFS = -50.0
)

// samples is d on the timeline.
func samples(d time.Duration) int64 { return int64(d) * SampleRate / int64(time.Second) }

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
	// Resets counts the times the filter started again (the delay moved beyond the fine
	// search); Shifts the times the fine search moved the delay.
	Resets, Shifts int
	// Gaps counts the times the playback started again after silence; Lost the times the
	// microphone's frames did not follow on from the ones before.
	Gaps, Lost int
	// Converged reports that the filter has had time to learn the echo path: 2 s of frames in
	// which the playback could echo and the microphone heard something (over -60 dBFS) since it
	// (re)started. (Not the running ERLE: it falls while a person talks.)
	Converged bool
	// Residue is how much what the adaptive filter left in the last frame resembles the
	// playback: the best correlation of its last 120 ms with the playback within 25 ms of the
	// delay (both whitened), 0 to 1. A leak of the echo (the delay moved and the filter lags)
	// resembles it; a person talking over the reply does not. It is taken before the
	// suppressor, which takes such a person down with the echo and so makes what is left
	// resemble the playback. NaN when not measured: the frame was quieter than -50 dBFS after
	// the filter, the delay is not known yet, or the playback the last 120 ms could echo is
	// silent (the filter's tail may still take an echo away, and what it leaves can then not
	// be compared).
	Residue float64
	// LinearDB is the level of the last frame after the adaptive filter, before the
	// suppressor, in dBFS; NaN when the canceller did not run on it.
	LinearDB float64
}

// Canceller removes the echo of what was Played from the frames given to Cancel. Played may
// be called from any goroutine (the audio output's); Cancel from one at a time.
type Canceller struct {
	now        func() time.Time
	afterFrame func() // the tests' look at the stats after each frame Process cancels

	mu      sync.Mutex
	origin  time.Time
	started bool
	ring    []int16
	farPos  int64 // where the next sample played goes
	farLast int64 // where the last audible block of playback ended
	playing bool  // something was played
	conv    converter

	// Cancel's side (under mu too: Played writes what it reads).
	st       *speexState
	tracker  *DelayTracker
	micPos   int64   // where the next frame heard goes
	micRing  []int16 // what the microphone heard, before the canceller, by position
	outRing  []int16 // and after its adaptive filter
	learned  int     // frames counted towards Stats.Converged since the filter (re)started
	delay    int64   // the echo's delay followed, in samples (when stats.DelayKnown)
	fineWait int     // frames until the next fine search
	fineN    int     // fine searches made
	fineCand int64   // the last near search's delay, to be confirmed; -1: none
	farCand  int64   // a wide search's delay beyond the near reach, to be confirmed; -1: none
	far      []int16
	out      []int16
	lin      []int16 // the last frame after the adaptive filter, before the suppressor
	stats    Stats
	micP     float64 // smoothed power before and after, for ERLE
	outP     float64
	diffM    []float64 // the fine search's whitened microphone
	diffF    []float64 // and playback
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
		micRing: make([]int16, micRingSamples), outRing: make([]int16, micRingSamples), fineCand: -1, farCand: -1,
		far: make([]int16, FrameSamples), out: make([]int16, FrameSamples), lin: make([]int16, FrameSamples),
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

// position is the timeline's sample at t. The timeline starts well before the first moment
// it is asked about, so that nothing on it falls before its start.
func (c *Canceller) position(t time.Time) int64 {
	if !c.started {
		c.origin, c.started = t.Add(-time.Minute), true
	}
	return samples(t.Sub(c.origin))
}

// Played takes PCM the audio output plays (signed 16-bit little-endian, interleaved, at rate
// with channels), whose first sample is heard at at: the device's word for it, or zero when it
// has none, when it is taken to follow on from what was played before (unless the output fell
// silent meanwhile).
func (c *Canceller) Played(pcm []byte, rate, channels int, at time.Time) {
	if rate <= 0 || channels <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.position(c.now())
	switch {
	case !at.IsZero():
		heard := c.position(at)
		if !c.playing || abs64(heard-c.farPos) > samples(farSlack) {
			c.moveFar(heard)
		}
	case !c.playing || c.farPos < now-samples(gapAfter):
		// The output played silence since the last: what comes now starts now.
		c.moveFar(now)
	}
	c.conv.setFormat(rate, channels)
	c.conv.feed(pcm, c.put)
}

// moveFar makes the next sample played go to position p, on a block's first sample (blocks fall
// on the same samples on both sides).
func (c *Canceller) moveFar(p int64) {
	if c.playing {
		c.stats.Gaps++
	}
	c.playing = true
	p -= p % int64(blockSamples)
	c.clearRing(c.farPos, p)
	c.farPos = p
	c.conv.reset()
}

// put lays one sample of playback on the timeline.
func (c *Canceller) put(s int16) {
	c.ring[c.farPos%int64(len(c.ring))] = s
	c.farPos++
	if c.farPos%int64(blockSamples) == 0 {
		start := c.farPos - int64(blockSamples)
		p := c.power(start, blockSamples)
		c.tracker.AddFar(start/int64(blockSamples), p)
		if powerDB(p) > farActiveDBFS {
			c.farLast = c.farPos
		}
	}
}

// clearRing silences the timeline from from to to.
func (c *Canceller) clearRing(from, to int64) {
	from = max(from, to-int64(len(c.ring)))
	for p := from; p < to; p++ {
		c.ring[p%int64(len(c.ring))] = 0
	}
}

// farAt is the playback at timeline position p: silence where nothing was played, or not yet.
func (c *Canceller) farAt(p int64) int16 {
	if p < 0 || p >= c.farPos || p < c.farPos-int64(len(c.ring)) {
		return 0
	}
	return c.ring[p%int64(len(c.ring))]
}

// power is the mean square of n samples of the playback from position from (scaled to ±1).
func (c *Canceller) power(from int64, n int) float64 {
	var e float64
	for i := range n {
		x := float64(c.farAt(from+int64(i))) / 32768
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
	c.mu.Lock()
	defer c.mu.Unlock()
	// Nothing said of a frame the canceller did not run on: not the last frame's figures.
	c.stats.Residue, c.stats.LinearDB = math.NaN(), math.NaN()
	if len(frame) != FrameSamples || c.st == nil {
		return
	}
	start := c.position(t) - FrameSamples
	if d := start - c.micPos; c.micPos == 0 || d > samples(lostAfter) || d < -samples(burstAhead) {
		if c.micPos != 0 {
			c.stats.Lost++
		}
		c.micPos = start - start%int64(blockSamples)
	}
	pos := c.micPos
	c.micPos += FrameSamples
	for i, s := range frame {
		c.micRing[(pos+int64(i))%int64(len(c.micRing))] = s
	}
	for b := 0; b < FrameSamples; b += blockSamples {
		c.tracker.AddMic((pos+int64(b))/int64(blockSamples), meanSquare(frame[b:b+blockSamples]))
	}
	c.follow()
	// The echo of what was played up to the delay (MaxDelay while it is not known) and the
	// filter's tail ago.
	reach := samples(MaxDelay)
	if c.stats.DelayKnown {
		reach = c.delay
	}
	c.stats.Active = c.farLast > 0 && pos-reach-tail < c.farLast
	if !c.stats.Active {
		c.keepOut(pos, frame)
		return
	}
	from := pos - max(0, c.delay-samples(margin))
	for i := range c.far {
		c.far[i] = c.farAt(from + int64(i))
	}
	c.st.process(frame, c.far, c.out, c.lin, true)
	in, out := meanSquare(frame), meanSquare(c.out)
	if in > 0 && powerDB(in) > farActiveDBFS {
		c.micP += erleSmoothing * (in - c.micP)
		c.outP += erleSmoothing * (out - c.outP)
		if c.outP > 0 {
			c.stats.ERLE = 10 * math.Log10(c.micP/c.outP)
		}
		c.learned++
	}
	c.stats.Converged = c.stats.DelayKnown && c.learned >= convergeFrames
	copy(frame, c.out)
	c.keepOut(pos, c.lin)
	c.stats.LinearDB = 10 * math.Log10(meanSquare(c.lin)+1e-10)
	if c.stats.LinearDB >= residueGateDBFS && c.stats.DelayKnown {
		if mm, ok := c.whiten(c.outRing); ok {
			if r, lag := c.match(mm, c.delay, samples(fineReach)); lag >= 0 {
				c.stats.Residue = max(0, r)
			}
		}
	}
}

// keepOut notes what the adaptive filter gave out at position pos.
func (c *Canceller) keepOut(pos int64, frame []int16) {
	for i, s := range frame {
		c.outRing[(pos+int64(i))%int64(len(c.outRing))] = s
	}
}

// follow keeps the delay: the tracker's when it is new or moved far, the fine search's as it
// moves within reach.
func (c *Canceller) follow() {
	d, ok := c.tracker.Delay()
	if !ok {
		return
	}
	coarse := samples(d)
	if !c.stats.DelayKnown || abs64(coarse-c.delay) > samples(coarseJump) {
		// What the filter learned was of the echo at the old delay.
		c.st.reset()
		c.stats.Resets++
		c.learned, c.micP, c.outP = 0, 0, 0
		c.delay, c.stats.DelayKnown = coarse, true
		c.fineWait, c.fineCand, c.farCand = 0, -1, -1
	}
	if c.fineWait--; c.fineWait <= 0 {
		c.fineWait = int(fineEvery / (time.Second / 50))
		c.fine()
	}
	c.stats.Delay = time.Duration(c.delay) * time.Second / SampleRate
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
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

// Stats returns how the canceller is doing.
func (c *Canceller) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}
