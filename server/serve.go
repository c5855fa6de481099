package server

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"parley/server/speech"
	"parley/server/store"
)

// DefaultAddr is where `parley serve` listens unless told otherwise.
const DefaultAddr = "127.0.0.1:8780"

// demoPoints is the balance of the key `parley serve --demo` creates.
const demoPoints = 1_000_000

// shutdownGrace is how long a stopping service waits for calls in flight.
const shutdownGrace = 30 * time.Second

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

// serveOptions are the flags of `parley serve`.
type serveOptions struct {
	addr, data                  string
	demo, insecureBind          bool
	llmURL, llmModel, llmKeyEnv string
	sttURL, sttModel, sttKeyEnv string
	ttsURL, ttsModel, ttsKeyEnv string
	tlsCert, tlsKey             string
	maxBody                     int64
	chatTimeout                 time.Duration
}

func serveFlags(o *serveOptions, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("parley serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.addr, "addr", DefaultAddr, "`host:port` to listen on (port 0 picks a free one)")
	fs.StringVar(&o.data, "data", DefaultDataDir(), "`directory` of the database (parley.db)")
	fs.BoolVar(&o.demo, "demo", false, "create a key with 1,000,000 points if there is none, and print it")
	fs.StringVar(&o.llmURL, "llm-url", "", "base `URL` of an OpenAI-compatible chat API (without it, the offline responder answers)")
	fs.StringVar(&o.llmModel, "llm-model", "", "chat model `name` (required with --llm-url)")
	fs.StringVar(&o.llmKeyEnv, "llm-key-env", "", "environment `variable` holding the chat API key")
	fs.StringVar(&o.sttURL, "stt-url", "", "base `URL` of an OpenAI-compatible /audio/transcriptions API (default: local pocketsphinx)")
	fs.StringVar(&o.sttModel, "stt-model", "whisper-1", "speech-to-text model `name`")
	fs.StringVar(&o.sttKeyEnv, "stt-key-env", "", "environment `variable` holding the speech-to-text API key")
	fs.StringVar(&o.ttsURL, "tts-url", "", "base `URL` of an OpenAI-compatible /audio/speech API (default: local espeak-ng and lame)")
	fs.StringVar(&o.ttsModel, "tts-model", "tts-1", "text-to-speech model `name`")
	fs.StringVar(&o.ttsKeyEnv, "tts-key-env", "", "environment `variable` holding the text-to-speech API key")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate `file` (with --tls-key: serve HTTPS)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "TLS private key `file`")
	fs.BoolVar(&o.insecureBind, "insecure-bind", false, "allow a non-loopback --addr without TLS")
	fs.Int64Var(&o.maxBody, "max-body", DefaultMaxBodyBytes, "largest request body in `bytes`")
	fs.DurationVar(&o.chatTimeout, "chat-timeout", DefaultChatTimeout, "longest wait for the chat model")
	return fs
}

// usageError is a bad command line: exit code 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// check validates the options that do not need the outside world.
func (o *serveOptions) check() error {
	host, _, err := net.SplitHostPort(o.addr)
	if err != nil {
		return usageError{fmt.Sprintf("--addr %q is not host:port.", o.addr)}
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return usageError{"--tls-cert and --tls-key go together."}
	}
	if !isLoopback(host) && o.tlsCert == "" && !o.insecureBind {
		return usageError{fmt.Sprintf("--addr %s is reachable from other machines, and API keys would cross the network in clear; "+
			"give --tls-cert and --tls-key, or --insecure-bind if you mean it.", o.addr)}
	}
	if o.llmURL != "" && o.llmModel == "" {
		return usageError{"--llm-url needs --llm-model NAME."}
	}
	if o.maxBody < 1024 {
		return usageError{"--max-body must be at least 1024 bytes."}
	}
	if o.chatTimeout <= 0 || o.chatTimeout > 10*time.Minute {
		return usageError{"--chat-timeout must be between 1s and 10m (a longer call could be refunded as abandoned)."}
	}
	for _, u := range []struct{ flag, url string }{{"--llm-url", o.llmURL}, {"--stt-url", o.sttURL}, {"--tts-url", o.ttsURL}} {
		if u.url != "" && !strings.HasPrefix(u.url, "http://") && !strings.HasPrefix(u.url, "https://") {
			return usageError{fmt.Sprintf("%s must be an http:// or https:// URL.", u.flag)}
		}
	}
	return nil
}

// isLoopback reports whether host names only this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ServeMain runs `parley serve`; args exclude the word "serve". It returns
// the exit code: 0 after a clean stop (ctx cancelled), 1 on failure, 2 on
// bad usage.
func ServeMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var o serveOptions
	fs := serveFlags(&o, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "parley serve: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return 2
	}
	if err := o.check(); err != nil {
		fmt.Fprintf(stderr, "parley serve: %v\n", err)
		return 2
	}
	if err := serve(ctx, &o, stdout, stderr); err != nil {
		fmt.Fprintf(stderr, "parley serve: %v\n", err)
		return 1
	}
	return 0
}

func serve(ctx context.Context, o *serveOptions, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(o.data, 0o700); err != nil {
		return fmt.Errorf("cannot create the data directory: %w", err)
	}
	st, err := store.Open(ctx, filepath.Join(o.data, "parley.db"))
	if err != nil {
		return err
	}
	defer st.Close()
	if n, err := st.RecoverPending(ctx, 0); err != nil {
		return err
	} else if n > 0 {
		fmt.Fprintf(stderr, "Refunded %d chat calls left unfinished by the last run.\n", n)
	}

	log := slog.New(slog.NewTextHandler(stderr, nil))
	cfg := Config{Store: st, Logger: log, MaxBodyBytes: o.maxBody, ChatTimeout: o.chatTimeout}
	cfg.LLM, cfg.STT, cfg.TTS = providers(o, stderr)
	srv, err := New(cfg)
	if err != nil {
		return err
	}

	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", o.addr, err)
	}
	scheme := "http"
	if o.tlsCert != "" {
		scheme = "https"
	}
	addr := ln.Addr().String()
	fmt.Fprintf(stdout, "Parley service listening on %s://%s (data: %s)\n", scheme, addr, o.data)
	if o.demo {
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
		if o.tlsCert != "" {
			errc <- hs.ServeTLS(ln, o.tlsCert, o.tlsKey)
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	select {
	case err := <-errc:
		return fmt.Errorf("the service stopped: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	fmt.Fprintln(stderr, "Parley service stopped.")
	return nil
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
func printDemo(ctx context.Context, st *store.Store, o *serveOptions, baseURL string, stdout io.Writer) error {
	n, err := st.KeyCount(ctx)
	if err != nil {
		return err
	}
	self := selfName()
	if n > 0 {
		fmt.Fprintf(stdout, "This data directory has API keys already (the demo key was shown when it was made). Make a new key and chat with it:\n"+
			"  PARLEY_BASE_URL=%s PARLEY_API_KEY=$(%s admin --data %s key create --points 1000 | tail -n 1) %s chat \"Hello\"\n",
			baseURL, self, shellQuote(o.data), self)
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
func providers(o *serveOptions, stderr io.Writer) (ChatModel, speech.Transcriber, speech.Synthesizer) {
	llm := NewOfflineResponder()
	if o.llmURL != "" {
		llm = NewOpenAIChat(o.llmURL, o.llmModel, envKey(o.llmKeyEnv, stderr), &http.Client{Timeout: o.chatTimeout})
	} else {
		fmt.Fprintln(stderr, "Chat: the built-in offline responder answers (give --llm-url and --llm-model for a real model).")
	}
	var stt speech.Transcriber
	if o.sttURL != "" {
		stt = speech.NewRemoteTranscriber(o.sttURL, o.sttModel, envKey(o.sttKeyEnv, stderr), nil)
	} else {
		so := speech.PocketSphinxOptions{}
		if err := speech.CheckPocketSphinx(so); err != nil {
			fmt.Fprintf(stderr, "Warning: speech-to-text will answer 503: %v.\n", err)
		}
		stt = speech.NewPocketSphinx(so)
	}
	var tts speech.Synthesizer
	if o.ttsURL != "" {
		tts = speech.NewRemoteSynthesizer(o.ttsURL, o.ttsModel, envKey(o.ttsKeyEnv, stderr), nil, nil)
	} else {
		eo := speech.EspeakOptions{}
		if err := speech.CheckEspeak(eo); err != nil {
			fmt.Fprintf(stderr, "Warning: text-to-speech will answer 503: %v.\n", err)
		}
		tts = speech.NewEspeak(eo)
	}
	return llm, stt, tts
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
