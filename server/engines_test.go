package server

import (
	"encoding/base64"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"parley/engine"
	"parley/internal/testenv"
	"parley/server/speech"
)

// TestEngines_RealSpeechRoundTrip runs the local engines behind the API:
// espeak-ng speaks, pocketsphinx hears.
func TestEngines_RealSpeechRoundTrip(t *testing.T) {
	testenv.RequireCommands(t, "espeak-ng", "pocketsphinx_continuous", "lame")
	e := newEnv(t, 10, func(c *Config) {
		c.STT = speech.NewPocketSphinx(speech.PocketSphinxOptions{})
		c.TTS = speech.NewEspeak(speech.EspeakOptions{})
	})

	r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "Good morning, the harbour is calm."})
	if r.Status != 200 {
		t.Fatalf("speech: %d %s", r.Status, r.Raw)
	}
	uri, _ := r.data()["audio"].(string)
	mp3, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:audio/mpeg;base64,"))
	if !strings.HasPrefix(uri, "data:audio/mpeg;base64,") || err != nil || len(mp3) < 1000 {
		t.Fatalf("audio is not an MP3 data URI: %.60s… (%d bytes, %v)", uri, len(mp3), err)
	}
	if !(strings.HasPrefix(string(mp3), "ID3") || mp3[0] == 0xFF && mp3[1]&0xE0 == 0xE0) {
		t.Errorf("audio does not start like an MP3: % x", mp3[:4])
	}
	if r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "hi", "voice": "no-such-voice"}); r.Status != 422 {
		t.Errorf("unknown voice: %d", r.Status)
	}
	if v := e.do("GET", "/v1/chat/voices", nil); len(v.data()["voices"].([]any)) == 0 {
		t.Errorf("no voices listed: %s", v.Raw)
	}

	wav := filepath.Join(t.TempDir(), "q.wav")
	if out, err := exec.Command("espeak-ng", "-v", "en-us", "-w", wav, "what is the weather like in paris today").CombinedOutput(); err != nil {
		t.Fatalf("espeak-ng: %v %s", err, out)
	}
	audio, err := os.ReadFile(wav)
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"data uri": "data:audio/wav;base64," + base64.StdEncoding.EncodeToString(audio),
		"plain":    base64.StdEncoding.EncodeToString(audio),
	} {
		r := e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": in})
		text, _ := r.data()["text"].(string)
		if r.Status != 200 || !strings.Contains(strings.ToLower(text), "weather") {
			t.Errorf("%s: %d %s", name, r.Status, r.Raw)
		}
	}
	r = e.do("POST", "/v1/chat/transcribe", map[string]any{"audio": base64.StdEncoding.EncodeToString([]byte("this is plainly text, not audio at all"))})
	if r.Status != 415 || r.code() != codeUnsupportedAudio {
		t.Errorf("text as audio: %d %s", r.Status, r.Raw)
	}
	if e.balance() != 10 {
		t.Errorf("speech charged points")
	}
}

// A chat engine whose address the person typed, at this computer (127.0.0.1, localhost, ::1), is
// sent nothing when another user's program holds the connection: the call fails saying so; when
// the runtime runs as this user again, it answers.
func TestEngines_RemoteEngineOnThisComputer(t *testing.T) {
	testenv.ForEachLoopback(t, func(t *testing.T, ln net.Listener, host string) {
		rt := &fakeRuntime{t: t, addr: ln.Addr().String()}
		rt.serve(ln)
		t.Cleanup(rt.stop)
		_, port, _ := net.SplitHostPort(rt.addr)
		hostPort := host + ":" + port
		var uid atomic.Int64
		uid.Store(1001)
		eng := NewEngines(0)
		eng.owners = uidCheck(&uid)
		st := eng.Set(t.Context(), engine.Set{Chat: engine.Chat{Kind: engine.Remote, URL: "http://" + hostPort + "/v1", Model: "tiny:latest"}})
		if st.Away {
			t.Errorf("status %+v", st)
		}

		_, err := eng.Complete(t.Context(), ChatRequest{UserText: "my secret plans"})
		var cf *ChatFailure
		var ue *engine.UntrustedError
		want := "The model server at " + hostPort + " on this computer belongs to another user (uid 1001): Parley does not send your conversations to it."
		if !errors.As(err, &cf) || !errors.As(err, &ue) || cf.Sentence() != want {
			t.Errorf("a call: %v\nwant %q", err, want)
		}
		if n := rt.chats(); n != 0 {
			t.Errorf("another user's program was sent %d chats", n)
		}

		uid.Store(1000)
		if reply, err := eng.Complete(t.Context(), ChatRequest{UserText: "hello"}); err != nil || reply != "tiny says hello" {
			t.Errorf("this user's runtime: %q, %v", reply, err)
		}
	})
}
