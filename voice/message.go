package voice

import (
	"math"
	"time"

	"parley/audio/playback"
)

// message is what the loop's goroutine is told, by the Loop's methods, the microphone's reader,
// the turn's calls and the player. Its method is unexported, so the set is the types below.
type message interface{ isMessage() }

type (
	// stopMsg: Stop was called.
	stopMsg struct{}
	// muteMsg: SetMuted was called.
	muteMsg bool
	// frameMsg is 20 ms of microphone audio, and when it was read; raw is its level before the
	// echo was removed (EchoReporter), NaN from a source that does not remove it; residue,
	// converged and linear are what the canceller says of what it left (ResidueReporter; NaN
	// and false without one, or when it did not run on the frame).
	frameMsg struct {
		samples   []int16
		at        time.Time
		raw       float64
		residue   float64
		converged bool
		linear    float64 // its level after the adaptive filter, dBFS
		person    bool    // heard over a reply, it may have been the person (bargeIn.likely)
	}
	// sourceErr: the microphone failed.
	sourceErr struct{ err error }
	// transcribed is the transcript of a turn's take.
	transcribed struct {
		turn int
		text string
		lang string // the language the service heard, in its notation ("" unsaid)
		err  error
	}
	// specDone is the answer of a turn's speculative transcription id.
	specDone struct {
		turn, id int
		text     string
		lang     string
		err      error
	}
	// replied is the chat's reply to a turn's question.
	replied struct {
		turn  int
		reply string
		err   error
	}
	// said: every sentence of a turn's reply (or of a spoken notice) was queued, or saying it
	// failed.
	said struct {
		turn int
		err  error
	}
	// grew is the next piece of a streamed reply.
	grew struct {
		turn  int
		piece string
	}
	// clipQueued tells which clip the player got for a sentence.
	clipQueued struct {
		turn, index int
		id          playback.ClipID
	}
	// envelopeMsg is a clip's level over time, for barge-in.
	envelopeMsg struct {
		id  playback.ClipID
		env []float64
	}
	// traceMsg is an event of the latency trace seen off the loop's goroutine.
	traceMsg struct {
		turn  int
		kind  TraceKind
		index int
		at    time.Time
	}
	// playbackMsg is what the player did.
	playbackMsg playback.Event
)

func (stopMsg) isMessage()     {}
func (muteMsg) isMessage()     {}
func (frameMsg) isMessage()    {}
func (sourceErr) isMessage()   {}
func (transcribed) isMessage() {}
func (specDone) isMessage()    {}
func (replied) isMessage()     {}
func (said) isMessage()        {}
func (grew) isMessage()        {}
func (clipQueued) isMessage()  {}
func (envelopeMsg) isMessage() {}
func (traceMsg) isMessage()    {}
func (playbackMsg) isMessage() {}

// post sends m to the loop's goroutine; it never blocks.
func (l *Loop) post(m message) {
	l.mu.Lock()
	l.inbox = append(l.inbox, m)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// take returns the messages posted since the last call.
func (l *Loop) take() []message {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.inbox
	l.inbox = nil
	return m
}

// cleaned is what the canceller said of the frame (see ResidueReporter).
func (m frameMsg) cleaned() cleaned {
	return cleaned{db: m.linear, residue: m.residue, converged: m.converged, ok: !math.IsNaN(m.linear)}
}
