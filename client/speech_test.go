package client

import (
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"testing"

	"parley/internal/testenv"

	"github.com/google/go-cmp/cmp"
)

var mp3 = []byte("\xff\xfb\x90\x64fake mp3 frame")

func TestSpeak_Request(t *testing.T) {
	tests := []struct {
		name string
		req  SpeechRequest
		want string
	}{
		{"no voice", SpeechRequest{Text: "hello"}, `{"text":"hello"}`},
		{"voice", SpeechRequest{Text: "hello", Voice: "alloy"}, `{"text":"hello","voice":"alloy"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, `{"audio":"data:audio/mpeg;base64,`+base64.StdEncoding.EncodeToString(mp3)+`"}`))
			c := newTestClient(t, ts.URL)
			if _, err := c.Speak(t.Context(), tt.req); err != nil {
				t.Fatalf("Speak: %v", err)
			}
			r := ts.Only(t)
			if r.Method != http.MethodPost || r.Path != "/v1/chat/speech" {
				t.Errorf("request = %s %s", r.Method, r.Path)
			}
			checkCommonHeaders(t, r, true)
			jsonEqual(t, r.Body, tt.want)
		})
	}
}

func TestSpeak_TolerantShapes(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(mp3)
	uri := "data:audio/mpeg;base64," + b64
	tests := []struct {
		name        string
		contentType string
		body        string
		want        Speech
	}{
		{"spec shape", "application/json", `{"audio":"` + uri + `"}`, Speech{"audio/mpeg", mp3}},
		{"data envelope", "application/json", `{"data":{"audio":"` + uri + `"}}`, Speech{"audio/mpeg", mp3}},
		{"code envelope", "application/json", `{"code":0,"msg":"ok","data":{"audio":"` + uri + `"}}`, Speech{"audio/mpeg", mp3}},
		{"plain base64 is MP3", "application/json", `{"audio":"` + b64 + `"}`, Speech{"audio/mpeg", mp3}},
		{"plain base64 with format", "application/json", `{"audio_base64":"` + b64 + `","format":"wav"}`, Speech{"audio/wav", mp3}},
		{"unpadded url-safe", "application/json", `{"audio":"data:audio/mpeg;base64,` + base64.RawURLEncoding.EncodeToString(mp3) + `"}`,
			Speech{"audio/mpeg", mp3}},
		{"raw audio answer", "audio/mpeg", string(mp3), Speech{"audio/mpeg", mp3}},
		{"json string", "application/json", `"` + uri + `"`, Speech{"audio/mpeg", mp3}},
		{"reference service", "application/json", `{"data":{"audio":"` + uri + `","voice":"en-gb"}}`, Speech{"audio/mpeg", mp3}},
		{"audio of wrong type", "application/json", `{"audio":{"id":"a1"},"audio_base64":"` + b64 + `"}`, Speech{"audio/mpeg", mp3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tt.contentType)
				_, _ = io.WriteString(w, tt.body)
			})
			c := newTestClient(t, ts.URL)
			got, err := c.Speak(t.Context(), SpeechRequest{Text: "hi"})
			if err != nil {
				t.Fatalf("Speak: %v", err)
			}
			if diff := cmp.Diff(tt.want, *got); diff != "" {
				t.Errorf("Speech (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSpeak_Bad(t *testing.T) {
	tests := []struct{ name, body string }{
		{"no audio", `{"text":"hi"}`},
		{"empty audio", `{"audio":""}`},
		{"not base64", `{"audio":"data:audio/mpeg;base64,@@@@"}`},
		{"html", `<html><title>hi</title></html>`},
		{"a link is not audio", `{"url":"https://cdn.example.com/a.mp3"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			if _, err := c.Speak(t.Context(), SpeechRequest{Text: "hi"}); err == nil {
				t.Fatal("no error")
			}
		})
	}
	ts := testenv.NewRecordingServer(t, reply(200, `{}`))
	c := newTestClient(t, ts.URL)
	if _, err := c.Speak(t.Context(), SpeechRequest{Text: " "}); err == nil {
		t.Error("empty text was sent")
	}
	var de *DecodeError
	if _, err := c.Speak(t.Context(), SpeechRequest{Text: "x"}); !errors.As(err, &de) || de.Field != "audio" {
		t.Errorf("err = %v, want *DecodeError for audio", err)
	}
}
