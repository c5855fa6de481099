package server

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"parley/engine"
	"parley/server/speech"
)

// recheckEvery is how often, at most, a chat call asks whether a runtime that went away is back.
var recheckEvery = 5 * time.Second

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
	// onStatus hears of the chat engine changing by itself (a runtime that went away or came
	// back); it may be nil.
	onStatus atomic.Pointer[func(engine.Status)]
	// chatTimeout bounds a remote chat call.
	chatTimeout time.Duration
}

type transcriber struct{ speech.Transcriber }

type synthesizer struct{ speech.Synthesizer }

// NewEngines returns engines that start as the offline responder and the local speech engines;
// chatTimeout bounds a call to a chat model (0: DefaultChatTimeout).
func NewEngines(chatTimeout time.Duration) *Engines {
	if chatTimeout <= 0 {
		chatTimeout = DefaultChatTimeout
	}
	e := &Engines{chatTimeout: chatTimeout}
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

// lazyTranscriber is the local recogniser, made at its first use.
type lazyTranscriber struct{ e *Engines }

func (l lazyTranscriber) Transcribe(ctx context.Context, audio []byte, mime string) (speech.Transcript, error) {
	t, _ := l.e.localSpeech()
	return t.Transcribe(ctx, audio, mime)
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
// answering (the offline responder answers meanwhile) or that answers again.
func (e *Engines) OnStatus(f func(engine.Status)) { e.onStatus.Store(&f) }

func (e *Engines) notify(s engine.Status) {
	if f := e.onStatus.Load(); f != nil && *f != nil {
		(*f)(s)
	}
}

// Set makes s the engines of the next calls. A detected runtime is asked at once whether it
// runs (bounded by engine.DetectTimeout), and the status says whether it answers or the offline
// responder does meanwhile. s must pass its Check methods.
func (e *Engines) Set(ctx context.Context, s engine.Set) engine.Status {
	ce := e.newChat(s.Chat)
	if ce.watch != nil {
		ce.watch.away.Store(!engine.Reachable(ctx, s.Chat.URL, s.Chat.Model))
		ce.watch.checked = time.Now()
	}
	e.chat.Store(ce)
	if ce.watch != nil && ce.watch.away.Load() {
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
	if st.FellBack {
		st.Notice = s.Chat.Where() + " is not running: the offline responder answers until it is. Start it, or choose another engine in Preferences → Built-in service."
	}
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
	m := NewOpenAIChatWith(OpenAIChatOptions{BaseURL: spec.URL, Model: spec.Model, APIKey: spec.Key, Where: spec.Where(),
		ContextTokens: spec.ContextTokens, HTTP: &http.Client{Timeout: e.chatTimeout}})
	ce := &chatEngine{spec: spec, model: m}
	if spec.Kind == engine.Detected {
		ce.watch = &runtimeWatch{e: e, offline: NewOfflineResponder()}
	}
	return ce
}

// Complete asks the chat engine of the moment.
func (e *Engines) Complete(ctx context.Context, req ChatRequest) (string, error) {
	return e.chat.Load().complete(ctx, req)
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
	// watch, for a runtime on this computer, has the offline responder answer while it is away.
	watch *runtimeWatch
}

// runtimeWatch follows whether a runtime on this computer answers. When a call finds it gone
// (nothing listens, or the connection ended before the reply), that call fails (and is
// refunded), the person is told, and the offline responder answers the calls after it, each of
// which first asks (at most every recheckEvery) whether the runtime is back.
type runtimeWatch struct {
	e       *Engines
	offline ChatModel
	away    atomic.Bool
	mu      sync.Mutex
	checked time.Time
}

func (c *chatEngine) status() engine.Status {
	if c.watch != nil && c.watch.away.Load() {
		return engine.Status{Chat: "the offline responder", Short: "offline responder while " + c.spec.Runtime + " is away", FellBack: true}
	}
	return engine.Status{Chat: c.spec.Describe(), Short: c.spec.Short()}
}

func (c *chatEngine) complete(ctx context.Context, req ChatRequest) (string, error) {
	w := c.watch
	if w == nil {
		return c.model.Complete(ctx, req)
	}
	if w.away.Load() && !w.back(ctx, c) {
		return w.offline.Complete(ctx, req)
	}
	reply, err := c.model.Complete(ctx, req)
	var cf *ChatFailure
	if errors.As(err, &cf) && cf.Unreachable && w.away.CompareAndSwap(false, true) {
		w.mu.Lock()
		w.checked = time.Now()
		w.mu.Unlock()
		if w.e.chat.Load() == c { // not replaced while this call ran
			st := c.status()
			st.Notice = c.spec.Where() + " stopped answering: the offline responder answers until it is back."
			w.e.notify(st)
		}
		go w.watch(c)
	}
	return reply, err
}

// watch asks every recheckEvery, while the runtime is away and c is the engine in use, whether
// it is back, so that the person hears of it without sending a message first.
func (w *runtimeWatch) watch(c *chatEngine) {
	t := time.NewTicker(max(recheckEvery, 10*time.Millisecond))
	defer t.Stop()
	for range t.C {
		if !w.away.Load() || w.e.chat.Load() != c {
			return
		}
		w.mu.Lock()
		w.checked = time.Now()
		w.mu.Unlock()
		if w.recheck(context.Background(), c) {
			return
		}
	}
}

// back asks, at most every recheckEvery, whether the runtime answers again, and says so when it does.
func (w *runtimeWatch) back(ctx context.Context, c *chatEngine) bool {
	w.mu.Lock()
	due := time.Since(w.checked) >= recheckEvery
	if due {
		w.checked = time.Now()
	}
	w.mu.Unlock()
	return due && w.recheck(ctx, c)
}

// recheck asks whether the runtime answers again, and says so when it does.
func (w *runtimeWatch) recheck(ctx context.Context, c *chatEngine) bool {
	if !engine.Reachable(ctx, c.spec.URL, c.spec.Model) {
		return false
	}
	if w.away.CompareAndSwap(true, false) && w.e.chat.Load() == c {
		st := c.status()
		st.Notice = c.spec.Where() + " is back: " + engine.ModelName(c.spec.Model) + " answers again."
		w.e.notify(st)
	}
	return true
}
