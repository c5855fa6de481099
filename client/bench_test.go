package client

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// newBenchServer starts a server that discards request bodies and answers every endpoint.
func newBenchServer(b *testing.B) string {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"text":"hello","language":"en","conversation_id":"c1","reply":"hi","conversations":[]}`)
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}
