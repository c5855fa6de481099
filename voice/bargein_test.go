package voice

import (
	"math"
	"strings"
	"testing"
	"time"
)

// With a canceller that has converged, a person at the echo's level is heard on what the
// canceller leaves; its leaks of the echo, a canceller that has not converged, and a frame it
// made louder than the microphone heard it are not.
func TestBargeIn_HeardThroughTheCanceller(t *testing.T) {
	const echo = -26.0 // the echo's loudest, dBFS, for a playback at -12 dBFS
	cases := []struct {
		name      string
		mic       float64 // before the canceller
		c         cleaned
		wantBarge bool
	}{
		{"a person at the echo's level", echo + 2, cleaned{db: echo - 1, residue: 0.03, converged: true, ok: true}, true},
		{"a person 6 dB under the echo", echo + 1, cleaned{db: echo - 7, residue: 0.05, converged: true, ok: true}, true},
		{"the echo leaking (the delay moved)", echo, cleaned{db: echo - 2, residue: 0.7, converged: true, ok: true}, false},
		{"the echo leaking, a little like the playback", echo, cleaned{db: echo - 4, residue: 0.4, converged: true, ok: true}, false},
		{"a person over the echo, the filter leaking under them", echo + 2, cleaned{db: echo + 1, residue: 0.4, converged: true, ok: true}, true},
		{"the canceller still learning", echo + 2, cleaned{db: echo - 1, residue: 0.03, converged: false, ok: true}, false},
		{"a frame the canceller made louder", echo - 15, cleaned{db: echo - 8, residue: 0.05, converged: true, ok: true}, false},
		{"what the canceller leaves, far under the echo", echo, cleaned{db: echo - 25, residue: 0.05, converged: true, ok: true}, false},
		{"nothing played the last 120 ms (residue not measured)", echo + 2, cleaned{db: echo - 1, residue: math.NaN(), converged: true, ok: true}, true},
		{"no canceller", echo + 2, cleaned{db: echo + 2, residue: math.NaN()}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := bargesOver(c.mic, -12, echo, -60, c.c); got != c.wantBarge {
				t.Errorf("barge-in %v, want %v", got, c.wantBarge)
			}
		})
	}
}

// bargesOver reports whether six frames heard at mic (dBFS, before the canceller) and c (after
// it) barge in over a playback at ref, whose loudest echo was learned at echo, in a room whose
// noise floor is floor.
func bargesOver(mic, ref, echo, floor float64, c cleaned) bool {
	var b bargeIn
	b.reset(Config{BargeInDB: 6, BargeInAfter: 80 * time.Millisecond})
	b.start()
	b.calib = 0
	b.coupling = echo - ref
	b.floor = floor
	got := false
	for range 6 {
		got = b.frame(mic, ref, c) || got
	}
	return got
}

// What the canceller leaves of a steady noise (a fan) is loud and unlike the playback, but it is
// no person: they must be heard over the room's noise, as louder speech must.
func TestBargeIn_NoiseThroughTheCancellerIsNoPerson(t *testing.T) {
	// A quiet reply: its echo at most -44 dBFS, under the fan (-40 dBFS at its quietest).
	const ref, echo, fan = -30.0, -44.0, -40.0
	for _, tc := range []struct {
		name string
		mic  float64
		c    cleaned
		want bool
	}{
		{"the fan", -38, cleaned{db: -38.5, residue: 0.05, converged: true, ok: true}, false},
		{"a person over the fan", -29.5, cleaned{db: -30.5, residue: 0.1, converged: true, ok: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bargesOver(tc.mic, ref, echo, fan, tc.c); got != tc.want {
				t.Errorf("barge-in %v, want %v", got, tc.want)
			}
		})
	}
}

// A question's speech starts at the first of the frames before the barge-in that were likely the
// person, across short pauses, and no further back than startBack.
func TestSpeaking_SpeechStartWalksBackOverLikelyFrames(t *testing.T) {
	frames := func(marks string) []frameMsg {
		f := make([]frameMsg, len(marks))
		for i, c := range marks {
			f[i].person = c == 'p'
		}
		return f
	}
	cases := []struct {
		name  string
		marks string // p: likely the person; .: not; the last run is the one that made the barge-in
		run   int
		want  int
	}{
		{"nothing before the run", "......pppp", 4, 6},
		{"the first syllables under the echo", "..ppp..pppp", 4, 2},
		{"a pause too long", "pp.......pppp", 4, 9},
		{"echo only before", "..........pppp", 4, 10},
		{"no further than startBack", strings.Repeat("p", startBack+11) + "pppp", 4, 11},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := speaking{preroll: frames(c.marks)}
			s.barge.run = c.run
			if got := s.speechStart(); got != c.want {
				t.Errorf("speech starts at frame %d, want %d", got, c.want)
			}
		})
	}
}

// A reply let go on (an acknowledgement, or the microphone muted while it was paused) forgets
// the speech that paused it: the next barge-in is heard afresh, and where its speech starts is
// never before the frames kept.
func TestSpeaking_ReleaseForgetsTheRun(t *testing.T) {
	var s speaking
	s.barge.reset(Config{BargeInDB: 6, BargeInAfter: 80 * time.Millisecond})
	s.hold.on = true
	s.barge.run, s.barge.miss = s.barge.need, 1
	s.release(nil, time.Now())
	if s.barge.run != 0 || s.barge.miss != 0 || s.hold.on {
		t.Errorf("after release: run %d, miss %d, held %v; want 0, 0, false", s.barge.run, s.barge.miss, s.hold.on)
	}
	s.preroll = make([]frameMsg, 1)
	s.barge.run = s.barge.need + 1
	if got := s.speechStart(); got != 0 {
		t.Errorf("a run longer than the frames kept starts at frame %d, want 0", got)
	}
}
