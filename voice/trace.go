package voice

import (
	"time"
)

// TraceKind names an event of a turn's latency trace.
type TraceKind string

// The events a turn's trace records, in the order they happen.
const (
	TraceSpeechStart    TraceKind = "speech_start"
	TraceSpeechEnd      TraceKind = "speech_end"
	TraceTranscribeSent TraceKind = "transcribe_sent"
	TraceTranscribeDone TraceKind = "transcribe_done"
	TraceChatSent       TraceKind = "chat_sent"
	TraceChatDone       TraceKind = "chat_done"
	TraceTTSSent        TraceKind = "tts_sent"
	TraceTTSDone        TraceKind = "tts_done"
	TracePlaybackStart  TraceKind = "playback_start"
	TracePlaybackEnd    TraceKind = "playback_end"
	// TraceBargeIn: the person spoke over the reply and its playback was paused (or stopped, with
	// a player that cannot pause); it stops once they have spoken for 0.6 s.
	TraceBargeIn TraceKind = "barge_in"
	// TraceBargeInResumed: what was said over the reply ended soon (an acknowledgement, a
	// cough), and the reply, paused at barge_in, went on.
	TraceBargeInResumed TraceKind = "barge_in_resumed"
	// TraceWake: the wake phrase was heard and the turn began (Config.Wake).
	TraceWake TraceKind = "wake"
	// TraceStopWord: "stop" was heard over the reply, and its playback stopped (Config.StopWords).
	TraceStopWord TraceKind = "stop_word"

	// TraceSpecSent: the take so far was sent for transcription in a pause, before the hold
	// ended (Config.Speculate). These three come before speech_start and speech_end, which are
	// traced when the take ends.
	TraceSpecSent TraceKind = "transcribe_spec_sent"
	// TraceSpecDone: a speculative transcription answered.
	TraceSpecDone TraceKind = "transcribe_spec_done"
	// TraceSpecCancelled: speech resumed (or the take was dropped) before a speculative
	// transcription answered: it was cancelled, and what it answers is not used.
	TraceSpecCancelled TraceKind = "transcribe_spec_cancelled"
)

// TraceEvent is one event of the latency trace.
type TraceEvent struct {
	Turn int
	Kind TraceKind
	// Index is the sentence, for the TTS and playback events; -1 for the others.
	Index int
	// At is when it happened, on the loop's clock (monotonic with the real clock), and Since is
	// the time since Run started.
	At    time.Time
	Since time.Duration
	// Speculative is set on transcribe_done when the transcript is that of a speculative call:
	// the take was not sent again when it ended (transcribe_sent and transcribe_done are then
	// the moments the loop asked for the transcript and had it).
	Speculative bool
}

// trace reports an event of the trace.
func (r *run) trace(turn int, kind TraceKind, index int, at time.Time) {
	r.traceEvent(TraceEvent{Turn: turn, Kind: kind, Index: index, At: at})
}

// traceEvent reports e, with its Since filled in.
func (r *run) traceEvent(e TraceEvent) {
	if r.cfg.OnTrace != nil && e.Turn > 0 { // turn noticeTurn: a spoken notice, not a turn
		e.Since = e.At.Sub(r.start)
		r.cfg.OnTrace(e)
	}
}

// Latency is one turn's timings, from its trace.
type Latency struct {
	// FirstAudio is from the end of speech to the first sentence starting to play.
	FirstAudio time.Duration
	// Service is the time spent waiting on the service before the first audio: transcription,
	// chat, and the first sentence's speech.
	Service time.Duration
	// Overhead is the loop's own share: FirstAudio less the silence hold and Service.
	Overhead time.Duration
}

// TurnLatency computes a turn's Latency from its trace events and the silence hold; ok is false
// when the trace lacks an event it needs (the turn was not spoken).
func TurnLatency(events []TraceEvent, turn int, hold time.Duration) (l Latency, ok bool) {
	var speechEnd, firstAudio time.Time
	sent := map[TraceKind]time.Time{}
	var service time.Duration
	for _, e := range events {
		if e.Turn != turn {
			continue
		}
		switch e.Kind {
		case TraceSpeechEnd:
			speechEnd = e.At
		case TracePlaybackStart:
			if e.Index == 0 {
				firstAudio = e.At
			}
		case TraceTranscribeSent, TraceChatSent:
			sent[e.Kind] = e.At
		case TraceTTSSent:
			if e.Index == 0 {
				sent[e.Kind] = e.At
			}
		case TraceTranscribeDone:
			service += e.At.Sub(sent[TraceTranscribeSent])
		case TraceChatDone:
			service += e.At.Sub(sent[TraceChatSent])
		case TraceTTSDone:
			if e.Index == 0 {
				service += e.At.Sub(sent[TraceTTSSent])
			}
		}
	}
	if speechEnd.IsZero() || firstAudio.IsZero() {
		return Latency{}, false
	}
	l.FirstAudio = firstAudio.Sub(speechEnd)
	l.Service = service
	l.Overhead = l.FirstAudio - hold - service
	return l, true
}
