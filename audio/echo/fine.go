package echo

import "math"

// The fine search follows the delay to the sample. It matches the microphone's last fineSpan
// with the playback at lags around the delay followed, both whitened (first differences, so
// that a voice's low tones do not blur the match): every fineEvery within fineNear (the small
// steps of a drift, or of a sound server's buffer), every fineWideEvery-th time within
// fineReach. A near lag that matches better than the delay followed is taken at once when the
// match is sure, else once two searches agree; a far one only when a second search around it
// agrees and matches clearly better than the delay followed (a voice repeats itself, and a
// syllable may match another one).
const (
	// nearGain and farGain are how much better than the delay followed a lag must match.
	nearGain = 0.02
	farGain  = 0.1
)

// fine searches, and moves the delay.
func (c *Canceller) fine() {
	mm, ok := c.whiten(c.micRing)
	if !ok {
		return
	}
	if c.farCand >= 0 {
		cand := c.farCand
		c.farCand = -1
		best, lag := c.match(mm, cand, samples(fineNear))
		cur, _ := c.match(mm, c.delay, 0)
		if lag >= 0 && abs64(lag-cand) <= 2 && best >= fineSure && best > cur+farGain {
			c.moveTo(lag)
		}
		return
	}
	reach := samples(fineNear)
	if c.fineN++; c.fineN%fineWideEvery == 0 {
		reach = samples(fineReach)
	}
	best, lag := c.match(mm, c.delay, reach)
	switch {
	case lag < 0 || best < fineCorrelation:
		c.fineCand = -1
		return
	case lag == c.delay:
	case abs64(lag-c.delay) > samples(fineNear):
		c.farCand = lag
	default:
		cur, _ := c.match(mm, c.delay, 0)
		if best > cur+nearGain && (best >= fineSure || abs64(lag-c.fineCand) <= 1) {
			c.moveTo(lag)
		}
	}
	c.fineCand = lag
}

// moveTo makes lag the delay followed.
func (c *Canceller) moveTo(lag int64) {
	c.delay = lag
	c.stats.Shifts++
}

// whiten fills diffM with the first differences of the last fineSpan of ring (the microphone's
// frames, or the canceller's output, by position), and returns their energy; false when the
// span's echo holds nothing of the playback, or the span is silent.
func (c *Canceller) whiten(ring []int16) (float64, bool) {
	n := int(samples(fineSpan))
	end := c.micPos
	if c.farLast+c.delay < end-int64(n) {
		return 0, false
	}
	if len(c.diffM) != n {
		c.diffM = make([]float64, n)
	}
	var mm float64
	size := int64(len(ring))
	for i := range n {
		p := end - int64(n) + int64(i)
		m := float64(ring[p%size]) - float64(ring[(p-1)%size])
		c.diffM[i] = m
		mm += m * m
	}
	return mm, mm > 0
}

// match correlates diffM (of energy mm) with the whitened playback at every lag within reach
// of center, and returns the best correlation and its lag (-1 when the playback is silent
// there).
func (c *Canceller) match(mm float64, center, reach int64) (float64, int64) {
	n := len(c.diffM)
	lo, hi := max(0, center-reach), center+reach
	m := int(hi - lo)
	if cap(c.diffF) < n+m+1 {
		c.diffF = make([]float64, n+m+1)
	}
	// The playback from under the microphone's first sample at lag hi to under its last at lo.
	f := c.diffF[:n+m+1]
	base := c.micPos - int64(n) - hi
	prev := float64(c.farAt(base - 1))
	for i := range f {
		cur := float64(c.farAt(base + int64(i)))
		f[i] = cur - prev
		prev = cur
	}
	best, bestLag := math.Inf(-1), int64(-1)
	var ff float64 // the energy of f[k:k+n], slid along
	for _, v := range f[:n] {
		ff += v * v
	}
	for k := 0; k <= m; k++ { // lag hi-k
		if k > 0 {
			ff += f[k+n-1]*f[k+n-1] - f[k-1]*f[k-1]
		}
		if ff <= 0 {
			continue
		}
		var mf float64
		for i, v := range f[k : k+n] {
			mf += v * c.diffM[i]
		}
		if r := mf / math.Sqrt(ff*mm); r > best {
			best, bestLag = r, hi-int64(k)
		}
	}
	return best, bestLag
}
