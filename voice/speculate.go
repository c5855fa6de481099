package voice

import (
	"context"
	"time"

	"parley/audio"
)

// speculateAfter is how long a pause inside a question must be before the take so far is sent
// for transcription, while the hold runs on. 200 ms is longer than the gaps between words and
// the closures of stops, and leaves a recogniser about 300 ms to answer within the adaptive end
// of turn's 0.5 s. The take sent holds all the audio encoded so far (audio's snapshot adds the
// frames still waiting for their WebM block): without them, at 200 ms the end of the last word
// was sometimes missing ("new york" heard as "new year").
const speculateAfter = 200 * time.Millisecond

// MaxSpeculations bounds the speculative transcriptions of one turn. A question with two pauses
// inside it and its end needs three; a person who pauses more often than that is thinking
// aloud, and the rest of the turn is transcribed once, when it ends, as without speculation.
// Only one call is under way at a time: the one before was cancelled when speech resumed.
const MaxSpeculations = 3

// speculation is a speculative transcription of the take being recorded: the take up to a
// pause, sent before the hold ended.
type speculation struct {
	id int
	// lastActive is where the speech it holds ends, in the audio fed to the take; speechEnd is
	// the same point in the take, as its Take.SpeechEnd says.
	lastActive, speechEnd time.Duration
	cancel                context.CancelFunc
	done                  bool
	text, lang            string
	err                   error
	// take is set once the take has ended with no speech after the pause, and the loop waits
	// for this call instead of sending the take again.
	take *audio.Take
}

// answered reports whether the call answered with a transcript.
func (s *speculation) answered() bool { return s.done && s.err == nil }

// speculate sends the take so far for transcription once its speech has paused for
// speculateAfter, and cancels the call when speech resumes before the hold ends.
func (r *run) speculate() {
	ls := &r.listening
	if !r.cfg.Speculate || !ls.tb.Speech() {
		return
	}
	pause := ls.tb.Pause()
	lastActive := ls.tb.Heard() - pause
	if s := ls.spec; s != nil && s.lastActive != lastActive {
		r.dropSpeculation() // speech resumed: that call holds only part of the question
	}
	if ls.spec != nil || pause < speculateAfter || ls.speculations >= MaxSpeculations {
		return
	}
	take := ls.tb.Snapshot()
	if take.Empty() {
		return // nothing empty is ever sent
	}
	ls.speculations++
	ls.specID++
	ctx, cancel := context.WithCancel(r.turnCtx)
	s := &speculation{id: ls.specID, lastActive: lastActive, speechEnd: take.SpeechEnd, cancel: cancel}
	ls.spec = s
	r.trace(r.Turn, TraceSpecSent, -1, r.l.clock.Now())
	turn, id := r.Turn, s.id
	r.calls.Go(func() {
		defer cancel()
		tr, err := r.cfg.Transcriber.Transcribe(ctx, r.transcribeRequest(take))
		var text, lang string
		if err == nil {
			text, lang = tr.Text, tr.Language
		}
		r.l.post(specDone{turn, id, text, lang, err})
	})
}

// dropSpeculation cancels the speculative call, if any, and forgets it: what it answers is
// not used.
func (r *run) dropSpeculation() {
	ls := &r.listening
	s := ls.spec
	if s == nil {
		return
	}
	ls.spec = nil
	if !s.done {
		s.cancel()
		r.trace(r.Turn, TraceSpecCancelled, -1, r.l.clock.Now())
	}
}

// useSpeculation takes the transcript of the ended take from its speculative call when that
// call holds all of the take's speech: at once when it has answered, else when it answers. It
// reports false when the take must be sent as it is.
func (r *run) useSpeculation(take *audio.Take) (used bool, end bool, err error) {
	ls := &r.listening
	s := ls.spec
	if s == nil {
		return false, false, nil
	}
	if s.speechEnd != take.SpeechEnd || s.done && s.err != nil {
		// Speech went on after it (or it failed): the take is transcribed whole.
		r.dropSpeculation()
		return false, false, nil
	}
	if !s.done {
		s.take = take // wait for it rather than send the take again
		return true, false, nil
	}
	ls.spec = nil
	end, err = r.speculated(s)
	return true, end, err
}

// speculated uses the transcript of a speculative call as the turn's.
func (r *run) speculated(s *speculation) (bool, error) {
	r.traceEvent(TraceEvent{Turn: r.Turn, Kind: TraceTranscribeDone, Index: -1, At: r.l.clock.Now(), Speculative: true})
	return r.gotTranscript(transcribed{r.Turn, s.text, s.lang, nil})
}

// gotSpeculation handles a speculative call's answer: kept for when the hold ends, used at
// once when the loop was waiting for it, or dropped when the call was cancelled.
func (r *run) gotSpeculation(m specDone) (bool, error) {
	ls := &r.listening
	s := ls.spec
	if m.turn != r.Turn || s == nil || s.id != m.id {
		return false, nil // cancelled: speech resumed, or the take was dropped
	}
	s.done, s.text, s.lang, s.err = true, m.text, m.lang, m.err
	r.trace(r.Turn, TraceSpecDone, -1, r.l.clock.Now())
	if s.take == nil {
		if ls.tb == nil {
			ls.spec = nil // the take was dropped (muted, or a failure) while it ran
		}
		return false, nil
	}
	ls.spec = nil
	if r.State != Transcribing {
		return false, nil
	}
	if m.err != nil {
		if r.turnCtx.Err() != nil {
			return false, nil
		}
		r.transcribe(s.take) // it failed: the take is sent as it is, as without speculation
		return false, nil
	}
	return r.speculated(s)
}
