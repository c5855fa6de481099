package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"parley/engine"
	"parley/internal/loopback"
	"parley/server/speech"
	"parley/server/store"
)

// DefaultAddr is where `parley serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8780"

// demoPoints is the balance of the key `parley serve --demo` creates.
const demoPoints = 1_000_000

// shutdownMargin is how much longer than the chat timeout a stopping service waits for the
// calls in flight: time for a call whose model took the whole timeout to be stored and answered.
const shutdownMargin = 15 * time.Second

// abandonWait is how long a stopping service waits, after closing the connections of calls
// that outlasted the grace, for their handlers to end before it refunds what they left pending.
const abandonWait = 5 * time.Second

// DefaultDataDir is where the service keeps its database by default:
// $XDG_DATA_HOME/parley, else ~/.local/share/parley.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "parley")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "parley")
	}
	return filepath.Join(".", "parley-data")
}

// ServeOptions configure the reference service that Serve runs. Each field is one option of
// `parley serve`; the comments name it.
type ServeOptions struct {
	Addr         string // --addr: host:port to listen on; port 0 picks a free one
	Data         string // --data: directory of the database (parley.db)
	Demo         bool   // --demo: create a key with 1,000,000 points if there is none, and print it
	InsecureBind bool   // --insecure-bind: allow a non-loopback Addr without TLS

	LLM       string // --llm: "auto" uses the first model runtime found on this computer; "offline" or "" the offline responder (unless LLMURL)
	LLMURL    string // --llm-url: base URL of an OpenAI-compatible chat API; "" uses the offline responder
	LLMModel  string // --llm-model: chat model name, required with LLMURL
	LLMKeyEnv string // --llm-key-env: environment variable holding the chat API key

	STT       string // --stt: "auto" hears with a Whisper server found on this computer while one answers, else pocketsphinx; "" pocketsphinx (unless STTURL)
	STTURL    string // --stt-url: base URL of an OpenAI-compatible transcription API; "" uses pocketsphinx
	STTModel  string // --stt-model: speech-to-text model name
	STTKeyEnv string // --stt-key-env: environment variable holding the speech-to-text API key

	TTSURL    string // --tts-url: base URL of an OpenAI-compatible speech API; "" uses flite or espeak-ng, and lame
	TTSModel  string // --tts-model: text-to-speech model name
	TTSKeyEnv string // --tts-key-env: environment variable holding the text-to-speech API key

	TLSCert string // --tls-cert: TLS certificate file; with TLSKey the service speaks HTTPS
	TLSKey  string // --tls-key: TLS private key file

	MaxBody     int64         // --max-body: largest request body in bytes
	ChatTimeout time.Duration // --chat-timeout: longest wait for the chat model
}

// DefaultServeOptions are the options of `parley serve` given no flags.
func DefaultServeOptions() ServeOptions {
	return ServeOptions{
		Addr:        DefaultAddr,
		Data:        DefaultDataDir(),
		STTModel:    "whisper-1",
		TTSModel:    "tts-1",
		MaxBody:     DefaultMaxBodyBytes,
		ChatTimeout: DefaultChatTimeout,
	}
}

// OptionError is a ServeOptions value the service cannot run with. Option is the option as
// `parley serve` spells it ("--addr"); the message is a lowercase sentence without a period.
type OptionError struct {
	Option string
	msg    string
}

func (e *OptionError) Error() string { return e.msg }

func optionErrorf(option, format string, a ...any) *OptionError {
	return &OptionError{Option: option, msg: fmt.Sprintf(format, a...)}
}

// Check validates the options that do not need the outside world; its errors are *OptionError.
func (o *ServeOptions) Check() error {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return optionErrorf("--addr", "--addr %q is not host:port", o.Addr)
	}
	if (o.TLSCert == "") != (o.TLSKey == "") {
		return optionErrorf("--tls-cert", "--tls-cert and --tls-key go together")
	}
	if !loopback.Host(host) && o.TLSCert == "" && !o.InsecureBind {
		return optionErrorf("--addr", "--addr %s is reachable from other machines, and API keys would cross the network in clear; "+
			"give --tls-cert and --tls-key, or --insecure-bind if you mean it", o.Addr)
	}
	switch o.LLM {
	case "", "offline", "auto":
	default:
		return optionErrorf("--llm", "--llm is auto or offline, not %q (give --llm-url for a chat API elsewhere)", o.LLM)
	}
	switch o.STT {
	case "", "auto":
	default:
		return optionErrorf("--stt", "--stt is auto, not %q (give --stt-url for a transcription API elsewhere)", o.STT)
	}
	if o.STT != "" && o.STTURL != "" {
		return optionErrorf("--stt", "--stt %s and --stt-url choose the recogniser twice: give one of them", o.STT)
	}
	if o.LLM != "" && o.LLMURL != "" {
		return optionErrorf("--llm", "--llm %s and --llm-url choose the chat model twice: give one of them", o.LLM)
	}
	if o.LLMURL != "" && o.LLMModel == "" {
		return optionErrorf("--llm-model", "--llm-url needs --llm-model NAME")
	}
	if o.MaxBody < 1024 {
		return optionErrorf("--max-body", "--max-body must be at least 1024 bytes, not %d", o.MaxBody)
	}
	if o.ChatTimeout <= 0 || o.ChatTimeout > 10*time.Minute {
		return optionErrorf("--chat-timeout", "--chat-timeout must be between 1s and 10m, not %v (a longer call could be refunded as abandoned)", o.ChatTimeout)
	}
	for _, u := range []struct{ flag, url string }{{"--llm-url", o.LLMURL}, {"--stt-url", o.STTURL}, {"--tts-url", o.TTSURL}} {
		if u.url != "" && !strings.HasPrefix(u.url, "http://") && !strings.HasPrefix(u.url, "https://") {
			return optionErrorf(u.flag, "%s must be an http:// or https:// URL", u.flag)
		}
	}
	return nil
}

// Serve runs the reference service with the given options until ctx is cancelled, then stops
// it gracefully and returns nil. It prints the listening address (and with Demo the demo key)
// on stdout and logs requests on stderr. Options that fail Check return an *OptionError
// before anything starts.
func Serve(ctx context.Context, o ServeOptions, stdout, stderr io.Writer) error {
	if err := o.Check(); err != nil {
		return err
	}
	return serve(ctx, &o, stdout, stderr)
}

func serve(ctx context.Context, o *ServeOptions, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(o.Data, 0o700); err != nil {
		return fmt.Errorf("cannot create the data directory: %w", err)
	}
	// One service per data directory: the one that holds the lock owns the pending charges,
	// and may refund those it finds at its start as left behind by a crash.
	unlock, err := lockDataDir(o.Data)
	if err != nil {
		return err
	}
	defer unlock()
	st, err := store.Open(ctx, filepath.Join(o.Data, "parley.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	if n, err := st.RecoverPending(ctx, 0); err != nil {
		return err
	} else if n > 0 {
		calls := "chat calls"
		if n == 1 {
			calls = "chat call"
		}
		fmt.Fprintf(stderr, "Refunded %d %s left unfinished by the last run.\n", n, calls)
	}

	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := Config{Store: st, Logger: log, MaxBodyBytes: o.MaxBody, ChatTimeout: o.ChatTimeout,
		ExplainUpstream: o.LLM == "auto" || o.LLMURL != "" && loopback.URL(o.LLMURL)}
	cfg.LLM, cfg.STT, cfg.TTS = providers(o, stderr)
	srv, err := New(cfg)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", o.Addr, err)
	}
	scheme := "http"
	if o.TLSCert != "" {
		scheme = "https"
	}
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "Parley service listening on %s://%s (data: %s)\n", scheme, addr, o.Data)
	if o.Demo {
		if err := printDemo(ctx, st, o, scheme+"://"+clientAddr(addr), stdout); err != nil {
			ln.Close()
			return err
		}
	}

	hs := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       5 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() {
		if o.TLSCert != "" {
			errc <- hs.ServeTLS(ln, o.TLSCert, o.TLSKey)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("the service stopped: %w", err)
	case <-ctx.Done():
	}
	drain(context.WithoutCancel(ctx), hs, srv, st, o.ChatTimeout+shutdownMargin, stderr)
	fmt.Fprintln(stderr, "Parley service stopped.")
	return nil
}

// drain stops a service: it takes no new calls, lets those in flight finish for up to grace
// (the chat timeout and a margin, so that a chat call answered at its timeout is still stored
// and charged), then closes the connections left and refunds the charges their calls left
// pending, so that nothing stays reserved.
func drain(ctx context.Context, hs *http.Server, srv *Server, st *store.Store, grace time.Duration, stderr io.Writer) {
	if n := srv.inFlight.Load(); n > 0 {
		fmt.Fprintf(stderr, "Stopping: no new calls; waiting up to %v for %d in flight.\n", grace, n)
	}
	sctx, cancel := context.WithTimeout(ctx, grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err == nil {
		return
	}
	hs.Close()
	// Handlers do not stop with their connections: give them a moment to settle their calls.
	for deadline := time.Now().Add(abandonWait); srv.inFlight.Load() > 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	n, err := st.RecoverPending(ctx, 0)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "Could not refund the calls left unfinished (the next start will): %v\n", err)
	case n == 1:
		fmt.Fprintln(stderr, "Refunded 1 chat call that did not finish in time.")
	case n > 1:
		fmt.Fprintf(stderr, "Refunded %d chat calls that did not finish in time.\n", n)
	}
}

// clientAddr is the address a client on this machine dials for a listening
// address: an unspecified host becomes 127.0.0.1.
func clientAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// printDemo creates the demo key if the data dir has none and prints how to
// use it; the key is printed only here, on the terminal of its owner.
func printDemo(ctx context.Context, st *store.Store, o *ServeOptions, baseURL string, stdout io.Writer) error {
	n, err := st.KeyCount(ctx)
	if err != nil {
		return err
	}
	self := selfName()
	if n > 0 {
		fmt.Fprintf(stdout, "This data directory has API keys already (the demo key was shown when it was made). Make a new key and chat with it:\n"+
			"  PARLEY_BASE_URL=%s PARLEY_API_KEY=$(%s admin --data %s key create --points 1000 | tail -n 1) %s chat \"Hello\"\n",
			baseURL, self, shellQuote(o.Data), self)
		return nil
	}
	key, _, err := st.CreateKey(ctx, demoPoints)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Demo key: %s (1,000,000 points; it is shown only this once)\n", key)
	fmt.Fprintf(stdout, "Try it:\n  PARLEY_BASE_URL=%s PARLEY_API_KEY=%s %s chat \"Hello\"\n", baseURL, key, self)
	return nil
}

// selfName is how to invoke this program in a printed command: the path it was started by when
// that is a path (./bin/parley under make run), else "parley".
func selfName() string {
	if len(os.Args) > 0 && strings.Contains(os.Args[0], "/") && !strings.Contains(os.Args[0], ".test") {
		return shellQuote(os.Args[0])
	}
	return "parley"
}

// shellQuote quotes s for pasting into a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// providers builds the chat model and speech engines the options ask for,
// warning on stderr about local engines that are missing.
func providers(o *ServeOptions, stderr io.Writer) (ChatModel, speech.Transcriber, speech.Synthesizer) {
	llm := NewOfflineResponder()
	switch {
	case o.LLMURL != "":
		llm = NewOpenAIChat(o.LLMURL, o.LLMModel, envKey(o.LLMKeyEnv, stderr), &http.Client{Timeout: o.ChatTimeout})
	case o.LLM == "auto":
		llm = autoChat(o, stderr)
	default:
		fmt.Fprintln(stderr, "Chat: the built-in offline responder answers (give --llm auto to use a model runtime on this computer, or --llm-url and --llm-model).")
	}
	var stt speech.Transcriber
	if o.STTURL != "" {
		stt = speech.NewRemoteTranscriber(o.STTURL, o.STTModel, envKey(o.STTKeyEnv, stderr), nil)
	} else {
		so := speech.PocketSphinxOptions{}
		if err := speech.CheckPocketSphinx(so); err != nil {
			fmt.Fprintf(stderr, "Warning: speech-to-text will answer 503: %v.\n", err)
		}
		stt = speech.NewPocketSphinx(so)
		speech.WarmPocketSphinx(so) // the first question finds the model loaded
		if o.STT == "auto" {
			stt = autoHearing(stt, stderr)
		}
	}
	var tts speech.Synthesizer
	if o.TTSURL != "" {
		tts = speech.NewRemoteSynthesizer(o.TTSURL, o.TTSModel, envKey(o.TTSKeyEnv, stderr), nil, nil)
	} else {
		bo := speech.BuiltInOptions{}
		if err := speech.CheckBuiltIn(bo); err != nil {
			fmt.Fprintf(stderr, "Warning: text-to-speech will answer 503: %v.\n", err)
		} else if !speech.FliteInstalled(bo) {
			fmt.Fprintln(stderr, "Speech: espeak-ng speaks replies; install the Debian package flite for clearer voices.")
		}
		tts = speech.NewBuiltIn(context.Background(), bo)
	}
	return llm, stt, tts
}

// autoHearing is the recogniser of --stt auto: a Whisper server found on this computer while
// one answers (looked for again a minute after the last search), else local; stderr says which.
func autoHearing(local speech.Transcriber, stderr io.Writer) speech.Transcriber {
	h := newHearing()
	ctx, cancel := context.WithTimeout(context.Background(), 2*engine.DetectTimeout)
	defer cancel()
	if r, ok := h.Search(ctx); ok {
		fmt.Fprintf(stderr, "Speech recognition: %s (pocketsphinx while it does not answer).\n", r.Describe())
	} else {
		fmt.Fprintln(stderr, "Speech recognition: --stt auto found no Whisper server on this computer (ports 8000 and 8080): pocketsphinx hears, and the service looks again every minute.")
	}
	return hearingTranscriber{h, local}
}

// hearingTranscriber is a hearing as a speech.Transcriber, with local as its fallback.
type hearingTranscriber struct {
	h     *hearing
	local speech.Transcriber
}

func (t hearingTranscriber) Transcribe(ctx context.Context, audio []byte, mime string) (speech.Transcript, error) {
	return t.h.Transcribe(ctx, audio, mime, t.local)
}

// envKey reads an upstream API key from the named environment variable.
func envKey(name string, stderr io.Writer) string {
	if name == "" {
		return ""
	}
	v := os.Getenv(name)
	if v == "" {
		fmt.Fprintf(stderr, "Warning: $%s is empty; the upstream is called without a key.\n", name)
	}
	return v
}

// autoChat is the chat engine of --llm auto: the first model (or the one --llm-model names) of
// the first runtime found on this computer, else the offline responder; it says which on stderr,
// and when the runtime goes away or comes back. While the runtime found is away, chat calls
// fail and are refunded: the offline responder never answers, and is never charged, in its
// place. A port where another user's program listens is left alone, and stderr says so.
func autoChat(o *ServeOptions, stderr io.Writer) ChatModel {
	eng := NewEngines(o.ChatTimeout)
	eng.served = true
	ports, err := engine.Ports(os.Getenv)
	if err != nil {
		fmt.Fprintf(stderr, "Warning: %v; looking at the usual ports.\n", err)
		ports = engine.DefaultPorts
	}
	var where []string
	for _, p := range ports {
		where = append(where, strconv.Itoa(p.Number)+" ("+p.Runtime+")")
	}
	found := engine.DetectAll(context.Background(), ports, engine.DetectTimeout)
	for _, r := range found.Refused {
		fmt.Fprintln(stderr, "Chat: "+sentence(r.Error())+".")
	}
	var chosen *engine.Chat
	for _, r := range found.Runtimes {
		for _, m := range r.Models {
			if chosen == nil && (o.LLMModel == "" || m.ID == o.LLMModel || engine.ModelName(m.ID) == o.LLMModel) {
				c := r.Chat(m)
				chosen = &c
			}
		}
	}
	if chosen == nil {
		what := "no model runtime"
		if o.LLMModel != "" {
			what = "no runtime with the model " + o.LLMModel
		}
		if len(found.Refused) > 0 {
			what += " it may use"
		}
		fmt.Fprintf(stderr, "Chat: --llm auto found %s on this computer (looked at 127.0.0.1, ports %s): the offline responder answers. "+
			"Install Ollama (https://ollama.com) and run 'ollama pull llama3.2', then start the service again.\n", what, strings.Join(where, ", "))
		return eng
	}
	eng.OnStatus(func(st engine.Status) { fmt.Fprintln(stderr, "Chat: "+st.Notice) })
	st := eng.Set(context.Background(), engine.Set{Chat: *chosen})
	if st.Away {
		fmt.Fprintln(stderr, "Chat: "+st.Notice)
		return eng
	}
	fmt.Fprintf(stderr, "Chat: %s answers (found by --llm auto; context window %d tokens).\n", st.Chat, chosen.ContextWindow())
	return eng
}
