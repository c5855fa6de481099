package testenv

import (
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// WhisperKind is the API a stand-in speech recognition server speaks.
type WhisperKind int

// The stand-ins.
const (
	// WhisperOpenAI lists "Systran/faster-whisper-small" at GET /v1/models and answers POST
	// /v1/audio/transcriptions (multipart "file" and "model"), as speaches does.
	WhisperOpenAI WhisperKind = iota
	// WhisperCpp serves whisper.cpp's server's front page at GET / and answers POST /inference
	// (multipart "file", a 16 kHz mono WAV), as whisper.cpp's server does.
	WhisperCpp
	// WhisperHung takes connections and never answers.
	WhisperHung
)

// WhisperStandIn is a stand-in speech recognition server on 127.0.0.1, serving until the test
// ends: it answers every recognition with Text, and counts them.
type WhisperStandIn struct {
	Port int
	// Text is what it says it heard.
	Text string
	// Heard counts the recognitions it answered; Bad those it refused (no audio, a WAV not at
	// 16 kHz mono for whisper.cpp, no model named for the OpenAI shape).
	Heard, Bad atomic.Int64
	// Models counts the model lists and front pages it served.
	Models atomic.Int64
	// Language is the language field of the last recognition ("" for none).
	Language atomic.Value
}

// StartWhisper starts a stand-in of kind that says it heard text.
func StartWhisper(t testing.TB, kind WhisperKind, text string) *WhisperStandIn {
	t.Helper()
	w := &WhisperStandIn{Text: text}
	if kind == WhisperHung {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		HoldConnections(t, ln, nil)
		w.Port = ln.Addr().(*net.TCPAddr).Port
		return w
	}
	mux := http.NewServeMux()
	answer := func(rw http.ResponseWriter, body any) {
		rw.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(rw).Encode(body)
	}
	switch kind {
	case WhisperOpenAI:
		mux.HandleFunc("GET /v1/models", func(rw http.ResponseWriter, r *http.Request) {
			w.Models.Add(1)
			answer(rw, map[string]any{"object": "list", "data": []map[string]any{
				{"id": "Systran/faster-whisper-small", "object": "model", "owned_by": "Systran"},
			}})
		})
		mux.HandleFunc("POST /v1/audio/transcriptions", func(rw http.ResponseWriter, r *http.Request) {
			audio := uploaded(r)
			if len(audio) == 0 || r.FormValue("model") != "Systran/faster-whisper-small" {
				w.Bad.Add(1)
				http.Error(rw, `{"detail":"no audio or no model"}`, http.StatusBadRequest)
				return
			}
			w.Heard.Add(1)
			answer(rw, map[string]any{"text": w.Text, "language": "en", "duration": 2.5})
		})
	case WhisperCpp:
		mux.HandleFunc("GET /{$}", func(rw http.ResponseWriter, r *http.Request) {
			w.Models.Add(1)
			rw.Header().Set("Content-Type", "text/html")
			io.WriteString(rw, "<html><head><title>Whisper.cpp Server</title></head><body><h1>Whisper.cpp Server</h1></body></html>")
		})
		mux.HandleFunc("POST /inference", func(rw http.ResponseWriter, r *http.Request) {
			wav := uploaded(r)
			if len(wav) < 44 || string(wav[:4]) != "RIFF" || string(wav[8:12]) != "WAVE" ||
				binary.LittleEndian.Uint16(wav[22:]) != 1 || binary.LittleEndian.Uint32(wav[24:]) != 16000 {
				w.Bad.Add(1)
				answer(rw, map[string]any{"error": "FFmpeg conversion failed."})
				return
			}
			w.Heard.Add(1)
			w.Language.Store(r.FormValue("language"))
			answer(rw, map[string]any{"text": " " + w.Text + "\n"})
		})
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	w.Port = srv.Listener.Addr().(*net.TCPAddr).Port
	return w
}

// uploaded is the "file" part of a multipart request, nil without one.
func uploaded(r *http.Request) []byte {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		return nil
	}
	f, _, err := r.FormFile("file")
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	return b
}

// ClosedPort is a port of 127.0.0.1 where nothing listens, and where nothing will until the test
// ends: a socket is bound to it and never listens (a connection is refused), so that no other
// test's server, in this process or another, is given the port meanwhile.
func ClosedPort(t testing.TB) int {
	t.Helper()
	return reservedPort(t)
}
