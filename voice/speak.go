package voice

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/client"
)

// speaking is what the loop keeps of what the player plays: the clips of replies and of spoken
// notices as the player reports them, the count of the turn's reply clips, and what barge-in
// compares the microphone with.
type speaking struct {
	speaker  *Speaker
	sayDone  bool // the turn's reply was all queued, or saying it ended
	queued   int  // clips of the turn's reply queued
	ended    int  // and ended
	clips    map[playback.ClipID]*clip
	early    map[playback.ClipID][]playback.Event // events of clips not known yet
	envelope map[playback.ClipID][]float64        // each clip's level over time, for barge-in
	barge    bargeIn
	preroll  []frameMsg // the last frames heard over the reply, for a question that barges in
	hold     holding    // the reply is paused while the person says something over it
	// cleanFloor is the noise floor of what the microphone hears after the echo canceller
	// (dBFS; 0 before the first frame), for telling speech while the reply is paused.
	cleanFloor float64
}

// clip is one clip given to the player, as the player reported it.
type clip struct {
	turn, index int
	started     time.Time
	playing     bool
	ended       bool
	endedAt     time.Time
}

// newSpeaking returns the speaking state of a run of l.
func newSpeaking(l *Loop) speaking {
	s := speaking{
		clips:    map[playback.ClipID]*clip{},
		early:    map[playback.ClipID][]playback.Event{},
		envelope: map[playback.ClipID][]float64{},
	}
	s.speaker = NewSpeaker(l.cfg.Synth, &tapQueue{Queue: l.cfg.Player, l: l})
	s.speaker.trace = func(turn, index int, done bool) {
		kind := TraceTTSSent
		if done {
			kind = TraceTTSDone
		}
		l.post(traceMsg{turn, kind, index, l.clock.Now()})
	}
	s.barge.reset(l.cfg)
	return s
}

// nextTurn starts counting a new turn's reply.
func (s *speaking) nextTurn() {
	clear(s.early)
	s.sayDone, s.queued, s.ended = false, 0, 0
}

// spoken reports whether the whole reply was queued and has played.
func (s *speaking) spoken() bool { return s.sayDone && s.ended >= s.queued }

// forgetEnded drops the clips that have ended.
func (s *speaking) forgetEnded() {
	for id, c := range s.clips {
		if c.ended {
			delete(s.clips, id)
			delete(s.envelope, id)
		}
	}
}

// playbackLevel is the loudest turn's reply played around at: -Inf when nothing of it played
// within the window, NaN when a clip plays whose level is not known yet.
func (s *speaking) playbackLevel(turn int, at time.Time) float64 {
	level := math.Inf(-1)
	for id, c := range s.clips {
		if c.turn != turn || c.started.IsZero() {
			continue
		}
		if c.ended && at.Sub(c.endedAt) > refBefore {
			continue
		}
		env, ok := s.envelope[id]
		if !ok {
			if c.playing {
				return math.NaN()
			}
			continue
		}
		from := int((at.Sub(c.started) - refBefore) / audio.FrameDuration)
		to := int((at.Sub(c.started) + refAfter) / audio.FrameDuration)
		for i := max(from, 0); i <= to && i < len(env); i++ {
			level = max(level, env[i])
		}
	}
	return level
}

// streamedReply is a reply being written, said as it is.
type streamedReply struct {
	turn   int
	g      *Growing
	stop   chan struct{} // closed: the person's Stop (once)
	saying bool          // its sentences are being said
	ended  bool          // stop was closed
	// wordsAt is how much of it the stop words' echo filter has read.
	wordsAt int
}

// stopStream asks the service to end the reply being written where it is, if there is one:
// the loop stops (its call is still waited for, and answers with what was written, stored and
// charged).
func (r *run) stopStream() {
	if st := r.stream; st != nil && !st.ended {
		st.ended = true
		close(st.stop)
	}
}

// endStream ends the reply being written as the turn moves on (a barge-in, a stop word): the
// service is asked to end it, and its answer, for a turn that is over, is not waited for but
// by Run's end.
func (r *run) endStream() {
	st := r.stream
	if st == nil {
		return
	}
	r.stopStream()
	r.stream = nil
	st.g.Finish("")
	if st.turn == r.Turn {
		r.chatting = false
	}
}

// grew takes the next piece of a streamed reply, and starts saying it once its first sentence
// is complete.
func (r *run) grew(m grew) (bool, error) {
	st := r.stream
	if st == nil || st.turn != m.turn || m.turn != r.Turn || r.Stopping {
		return false, nil
	}
	st.g.Add(m.piece)
	if st.saying {
		if r.cfg.StopWords != nil && strings.ContainsAny(m.piece, " \n\t") {
			// A stop word the reply says is its echo: the words written since, whole ones.
			text := st.g.Text()
			end := strings.LastIndexAny(text, " \n\t")
			if r.waking.replyWords == nil {
				r.waking.replyWords = map[string]bool{}
			}
			for w := range words(text[min(st.wordsAt, end):end]) {
				r.waking.replyWords[w] = true
			}
			st.wordsAt = end
		}
		return false, nil
	}
	if r.State == Thinking && st.g.Ready() {
		st.saying = true
		st.wordsAt = len(st.g.Text())
		r.startSaying(st.g.Text(), func(ctx context.Context, turn int, sp *Speaker, onClip func(int, playback.ClipID)) error {
			return sp.sayFrom(ctx, turn, st.g, r.replyVoice(st.g.Text()), onClip)
		})
	}
	return false, nil
}

// replyVoice is the voice a reply is spoken with: the conversation's, else one of its language
// (ChooseVoice), the language told by its text so far, else by the question's transcript.
func (r *run) replyVoice(text string) string {
	if r.cfg.VoiceChosen || r.cfg.Voices == nil {
		return r.cfg.Voice
	}
	voices := r.cfg.Voices()
	if len(voices) == 0 {
		return r.cfg.Voice // no list to choose from: the language need not be told
	}
	return ChooseVoice("", r.cfg.Voice, ReplyLanguage(text, r.heardLanguage), voices)
}

// transcribeRequest is the transcription of take, in the speech language asked for.
func (r *run) transcribeRequest(take *audio.Take) client.TranscribeRequest {
	return client.TranscribeRequest{Audio: take.Audio, MIMEType: take.MIME, Language: r.cfg.SpeechLanguage,
		ExpectedLanguage: r.cfg.ExpectedLanguage}
}

// startSaying shows the Speaking state and says a reply (text so far) through say.
func (r *run) startSaying(text string, say func(ctx context.Context, turn int, sp *Speaker, onClip func(int, playback.ClipID)) error) {
	r.set(Speaking)
	r.startStopWords(text)
	r.speaking.barge.start()
	r.speaking.preroll = nil
	turn, ctx, sp := r.Turn, r.turnCtx, r.speaking.speaker
	r.calls.Go(func() {
		err := say(ctx, turn, sp, func(index int, id playback.ClipID) {
			r.l.post(clipQueued{turn, index, id})
		})
		r.l.post(said{turn, err})
	})
}

// gotReply shows the reply and starts saying it (or, for a streamed reply already being said,
// ends it with the reply as stored).
func (r *run) gotReply(m replied) (bool, error) {
	if st := r.stream; st != nil && st.turn == m.turn {
		r.stream = nil
		if m.err != nil {
			st.g.Finish("")
		} else {
			st.g.Finish(m.reply)
		}
		if st.saying {
			if m.err != nil {
				// What was said so far was refunded with the rest: the turn failed.
				if r.Stopping {
					r.stopErr = &StepError{"chat", m.err}
					return false, nil
				}
				return r.fail(&StepError{"chat", m.err})
			}
			if r.cfg.OnReply != nil {
				r.cfg.OnReply(m.turn, m.reply)
			}
			if r.cfg.StopWords != nil {
				r.waking.replyWords = words(m.reply)
			}
			return false, nil
		}
	}
	if m.err != nil {
		if r.Stopping {
			r.stopErr = &StepError{"chat", m.err}
			return false, nil
		}
		return r.fail(&StepError{"chat", m.err})
	}
	if r.cfg.OnReply != nil {
		r.cfg.OnReply(m.turn, m.reply)
	}
	if r.Stopping {
		return false, nil
	}
	r.startSaying(m.reply, func(ctx context.Context, turn int, sp *Speaker, onClip func(int, playback.ClipID)) error {
		return sp.say(ctx, turn, m.reply, r.replyVoice(m.reply), onClip)
	})
	return false, nil
}

// gotSaid notes that a reply or a notice was all queued, or that saying it failed.
func (r *run) gotSaid(m said) (bool, error) {
	if m.turn == noticeTurn {
		r.spoken.saying = false
		return false, r.noticeDone()
	}
	if m.turn != r.Turn || r.State != Speaking {
		return false, nil
	}
	r.speaking.sayDone = true
	if m.err != nil && !errors.Is(m.err, context.Canceled) {
		if errors.Is(m.err, ErrNothingToSay) {
			return r.turnDone()
		}
		return r.fail(&StepError{"speak", m.err})
	}
	return r.maybeSpoken()
}

// gotClip notes which clip the player got for a sentence.
func (r *run) gotClip(m clipQueued) (bool, error) {
	s := &r.speaking
	s.clips[m.id] = &clip{turn: m.turn, index: m.index}
	switch m.turn {
	case r.Turn:
		s.queued++
	case noticeTurn:
		r.spoken.queued++
	}
	// The player may have told of the clip before the speaker told which one it was.
	early := s.early[m.id]
	delete(s.early, m.id)
	for _, ev := range early {
		if end, err := r.followClip(ev); end {
			return end, err
		}
	}
	return false, nil
}

// playback follows the player's events; the speaker prepares more of the reply as its clips end.
func (r *run) playback(ev playback.Event) (bool, error) {
	r.speaking.speaker.PlaybackEvent(ev)
	return r.followClip(ev)
}

// followClip follows a player's event about a clip of a reply or notice.
func (r *run) followClip(ev playback.Event) (bool, error) {
	s := &r.speaking
	c := s.clips[ev.Clip]
	if c == nil {
		if ev.Kind != playback.QueueDrained && len(s.early) < 64 {
			s.early[ev.Clip] = append(s.early[ev.Clip], ev)
		}
		return false, nil
	}
	switch ev.Kind {
	case playback.ClipStarted:
		c.started, c.playing = ev.At, true
		r.trace(c.turn, TracePlaybackStart, c.index, ev.At)
	case playback.ClipEnded:
		c.playing, c.ended, c.endedAt = false, true, ev.At
		if !c.started.IsZero() {
			r.trace(c.turn, TracePlaybackEnd, c.index, ev.At)
		}
		if c.turn == noticeTurn {
			delete(s.clips, ev.Clip)
			r.spoken.ended++
			return false, r.noticeDone()
		}
		if c.turn != r.Turn || r.State != Speaking {
			delete(s.clips, ev.Clip)
			delete(s.envelope, ev.Clip)
			return false, nil
		}
		s.ended++
		if ev.Err != nil && !errors.Is(ev.Err, playback.ErrStopped) {
			if errors.Is(ev.Err, playback.ErrNoDevice) {
				return true, fmt.Errorf("replies cannot be spoken: %w", ev.Err)
			}
			s.speaker.Stop()
			return r.fail(&StepError{"speak", ev.Err})
		}
		return r.maybeSpoken()
	}
	return false, nil
}

// maybeSpoken ends the turn once the whole reply was queued and has played.
func (r *run) maybeSpoken() (bool, error) {
	if !r.speaking.spoken() {
		return false, nil
	}
	r.speaking.forgetEnded()
	return r.turnDone()
}
