// Package server is the reference Chat and Voice Service: the HTTP API of
// ../shared/SPEC.md over a SQLite store, a chat model and speech engines, and
// the `parley serve` and `parley admin` commands that run it.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"parley/server/speech"
	"parley/server/store"
)

// DefaultChatTimeout bounds one call to the chat model.
const DefaultChatTimeout = 120 * time.Second

// Config is what a Server is built from.
type Config struct {
	Store *store.Store
	// LLM answers chat calls; nil uses NewOfflineResponder.
	LLM ChatModel
	// STT and TTS are the speech engines; nil answers 503 on their endpoints.
	STT speech.Transcriber
	TTS speech.Synthesizer
	// Logger gets one line per request; nil discards.
	Logger *slog.Logger
	// MaxBodyBytes caps request bodies; 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Now is the clock; nil means time.Now. (The store keeps its own times.)
	Now func() time.Time
	// ChatTimeout bounds one model call; 0 means DefaultChatTimeout.
	ChatTimeout time.Duration
	// Limits bound the work and memory of requests under load; zero fields take defaults.
	Limits Limits
	// ExplainUpstream tells clients which chat engine failed and why, and where it runs: for a
	// service whose model runs on the same computer, or the app's own. Otherwise a failure says
	// only that the model failed (its details go to the log), and the account names the model
	// without its host, which may be one the operator keeps private.
	ExplainUpstream bool
	// LenientVoices speaks with the default voice when asked for one the voices do not have,
	// rather than refusing: for the app's own service, whose voices change when the person
	// switches between the local ones and a service's, while conversations keep the voice set.
	LenientVoices bool
}

// Server serves the Chat and Voice API.
type Server struct {
	store   *store.Store
	llm     ChatModel
	explain bool
	lenient bool
	stt     speech.Transcriber
	tts     speech.Synthesizer
	log     *slog.Logger
	maxBody int64
	now     func() time.Time
	timeout time.Duration
	limits  Limits
	// sttGate and ttsGate admit transcribe and speech calls (see gate).
	sttGate, ttsGate *gate
	// inFlight counts the requests being handled, for a stopping service.
	inFlight atomic.Int64
	// live are the streamed chat calls in progress, for a person's Stop.
	live    liveCalls
	handler http.Handler
}

// New checks cfg and builds a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: Config.Store is required")
	}
	s := &Server{
		store: cfg.Store, llm: cfg.LLM, explain: cfg.ExplainUpstream, lenient: cfg.LenientVoices, stt: cfg.STT, tts: cfg.TTS, log: cfg.Logger,
		maxBody: cfg.MaxBodyBytes, now: cfg.Now, timeout: cfg.ChatTimeout,
	}
	if s.llm == nil {
		s.llm = NewOfflineResponder()
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.timeout <= 0 {
		s.timeout = DefaultChatTimeout
	}
	s.limits = cfg.Limits.withDefaults()
	l := s.limits
	sttQueue, ttsQueue := l.SpeechQueue, l.SpeechQueue
	if l.SpeechQueue <= 0 {
		sttQueue, ttsQueue = 2*l.SpeechSlots, 4*l.SpeechSlots
	}
	s.sttGate = newGate("transcriptions", l.SpeechSlots, sttQueue, l.PerKey, l.SpeechWait)
	s.ttsGate = newGate("syntheses", l.SpeechSlots, ttsQueue, 2*l.PerKey, l.SpeechWait)
	s.handler = s.middleware(s.routes())
	return s, nil
}

// Handler returns the HTTP handler of the API.
func (s *Server) Handler() http.Handler { return s.handler }

// handlerFunc is an endpoint: it writes its success itself and returns an
// error for the middleware to write.
type handlerFunc func(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError

// endpoint is one method at one path pattern of the API.
type endpoint struct {
	method, path string
	h            handlerFunc
}

// endpoints lists the API, in the order Allow headers name methods.
func (s *Server) endpoints() []endpoint {
	return []endpoint{
		{http.MethodPost, "/v1/chat/messages", s.handleChat},
		{http.MethodPost, "/v1/chat/calls/{id}/stop", s.handleStop},
		{http.MethodGet, "/v1/chat/conversations", s.handleList},
		{http.MethodDelete, "/v1/chat/conversations/{id}", s.handleDelete},
		{http.MethodGet, "/v1/chat/conversations/{id}/messages", s.handleHistory},
		{http.MethodGet, "/v1/chat/conversations/{id}/config", s.handleGetConfig},
		{http.MethodPatch, "/v1/chat/conversations/{id}/config", s.handlePatchConfig},
		{http.MethodPost, "/v1/chat/transcribe", s.handleTranscribe},
		{http.MethodPost, "/v1/chat/speech", s.handleSpeech},
		{http.MethodGet, "/v1/chat/voices", s.handleVoices},
		{http.MethodGet, "/v1/account", s.handleAccount},
	}
}

// routes is the API's router. Every answer, 404 and 405 included, is JSON: a
// path's other methods (HEAD too, which a GET pattern would take) get a 405
// naming the ones it serves, and any other path a 404.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	var paths []string
	allowed := map[string][]string{}
	for _, ep := range s.endpoints() {
		mux.Handle(ep.method+" "+ep.path, s.serve(ep.h))
		if allowed[ep.path] == nil {
			paths = append(paths, ep.path)
		}
		allowed[ep.path] = append(allowed[ep.path], ep.method)
	}
	for _, p := range paths {
		methods := allowed[p]
		mux.Handle(p, methodNotAllowed(methods))
		if slices.Contains(methods, http.MethodGet) {
			mux.Handle(http.MethodHead+" "+p, methodNotAllowed(methods))
		}
	}
	mux.HandleFunc("/", notFound)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// ServeMux would redirect an unclean path (//, /./, /../) to its clean
		// form; the API has no such paths.
		if p := r.URL.EscapedPath(); p != cleanPath(p) {
			notFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// cleanPath is p as ServeMux cleans it: path.Clean, keeping a trailing slash.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// notFound answers a path the API does not have.
func notFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, errorf(http.StatusNotFound, codeNotFound, "There is no endpoint at %s.", truncate(r.URL.Path, 200)))
}

// methodNotAllowed answers a method a path does not serve.
func methodNotAllowed(methods []string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", strings.Join(methods, ", "))
		writeError(w, errorf(http.StatusMethodNotAllowed, codeMethod,
			"This endpoint accepts %s, not %s.", strings.Join(methods, " or "), truncate(r.Method, 20)))
	}
}

// serve runs an endpoint for the account of the request's key, once the
// body's announced size is within bounds.
func (s *Server) serve(h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		acct, e := s.authenticate(r)
		if e != nil {
			writeError(w, e)
			return
		}
		if info, ok := r.Context().Value(logInfoKey{}).(*logInfo); ok {
			info.account.Store(acct.ID)
		}
		w.Header().Set(StreamHeader, "chat") // chat replies stream to a client that asks
		// The body is judged after the key, as docs/API.md orders the checks; a longer body than
		// it announced is stopped by the MaxBytesReader the middleware put on it.
		if r.ContentLength > s.maxBody {
			writeError(w, errorf(http.StatusRequestEntityTooLarge, codeBodyTooLarge,
				"The request body is larger than the service accepts (%d bytes).", s.maxBody))
			return
		}
		if e := h(w, r, acct); e != nil {
			writeError(w, e)
		}
	}
}

// authenticate finds the account of the request's bearer key.
func (s *Server) authenticate(r *http.Request) (store.Account, *apiError) {
	h := r.Header.Get("Authorization")
	scheme, key, ok := strings.Cut(strings.TrimSpace(h), " ")
	key = strings.TrimSpace(key)
	if h == "" {
		return store.Account{}, errorf(http.StatusUnauthorized, codeUnauthorized,
			"An API key is required: send Authorization: Bearer <key>.")
	}
	if !ok || !strings.EqualFold(scheme, "Bearer") || key == "" {
		return store.Account{}, errorf(http.StatusUnauthorized, codeUnauthorized,
			"The Authorization header must be Bearer <key>.")
	}
	acct, err := s.store.Authenticate(r.Context(), key)
	if errors.Is(err, store.ErrUnknownKey) || errors.Is(err, store.ErrNotFound) {
		return store.Account{}, errorf(http.StatusUnauthorized, codeUnauthorized,
			"The API key is unknown or revoked.")
	}
	if err != nil {
		return store.Account{}, s.internal(r, "authenticate", err)
	}
	return acct, nil
}

// internal logs err and returns the 500 the client sees, which carries no
// detail. An operation that failed because the client went away is no fault of
// the service: it is a 499, logged at INFO by the request line only.
func (s *Server) internal(r *http.Request, op string, err error) *apiError {
	if clientGone(r) && errors.Is(err, context.Canceled) {
		s.log.Debug("client closed request", "op", op, "method", r.Method, "path", r.URL.Path, "err", err)
		return errClientClosed()
	}
	s.log.Error("internal error", "op", op, "method", r.Method, "path", r.URL.Path, "err", err)
	return errorf(http.StatusInternalServerError, codeInternal, "The service failed; the error is in its log.")
}

type logInfoKey struct{}

// logInfo is what the handler tells the request log line.
type logInfo struct {
	account atomic.Int64
	voice   atomic.Pointer[string] // the voice a speech request was spoken in
}

// statusWriter remembers the status written, and gives the client a write
// deadline that grows with the answer: from its first byte, limits.WriteGrace
// plus the bytes written so far at limits.MinWriteRate. A client that does not
// read its answer is cut off then, and the answer's memory freed, however long
// the handler took to make it.
type statusWriter struct {
	http.ResponseWriter
	status int
	limits *Limits
	start  time.Time // when the answer began
	sent   int64     // bytes of the body written
	// streaming: the answer is a stream of events, each given its own deadline as it is
	// written (the stream lasts as long as the model writes).
	streaming bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		w.setDeadline(0)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.setDeadline(len(b))
	n, err := w.ResponseWriter.Write(b)
	w.sent += int64(n)
	return n, err
}

// setDeadline moves the write deadline to allow for n more bytes.
func (w *statusWriter) setDeadline(n int) {
	if w.limits == nil {
		return
	}
	if w.start.IsZero() || w.streaming {
		w.start = time.Now()
		if w.streaming {
			w.sent = 0
		}
	}
	allow := w.limits.WriteGrace + time.Duration(float64(w.sent+int64(n))/float64(w.limits.MinWriteRate)*float64(time.Second))
	_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(w.start.Add(allow))
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// middleware logs each request, caps its body, bounds the time its answer
// may take to be read and turns a panic into a 500.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.inFlight.Add(1)
		defer s.inFlight.Add(-1)
		start := time.Now()
		info := &logInfo{}
		r = r.WithContext(context.WithValue(r.Context(), logInfoKey{}, info))
		sw := &statusWriter{ResponseWriter: w, limits: &s.limits}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path,
					"panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeError(sw, errorf(http.StatusInternalServerError, codeInternal,
						"The service failed; the error is in its log."))
				}
			}
			attrs := []any{
				"method", r.Method, "path", r.URL.Path, "status", sw.status,
				"duration_ms", float64(time.Since(start).Microseconds()) / 1000,
			}
			if id := info.account.Load(); id != 0 {
				attrs = append(attrs, "account", id)
			}
			if v := info.voice.Load(); v != nil {
				attrs = append(attrs, "voice", *v)
			}
			s.log.Info("request", attrs...)
		}()
		r.Body = http.MaxBytesReader(sw, r.Body, s.maxBody)
		next.ServeHTTP(sw, r)
	})
}
