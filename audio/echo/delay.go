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
// heard, block by block. It is not safe for concurrent use.
type DelayTracker struct {
	maxLag, window, every int
	minWindow             int // blocks needed for a first estimate

	far, mic     []float64 // onset strengths, rings of len(far) = window+maxLag and len(mic) = window
	farDB, micDB float64   // the last block's level, dBFS
	n            int       // blocks added
	sinceEst     int       // blocks since the last estimate

	lag        int     // the delay in blocks; -1 while unknown
	candidate  int     // the last estimate, waiting to be confirmed; -1 when none
	confidence float64 // the correlation at lag when it was last confirmed
	changes    int     // how often the delay was set
}

// NewDelayTracker returns a tracker that knows no delay yet.
func NewDelayTracker() *DelayTracker {
	maxLag := int(MaxDelay / BlockDuration)
	window := int(trackWindow / BlockDuration)
	return &DelayTracker{
		maxLag: maxLag, window: window, every: int(trackEvery / BlockDuration), minWindow: int(firstWindow / BlockDuration),
		far: make([]float64, window+maxLag), mic: make([]float64, window),
		farDB: onsetFloorDB, micDB: onsetFloorDB, lag: -1, candidate: -1,
	}
}

// Add takes one block's mean square level on each side (samples scaled to ±1): what the
// microphone heard, and what was played at the same moment.
func (t *DelayTracker) Add(micPower, farPower float64) {
	far := max(powerDB(farPower), onsetFloorDB)
	mic := max(powerDB(micPower), onsetFloorDB)
	t.far[t.n%len(t.far)] = max(0, far-t.farDB)
	t.mic[t.n%len(t.mic)] = max(0, mic-t.micDB)
	t.farDB, t.micDB = far, mic
	t.n++
	t.sinceEst++
	if t.sinceEst >= t.every && t.n >= t.minWindow {
		t.sinceEst = 0
		t.estimate()
	}
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
	win := min(t.n, t.window)
	active := 0
	for i := 0; i < win+t.maxLag && i < t.n; i++ {
		if t.far[(t.n-1-i)%len(t.far)] > 1 {
			active++
		}
	}
	if float64(active) < activeShare*float64(win) {
		return // too little was played to say
	}
	best, bestLag := math.Inf(-1), -1
	for lag := 0; lag <= t.maxLag; lag++ {
		n := min(t.window, t.n-lag)
		if n < t.minWindow {
			break
		}
		var sm, sf, smm, sff, smf float64
		for i := range n {
			m := t.mic[(t.n-n+i)%len(t.mic)]
			f := t.far[(t.n-n-lag+i)%len(t.far)]
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
		if t.lag != bestLag {
			t.changes++
		}
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
