package server

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/jsonscan"
	"parley/server/store"
)

// fuzzService is one service shared by a fuzz target's inputs: the real
// handler over a real store, with fake speech engines.
type fuzzService struct {
	h    http.Handler
	key  string
	conv string
}

func newFuzzService(f *testing.F) *fuzzService {
	f.Helper()
	st, err := store.Open(f.Context(), filepath.Join(f.TempDir(), "parley.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	s, err := New(Config{Store: st, STT: &fakeSTT{}, TTS: fakeTTS{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	key, _, err := st.CreateKey(f.Context(), 1<<40)
	if err != nil {
		f.Fatal(err)
	}
	fs := &fuzzService{h: s.Handler(), key: key}
	rec := fs.post("POST", "/v1/chat/messages", []byte(`{"message":"seed"}`))
	if rec.Code != 200 {
		f.Fatalf("seed chat: %d %s", rec.Code, rec.Body)
	}
	_, after, _ := strings.Cut(rec.Body.String(), `"conversation_id":"`)
	fs.conv, _, _ = strings.Cut(after, `"`)
	return fs
}

func (fs *fuzzService) post(method, path string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+fs.key)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	fs.h.ServeHTTP(rec, req)
	return rec
}

// check fails on a 5xx or a body that is not the JSON envelope.
func (fs *fuzzService) check(t *testing.T, rec *httptest.ResponseRecorder, body []byte) {
	t.Helper()
	if rec.Code >= 500 {
		t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Fatalf("Content-Type %q for %q", ct, body)
	}
	if _, err := jsonscan.Object(rec.Body.Bytes()); err != nil {
		t.Fatalf("response is not a JSON object for %q: %s", body, rec.Body)
	}
}

func addSeeds(f *testing.F, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
}

func FuzzChatBody(f *testing.F) {
	fs := newFuzzService(f)
	addSeeds(f, `{"message":"hi"}`, `{"message":"hi","persona":"a cook","temperature":0.5,"top_p":1,"max_tokens":3}`,
		`{"message":"What did I say first?","conversation_id":"CONV"}`, `{"message":""}`, `{"message":1}`,
		`{"message":"x","max_tokens":1e400}`, `{"message":"x","temperature":-0}`, `{"message":"\u0000"}`, `{"message":"x","conversation_id":null}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		body = bytes.ReplaceAll(body, []byte("CONV"), []byte(fs.conv))
		fs.check(t, fs.post("POST", "/v1/chat/messages", body), body)
	})
}

func FuzzConfigPatchBody(f *testing.F) {
	fs := newFuzzService(f)
	addSeeds(f, `{}`, `{"persona":null,"temperature":null,"top_p":null,"max_tokens":null}`,
		`{"persona":"p","temperature":2,"top_p":0,"max_tokens":32768}`, `{"max_tokens":0.5}`, `{"top_p":"x"}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		fs.check(t, fs.post("PATCH", "/v1/chat/conversations/"+fs.conv+"/config", body), body)
	})
}

func FuzzTranscribeBody(f *testing.F) {
	fs := newFuzzService(f)
	addSeeds(f, `{"audio":"data:audio/webm;base64,GkXfo0AgQoaBAUL3gQFC8oEEQvOBCEKChHdlYm0="}`, `{"audio":"UklGRg=="}`,
		`{"audio":"data:;base64,AAAA"}`, `{"audio":"data:audio/x;codecs=\"a,b\";base64,AAAA"}`, `{"audio":"A"}`,
		`{"audio":"AA==AA=="}`, `{"audio":"-_-_"}`, `{"audio":"data:text/plain,hi"}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		fs.check(t, fs.post("POST", "/v1/chat/transcribe", body), body)
	})
}

func FuzzSpeechBody(f *testing.F) {
	fs := newFuzzService(f)
	addSeeds(f, `{"text":"hello"}`, `{"text":"hello","voice":"fr"}`, `{"text":"hello","voice":"nope"}`, `{"text":" "}`, `{"voice":"en-us"}`)
	f.Fuzz(func(t *testing.T, body []byte) {
		fs.check(t, fs.post("POST", "/v1/chat/speech", body), body)
	})
}
