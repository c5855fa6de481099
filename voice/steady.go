package voice

import (
	"slices"
	"time"

	"parley/audio"
	"parley/audio/vad"
)

// Steady noise is not speech. The voice detector starts a take when the level rises well over
// the noise floor it has learned, and follows a floor that rises slowly, so a noise that starts
// while the loop listens (a fan, an air conditioner, a running tap, hiss) holds a take open for
// many seconds and would be uploaded, to come back as "no words". Speech rises and falls with
// its syllables: over a second its level spreads over 15 dB and more, even in noise 10 dB under
// it, where steady noise stays within a few dB. A take whose first steadyWindow of speech is
// that steady is dropped, and the loop listens again with the noise's level as the floor, so
// the same noise does not start another take. A take that began with speech is never dropped.
const (
	steadyWindow = time.Second
	// steadySpreadDB: a second whose frame levels' 10th and 90th percentiles are closer than
	// this is steady.
	steadySpreadDB = 6.0
)

// steadiness follows the levels of a take's first steadyWindow of speech, in the band the voice
// detector listens to (100 to 3500 Hz): the rumble under it, that brown noise and traffic are
// made of, wanders by many dB from frame to frame.
type steadiness struct {
	levels []float64 // dBFS of each frame since speech was heard, up to steadyWindow
	band   *vad.SpeechBand
}

// reset forgets the levels: a new take, or none.
func (s *steadiness) reset() { s.levels = s.levels[:0] }

// add notes a frame; counting reports whether the frame is one of the take's first
// steadyWindow of speech, and steady, at the last of them, whether they were all steady.
func (s *steadiness) add(frame []int16, counting bool) (steady bool) {
	if s.band == nil {
		b := vad.NewSpeechBand(audio.SampleRate)
		s.band = &b
	}
	level := s.band.Level(frame) // every frame: the filters follow the stream
	n := int(steadyWindow / audio.FrameDuration)
	if !counting || len(s.levels) >= n {
		return false
	}
	s.levels = append(s.levels, level)
	if len(s.levels) < n {
		return false
	}
	w := slices.Clone(s.levels)
	slices.Sort(w)
	return w[n*9/10]-w[n/10] < steadySpreadDB
}

// heardSteady drops a take whose first second of speech has been steady noise, and listens
// again with the noise's level, db, as the floor.
func (r *run) heardSteady(frame []int16, db float64) error {
	ls := &r.listening
	inSpeech := ls.tb != nil && r.State == HearingSpeech
	if !ls.steady.add(frame, inSpeech) {
		if !inSpeech {
			ls.steady.reset()
		}
		return nil
	}
	ls.steady.reset()
	return r.listenFrom(false, min(db, -1))
}
