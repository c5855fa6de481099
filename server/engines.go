package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"parley/engine"
	"parley/internal/i18n"
	"parley/server/speech"
)

// defaultRecheckEvery is how often the service asks, in the background, whether a runtime that
// went away is back. (A chat call made while it is away asks first, each time.)
const defaultRecheckEvery = 5 * time.Second

// Engines are a service's chat model and speech engines, which can be changed while it runs: a
// call in flight finishes with the engine it started with, the next one takes the new one.
type Engines struct {
	chat  atomic.Pointer[chatEngine]
	stt   atomic.Pointer[transcriber]
	tts   atomic.Pointer[synthesizer]
	local struct {
		once sync.Once
		stt  speech.Transcriber
		tts  speech.Synthesizer
	}
	// hear is the local recognition: a Whisper server found on this computer, else PocketSphinx.
	hear *hearing
	// onStatus hears of the chat engine changing by itself (a runtime that went away or came
	// back); it may be nil.
	onStatus atomic.Pointer[func(engine.Status)]
	// chatTimeout bounds a remote chat call.
	chatTimeout time.Duration
	// recheckEvery is how often a runtime away is asked whether it is back (tests shorten it).
	recheckEvery time.Duration
	// owners finds who holds the other end of a connection to a runtime, or to a server at an
	// address of this computer; nil is engine.CheckOwner (tests replace it).
	owners engine.OwnerCheck
	// served: the service runs as parley serve (a runtime away is left by starting it with
	// another engine), not in the app (by choosing another in Preferences → Built-in service).
	served bool
}

type transcriber struct{ speech.Transcriber }

type synthesizer struct{ speech.Synthesizer }

// NewEngines returns engines that start as the offline responder and the local speech engines;
// chatTimeout bounds a call to a chat model (0: DefaultChatTimeout).
func NewEngines(chatTimeout time.Duration) *Engines {
	if chatTimeout <= 0 {
		chatTimeout = DefaultChatTimeout
	}
	e := &Engines{chatTimeout: chatTimeout, recheckEvery: defaultRecheckEvery, hear: newHearing()}
	e.chat.Store(&chatEngine{spec: engine.Chat{Kind: engine.Offline}, model: NewOfflineResponder()})
	e.stt.Store(&transcriber{lazyTranscriber{e}})
	e.tts.Store(&synthesizer{lazySynthesizer{e}})
	return e
}

// localSpeech makes the local speech engines the first time they are needed: listing flite's
// voices runs a program, which a service whose speech is remote need not do.
func (e *Engines) localSpeech() (speech.Transcriber, speech.Synthesizer) {
	e.local.once.Do(func() {
		e.local.stt = speech.NewPocketSphinx(speech.PocketSphinxOptions{})
		e.local.tts = speech.NewBuiltIn(context.Background(), speech.BuiltInOptions{})
	})
	return e.local.stt, e.local.tts
}

// lazyTranscriber is the local recognition: a Whisper server found on this computer, else
// PocketSphinx, made at its first use.
type lazyTranscriber struct{ e *Engines }

func (l lazyTranscriber) Transcribe(ctx context.Context, audio []byte, mime string) (speech.Transcript, error) {
	t, _ := l.e.localSpeech()
	return l.e.hear.Transcribe(ctx, audio, mime, t)
}

// FindRecogniser looks for a speech recognition server on this computer now (bounded by
// engine.DetectTimeout) and returns the one local recognition uses from now on; ok is false
// when none answers, and PocketSphinx hears. A search also runs, in the background, at a
// transcription a minute or more after the last.
func (e *Engines) FindRecogniser(ctx context.Context) (engine.Recogniser, bool) {
	return e.hear.Search(ctx)
}

// lazySynthesizer is the local voices, made at their first use.
type lazySynthesizer struct{ e *Engines }

func (l lazySynthesizer) Synthesize(ctx context.Context, text, voice string) ([]byte, error) {
	_, s := l.e.localSpeech()
	return s.Synthesize(ctx, text, voice)
}

func (l lazySynthesizer) Voices() []speech.Voice {
	_, s := l.e.localSpeech()
	return s.Voices()
}

// OnStatus has f told when the chat engine changes by itself: a chosen runtime that stopped
// answering or was found to be another user's (chat calls fail, refunded, meanwhile), or that
// answers again.
func (e *Engines) OnStatus(f func(engine.Status)) { e.onStatus.Store(&f) }

func (e *Engines) notify(s engine.Status) {
	if f := e.onStatus.Load(); f != nil && *f != nil {
		(*f)(s)
	}
}

// Set makes s the engines of the next calls. A detected runtime is asked at once whether it
// runs, and who runs it (bounded by engine.DetectTimeout); the status says whether it answers,
// or is away (then chat calls fail, and are refunded, until it is back), and its notice what the
// person should know. s must pass its Check methods.
func (e *Engines) Set(ctx context.Context, s engine.Set) engine.Status {
	ce := e.newChat(s.Chat)
	var notice string
	away := false
	if w := ce.watch; w != nil {
		owner, err := engine.CheckRuntime(ctx, s.Chat, e.owners)
		w.owner = s.Chat.Owner
		if err != nil {
			w.away, w.why, w.watching = true, err, true
			away = true
			notice = e.awayNotice(s.Chat, err, false)
		} else {
			notice = s.Chat.OwnerChanged(owner)
			w.owner = cmp.Or(owner.ID, w.owner)
		}
	}
	e.chat.Store(ce)
	if away {
		go ce.watch.watch(ce)
	}
	if s.STT.Remote {
		e.stt.Store(&transcriber{speech.NewRemoteTranscriber(s.STT.URL, s.STT.Model, s.STT.Key, nil)})
	} else {
		e.stt.Store(&transcriber{lazyTranscriber{e}})
	}
	if s.TTS.Remote {
		e.tts.Store(&synthesizer{speech.NewRemoteSynthesizer(s.TTS.URL, s.TTS.Model, s.TTS.Key, nil, nil)})
	} else {
		e.tts.Store(&synthesizer{lazySynthesizer{e}})
	}
	st := ce.status()
	st.Notice = notice
	return st
}

// Describe says which chat engine answers now.
func (e *Engines) Describe() string { return e.Status().Chat }

// Status says which chat engine answers now.
func (e *Engines) Status() engine.Status { return e.chat.Load().status() }

// LocalSpeech reports whether speech recognition is the local recogniser, which is worth
// loading ahead of a question.
func (e *Engines) LocalSpeech() bool {
	_, ok := e.stt.Load().Transcriber.(lazyTranscriber)
	return ok
}

// newChat builds the chat engine spec chooses.
func (e *Engines) newChat(spec engine.Chat) *chatEngine {
	if spec.Kind == engine.Offline || spec.Kind == "" {
		return &chatEngine{spec: engine.Chat{Kind: engine.Offline}, model: NewOfflineResponder()}
	}
	hc := &http.Client{Timeout: e.chatTimeout}
	if spec.Kind == engine.Detected {
		hc.Transport = runtimeTransport(spec.Runtime, e.owners)
	}
	m := NewOpenAIChatWith(OpenAIChatOptions{BaseURL: spec.URL, Model: spec.Model, APIKey: spec.Key, Where: spec.Where(),
		ContextTokens: spec.ContextTokens, HTTP: hc, Owners: e.owners})
	ce := &chatEngine{spec: spec, model: m}
	if spec.Kind == engine.Detected {
		ce.watch = &runtimeWatch{e: e}
	}
	return ce
}

// runtimeTransport is the HTTP transport to a runtime found on this computer: 127.0.0.1 only, no
// proxy, and a new connection for each call, checked as it is made to be held by a program of a
// user Parley trusts (engine.GuardDial; owners nil is engine.CheckOwner). A connection kept from
// an earlier call would not be checked again, so whose runtime answers now would go unseen (the
// change runtimeWatch points out); a new one costs a fraction of a millisecond on loopback.
func runtimeTransport(runtime string, owners engine.OwnerCheck) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.DisableKeepAlives = true
	t.DialContext = engine.GuardDial(runtime, owners)
	return t
}

// Complete asks the chat engine of the moment.
func (e *Engines) Complete(ctx context.Context, req ChatRequest) (string, error) {
	c := e.chat.Load()
	return c.call(ctx, func(m ChatModel) (string, error) { return m.Complete(ctx, req) })
}

// CompleteStream asks the chat engine of the moment for a reply as it is written.
func (e *Engines) CompleteStream(ctx context.Context, req ChatRequest, onDelta func(string)) (string, error) {
	c := e.chat.Load()
	return c.call(ctx, func(m ChatModel) (string, error) { return streamWith(ctx, m, req, onDelta) })
}

// Transcribe asks the speech recogniser of the moment.
func (e *Engines) Transcribe(ctx context.Context, audio []byte, mime string) (speech.Transcript, error) {
	return e.stt.Load().Transcribe(ctx, audio, mime)
}

// Synthesize asks the voices of the moment.
func (e *Engines) Synthesize(ctx context.Context, text, voice string) ([]byte, error) {
	return e.tts.Load().Synthesize(ctx, text, voice)
}

// Voices lists the voices of the moment.
func (e *Engines) Voices() []speech.Voice { return e.tts.Load().Voices() }

// Engines answer chat, transcription and speech calls: a Server's Config takes them as its
// LLM, STT and TTS.
var (
	_ ChatModel          = (*Engines)(nil)
	_ speech.Transcriber = (*Engines)(nil)
	_ speech.Synthesizer = (*Engines)(nil)
)

// chatEngine is one chosen chat engine.
type chatEngine struct {
	spec  engine.Chat
	model ChatModel
	// watch, for a runtime on this computer, follows whether it answers, and whose it is.
	watch *runtimeWatch
}

// runtimeWatch follows whether a runtime on this computer answers, and whose program listens
// at its port. When a call finds it gone (nothing listens, or the connection ended before the
// reply), or finds another user's program there, it is away: that call fails (and is refunded),
// the person is told, and the calls after it fail too, refunded, each first asking whether it is
// back. Nothing answers in its place: the person chose this engine, and an answer from another
// one would be charged for what they did not choose. Meanwhile the watch asks every
// Engines.recheckEvery, so that the person hears when it is back without sending anything.
type runtimeWatch struct {
	e  *Engines
	mu sync.Mutex
	// away is true while the runtime does not answer; why says why: engine.ErrNotRunning, or an
	// *engine.UntrustedError.
	away bool
	why  error
	// owner is the user seen running it last, when Parley trusted it; at first the one who ran it
	// when it was chosen ("" not known).
	owner string
	// watching is true while a goroutine asks whether it is back.
	watching bool
}

func (c *chatEngine) status() engine.Status {
	if c.watch != nil {
		if away, why := c.watch.state(); away {
			return engine.Status{Chat: awayName(c.spec.Describe(), why), Short: awayName(c.spec.Short(), why), Away: true}
		}
	}
	return engine.Status{Chat: c.spec.Describe(), Short: c.spec.Short()}
}

// awayName is an engine's name with why it is away, for people: "llama3.2 from Ollama (not
// running)", in the window's language.
func awayName(name string, why error) string {
	var ue *engine.UntrustedError
	switch {
	case errors.As(why, &ue) && ue.Err != nil:
		return fmt.Sprintf(i18n.T("%s (refused: its user is unknown)"), name)
	case errors.As(why, &ue):
		return fmt.Sprintf(i18n.T("%s (refused: another user's)"), name)
	}
	return fmt.Sprintf(i18n.T("%s (not running)"), name)
}

// awayWhy says in a few words why a runtime is away (in English: it tells one reason from
// another).
func awayWhy(why error) string {
	var ue *engine.UntrustedError
	switch {
	case errors.As(why, &ue) && ue.Err != nil:
		return "refused: its user is unknown"
	case errors.As(why, &ue):
		return "refused: another user's"
	}
	return "not running"
}

// awayNotice tells the person that the runtime of spec is away, and what to do; stopped is true
// when it stopped during a call, false when it was found away as it was chosen.
func (e *Engines) awayNotice(spec engine.Chat, why error, stopped bool) string {
	// parley serve has no translator: its sentences are English whatever i18n.T is given.
	var ue *engine.UntrustedError
	switch {
	case errors.As(why, &ue) && e.served:
		return sentence(ue.Error()) + ". Chat calls fail, and cost nothing, until " + spec.Runtime + " runs there as you again, or you start parley serve with another engine."
	case errors.As(why, &ue):
		return fmt.Sprintf(i18n.T("%[1]s. Chat calls fail, and cost nothing, until %[2]s runs there as you again, or you choose another engine in Preferences → Built-in service."), sentence(ue.Error()), spec.Runtime)
	case stopped && e.served:
		return spec.Where() + " stopped answering: chat calls fail, and cost nothing, until it is back. Start it again, or start parley serve with another engine."
	case stopped:
		return sentence(fmt.Sprintf(i18n.T("%s stopped answering: chat calls fail, and cost nothing, until it is back. Start it again, or choose another engine in Preferences → Built-in service."), spec.Where()))
	case e.served:
		return spec.Where() + " is not running: chat calls fail, and cost nothing, until it is. Start it, or start parley serve with another engine."
	}
	return sentence(fmt.Sprintf(i18n.T("%s is not running: chat calls fail, and cost nothing, until it is. Start it, or choose another engine in Preferences → Built-in service."), spec.Where()))
}

// awayFailure is the failure of a call made while the runtime of c is away.
func (e *Engines) awayFailure(spec engine.Chat, why error) *ChatFailure {
	var ue *engine.UntrustedError
	if errors.As(why, &ue) {
		return &ChatFailure{Where: ue.Where(), What: ue.What() + ".", Err: ue, kind: failUntrustedAway}
	}
	kind := failNotRunning
	if e.served {
		kind = failNotRunningServed
	}
	return &ChatFailure{Where: spec.Where(), What: "is not running: start it, or choose another engine.", Unreachable: true, Err: engine.ErrNotRunning, kind: kind}
}

func (w *runtimeWatch) state() (away bool, why error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.away, w.why
}

// call asks c's model through ask, following its runtime's state: a runtime away is asked
// again whether it is back before the call fails, and one that stops or changes hands during the
// call is marked away. The text ask returned comes back with its error (a stopped stream's).
func (c *chatEngine) call(ctx context.Context, ask func(ChatModel) (string, error)) (string, error) {
	w := c.watch
	if w == nil {
		return ask(c.model)
	}
	if away, _ := w.state(); away && !w.recheck(ctx, c) {
		_, why := w.state()
		return "", w.e.awayFailure(c.spec, why)
	}
	// Each call makes a connection, checked as it is made (runtimeTransport): the runtime back,
	// or its port taken by another user's program, is judged again before anything is sent.
	reply, err := ask(c.model)
	var ue *engine.UntrustedError
	var cf *ChatFailure
	switch {
	case errors.As(err, &ue):
		w.goAway(c, ue, false)
		return "", w.e.awayFailure(c.spec, ue)
	case errors.As(err, &cf) && cf.Unreachable:
		w.goAway(c, engine.ErrNotRunning, true)
	}
	return reply, err
}

// goAway marks the runtime away for why, tells the person when it was not (unless c was
// replaced meanwhile), and starts the watch.
func (w *runtimeWatch) goAway(c *chatEngine, why error, stopped bool) {
	w.mu.Lock()
	was := w.away
	w.away, w.why = true, why
	start := !w.watching
	w.watching = true
	w.mu.Unlock()
	if !was && w.e.chat.Load() == c { // not replaced while this call ran
		st := c.status()
		st.Notice = w.e.awayNotice(c.spec, why, stopped)
		w.e.notify(st)
	}
	if start {
		go w.watch(c)
	}
}

// watch asks every e.recheckEvery, while the runtime is away and c is the engine in use, whether
// it is back, so that the person hears of it without sending a message first.
func (w *runtimeWatch) watch(c *chatEngine) {
	t := time.NewTicker(max(w.e.recheckEvery, 10*time.Millisecond))
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if !w.away || w.e.chat.Load() != c {
			w.watching = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		w.recheck(context.Background(), c)
	}
}

// recheck asks whether the runtime answers again, at its port's owner's (engine.CheckRuntime),
// and says so when it does; when another user's program is found where it was, or it is gone
// from where another user's was, the person is told too.
func (w *runtimeWatch) recheck(ctx context.Context, c *chatEngine) bool {
	owner, err := engine.CheckRuntime(ctx, c.spec, w.e.owners)
	w.mu.Lock()
	if err != nil {
		was := w.why
		w.why = err
		w.mu.Unlock()
		if awayWhy(was) != awayWhy(err) && w.e.chat.Load() == c {
			st := c.status()
			st.Notice = w.e.awayNotice(c.spec, err, false)
			w.e.notify(st)
		}
		return false
	}
	back := w.away
	w.away, w.why = false, nil
	seen := c.spec
	seen.Owner = w.owner
	w.owner = cmp.Or(owner.ID, w.owner)
	w.mu.Unlock()
	if back && w.e.chat.Load() == c {
		st := c.status()
		st.Notice = sentence(fmt.Sprintf(i18n.T("%[1]s is back: %[2]s answers again."), c.spec.Where(), engine.ModelName(c.spec.Model)))
		if changed := seen.OwnerChanged(owner); changed != "" {
			st.Notice += " " + changed
		}
		w.e.notify(st)
	}
	return true
}
