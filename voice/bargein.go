package voice

import (
	"bytes"
	"context"
	"io"
	"math"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad"
)

// Barge-in compares what the microphone hears with what is being played. The echo of the
// reply reaches the microphone some time after it is played (the output's buffer, a sound
// server's, the room), so the playback's level is taken as its loudest over a window around
// the frame. The echo is louder or quieter than the playback by a coupling that depends on the
// speakers, their volume and the room: the first moments of each reply's playback in which the
// echo is heard measure it (barge-in waits for that), it is followed while the reply plays, and
// the next reply starts from it (the room has not changed).
const (
	refBefore = time.Second           // how far back the playback level is looked for
	refAfter  = 60 * time.Millisecond // and how far ahead
	// bargeGateDBFS is the least a frame must have to be speech at all.
	bargeGateDBFS = -50.0
	// calibration is how much of the echo each reply measures before barge-in can trigger: the
	// echo reaches the microphone some time after the playback starts, so frames in which it is
	// not heard yet do not count, up to calibrationMax of audible playback (with headphones
	// nothing is heard).
	calibration    = 300 * time.Millisecond
	calibrationMax = 1500 * time.Millisecond
	// The learned coupling rises at most this fast (so a person starting to talk does not teach
	// it their voice) and falls this fast while the microphone's loudest over the last refBefore
	// is quieter than it expects of the playback's loudest over the same time: comparing a frame
	// with the playback's loudest would take every pause in the echo for a quieter room.
	couplingRise = 1.0 // dB per frame
	couplingFall = 0.3 // dB per frame: 15 dB a second
	// The microphone counts as hearing the echo when this far over the noise floor: in the
	// reply's pauses the microphone hears only the room, which says nothing about the echo.
	couplingHeardDB = 6.0
	// refActiveDBFS is the playback level above which the playback counts as audible.
	refActiveDBFS = -45.0
	// leadFrames: a question that barges in is recorded from this many frames before the start
	// of the person's speech (see overReply).
	leadFrames = int(vad.DefaultPreRoll / audio.FrameDuration)
	// With a canceller that has converged (ResidueReporter), a frame is also the person when,
	// after the adaptive filter, it is at most quietPersonDB under the loudest echo expected of
	// the playback (a person at the echo's level, or well under it), not louder than the
	// microphone heard it (notLouderDB), and what the filter left resembles the playback less
	// than maxResidue: what it leaks of the echo when the delay moves mostly resembles it
	// (0.3–0.85 on the simulated room's jumps), a person does not (under 0.1 offline; 0.1–0.3 in
	// the room's frames of a person at the echo's level, while the filter adapts to them).
	quietPersonDB = 12.0
	notLouderDB   = 1.0
	maxResidue    = 0.25
	// A frame the filter took less than keptDB away from is also the person when what it left
	// resembles the playback less than keptResidue: the filter knows the echo, and what it
	// cannot take away is mostly something else. It hears a person at the echo's level sooner
	// (18 of 20 within 0.4 s in the simulated room, against about half); its leaks after the
	// room's jumps mostly resemble the playback more (0.55–0.85), though some do not, and pause
	// a reply for half a second (6 replies of 50 in the room).
	keptDB      = 3.0
	keptResidue = 0.5
	// startResidue is how much what the filter left may resemble the playback in a frame of the
	// person's speech before the ones that made the barge-in (see speechStart): over the echo at
	// its loudest, the filter lags while they talk and leaks some of it.
	startResidue = 0.4
	// startGap is the longest pause, in frames, inside what speechStart takes for the start of
	// the question; startBack the furthest it looks back from the frames that made the
	// barge-in; startCredit how many of the frames it walks back over count as speech already
	// said when the reply pauses.
	startGap    = 5
	startBack   = 25
	startCredit = 5
)

// cleaned is what the canceller said of a frame: its level after the adaptive filter, how much
// what it left resembles the playback, and whether it has converged. ok is false without a
// canceller that says so (ResidueReporter), or when it did not run on the frame.
type cleaned struct {
	db, residue float64
	converged   bool
	ok          bool
}

// bargeIn decides when the person talks over the reply.
type bargeIn struct {
	margin   float64
	need     int     // frames of loud speech in a row
	coupling float64 // learned: echo level minus playback level, dB
	floor    float64 // the microphone's noise floor, dBFS
	calib    int     // frames of heard echo still to measure the coupling over
	calibMax int     // frames of audible playback after which measuring ends anyway
	run      int
	miss     int
	// likely: the last frame may have been the person (louder than the echo, or what the
	// canceller left of it over the echo and not much like the playback), for speechStart.
	likely  bool
	recent  [int(refBefore / audio.FrameDuration)]float64 // the microphone's last levels
	nrecent int
}

func (b *bargeIn) reset(cfg Config) {
	b.margin = cfg.BargeInDB
	b.need = max(1, int((cfg.BargeInAfter+audio.FrameDuration-1)/audio.FrameDuration))
	b.floor = bargeGateDBFS
	b.coupling = math.Inf(-1) // not measured yet
}

// start begins a reply: its echo is measured again, from the coupling learned over the replies
// before (never lower: the first frames of a reply may not have reached the microphone yet),
// and no speech is counted yet.
func (b *bargeIn) start() {
	b.run, b.miss = 0, 0
	b.calib = int(calibration / audio.FrameDuration)
	b.calibMax = int(calibrationMax / audio.FrameDuration)
	b.nrecent = 0
}

// loudest notes the microphone's level, and returns its loudest over the last refBefore of the
// reply.
func (b *bargeIn) loudest(mic float64) float64 {
	b.recent[b.nrecent%len(b.recent)] = mic
	b.nrecent++
	top := math.Inf(-1)
	for _, v := range b.recent[:min(b.nrecent, len(b.recent))] {
		top = max(top, v)
	}
	return top
}

// frame takes the microphone's level and the playback's (math.Inf(-1) when nothing played
// lately) for one frame, and what the canceller made of it, and reports whether the person is
// talking over the reply.
func (b *bargeIn) frame(mic, ref float64, c cleaned) bool {
	b.likely = false
	if math.IsNaN(ref) {
		return false // a clip plays whose level is not known yet
	}
	audible := !math.IsInf(ref, -1) && ref > refActiveDBFS
	top := b.loudest(mic)
	if b.calib > 0 {
		// Measuring: the echo is taken as loud as the loudest heard (or as the noise floor
		// when it cannot be heard, as with headphones).
		if mic < b.floor {
			b.floor = mic
		}
		if audible {
			b.calibMax--
			if mic > b.floor+couplingHeardDB {
				b.calib-- // the echo is heard
			}
			if b.calibMax <= 0 {
				b.calib = 0
			}
			b.coupling = max(b.coupling, max(mic, b.floor+couplingHeardDB)-ref)
		}
		return false
	}
	threshold := b.louder(ref)
	// A frame the strict test takes for the person is likely the person; only the others need
	// the looser one.
	person := mic > threshold || b.heardThrough(mic, ref, c, maxResidue)
	b.likely = person || b.heardThrough(mic, ref, c, startResidue)
	if person {
		b.run++
		b.miss = 0
		return b.run >= b.need
	}
	// Not the person: learn from it.
	if mic < b.floor {
		b.floor = mic
	} else {
		b.floor += 0.02
	}
	if audible && mic > b.floor+couplingHeardDB {
		// A frame well over the echo seen so far may be the person starting to talk: it does
		// not teach the echo.
		switch d := mic - ref; {
		case d > b.coupling+b.margin/2:
		case d > b.coupling:
			b.coupling += min(d-b.coupling, couplingRise)
		case top-ref < b.coupling:
			b.coupling -= min(b.coupling-(top-ref), couplingFall)
		}
	}
	// One quiet frame inside speech (a plosive, a stop) does not break the run.
	b.miss++
	if b.miss > 1 {
		b.run = 0
	}
	return false
}

// louder is the level (dBFS) over which the microphone, before the canceller, hears the person
// over a playback at ref: clearly louder than its loudest echo, and than the room's noise.
func (b *bargeIn) louder(ref float64) float64 {
	threshold := max(b.floor+b.margin, bargeGateDBFS)
	if !math.IsInf(ref, -1) && !math.IsInf(b.coupling, -1) {
		threshold = max(threshold, ref+b.coupling+b.margin)
	}
	return threshold
}

// heardThrough reports whether the canceller's output holds the person: it has converged, the
// frame is loud after it, and what it left is not the playback. A frame the canceller made
// louder than the microphone heard it (mic, dBFS) is not: it took away an echo that was not
// there (the playback it expected had stopped, or came later than it thought), and what it
// gave is that echo turned over, beyond what Residue compares.
func (b *bargeIn) heardThrough(mic, ref float64, c cleaned, most float64) bool {
	if !c.ok || !c.converged || c.db > mic+notLouderDB {
		return false
	}
	if c.residue >= most && (c.residue >= max(most, keptResidue) || mic-c.db >= keptDB) {
		return false
	}
	gate := max(bargeGateDBFS, b.floor+b.margin) // over the room's noise, as louder speech
	if !math.IsInf(ref, -1) && !math.IsInf(b.coupling, -1) {
		gate = max(gate, ref+b.coupling-quietPersonDB)
	}
	return c.db > gate
}

// Pauser is a Queue that can hold its playback and go on with it (*playback.Player is one).
// With one, barge-in pauses the reply as soon as the person is heard over it, and goes on with
// it when what they said ends within ackLongest ("uh-huh", "okay", a cough, a clap); longer,
// it is a question, and the reply stops.
type Pauser interface {
	Pause()
	Resume()
}

const (
	// ackLongest is the longest speech over a reply that is taken for an acknowledgement.
	ackLongest = 600 * time.Millisecond
	// ackEnd is the silence that ends it.
	ackEnd = 300 * time.Millisecond
	// While the reply is paused, a frame is speech when it is ackSpeechDB over the room's noise
	// floor and at most ackBelowPeak under the loudest of what the person said since the pause:
	// what the canceller leaves of the reply's last echo, and the room's reverberation, are not
	// (the canceller's output can be far under the room's noise between words).
	ackSpeechDB  = 10.0
	ackBelowPeak = 20.0
	// heardClear is how much of what the person says over a paused reply must be heard once
	// the canceller no longer hears the playback, for it to be a question.
	heardClear = 100 * time.Millisecond
)

// holding is what the loop keeps while a reply is paused for what the person says over it.
type holding struct {
	on     bool
	since  time.Time  // when the reply paused
	peak   float64    // the loudest frame heard since, dBFS
	frames []frameMsg // what was heard from the start of their speech
	speech time.Duration
	quiet  time.Duration // silence in a row
	clear  time.Duration // speech heard once the canceller no longer heard the playback
}

// overReply handles a frame heard while the reply is spoken with barge-in on: when the person
// talks over the reply, its playback pauses (or stops, with a player that cannot pause); speech
// that goes on is the next turn's question, and the reply stops; speech that ends soon is an
// acknowledgement, and the reply goes on.
func (r *run) overReply(m frameMsg, db float64) (bool, error) {
	s := &r.speaking
	if db < s.cleanFloor || s.cleanFloor == 0 {
		s.cleanFloor = db
	} else {
		s.cleanFloor += 0.02
	}
	if s.hold.on {
		return r.heldFrame(m, db)
	}
	// Kept: the frames a barge-in may be made of (its run, and one missed), those its speech
	// may have started in before them (startBack), and the lead.
	s.preroll = append(s.preroll, m)
	if len(s.preroll) > s.barge.need+1+startBack+leadFrames {
		s.preroll = s.preroll[1:]
	}
	if !math.IsNaN(m.raw) {
		db = m.raw // see EchoReporter
	}
	c := m.cleaned()
	barged := s.barge.frame(db, s.playbackLevel(r.Turn, m.at), c)
	s.preroll[len(s.preroll)-1].person = s.barge.likely
	if !barged {
		return false, nil
	}
	r.trace(r.Turn, TraceBargeIn, -1, m.at)
	// The new question starts where the person's speech did (speechStart); what came earlier
	// is the reply's echo, as the canceller left it. It is handed to the recorder from
	// leadFrames before that, as a take in the quiet begins a pre-roll (vad.DefaultPreRoll)
	// before the speech: a recogniser given a take that starts on its first syllable loses it
	// ("ell me about…" for "tell me about…").
	made := s.speechStart()
	pre := s.preroll[max(0, made-leadFrames):]
	if p, ok := r.cfg.Player.(Pauser); ok {
		p.Pause()
		// Their speech so far: the frames that made the barge-in, and at most startCredit of
		// what came before them (a question whose start was heard under the echo is not let go
		// as an "okay" for the want of a few frames; an "okay" does not become a question for
		// the echo's frames walked back over).
		s.hold = holding{on: true, since: m.at, frames: append([]frameMsg(nil), pre...), peak: math.Inf(-1),
			speech: time.Duration(s.barge.run+min(len(s.preroll)-s.barge.run-made, startCredit)) * audio.FrameDuration}
		for _, p := range s.preroll[made:] { // not the lead
			s.hold.peak = max(s.hold.peak, vad.FrameDBFS(p.samples))
		}
		s.preroll = nil
		return false, nil
	}
	s.preroll = nil
	return r.bargeIn(pre)
}

// speechStart is where, in the frames heard over the reply, the person's speech starts: with the
// frames that made the barge-in, or with the frames before them that were likely the person
// (bargeIn.likely: the first syllables, heard under the echo before barge-in was sure), pauses
// of up to startGap between them, at most startBack frames back.
func (s *speaking) speechStart() int {
	made := max(0, len(s.preroll)-s.barge.run)
	start, gap := made, 0
	for i := made - 1; i >= max(0, made-startBack) && gap <= startGap; i-- {
		if s.preroll[i].person {
			start, gap = i, 0
		} else {
			gap++
		}
	}
	return start
}

// heldFrame follows what the person says while the reply is paused.
func (r *run) heldFrame(m frameMsg, db float64) (bool, error) {
	s := &r.speaking
	h := &s.hold
	h.frames = append(h.frames, m)
	h.peak = max(h.peak, db)
	speech := db > max(s.cleanFloor+ackSpeechDB, h.peak-ackBelowPeak, bargeGateDBFS)
	if ref := s.playbackLevel(r.Turn, m.at); !math.IsNaN(m.residue) && !math.IsNaN(m.raw) && !math.IsNaN(ref) {
		// The canceller still hears the playback from before the pause (the output's latency,
		// the room): a frame is the person only as it would be over the reply, and what is not
		// says nothing of whether they stopped.
		if !(m.raw > s.barge.louder(ref) || s.barge.heardThrough(m.raw, ref, m.cleaned(), maxResidue)) {
			return false, nil
		}
		h.speech += audio.FrameDuration
		h.quiet = 0
	} else if speech {
		h.speech += audio.FrameDuration
		h.clear += audio.FrameDuration
		h.quiet = 0
	} else {
		h.quiet += audio.FrameDuration
	}
	switch {
	case h.speech >= ackLongest && h.clear >= heardClear:
		// A question: long enough, and some of it heard once the reply's echo had gone (what
		// the canceller leaks of it after a jump of the room's delay may look like a person
		// until then).
		frames := h.frames
		s.speaker.Stop()
		s.release(r.cfg.Player, m.at)
		return r.bargeIn(frames)
	case h.quiet >= ackEnd:
		// An acknowledgement, a cough: the reply goes on from where it paused.
		s.release(r.cfg.Player, m.at)
		r.trace(r.Turn, TraceBargeInResumed, -1, m.at)
	}
	return false, nil
}

// release lets a reply paused for barge-in go on at now (or a player whose reply was stopped
// play the next); it does nothing when none is paused. The clips playing are that much later,
// for the level over time barge-in compares the microphone with.
func (s *speaking) release(q Queue, now time.Time) {
	if !s.hold.on {
		return
	}
	for _, c := range s.clips {
		if c.playing && !c.started.IsZero() {
			c.started = c.started.Add(now.Sub(s.hold.since))
		}
	}
	s.hold = holding{}
	s.barge.run, s.barge.miss = 0, 0 // what made it is behind: the next barge-in is heard afresh
	if p, ok := q.(Pauser); ok {
		p.Resume()
	}
}

// bargeIn stops the reply and starts the next turn with the frames heard over it: its question.
// Its noise floor is the room's, without the reply.
func (r *run) bargeIn(frames []frameMsg) (bool, error) {
	s := &r.speaking
	s.speaker.Stop()
	r.done++
	r.failures = 0
	if err := r.listenFrom(true, min(s.barge.floor, -1)); err != nil {
		return true, err
	}
	if r.wakeMode() {
		r.waking.deadline = r.cfg.WakeListen // a take that holds nothing waits for the phrase again
	}
	for _, p := range frames {
		if end, err := r.feed(p); end || err != nil {
			return end, err
		}
	}
	return false, nil
}

// tapQueue passes clips to the player, and when barge-in is on works out each clip's level
// over time, to compare with what the microphone hears.
type tapQueue struct {
	Queue
	l *Loop
}

func (q *tapQueue) Enqueue(rd io.Reader) (playback.ClipID, error) {
	l := q.l
	if !l.cfg.BargeIn {
		return q.Queue.Enqueue(rd)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return 0, err
	}
	id, err := q.Queue.Enqueue(bytes.NewReader(data))
	if err != nil {
		return id, err
	}
	go func() {
		pcm, err := playback.DecodeAll(context.Background(), bytes.NewReader(data), playback.Format{SampleRate: audio.SampleRate, Channels: 1})
		if err != nil {
			return // the player reports the clip's failure
		}
		l.post(envelopeMsg{id, envelope(pcm)})
	}()
	return id, nil
}

// envelope is the level of 16 kHz mono PCM in each 20 ms frame, in dBFS.
func envelope(pcm []byte) []float64 {
	samples := make([]int16, len(pcm)/2)
	for i := range samples {
		samples[i] = int16(uint16(pcm[2*i]) | uint16(pcm[2*i+1])<<8)
	}
	env := make([]float64, 0, len(samples)/audio.FrameSamples+1)
	for len(samples) > 0 {
		n := min(len(samples), audio.FrameSamples)
		env = append(env, vad.FrameDBFS(samples[:n]))
		samples = samples[n:]
	}
	return env
}
