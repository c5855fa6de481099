package testenv

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"
)

// Request is one request as a FakeService received it.
type Request struct {
	Method, Path, Query, Auth, ContentType string
	// Body is the JSON body, decoded; nil when there was none.
	Body map[string]any
}

// FakeService is a scripted Chat and Voice Service on loopback that records every request, for
// the tests of the CLI in-process and of the built binary. A route it was not given answers 404
// in the service's error shape; a body that is not JSON fails the test.
type FakeService struct {
	// URL is the service's base address.
	URL    string
	srv    *RecordingServer
	mu     sync.Mutex
	routes map[string]http.HandlerFunc // by "METHOD /path"
}

// NewFakeService starts a fake service, closed when the test ends.
func NewFakeService(t testing.TB) *FakeService {
	t.Helper()
	f := &FakeService{routes: map[string]http.HandlerFunc{}}
	f.srv = NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if b, _ := io.ReadAll(r.Body); len(b) > 0 {
			var body map[string]any
			if err := json.Unmarshal(b, &body); err != nil {
				t.Errorf("%s %s: body is not JSON: %q", r.Method, r.URL.Path, b)
			}
		}
		f.mu.Lock()
		h := f.routes[r.Method+" "+r.URL.Path]
		f.mu.Unlock()
		if h == nil {
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":{"code":"not_found","message":"No such route."}}`)
			return
		}
		h(w, r)
	})
	f.URL = f.srv.URL
	return f
}

// On answers route ("METHOD /path") with a status and a JSON body.
func (f *FakeService) On(route string, status int, body string) {
	f.Handle(route, func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, body)
	})
}

// Handle answers route ("METHOD /path") with fn.
func (f *FakeService) Handle(route string, fn http.HandlerFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.routes[route] = fn
}

// Requests returns the requests received so far.
func (f *FakeService) Requests() []Request {
	var out []Request
	for _, r := range f.srv.Requests() {
		path, _ := url.PathUnescape(r.Path)
		req := Request{Method: r.Method, Path: path, Query: r.RawQuery, Auth: r.Header.Get("Authorization"), ContentType: r.Header.Get("Content-Type")}
		if len(r.Body) > 0 {
			json.Unmarshal(r.Body, &req.Body)
		}
		out = append(out, req)
	}
	return out
}
