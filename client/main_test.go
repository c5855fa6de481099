package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/testenv"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// canaryKey is an API key that must never appear in any error text or log line.
const canaryKey = "sk-canary-7f3a9d1e5b0c"

// testClient is a Client with its log and the retry waits it asked for.
type testClient struct {
	*Client
	logs *testenv.SyncBuffer

	mu    sync.Mutex
	waits []time.Duration
}

func (tc *testClient) retryWaits() []time.Duration {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return append([]time.Duration(nil), tc.waits...)
}

// newTestClient returns a client for baseURL with the canary key, a debug log in a buffer, and
// retry waits recorded instead of slept. At cleanup it checks the log never holds the key.
func newTestClient(t *testing.T, baseURL string, opts ...func(*Options)) *testClient {
	t.Helper()
	logs := &testenv.SyncBuffer{}
	o := Options{
		BaseURL: baseURL,
		APIKey:  canaryKey,
		Logger:  slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	for _, f := range opts {
		f(&o)
	}
	c, err := New(o)
	if err != nil {
		t.Fatalf("New(%q): %v", baseURL, err)
	}
	tc := &testClient{Client: c, logs: logs}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		tc.mu.Lock()
		tc.waits = append(tc.waits, d)
		tc.mu.Unlock()
		return ctx.Err()
	}
	c.pace.Base = time.Millisecond
	t.Cleanup(func() {
		c.CloseIdleConnections()
		if strings.Contains(logs.String(), canaryKey) {
			t.Errorf("the API key appears in the log:\n%s", logs.String())
		}
	})
	return tc
}

// checkErrorText fails if the error's text reveals the key.
func checkErrorText(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), canaryKey) {
		t.Errorf("error text reveals the API key: %v", err)
	}
}

// checkCommonHeaders checks what every request must carry.
func checkCommonHeaders(t *testing.T, r testenv.Recorded, wantBody bool) {
	t.Helper()
	if got := r.Header.Get("Authorization"); got != "Bearer "+canaryKey {
		t.Errorf("Authorization = %q, want the bearer key", got)
	}
	if got := r.Header.Get("Idempotency-Key"); got != "" {
		t.Errorf("Idempotency-Key = %q, want none", got)
	}
	if got := r.Header.Get("User-Agent"); got == "" {
		t.Error("no User-Agent")
	}
	ct := r.Header.Get("Content-Type")
	switch {
	case wantBody && ct != "application/json":
		t.Errorf("Content-Type = %q, want application/json", ct)
	case !wantBody && len(r.Body) != 0:
		t.Errorf("unexpected body %q", r.Body)
	}
}

// jsonEqual fails unless got is the JSON document want (compared as values).
func jsonEqual(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("body %q is not JSON: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad want %q: %v", want, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("body = %s, want %s", got, want)
	}
}

// reply answers with status and body as JSON.
func reply(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

func ptr[T any](v T) *T { return &v }

// httptestTLS starts an https server on 127.0.0.1 serialising its handler.
func httptestTLS(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	var mu sync.Mutex
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.Client().CloseIdleConnections)
	return srv
}

// httptestUnstarted returns an unstarted server on 127.0.0.1, closed at cleanup.
func httptestUnstarted(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// strID is a conversation ID the service gave as a JSON string.
func strID(s string) ConversationID { return ConversationID{text: s, form: formString} }

// numID is a conversation ID the service gave as a JSON number.
func numID(s string) ConversationID { return ConversationID{text: s, form: formNumber} }

// typedID is a conversation ID typed by a person.
func typedID(t *testing.T, s string) ConversationID {
	t.Helper()
	id, err := ParseConversationID(s)
	if err != nil {
		t.Fatalf("ParseConversationID(%q): %v", s, err)
	}
	return id
}

// cmpIDs lets cmp compare conversation IDs, form included.
var cmpIDs = cmp.Options{
	cmp.Comparer(func(a, b ConversationID) bool { return a == b }),
	cmp.Comparer(func(a, b MessageID) bool { return a == b }),
}

// numMsg and strMsg are message IDs the service wrote as a JSON number and as a string.
func numMsg(s string) MessageID { return MessageID{text: s, number: true} }
func strMsg(s string) MessageID { return MessageID{text: s} }
