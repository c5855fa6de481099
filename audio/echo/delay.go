package echo

import (
	"math"
	"time"
)

// The delay tracker finds how long after Parley plays a sound its echo reaches the microphone:
// the output's buffers, the sound server's, the loudspeaker and the room. Both sides are cut
// into blocks of BlockDuration, each block reduced to its onset strength (how much louder it is
// than the block before, in dB: reverberation smears a sound's decay, never its onset), and
// the microphone's onsets are correlated with the playback's at every lag up to MaxDelay over
// the last trackWindow. The lag of the highest correlation is the delay, once two estimates in
// a row agree on it (so a person talking over the reply, whose onsets the playback does not
// have, moves it only if they outlast the window). It is estimated afresh every trackEvery
// while the playback has been audible, so a delay that drifts or jumps (another output, a
// sound server's buffer growing) is followed.
const (
	// BlockDuration is the tracker's resolution.
	BlockDuration = 10 * time.Millisecond
	// MaxDelay is the longest delay the tracker looks for.
	MaxDelay = 1500 * time.Millisecond

	trackWindow = 3 * time.Second
	trackEvery  = 250 * time.Millisecond
	// firstWindow is how much must have been heard for a first estimate: until trackWindow has
	// been, the estimate uses what there is.
	firstWindow = time.Second
	// minCorrelation is the least a lag's correlation must reach to be taken for the delay.
	minCorrelation = 0.3
	// onsetFloorDB: blocks quieter than this (dBFS) count as this loud, so the noise of a quiet
	// room makes no onsets.
	onsetFloorDB = -55.0
	// activeShare is the part of the window in which the playback must have had onsets for an
	// estimate to be made at all.
	activeShare = 0.05
)

// DelayTracker estimates the delay of the echo from the levels of what was played and what was
// heard, block by block. Blocks are numbered on one timeline for both sides: the block the
// microphone heard at a moment has the number of the block played at that moment. The two
// sides arrive at their own pace (an output takes its PCM as it plays it, a microphone delivers
// in bursts), so each side's onsets are kept by block number and read when an estimate is made.
// It is not safe for concurrent use.
type DelayTracker struct {
	maxLag, window, every int
	minWindow             int // blocks needed for a first estimate

	far, mic       []float64 // onset strengths by block number, rings
	farDB, micDB   float64   // the level of the last block on each side, dBFS
	farEnd, micEnd int64     // one past the last block added on each side
	micN           int       // microphone blocks added since the last jump
	sinceEst       int       // microphone blocks since the last estimate

	lag        int     // the delay in blocks; -1 while unknown
	candidate  int     // the last estimate, waiting to be confirmed; -1 when none
	confidence float64 // the correlation at lag when it was last confirmed
	n          int64   // blocks added by Add
}

// NewDelayTracker returns a tracker that knows no delay yet.
func NewDelayTracker() *DelayTracker {
	maxLag := int(MaxDelay / BlockDuration)
	window := int(trackWindow / BlockDuration)
	slack := int(time.Second / BlockDuration) // the playback may lag the microphone this much
	return &DelayTracker{
		maxLag: maxLag, window: window, every: int(trackEvery / BlockDuration), minWindow: int(firstWindow / BlockDuration),
		far: make([]float64, window+maxLag+slack), mic: make([]float64, window+slack),
		farDB: onsetFloorDB, micDB: onsetFloorDB, lag: -1, candidate: -1,
	}
}

// Add takes one block's mean square level on each side (samples scaled to ±1): what the
// microphone heard, and what was played at the same moment.
func (t *DelayTracker) Add(micPower, farPower float64) {
	t.AddFar(t.n, farPower)
	t.AddMic(t.n, micPower)
	t.n++
}

// AddFar takes the mean square level of block of what was played.
func (t *DelayTracker) AddFar(block int64, power float64) {
	t.farDB = addOnset(t.far, &t.farEnd, block, power, t.farDB)
}

// AddMic takes the mean square level of block of what the microphone heard, and estimates the
// delay again every trackEvery.
func (t *DelayTracker) AddMic(block int64, power float64) {
	if block != t.micEnd {
		t.micN = 0 // a jump: the blocks before are not this one's neighbours
	}
	t.micDB = addOnset(t.mic, &t.micEnd, block, power, t.micDB)
	t.micN++
	t.sinceEst++
	if t.sinceEst >= t.every && t.micN >= t.minWindow {
		t.sinceEst = 0
		t.estimate()
	}
}

// addOnset puts block's onset strength into ring, after *end (blocks skipped are silent), and
// returns its level.
func addOnset(ring []float64, end *int64, block int64, power, lastDB float64) float64 {
	db := max(powerDB(power), onsetFloorDB)
	if block < *end-int64(len(ring)) {
		return lastDB // older than anything kept
	}
	if block != *end {
		lastDB = onsetFloorDB
	}
	for b := max(*end, block-int64(len(ring))); b < block; b++ {
		ring[b%int64(len(ring))] = 0
	}
	ring[block%int64(len(ring))] = max(0, db-lastDB)
	*end = max(*end, block+1)
	return db
}

// onset is a side's onset strength at block: 0 where nothing is kept.
func onset(ring []float64, end, block int64) float64 {
	if block < 0 || block >= end || block < end-int64(len(ring)) {
		return 0
	}
	return ring[block%int64(len(ring))]
}

func powerDB(p float64) float64 {
	if p <= 0 {
		return math.Inf(-1)
	}
	return 10 * math.Log10(p)
}

// estimate correlates the microphone's onsets with the playback's at every lag, over the last
// trackWindow (or what there is, down to firstWindow, which limits the lags searched at first).
func (t *DelayTracker) estimate() {
	heard := min(t.micN, t.window)
	end := t.micEnd
	active := 0
	for b := end - int64(heard) - int64(t.maxLag); b < end; b++ {
		if onset(t.far, t.farEnd, b) > 1 {
			active++
		}
	}
	if float64(active) < activeShare*float64(heard) {
		return // too little was played to say
	}
	best, bestLag := math.Inf(-1), -1
	for lag := 0; lag <= t.maxLag; lag++ {
		n := heard
		var sm, sf, smm, sff, smf float64
		for i := range n {
			b := end - int64(n) + int64(i)
			m := onset(t.mic, t.micEnd, b)
			f := onset(t.far, t.farEnd, b-int64(lag))
			sm += m
			sf += f
			smm += m * m
			sff += f * f
			smf += m * f
		}
		k := float64(n)
		vm, vf := smm-sm*sm/k, sff-sf*sf/k
		if vm <= 0 || vf <= 0 {
			continue
		}
		if c := (smf - sm*sf/k) / math.Sqrt(vm*vf); c > best {
			best, bestLag = c, lag
		}
	}
	if bestLag < 0 || best < minCorrelation {
		t.candidate = -1
		return
	}
	if t.candidate >= 0 && abs(bestLag-t.candidate) <= 1 {
		t.lag, t.confidence = bestLag, best
	}
	t.candidate = bestLag
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Delay returns the echo's delay, and whether it is known.
func (t *DelayTracker) Delay() (time.Duration, bool) {
	if t.lag < 0 {
		return 0, false
	}
	return time.Duration(t.lag) * BlockDuration, true
}

// Confidence is the correlation the delay was last confirmed with (0 to 1).
func (t *DelayTracker) Confidence() float64 { return t.confidence }
