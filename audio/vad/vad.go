// Package vad finds speech in a stream of audio frames by their energy against an adaptive
// noise floor: speech starts after sustained energy (so clicks and breaths don't start a turn)
// and ends after a configurable hold of silence (so ordinary pauses don't end it).
package vad

import (
	"math"
	"time"
)

// Defaults and bounds of Config.
const (
	DefaultHold       = 900 * time.Millisecond
	MinHold           = 300 * time.Millisecond
	MaxHold           = 5 * time.Second
	DefaultMinSpeech  = 150 * time.Millisecond
	DefaultPreRoll    = 300 * time.Millisecond
	DefaultStartDB    = 9.0
	DefaultContinueDB = 5.0
	DefaultGateDBFS   = -58.0
	DefaultSampleRate = 16000
)

// silenceDBFS is the energy given to a frame of digital silence.
const silenceDBFS = -120.0

// Config tunes a Detector; the zero value means every default.
type Config struct {
	// SampleRate of the frames fed; 0 means 16000.
	SampleRate int
	// Hold is the silence that ends speech, clamped to 0.3–5 s; 0 means 0.9 s.
	Hold time.Duration
	// MinSpeech is how long energy must be sustained to start speech; 0 means 150 ms.
	MinSpeech time.Duration
	// PreRoll is how much audio before the start of speech a recorder keeps; 0 means 300 ms.
	PreRoll time.Duration
	// StartDB is how far above the noise floor (in dB) a frame must be to start speech; 0 means 9.
	StartDB float64
	// ContinueDB is how far above the floor a frame must be to count as speech once started (or
	// while a start is pending); 0 means 5.
	ContinueDB float64
	// GateDBFS is the energy (dBFS) below which a frame is never speech, whatever the floor; 0
	// means -58.
	GateDBFS float64
	// InitialFloor, when below 0, is the noise floor (dBFS) to start from, for a detector that
	// starts in the middle of a sound whose floor is known (a voice loop whose person talks over
	// the reply); 0 takes the floor from the first frames.
	InitialFloor float64
}

// WithDefaults returns c with zero fields set to their defaults and Hold clamped to its bounds.
func (c Config) WithDefaults() Config {
	if c.SampleRate <= 0 {
		c.SampleRate = DefaultSampleRate
	}
	if c.Hold == 0 {
		c.Hold = DefaultHold
	}
	c.Hold = min(max(c.Hold, MinHold), MaxHold)
	if c.MinSpeech <= 0 {
		c.MinSpeech = DefaultMinSpeech
	}
	if c.PreRoll <= 0 {
		c.PreRoll = DefaultPreRoll
	}
	if c.StartDB == 0 {
		c.StartDB = DefaultStartDB
	}
	if c.ContinueDB == 0 {
		c.ContinueDB = DefaultContinueDB
	}
	if c.GateDBFS == 0 {
		c.GateDBFS = DefaultGateDBFS
	}
	return c
}

// Event is what one frame changed.
type Event int

// Events returned by Detector.Feed.
const (
	None  Event = iota // nothing changed
	Start              // speech started (SpeechStart says where)
	End                // speech ended after the hold (SpeechEnd says where)
)

func (e Event) String() string {
	switch e {
	case Start:
		return "start"
	case End:
		return "end"
	}
	return "none"
}

// FrameDBFS returns the RMS energy of samples in dBFS (full scale = 0 dB), -120 for silence.
func FrameDBFS(samples []int16) float64 {
	if len(samples) == 0 {
		return silenceDBFS
	}
	var sum float64
	for _, s := range samples {
		v := float64(s)
		sum += v * v
	}
	return powerDB(sum / float64(len(samples)))
}

// powerDB converts a mean square of 16-bit samples to dBFS.
func powerDB(ms float64) float64 {
	if ms <= 0 {
		return silenceDBFS
	}
	return max(10*math.Log10(ms/(32768.0*32768.0)), silenceDBFS)
}

// state is where a Detector is between frames.
type state int

const (
	idle    state = iota // no speech
	pending              // energy above the start threshold, not yet long enough
	speech               // in speech; waiting for the hold of silence
)

// The speech band the detector measures energy in, in Hz.
const (
	bandLow  = 100
	bandHigh = 3500
)

// maxGap is the longest dip a pending start may have and still count as sustained.
const maxGap = 60 * time.Millisecond

// maxPending is the longest a pending start may go without becoming speech. Without a bound, a
// noise that rises a little over the floor (a fan starting: over the continue threshold, mostly
// under the start one) kept a start pending for as long as it lasted, with the floor held where
// it was, and speech that came later started only once its loud frames outnumbered the noise's.
const maxPending = 500 * time.Millisecond

// startupZeros is how much digital silence at the start is taken as a device starting up
// rather than as the noise floor.
const startupZeros = 200 * time.Millisecond

// histLen is how many past frames a Detector remembers to move a start earlier.
const histLen = 16

// Time constants of the noise floor.
const (
	floorFall       = 60 * time.Millisecond // a quieter frame pulls the floor down fast
	floorRise       = 1500 * time.Millisecond
	floorRiseSpeech = 12 * time.Second // so a lasting jump in noise ends "speech" eventually
)

// Detector is a streaming voice activity detector. Feed it consecutive frames (20 ms is
// usual) of mono 16-bit audio; it reports when speech starts and ends. Not safe for concurrent
// use; the zero value is not usable: call New.
type Detector struct {
	cfg                 Config
	pos                 int64 // samples fed so far
	floor               float64
	floorSet            bool
	st                  state
	pendStart           int64 // sample where a pending start began
	pendLen             int64 // loud samples in the pending run
	pendGap             int64 // samples of the dip the pending run is in
	pendFrames, pendHot int   // frames in the pending run, and those above the start threshold
	lastActive          int64 // end of the last frame above the continue threshold, in speech
	start, end          int64 // samples of the last speech start and end
	hist                [histLen]histFrame
	nhist               int
	band                SpeechBand // the level in the speech band
	leadZeros           int64      // samples of digital silence before the floor was set
}

type histFrame struct {
	at, n int64
	e     float64
}

// New returns a Detector for cfg (zero fields take their defaults).
func New(cfg Config) *Detector {
	cfg = cfg.WithDefaults()
	d := &Detector{
		cfg:  cfg,
		band: NewSpeechBand(cfg.SampleRate),
	}
	if cfg.InitialFloor < 0 {
		d.floor, d.floorSet = max(cfg.InitialFloor, silenceDBFS), true
	}
	return d
}

// Config returns the detector's configuration with defaults filled in.
func (d *Detector) Config() Config { return d.cfg }

// Floor returns the current noise floor in dBFS.
func (d *Detector) Floor() float64 { return d.floor }

// InSpeech reports whether speech has started and not yet ended.
func (d *Detector) InSpeech() bool { return d.st == speech }

// SpeechStart returns where the last speech start was found, from the first frame fed.
func (d *Detector) SpeechStart() time.Duration { return d.dur(d.start) }

// SpeechEnd returns where the last speech ended (the end of its last loud frame).
func (d *Detector) SpeechEnd() time.Duration { return d.dur(d.end) }

// Position returns how much audio has been fed.
func (d *Detector) Position() time.Duration { return d.dur(d.pos) }

// LastActive returns the end of the last frame loud enough to count as speech, while in speech.
func (d *Detector) LastActive() time.Duration { return d.dur(d.lastActive) }

func (d *Detector) dur(samples int64) time.Duration {
	return time.Duration(samples * int64(time.Second) / int64(d.cfg.SampleRate))
}

func (d *Detector) samples(t time.Duration) int64 {
	return int64(t) * int64(d.cfg.SampleRate) / int64(time.Second)
}

// energy returns the frame's energy in dBFS in the speech band (about 100–3500 Hz), where
// voice is strong and broadband noise is weakened.
func (d *Detector) energy(frame []int16) float64 { return d.band.Level(frame) }

// SpeechBand measures the level of frames in the band the Detector listens to (about 100 to
// 3500 Hz), where voice is strong and the rumble and hiss of noise are weakened. It keeps the
// filters' state from frame to frame: give it the frames of one stream in order.
type SpeechBand struct{ hp, lp biquad }

// NewSpeechBand returns a SpeechBand for audio at rate Hz.
func NewSpeechBand(rate int) SpeechBand {
	return SpeechBand{
		hp: newBiquad(true, bandLow, rate),
		lp: newBiquad(false, min(bandHigh, 0.45*float64(rate)), rate),
	}
}

// Level returns the frame's level in the speech band, in dBFS.
func (b *SpeechBand) Level(frame []int16) float64 {
	if len(frame) == 0 {
		return silenceDBFS
	}
	var sum float64
	for _, s := range frame {
		y := b.lp.step(b.hp.step(float64(s)))
		sum += y * y
	}
	return powerDB(sum / float64(len(frame)))
}

// biquad is a second-order IIR filter section (direct form I).
type biquad struct {
	b0, b1, b2, a1, a2 float64
	x1, x2, y1, y2     float64
}

func (f *biquad) step(x float64) float64 {
	y := f.b0*x + f.b1*f.x1 + f.b2*f.x2 - f.a1*f.y1 - f.a2*f.y2
	f.x2, f.x1 = f.x1, x
	f.y2, f.y1 = f.y1, y
	return y
}

// newBiquad returns a Butterworth (Q = 1/√2) high-pass or low-pass section at fc Hz for
// audio at rate Hz, from the Audio EQ Cookbook.
func newBiquad(highPass bool, fc float64, rate int) biquad {
	w := 2 * math.Pi * fc / float64(rate)
	alpha := math.Sin(w) / (2 * math.Sqrt2 / 2)
	cos := math.Cos(w)
	a0 := 1 + alpha
	var b0, b1 float64
	if highPass {
		b0, b1 = (1+cos)/2, -(1 + cos)
	} else {
		b0, b1 = (1-cos)/2, 1-cos
	}
	return biquad{b0: b0 / a0, b1: b1 / a0, b2: b0 / a0, a1: -2 * cos / a0, a2: (1 - alpha) / a0}
}

// track moves the noise floor toward e with time constant tau (falling uses floorFall).
func (d *Detector) track(e float64, n int, tau time.Duration) {
	if !d.floorSet {
		d.floor, d.floorSet = e, true
		return
	}
	if e < d.floor {
		tau = floorFall
	}
	dt := float64(n) / float64(d.cfg.SampleRate)
	a := 1 - math.Exp(-dt/tau.Seconds())
	d.floor += a * (e - d.floor)
}

// Feed processes the next frame and reports whether speech started or ended with it.
func (d *Detector) Feed(frame []int16) Event {
	e := d.energy(frame)
	n := int64(len(frame))
	at := d.pos
	d.pos += n
	defer d.remember(at, n, e)
	if !d.floorSet {
		if e <= silenceDBFS {
			// A device starting up may deliver a little digital silence, which says nothing
			// about the room's noise; a longer stretch is a real floor (a file, a quiet line).
			d.leadZeros += n
			if d.leadZeros < d.samples(startupZeros) {
				return None
			}
		}
		d.track(e, len(frame), floorRise)
	}
	startT := max(d.floor+d.cfg.StartDB, d.cfg.GateDBFS)
	contT := max(d.floor+d.cfg.ContinueDB, d.cfg.GateDBFS)
	switch d.st {
	case idle:
		if e >= startT {
			d.st = pending
			d.pendStart, d.pendLen, d.pendGap, d.pendFrames, d.pendHot = at, n, 0, 1, 1
			return d.confirm()
		}
		d.track(e, len(frame), floorRise)
	case pending:
		if e < contT {
			d.pendGap += n
			if d.pendGap > d.samples(maxGap) {
				d.st = idle
				d.track(e, len(frame), floorRise)
			}
			return None
		}
		d.pendGap = 0
		d.pendLen += n
		d.pendFrames++
		if e >= startT {
			d.pendHot++
		}
		if ev := d.confirm(); ev != None || d.pendLen <= d.samples(maxPending) {
			return ev
		}
		// Not speech: the floor follows the noise.
		d.st = idle
		d.track(e, len(frame), floorRise)
	case speech:
		if e >= contT {
			d.lastActive = d.pos
			d.track(e, len(frame), floorRiseSpeech)
			return None
		}
		d.track(e, len(frame), floorRise)
		if d.pos-d.lastActive >= d.samples(d.cfg.Hold) {
			d.st = idle
			d.end = d.lastActive
			return End
		}
	}
	return None
}

// confirm turns a pending run into speech once it is long and loud enough.
func (d *Detector) confirm() Event {
	if d.pendLen < d.samples(d.cfg.MinSpeech) || 2*d.pendHot < d.pendFrames {
		return None
	}
	d.st = speech
	d.lastActive = d.pos
	d.start = d.pendStart
	// Soft onsets: take in the frames just before the run that were already above the
	// continue threshold.
	contT := max(d.floor+d.cfg.ContinueDB, d.cfg.GateDBFS)
	for i := range min(d.nhist, histLen) {
		h := d.hist[d.histIndex(i)]
		if h.at >= d.start {
			continue // part of the run itself
		}
		if h.at+h.n != d.start || h.e < contT {
			break
		}
		d.start = h.at
	}
	return Start
}

// histIndex returns the ring index of the i-th most recent remembered frame.
func (d *Detector) histIndex(i int) int {
	return (d.nhist - 1 - i) % histLen
}

// remember keeps a frame's energy for moving a later start earlier.
func (d *Detector) remember(at, n int64, e float64) {
	d.hist[d.nhist%histLen] = histFrame{at: at, n: n, e: e}
	d.nhist++
}
