package voice

import (
	"context"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/audio/vad"
	"parley/client"
)

// Source delivers microphone audio: 20 ms frames of 16 kHz mono, one after another, in real
// time. *audio.Capture is one.
type Source interface {
	ReadFrame(ctx context.Context, frame []int16) error
}

// EchoReporter is a Source that removes the echo of the replies from what it delivers
// (*echo.Source is one), and says, after each frame, how loud the microphone heard it before
// (dBFS, as vad.FrameDBFS). Barge-in hears a person clearly louder than the echo on that level,
// as it does without a canceller. The question is recorded from the cleaned frames.
type EchoReporter interface {
	Source
	Uncancelled() float64
}

// ResidueReporter is an EchoReporter that also says, after each frame, what its canceller's
// adaptive filter left in it, before the suppressor of what it leaves (*echo.Source is one):
// how much that resembles what is played (0–1, NaN when not measured), whether the canceller
// has converged, and its level (dBFS; NaN when the canceller did not run on the frame). With
// one, barge-in also hears a person at the echo's level, or under it: what the filter leaves of
// a person is loud and does not resemble the playback, where what it leaves of the echo is
// quiet, or, when the room's delay moved and the filter lags, resembles it. The suppressor is
// not asked: it takes a person talking over the echo down with the echo.
type ResidueReporter interface {
	EchoReporter
	Residue() (resemblance float64, converged bool)
	LinearDB() float64
}

// Transcriber turns speech into text; *client.Client is one.
type Transcriber interface {
	Transcribe(ctx context.Context, req client.TranscribeRequest) (*client.Transcript, error)
}

// Chatter sends one question in the current conversation and returns the reply. The loop
// never cancels a chat call that has been sent (it is charged, and its reply is stored): the
// Chatter's own timeout bounds it.
type Chatter interface {
	Chat(ctx context.Context, question string) (reply string, err error)
}

// StreamChatter is a Chatter that can hand the reply over as it is written (from a service
// that streams): onText gets each piece, in order, on any goroutine, before ChatStream returns
// the whole reply. Closing stop is a person's Stop: the service ends the reply where it is, and
// ChatStream returns what was written. The loop says a streamed reply's sentences as each is
// complete.
type StreamChatter interface {
	Chatter
	ChatStream(ctx context.Context, question string, onText func(piece string), stop <-chan struct{}) (reply string, err error)
}

// Clock tells the time for the loop's trace and timers; nil in Config means the real clock.
type Clock interface {
	Now() time.Time
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// Defaults of Config.
const (
	DefaultMaxFailures  = 3
	DefaultBargeInDB    = 6.0
	DefaultBargeInAfter = 80 * time.Millisecond
	DefaultErrorPause   = 1500 * time.Millisecond
	// DefaultEchoGuard is how long after playback ends the microphone is still ignored: what
	// the output device and a sound server still hold (playback.DrainTime), and the room's echo.
	DefaultEchoGuard = playback.DrainTime + 250*time.Millisecond
)

// Config sets up a Loop. Source, Transcriber, Chat, Synth and Player are required.
type Config struct {
	Source      Source
	Transcriber Transcriber
	Chat        Chatter
	Synth       Synthesizer
	// Player plays the reply's clips; tell the loop its events through Loop.PlaybackEvent.
	Player Queue
	// Clock is nil for the real clock.
	Clock Clock

	// Voice is the speech voice ("" for the service's default). Unless VoiceChosen, a reply in
	// another language than Voice's is spoken by a voice of its language from Voices.
	Voice string
	// VoiceChosen: Voice is the conversation's own choice, which every reply is spoken in.
	VoiceChosen bool
	// Voices gives the service's voices (client.Voices; nil, or nil returned, for a service
	// without that list), read at each reply.
	Voices func() []client.Voice
	// SpeechLanguage is the language questions are asked in, sent with each transcription
	// (a BCP 47 tag; "" lets the recogniser find it). Set it only for a service that takes one.
	SpeechLanguage string
	// ExpectedLanguage is the language questions are probably asked in when SpeechLanguage is
	// "" (the language their conversation is written in), sent as a hint with which a
	// recogniser that cannot hear it says so (see client.TranscribeRequest); "" for none.
	ExpectedLanguage string
	// Hold is the silence that ends a question (vad.Config.Hold; 0 means its default).
	Hold time.Duration
	// Speculate transcribes a question while the hold runs: after 250 ms of silence inside it,
	// the take so far is sent for transcription; when speech resumes that call is cancelled
	// and its answer dropped, and when the hold ends with no speech since, its transcript is
	// the question's (waited for if it has not answered), so the hold hides the transcription's
	// time. At most MaxSpeculations calls a turn. Transcription is free; the chat call is never
	// sent before the question has ended.
	Speculate bool
	// AdaptiveHold ends a question by what its speculative transcript says: after CompleteHold
	// (0.5 s) of silence when it reads as complete, after ContinuedHold (1.5 s) when it ends
	// on a word that announces more ("and", "the", "um": TranscriptEnding), and after Hold
	// while there is no transcript yet. It turns Speculate on.
	AdaptiveHold bool
	// Encoding of the takes sent for transcription; the zero value is WebM/Opus. A question is
	// sent when its speech has gone on for audio.MaxTakeLength.
	Encoding audio.Encoding

	// BargeIn lets the person interrupt a spoken reply by talking: sustained speech clearly
	// louder than the playback's echo (or, with a ResidueReporter, as loud as it) stops it and
	// starts a new turn. Off, everything the microphone hears while the reply is spoken is
	// ignored.
	BargeIn bool
	// BargeInDB is how much louder than the loudest echo expected over the last second speech
	// must be; 0 means 6 dB.
	BargeInDB float64
	// BargeInAfter is how long such speech must last; 0 means 80 ms.
	BargeInAfter time.Duration
	// EchoGuard is how long after playback ends the microphone is still ignored; 0 means
	// DefaultEchoGuard.
	EchoGuard time.Duration

	// Wake, when set, makes each question wait for a wake phrase that Wake hears locally:
	// until it does, nothing the microphone hears is recorded or sent (the state is Waiting).
	// After a reply the next question is taken without it for FollowUp. ListenTimeout is then
	// how long the wake phrase is waited for.
	Wake Spotter
	// FollowUp is how long after a reply the loop listens for a question without the wake
	// phrase; 0 means DefaultFollowUp, below 0 none.
	FollowUp time.Duration
	// WakeListen is how long after the wake phrase the question may take to start; 0 means
	// DefaultWakeListen.
	WakeListen time.Duration
	// StopWords, when set, hears the microphone while a reply is spoken: a phrase it hears
	// ("stop", "cancel") stops the reply, unless the reply itself says it (its echo). With Wake,
	// the loop then waits for the wake phrase; without, it listens.
	StopWords Spotter

	// ListenTimeout ends Run with ErrNoSpeech when no speech starts within it, counted from each
	// time the loop starts listening; 0 listens for ever.
	ListenTimeout time.Duration
	// Turns ends Run after that many completed turns; 0 runs until Stop.
	Turns int
	// MaxFailures ends Run after that many failed turns in a row; 0 means 3.
	MaxFailures int
	// ErrorPause is how long the Error state lasts before listening again; 0 means 1.5 s.
	ErrorPause time.Duration
	// SpeakErrors speaks a short notice when a turn fails, when speech still works.
	SpeakErrors bool
	// SpokenNotice phrases the notice SpeakErrors speaks (NoticeTranscribeFailed,
	// NoticeChatFailed or NoticeStepFailed); nil means EnglishNotice.
	SpokenNotice func(NoticeKind) string

	// Observers, called on the loop's goroutine: they must return quickly.
	OnStatus func(Status)
	// OnLevel gets the microphone's level in dBFS, 25 times a second.
	OnLevel func(dbfs float64)
	// OnTrace gets each event of the latency trace.
	OnTrace func(TraceEvent)
	// OnHeard gets the question as transcribed, before it is sent; OnReply gets the reply.
	OnHeard func(turn int, question string)
	OnReply func(turn int, reply string)
}

// withDefaults fills in the zero fields of c that have defaults.
func (c Config) withDefaults() Config {
	if c.Clock == nil {
		c.Clock = realClock{}
	}
	c.Hold = vad.Config{Hold: c.Hold}.WithDefaults().Hold
	if c.AdaptiveHold {
		c.Speculate = true
	}
	if c.MaxFailures <= 0 {
		c.MaxFailures = DefaultMaxFailures
	}
	if c.BargeInDB == 0 {
		c.BargeInDB = DefaultBargeInDB
	}
	if c.BargeInAfter <= 0 {
		c.BargeInAfter = DefaultBargeInAfter
	}
	if c.EchoGuard <= 0 {
		c.EchoGuard = DefaultEchoGuard
	}
	if c.ErrorPause <= 0 {
		c.ErrorPause = DefaultErrorPause
	}
	if c.FollowUp == 0 {
		c.FollowUp = DefaultFollowUp
	}
	if c.WakeListen <= 0 {
		c.WakeListen = DefaultWakeListen
	}
	if c.SpokenNotice == nil {
		c.SpokenNotice = EnglishNotice
	}
	return c
}
