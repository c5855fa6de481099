package testenv

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// Recorded is one request as a RecordingServer received it.
type Recorded struct {
	Method string
	// Path is the path as it was sent, still escaped.
	Path     string
	RawQuery string
	Header   http.Header
	// Body is what the request carried; nil when the server leaves bodies to its handler.
	Body []byte
}

// RecordingServer is an httptest server on loopback that records each request before its
// handler answers it, for tests that check what a client sent: method, path, headers and body.
type RecordingServer struct {
	*httptest.Server
	// Done is closed when the test ends, before the server is closed, so that handlers that
	// wait on it return.
	Done <-chan struct{}

	mu   sync.Mutex
	reqs []Recorded
}

// NewRecordingServer starts a server that records each request with its body, then lets h
// answer it (h can read the body again). It is closed when the test ends.
func NewRecordingServer(t testing.TB, h http.HandlerFunc) *RecordingServer {
	t.Helper()
	return startRecording(t, h, true)
}

// NewStreamingServer is NewRecordingServer for handlers that read the body themselves (as it
// streams in) or never: it records requests without their bodies.
func NewStreamingServer(t testing.TB, h http.HandlerFunc) *RecordingServer {
	t.Helper()
	return startRecording(t, h, false)
}

func startRecording(t testing.TB, h http.HandlerFunc, readBody bool) *RecordingServer {
	t.Helper()
	done := make(chan struct{})
	s := &RecordingServer{Done: done}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		if readBody {
			body, _ = io.ReadAll(r.Body)
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, Recorded{r.Method, r.URL.EscapedPath(), r.URL.RawQuery, r.Header.Clone(), body})
		s.mu.Unlock()
		if readBody {
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h(w, r)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(done) }) // runs before Close, so blocked handlers return
	return s
}

// Requests returns the requests received so far, in order.
func (s *RecordingServer) Requests() []Recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Recorded(nil), s.reqs...)
}

// Only returns the one request the server received, failing the test unless there was
// exactly one.
func (s *RecordingServer) Only(t testing.TB) Recorded {
	t.Helper()
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	return reqs[0]
}
