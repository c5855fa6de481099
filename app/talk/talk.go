// Package talk is Parley's one owner of the microphone and the speakers: push-to-talk, the
// hold-to-talk key's takes, hands-free voice mode's loop, the mute, and the speaking of replies,
// through one audio output. It imports no toolkit: the window, the tray, the status bar and the
// global key subscribe to its events and read its state, and it works the same whether the
// window shows or not.
//
// A Controller is confined to one goroutine, its host's: every method is called there, and
// every listener is called there. Slow work (recording, transcribing, speaking, the voice loop)
// runs on goroutines of its own and comes back through Config.Do.
package talk

import (
	"cmp"
	"context"
	"strings"
	"sync/atomic"
	"time"

	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/conversation"
	"parley/internal/langtag"
	"parley/voice"
)

// Recorder records one take at a time from the microphone; *audio.Recorder is one.
type Recorder interface {
	Record(ctx context.Context, opts audio.TakeOptions) (*audio.Take, error)
	Stop()
}

// Player plays MP3 clips one after another; *playback.Player is one.
type Player interface {
	voice.Queue
	SetVolume(v float64)
	// SetSpeed sets how many times as fast as made the clips enqueued from now play, their
	// pitch kept.
	SetSpeed(s float64)
}

// Mic is a microphone that runs until closed; *audio.Capture is one.
type Mic interface {
	voice.Source
	Close() error
}

// Devices open the audio devices; a nil field means the computer has no such device.
type Devices struct {
	// NewRecorder opens the microphone for push-to-talk; the take's options name the device.
	NewRecorder func() Recorder
	// OpenMic opens a microphone that runs until closed, for voice mode ("" is the default).
	OpenMic func(device string) (Mic, error)
	// NewPlayer opens the audio output, reporting playback events to onEvent (on the player's
	// own goroutine).
	NewPlayer func(onEvent func(playback.Event)) Player
}

// Prefs are the person's settings the controller reads, each time it needs one.
type Prefs interface {
	// InputDevice is the microphone chosen ("" for the default).
	InputDevice() string
	// Hold is how long a pause ends what the person says.
	Hold() time.Duration
	// AdaptiveHold lets voice mode wait longer after an unfinished sentence.
	AdaptiveHold() bool
	// Volume is the volume of spoken replies, 0–1.
	Volume() float64
	// SpeechRate is how many times as fast as made replies are spoken (0.75–2).
	SpeechRate() float64
	// AutoSpeak: replies to typed messages are spoken.
	AutoSpeak() bool
	// SendSpoken: what push-to-talk heard is sent at once, not put in the message box.
	SendSpoken() bool
	// DefaultVoice is the voice of conversations that name none ("" for the service's).
	DefaultVoice() string
	// SpeechLanguage is the language questions are spoken in when their conversation names
	// none ("" for the recogniser to tell).
	SpeechLanguage() string
	// WindowLanguage is the language the window is shown in, a BCP 47 tag ("de", "pt-BR").
	WindowLanguage() string
	// BargeIn: speaking over a reply in voice mode interrupts it.
	BargeIn() bool
	// SpeakErrors: voice mode says why a turn failed.
	SpeakErrors() bool
	// WakePhrase is the phrase voice mode waits for before each question ("" for none: it
	// listens at once).
	WakePhrase() string
	// FollowUp is how long after a reply voice mode takes a question without the wake phrase
	// (0 for none).
	FollowUp() time.Duration
}

// Service is the speech side of the service in use.
type Service interface {
	voice.Transcriber
	voice.Synthesizer
}

// Session is what the controller needs of the conversations: the state of one, a question
// sent as a typed one is, and a failed one taken out of the way of the next.
type Session interface {
	Snapshot(th *conversation.Thread) conversation.ThreadView
	Send(th *conversation.Thread, text string) int64
	Dismiss(th *conversation.Thread, key int64) string
	StopTurn(th *conversation.Thread, key int64) bool
}

// Host is what the controller asks of the app.
type Host interface {
	// OnScreen is the conversation on screen (nil before there is one).
	OnScreen() *conversation.Thread
	// Send sends text in the conversation on screen, as typed, and returns the turn's key (0:
	// not sent).
	Send(text string) int64
	// SendHeld sends what was said with the hold-to-talk key in the conversation on screen, or
	// a new one when there is none, and returns the conversation and the turn's key.
	SendHeld(text string) (*conversation.Thread, int64)
}

// Config makes a Controller.
type Config struct {
	// Ctx ends everything the controller started when done (the app quits).
	Ctx context.Context
	// Devices tells the devices there are, each time one is opened.
	Devices func() Devices
	Prefs   Prefs
	Host    Host
	// Do runs a function on the host's goroutine, later; the controller's own goroutines come
	// back through it.
	Do func(func())
}

// Attached is the service in use and its conversations.
type Attached struct {
	Service Service
	Session Session
	// Warm, when not nil, has the service load its speech recogniser while the person speaks.
	Warm func()
	// TakesLanguage: the service takes the language a question is spoken in with its
	// transcription (Parley's own does; the Chat and Voice Service's interface has no such
	// field, so it is sent nothing it does not know).
	TakesLanguage bool
}

// Mode says whether voice mode runs.
type Mode int

// The modes of voice mode.
const (
	// Off: voice mode does not run.
	Off Mode = iota
	// On: its loop runs.
	On
	// Stopping: it was asked to stop and waits for the reply to what was asked.
	Stopping
)

// State is what the controller does now.
type State struct {
	// Recording: a push-to-talk take is recorded; Held: it is the hold-to-talk key's.
	Recording, Held bool
	// Transcribing: a take is transcribed.
	Transcribing bool
	// Speaking: a reply is spoken (push-to-talk's speech; voice mode's shows in Loop).
	Speaking bool
	// Mode is voice mode's; Restart: it starts again once stopped (asked for meanwhile).
	Mode    Mode
	Restart bool
	// Loop is voice mode's loop's state as shown last (voice.Idle when off, and before its first
	// status); LoopStopping: the loop said it is stopping (it waits for the reply to what was
	// asked, so that it is kept).
	Loop         voice.State
	LoopStopping bool
	// Muted: the microphone is muted (voice mode hears nothing, the hold-to-talk key records
	// nothing).
	Muted bool
	// BargeIn: speaking over voice mode's reply interrupts it (the setting when it started).
	BargeIn bool
	// Wake is the phrase voice mode waits for before each question ("" when it does not).
	Wake string
}

// Kind names an event.
type Kind int

// The kinds of event.
const (
	// Changed: State changed.
	Changed Kind = iota + 1
	// Level: the microphone's level moved (Event.Level, and for a take Elapsed and Hearing).
	Level
	// Status: voice mode's loop says where it stands (Event.Status).
	Status
	// Problem: something failed (Event.Lead, Err, Retry, Held).
	Problem
	// Notice: a take ended without words to send (Event.Notice, Retry, Held).
	Notice
	// Transcript: what was said, for the message box (Event.Text), for review.
	Transcript
	// Answered: the hold-to-talk question (Event.Question) was answered (Event.Text) in
	// Event.Thread; the window tells a person away from it.
	Answered
	// Unanswered: the hold-to-talk question got no reply (Event.Err), in Event.Thread.
	Unanswered
	// Focus: the message box may take the keyboard again (a take or voice mode ended).
	Focus
)

// Lead says what a Problem is about.
type Lead int

// The leads of a problem.
const (
	// NoLead: the error says it all.
	NoLead Lead = iota
	// NotTranscribed: the recording was not transcribed.
	NotTranscribed
	// NotSpoken: the reply could not be spoken.
	NotSpoken
	// NeedsMic: voice mode needs a microphone.
	NeedsMic
	// VoiceStopped: voice mode stopped (Event.Failures > 0: after that many failed turns).
	VoiceStopped
	// MicNotReopened: the microphone could not be opened again after the mute.
	MicNotReopened
)

// NoticeKind says why a take sent nothing.
type NoticeKind int

// The notices.
const (
	// NoSpeech: the voice detector heard no speech.
	NoSpeech NoticeKind = iota + 1
	// NoWords: the service heard no words.
	NoWords
	// HeldTooLong: the hold-to-talk key was held for the longest take (its release never
	// came), so the take ended; what was heard goes to the message box, not sent.
	HeldTooLong
	// KeptUnsent: what was heard of a take held too long is in the message box (the Transcript
	// event before), not sent.
	KeptUnsent
)

// Event is what listeners are told.
type Event struct {
	Kind Kind
	// Level is the microphone's level, 0–1. Take: it is a push-to-talk take's (else voice
	// mode's), Elapsed the take's time, and Hearing: speech is heard.
	Level   float64
	Take    bool
	Elapsed time.Duration
	Hearing bool
	// Status is the voice loop's (Kind Status).
	Status voice.Status
	// Lead, Err: what failed and why; Failures: failed turns in a row (voice mode stopped).
	Lead     Lead
	Err      error
	Failures int
	// Notice says why nothing was sent.
	Notice NoticeKind
	// Retry, when not nil, is what Try again does.
	Retry func()
	// Held: about the hold-to-talk key's take (the person may be away from the window).
	Held bool
	// Text is what was said (Transcript) or the reply (Answered); Question what was asked.
	Text, Question string
	// Thread is the conversation of Answered and Unanswered.
	Thread *conversation.Thread
}

// maxTake bounds one push-to-talk recording.
const maxTake = audio.MaxTakeLength

// MaxHeldTake bounds a take of the hold-to-talk key: a key whose release never came (a stuck
// key, a desktop that lost it) must not record for long while the person is away.
const MaxHeldTake = 2 * time.Minute

// MeterRate is how many times a second the level meter moves at most (each move redraws).
const MeterRate = 15

// Controller is the one owner of the microphone and the speakers.
type Controller struct {
	cfg       Config
	listeners []*func(Event)
	svc       Service
	sess      Session
	warm      func()
	// takesLanguage: the service takes a conversation's speech language (Attached).
	takesLanguage bool
	// voices are the attached service's voices, for speaking a reply in its language (nil
	// until read, and for a service without that list); a pointer per service, so that a list
	// read for the service before is never stored for this one.
	voices atomic.Pointer[serviceVoices]

	st State

	ptt   ptt
	out   output
	voice voiceMode
}

// New returns a controller with nothing attached: Attach gives it a service.
func New(cfg Config) *Controller {
	c := &Controller{cfg: cfg}
	c.ptt.waiting = map[int64]awaited{}
	return c
}

// Subscribe has f told every event, until the returned function is called.
func (c *Controller) Subscribe(f func(Event)) (cancel func()) {
	p := &f
	c.listeners = append(c.listeners, p)
	return func() {
		for i, l := range c.listeners {
			if l == p {
				c.listeners = append(c.listeners[:i:i], c.listeners[i+1:]...)
				return
			}
		}
	}
}

// emit tells every listener.
func (c *Controller) emit(ev Event) {
	for _, l := range c.listeners {
		(*l)(ev)
	}
}

// changed tells the listeners that State changed.
func (c *Controller) changed() { c.emit(Event{Kind: Changed}) }

// problem tells of a failure (not of a hold-to-talk take's).
func (c *Controller) problem(lead Lead, err error, retry func()) {
	c.emit(Event{Kind: Problem, Lead: lead, Err: err, Retry: retry})
}

// State is what the controller does now.
func (c *Controller) State() State { return c.st }

// Attached reports whether a service is attached.
func (c *Controller) Attached() bool { return c.sess != nil }

// Attach makes the controller use a (a service and its session): what was recorded or spoken
// through the one before stops, and voice mode, which talks to the service it started on,
// ends.
func (c *Controller) Attach(a Attached) {
	c.EndVoiceMode()
	c.voice.dropPending(errLeft)
	c.StopAll()
	c.svc, c.sess, c.warm, c.takesLanguage = a.Service, a.Session, a.Warm, a.TakesLanguage
	c.voices.Store(&serviceVoices{svc: a.Service})
	c.readVoices()      // before the first reply is spoken
	c.out.speaker = nil // it speaks through the service in use
	c.out.following.Store(nil)
	clear(c.ptt.waiting)
	c.ptt.growing = nil
}

// TakeLanguages has the controller send the attached service a conversation's speech
// language with each question: the app found it is Parley's own after it attached it.
func (c *Controller) TakeLanguages() { c.takesLanguage = true }

// speechLanguages are the languages th's questions (nil: a new conversation's) are spoken in,
// for the transcription: the one the person chose for it, else in Preferences (asked); else
// the one its messages are written in, else the window's, when it is not English (expected: a
// hint with which the built-in recogniser, English only, says it cannot hear it rather than
// guessing English words). Both are "" when the service takes none.
func (c *Controller) speechLanguages(th *conversation.Thread) (asked, expected string) {
	if !c.takesLanguage || c.sess == nil {
		return "", ""
	}
	var v conversation.ThreadView
	if th != nil {
		v = c.sess.Snapshot(th)
	}
	if asked := cmp.Or(v.SpeechLanguage, c.cfg.Prefs.SpeechLanguage()); asked != "" && asked != conversation.SpeechAuto {
		return asked, ""
	}
	// Else the conversation's written language; else, when it tells none (a new conversation),
	// the window's: a person who reads Parley in German is taken to ask in German until they
	// say otherwise (the notice tells them how), which a recogniser that tells languages itself
	// ignores.
	l := cmp.Or(writtenIn(v), langtag.Base(c.cfg.Prefs.WindowLanguage()))
	if l == "en" {
		l = ""
	}
	return "", l
}

// writtenIn is the language of the person's last few messages in v, "" when it cannot be told.
func writtenIn(v conversation.ThreadView) string {
	var said []string
	for i := len(v.Messages) - 1; i >= 0 && len(said) < 5; i-- {
		if v.Messages[i].Role == conversation.User {
			said = append(said, v.Messages[i].Text)
		}
	}
	for _, t := range v.Turns {
		said = append(said, t.Text)
	}
	return voice.TextLanguage(strings.Join(said, "\n"))
}

// warmSpeech has the service load its speech recogniser while the person speaks, so that the
// question's transcription does not wait for it.
func (c *Controller) warmSpeech() {
	if c.warm != nil {
		c.warm()
	}
	c.readVoices()
}

// serviceVoices are one service's voices, read once.
type serviceVoices struct {
	svc Service
	voice.VoiceList
}

// readVoices reads the attached service's voices in the background, once per service.
func (c *Controller) readVoices() {
	sv := c.voices.Load()
	if sv == nil {
		return
	}
	if l, ok := sv.svc.(voice.VoiceLister); ok {
		sv.Read(c.cfg.Ctx, l)
	}
}

// ServiceVoices are the attached service's voices as read so far (nil: none yet, or none).
func (c *Controller) ServiceVoices() []client.Voice {
	if sv := c.voices.Load(); sv != nil {
		return sv.Get()
	}
	return nil
}

// replyVoice is the voice a reply (text) is spoken with: the conversation's (chosen), else a
// voice of the reply's language (the person's default voice when it speaks it).
func (c *Controller) replyVoice(chosen, text string) string {
	voices := c.ServiceVoices()
	if chosen != "" || len(voices) == 0 {
		return chosen // "": the person's default voice, the service's when none
	}
	return voice.ChooseVoice("", c.cfg.Prefs.DefaultVoice(), voice.ReplyLanguage(text, ""), voices)
}

// ServiceOf is the speech service attached (nil: none), for the session's own uses.
func (c *Controller) ServiceOf() Service { return c.svc }

// StopAll ends recording and speech (the window closes, or another service is attached).
func (c *Controller) StopAll() {
	c.CancelRecording()
	c.StopSpeaking()
}

// Escape stops a recording, else the speech; it reports whether there was one.
func (c *Controller) Escape() bool {
	switch {
	case c.st.Recording:
		c.CancelRecording()
		return true
	case c.st.Speaking:
		c.StopSpeaking()
		return true
	}
	return false
}

// ToggleMute mutes or unmutes the microphone: voice mode hears nothing and the hold-to-talk
// key records nothing until unmuted (a take under way is thrown away).
func (c *Controller) ToggleMute() {
	c.voice.toggleMute(c)
	if c.st.Muted {
		c.CancelRecording()
	}
	c.changed()
}
