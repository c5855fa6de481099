package server

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/server/store"
)

// env is a running service over a fresh database, with one funded key.
type env struct {
	t      *testing.T
	store  *store.Store
	srv    *Server
	base   string // the service's base URL
	client *http.Client
	key    string
	acct   store.Account
	logs   *testenv.SyncBuffer
	dbPath string // the database file, for tests that open it themselves
}

// newEnv starts a service; mutate adjusts its Config first.
func newEnv(t *testing.T, points int64, mutate func(*Config)) *env {
	t.Helper()
	path := filepath.Join(t.TempDir(), "parley.db")
	st, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	logs := &testenv.SyncBuffer{}
	cfg := Config{Store: st, Logger: slog.New(slog.NewTextHandler(logs, nil))}
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	key, acct, err := st.CreateKey(t.Context(), points)
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, store: st, srv: s, base: hs.URL, client: hs.Client(), key: key, acct: acct, logs: logs, dbPath: path}
}

// newAccount is another funded account on e's service: the same service and
// store, its own key.
func (e *env) newAccount(points int64) *env {
	e.t.Helper()
	key, acct, err := e.store.CreateKey(e.t.Context(), points)
	if err != nil {
		e.t.Fatal(err)
	}
	o := *e
	o.key, o.acct = key, acct
	return &o
}

// openRaw opens the database file as another program would, waiting up to
// busy for a lock.
func openRaw(t testing.TB, path string, busy time.Duration) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)", path, busy.Milliseconds()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// reply is a decoded response.
type reply struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// data returns the "data" object of a success.
func (r reply) data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// code returns error.code of a failure.
func (r reply) code() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// do sends a request with the env's key; body may be a string (sent as is)
// or a value (sent as JSON).
func (e *env) do(method, path string, body any) reply {
	e.t.Helper()
	return e.doKey(e.key, method, path, body)
}

func (e *env) doKey(key, method, path string, body any) reply {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, e.base+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	return e.send(req)
}

func (e *env) send(req *http.Request) reply {
	e.t.Helper()
	resp, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	r := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Errorf("%s %s: Content-Type %q, want application/json", req.Method, req.URL.Path, ct)
	}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		e.t.Errorf("%s %s: body is not a JSON object: %v: %s", req.Method, req.URL.Path, err, raw)
	}
	if r.Status >= 400 {
		eobj, _ := r.Body["error"].(map[string]any)
		msg, _ := eobj["message"].(string)
		if r.code() == "" || msg == "" {
			e.t.Errorf("%s %s: error body without code or message: %s", req.Method, req.URL.Path, raw)
		}
	}
	return r
}

// chat sends a chat message and fails the test unless it succeeds.
func (e *env) chat(body map[string]any) map[string]any {
	e.t.Helper()
	r := e.do("POST", "/v1/chat/messages", body)
	if r.Status != 200 {
		e.t.Fatalf("chat: status %d: %s", r.Status, r.Raw)
	}
	return r.data()
}

// balance returns the env's account balance.
func (e *env) balance() int64 {
	e.t.Helper()
	a, err := e.store.AccountByKey(e.t.Context(), e.key)
	if err != nil {
		e.t.Fatal(err)
	}
	return a.Balance
}

// verify checks the database's integrity and ledger sums.
func (e *env) verify() {
	e.t.Helper()
	if err := e.store.Verify(e.t.Context()); err != nil {
		e.t.Fatalf("Verify: %v", err)
	}
}

// waitFor polls cond until it holds; it fails the test if done delivers
// (the service stopped; nil for none) or 30 seconds pass.
func waitFor(t *testing.T, cond func() bool, done <-chan error) {
	t.Helper()
	testenv.Poll(t, 30*time.Second, 5*time.Millisecond, func() error {
		if cond() {
			return nil
		}
		select {
		case err := <-done:
			t.Fatalf("the service stopped: %v", err)
		default:
		}
		return errors.New("timed out waiting")
	})
}

var (
	listenRE = regexp.MustCompile(`Parley service listening on (http://127\.0\.0\.1:\d+) \(data: `)
	demoRE   = regexp.MustCompile(`Demo key: (pk_\S+)`)
)

// waitForDemo waits for Serve's listening and demo-key lines.
func waitForDemo(t *testing.T, out *testenv.SyncBuffer, done <-chan error) (base, key string) {
	t.Helper()
	waitFor(t, func() bool { return demoRE.MatchString(out.String()) && listenRE.MatchString(out.String()) }, done)
	return listenRE.FindStringSubmatch(out.String())[1], demoRE.FindStringSubmatch(out.String())[1]
}
