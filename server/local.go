package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/engine"
	"parley/server/speech"
	"parley/server/store"
)

// LocalPoints is the balance the built-in service's account starts with.
const LocalPoints = 1_000_000

// localAccountFile names the file, in the data directory, that holds the number of the app's
// account. It is not a secret: the key is made anew on each start.
const localAccountFile = "local-account"

// Local is the reference service running inside the desktop app, for people with no account
// anywhere: loopback only, a free port, the offline responder and the local speech engines, and
// one account whose key is replaced on every start, so no key is kept anywhere.
type Local struct {
	// DataDir holds its database; DefaultLocalDataDir when empty.
	DataDir string
	// Logger gets its request log; nil discards it.
	Logger *slog.Logger
	// LockWait is how long Start waits for the data folder held by another process: a Parley
	// that just quit lets a call in flight finish for LocalStopGrace before it lets go. Zero
	// refuses a held folder at once.
	LockWait time.Duration

	mu      sync.Mutex
	engines *Engines
	unlock  func()
	st      *store.Store
	srv     *http.Server
	done    chan struct{}
	url     string
	key     string // the account's key of this run, given again to a Start while it runs
}

// LocalStopGrace is how long Stop lets a call in flight finish. A chat call still waiting for its
// model after that is given up: its charge stays pending and the next Start refunds it.
var LocalStopGrace = 5 * time.Second

// DefaultLocalDataDir is where the app's built-in service keeps its data: a folder of its own
// under the user's data directory, so it never competes with a `parley serve` for its data.
func DefaultLocalDataDir() string { return filepath.Join(DefaultDataDir(), "app") }

// Start runs the service and returns its address and a key of the app's account. While it runs,
// Start returns the same address and key again (the app switching back to it); a Stop under way
// is waited for, and the service started anew.
func (l *Local) Start(ctx context.Context) (baseURL, key string, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.srv != nil {
		return l.url, l.key, nil
	}
	dir := l.DataDir
	if dir == "" {
		dir = DefaultLocalDataDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("cannot create the local service's data folder: %w", err)
	}
	// One owner of the data: a second app (or a parley serve on this folder) is refused, and
	// only the owner refunds what a crash left pending.
	unlock, err := lockDataDir(dir)
	for deadline := time.Now().Add(l.LockWait); err != nil && time.Now().Before(deadline); {
		var held *DataDirLockedError
		if !errors.As(err, &held) {
			break
		}
		select {
		case <-ctx.Done():
			return "", "", ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		unlock, err = lockDataDir(dir)
	}
	if err != nil {
		return "", "", err
	}
	fail := func(st *store.Store, err error) (string, string, error) {
		if st != nil {
			st.Close()
		}
		unlock()
		return "", "", err
	}
	st, err := store.Open(ctx, filepath.Join(dir, "parley.db"))
	if err != nil {
		return fail(nil, err)
	}
	if _, err := st.RecoverPending(ctx, 0); err != nil {
		return fail(st, err)
	}
	key, err = localKey(ctx, st, filepath.Join(dir, localAccountFile))
	if err != nil {
		return fail(st, err)
	}
	log := l.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	eng := l.eng()
	srv, err := New(Config{Store: st, Logger: log, LLM: eng, STT: eng, TTS: eng, ExplainUpstream: true, LenientVoices: true})
	if err != nil {
		return fail(st, err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(st, fmt.Errorf("cannot listen on loopback: %w", err))
	}
	l.st, l.unlock = st, unlock
	l.srv = &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
	l.done = make(chan struct{})
	l.url, l.key = "http://"+ln.Addr().String(), key
	go func() {
		defer close(l.done)
		_ = l.srv.Serve(ln)
	}()
	return l.url, key, nil
}

// eng returns the service's engines, made the first time.
func (l *Local) eng() *Engines {
	if l.engines == nil {
		l.engines = NewEngines(DefaultChatTimeout)
	}
	return l.engines
}

// WarmSpeech loads the speech recogniser's model in the background, when it is not loaded yet
// and is the one in use, so that a question about to be spoken does not wait for it. The service
// does not load it as it starts: the model takes about 100 MB, which typed conversations never
// need. It also has a Whisper server on this computer looked for, in the background, when the
// last search is a minute old.
func (l *Local) WarmSpeech() {
	l.mu.Lock()
	eng := l.eng()
	l.mu.Unlock()
	if eng.LocalSpeech() {
		speech.WarmPocketSphinx(speech.PocketSphinxOptions{})
		eng.hear.current() // looks for a Whisper server, in the background, when it last looked a minute ago
	}
}

// Detect looks for model runtimes on this computer (see engine.Detect), at engine.DefaultPorts
// or where the test-only engine.PortsEnv says.
func (l *Local) Detect(ctx context.Context) []engine.Runtime { return l.DetectAll(ctx).Runtimes }

// DetectAll is Detect, which also says which ports it left alone because another user's program
// listens there (see engine.DetectAll).
func (l *Local) DetectAll(ctx context.Context) engine.Found {
	ports, err := engine.Ports(os.Getenv)
	if err != nil {
		return engine.Found{}
	}
	return engine.DetectAll(ctx, ports, engine.DetectTimeout)
}

// FindRecogniser looks for a speech recognition server on this computer (see
// Engines.FindRecogniser), at engine.DefaultRecogniserPorts or where the test-only
// engine.RecogniserPortsEnv says; ok is false when none answers.
func (l *Local) FindRecogniser(ctx context.Context) (engine.Recogniser, bool) {
	l.mu.Lock()
	eng := l.eng()
	l.mu.Unlock()
	return eng.FindRecogniser(ctx)
}

// SetEngines makes s the engines of the service's next calls, before or while it runs; the
// status says which chat engine answers (a chosen runtime that does not run, or runs as another
// user, is away: chat calls fail, refunded, until it is back, and the status says so). s must
// pass its Check methods.
func (l *Local) SetEngines(ctx context.Context, s engine.Set) engine.Status {
	l.mu.Lock()
	eng := l.eng()
	l.mu.Unlock()
	return eng.Set(ctx, s)
}

// OnEngineStatus has f told when the chat engine changes by itself (see Engines.OnStatus).
func (l *Local) OnEngineStatus(f func(engine.Status)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.eng().OnStatus(f)
}

// TryChat asks the chat engine spec for a short reply and says in one line how it went.
func (l *Local) TryChat(ctx context.Context, spec engine.Chat) (string, error) {
	return TryChat(ctx, spec)
}

// TrySpeechRecognition has spec transcribe a spoken test phrase and says in one line what it
// heard: on this computer, the Whisper server found there when one answers (named), else
// PocketSphinx, as a question would be.
func (l *Local) TrySpeechRecognition(ctx context.Context, spec engine.Speech) (string, error) {
	if !spec.Remote {
		l.mu.Lock()
		eng := l.eng()
		l.mu.Unlock()
		if r, ok := eng.FindRecogniser(ctx); ok {
			said, err := tryTranscriber(ctx, transcriberOf(r), r.Describe(), "")
			if err != nil {
				return "", err
			}
			return r.Describe() + ": " + said, nil
		}
	}
	return TrySpeechRecognition(ctx, spec)
}

// TryVoices has spec speak a test sentence and returns it (MP3) with a line on how it went.
func (l *Local) TryVoices(ctx context.Context, spec engine.Speech) (string, []byte, error) {
	return TryVoices(ctx, spec)
}

// Stop ends the service, letting calls in flight finish for LocalStopGrace at most, and returns
// within about that time. A chat call whose model has not answered by then is given up: its
// charge stays pending, and the next Start refunds it. It may take a while: call it away from
// a window's goroutine.
func (l *Local) Stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), LocalStopGrace)
	defer cancel()
	if err := l.srv.Shutdown(ctx); err != nil {
		_ = l.srv.Close() // the calls still running lose their connections
	}
	<-l.done
	l.st.Close() // a call still running finds the store closed and leaves its charge pending
	l.unlock()
	l.srv, l.st, l.unlock, l.url, l.key = nil, nil, nil, "", ""
}

// localKey returns a fresh key of the account named in path, creating the account (and the
// file) the first time, or again when the account is gone.
func localKey(ctx context.Context, st *store.Store, path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		if id, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil {
			key, err := st.ReplaceKey(ctx, id)
			if err == nil {
				return key, nil
			}
			if !errors.Is(err, store.ErrNotFound) {
				return "", err
			}
		}
	}
	key, acct, err := st.CreateKey(ctx, LocalPoints)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(strconv.FormatInt(acct.ID, 10)+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("cannot save the local account's number: %w", err)
	}
	return key, nil
}
