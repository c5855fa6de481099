package server

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/engine"
)

// fakeRuntime is a model runtime on this computer, as Ollama serves one: a model list and chat
// completions, at a port that stays the same when it is stopped and started again.
type fakeRuntime struct {
	t    *testing.T
	addr string
	// die: the next chat request ends the connection before any reply, as a runtime that
	// stops mid-reply does.
	die atomic.Bool
	// held, when set, is told of each chat request, which then waits for release.
	held, release chan struct{}
	mu            sync.Mutex
	srv           *http.Server
	requests      []map[string]any
}

func newFakeRuntime(t *testing.T) *fakeRuntime {
	t.Helper()
	rt := &fakeRuntime{t: t}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt.addr = ln.Addr().String()
	rt.serve(ln)
	t.Cleanup(rt.stop)
	return rt
}

func (rt *fakeRuntime) url() string { return "http://" + rt.addr + "/v1" }

func (rt *fakeRuntime) serve(ln net.Listener) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"object":"list","data":[{"id":"tiny:latest","owned_by":"library"}]}`)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		rt.mu.Lock()
		rt.requests = append(rt.requests, body)
		rt.mu.Unlock()
		if rt.held != nil {
			rt.held <- struct{}{}
			<-rt.release
		}
		if rt.die.Load() {
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"tiny says hello"}}]}`)
	})
	srv := &http.Server{Handler: mux}
	rt.mu.Lock()
	rt.srv = srv
	rt.mu.Unlock()
	go srv.Serve(ln)
}

func (rt *fakeRuntime) stop() {
	rt.mu.Lock()
	srv := rt.srv
	rt.srv = nil
	rt.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// restart serves again at the same address.
func (rt *fakeRuntime) restart() {
	rt.t.Helper()
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ {
		if ln, err = net.Listen("tcp", rt.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond) // the port is freed as the old server's sockets close
	}
	if err != nil {
		rt.t.Fatalf("listening again on %s: %v", rt.addr, err)
	}
	rt.serve(ln)
}

func (rt *fakeRuntime) chat() engine.Chat {
	return engine.Chat{Kind: engine.Detected, URL: rt.url(), Model: "tiny:latest", Runtime: "Ollama"}
}

// A runtime found on this computer answers; when it dies mid-reply the call is refunded with a
// message naming it, the person is told, and the offline responder answers until it is back.
func TestEngines_RuntimeGoesAndComesBack(t *testing.T) {
	old := recheckEvery
	recheckEvery = 300 * time.Millisecond
	t.Cleanup(func() { recheckEvery = old })
	rt := newFakeRuntime(t)
	eng := NewEngines(5 * time.Second)
	notices := make(chan engine.Status, 10)
	eng.OnStatus(func(s engine.Status) { notices <- s })
	st := eng.Set(t.Context(), engine.Set{Chat: rt.chat()})
	if st.FellBack || st.Chat != "tiny, from Ollama on this computer" || st.Short != "tiny from Ollama" {
		t.Fatalf("status %+v", st)
	}
	e := newEnv(t, 10, func(c *Config) { c.LLM, c.STT, c.TTS, c.ExplainUpstream = eng, eng, eng, true })

	if got := e.chat(map[string]any{"message": "hi"})["reply"]; got != "tiny says hello" {
		t.Fatalf("reply %v", got)
	}
	if acct := e.do("GET", "/v1/account", nil).data(); acct["chat_engine"] != "tiny, from Ollama on this computer" {
		t.Errorf("account says %v", acct)
	}

	rt.die.Store(true)
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "are you there?"})
	rt.stop() // the process is gone, as it would be
	msg, _ := r.Body["error"].(map[string]any)["message"].(string)
	if r.Status != http.StatusBadGateway || msg != "Ollama on this computer did not answer: is it still running? The points for this call were refunded." {
		t.Fatalf("a call the runtime died in: %d %s", r.Status, r.Raw)
	}
	if e.balance() != 9 {
		t.Errorf("balance %d; want 9 (one call charged, the failed one refunded)", e.balance())
	}
	select {
	case s := <-notices:
		if !s.FellBack || !strings.Contains(s.Notice, "Ollama on this computer stopped answering") || s.Short != "offline responder while Ollama is away" {
			t.Errorf("notice %+v", s)
		}
	default:
		t.Error("the person was not told that the runtime went away")
	}

	reply, _ := e.chat(map[string]any{"message": "what is the capital of France"})["reply"].(string)
	if !strings.HasPrefix(reply, "[offline] ") {
		t.Errorf("with the runtime away, the reply is %q; want the offline responder's", reply)
	}
	if acct := e.do("GET", "/v1/account", nil).data(); acct["chat_engine"] != "the offline responder" {
		t.Errorf("account says %v while the runtime is away", acct)
	}

	rt.die.Store(false)
	rt.restart()
	// The person hears of it without sending anything: the service asks in the background.
	select {
	case s := <-notices:
		if s.FellBack || s.Notice != "Ollama on this computer is back: tiny answers again." {
			t.Errorf("notice %+v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the person was not told that the runtime is back")
	}
	if got := e.chat(map[string]any{"message": "back?"})["reply"]; got != "tiny says hello" {
		t.Errorf("with the runtime back, the reply is %v", got)
	}
	e.verify()
}

// A runtime chosen before that does not run when the service starts: the offline responder
// answers, and the status says why.
func TestEngines_ChosenRuntimeNotRunning(t *testing.T) {
	rt := newFakeRuntime(t)
	rt.stop()
	st := NewEngines(0).Set(t.Context(), engine.Set{Chat: rt.chat()})
	if !st.FellBack || st.Chat != "the offline responder" ||
		st.Notice != "Ollama on this computer is not running: the offline responder answers until it is. Start it, or choose another engine in Preferences → Built-in service." {
		t.Errorf("status %+v", st)
	}
}

// The persona, the settings and the conversation's earlier turns reach the model; what does not
// fit its window is left out, oldest first.
func TestEngines_ContextBoundedByWindow(t *testing.T) {
	rt := newFakeRuntime(t)
	c := rt.chat()
	c.ContextTokens = 600
	eng := NewEngines(0)
	eng.Set(t.Context(), engine.Set{Chat: c})
	e := newEnv(t, 100, func(cfg *Config) { cfg.LLM = eng })
	first := e.chat(map[string]any{"message": "first question " + strings.Repeat("x", 600),
		"persona": "a ship's navigator", "temperature": 0.3, "max_tokens": 100})
	id := first["conversation_id"]
	for i := 0; i < 4; i++ {
		e.chat(map[string]any{"conversation_id": id, "message": "turn " + strings.Repeat("y", 200)})
	}
	e.chat(map[string]any{"conversation_id": id, "message": "last"})
	rt.mu.Lock()
	last := rt.requests[len(rt.requests)-1]
	rt.mu.Unlock()
	msgs := last["messages"].([]any)
	first0 := msgs[0].(map[string]any)
	if first0["role"] != "system" || first0["content"] != "a ship's navigator" || last["temperature"] != 0.3 || last["max_tokens"] != 100.0 {
		t.Errorf("request %v; want the persona first, and the saved settings", last)
	}
	total := 0
	for _, m := range msgs {
		content := m.(map[string]any)["content"].(string)
		if strings.HasPrefix(content, "first question") {
			t.Error("the oldest turn was sent though it does not fit the window")
		}
		total += estimateTokens(content)
	}
	if total > 600-100 {
		t.Errorf("the prompt is about %d tokens; the window leaves %d after the reply", total, 500)
	}
	if len(msgs) < 4 || msgs[len(msgs)-1].(map[string]any)["content"] != "last" {
		t.Errorf("sent %d messages; want the persona, the newest turns that fit and the question", len(msgs))
	}

	// A max_tokens larger than the window leaves is cut to what it leaves: the runtime reported
	// its window, and would refuse a request that cannot fit it.
	e.chat(map[string]any{"message": "a long answer please", "max_tokens": 1000})
	rt.mu.Lock()
	last = rt.requests[len(rt.requests)-1]
	rt.mu.Unlock()
	if last["max_tokens"] != 300.0 {
		t.Errorf("max_tokens sent: %v; want 300, half the 600-token window", last["max_tokens"])
	}
}

func TestTryChat(t *testing.T) {
	rt := newFakeRuntime(t)
	line, err := TryChat(t.Context(), rt.chat())
	if err != nil || !strings.HasPrefix(line, "tiny answered in ") || !strings.HasSuffix(line, " s: “tiny says hello”") {
		t.Errorf("TryChat = %q, %v", line, err)
	}
	if line, err := TryChat(t.Context(), engine.Chat{Kind: engine.Offline}); err != nil || !strings.Contains(line, "cannot think") {
		t.Errorf("offline: %q, %v", line, err)
	}
	keyed := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-right" {
			http.Error(w, `{"error":{"message":"Incorrect API key provided: sk-wrong"}}`, http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"content":"ok"}}]}`)
	})
	remote := engine.Chat{Kind: engine.Remote, URL: keyed.URL + "/v1", Model: "gpt-x", Key: "sk-wrong"}
	_, err = TryChat(t.Context(), remote)
	if err == nil || err.Error() != "The model server at "+strings.TrimPrefix(keyed.URL, "http://")+" on this computer refused the API key (401): check the key" {
		t.Errorf("wrong key: %v", err)
	}
	remote.Key = "sk-right"
	if line, err := TryChat(t.Context(), remote); err != nil || !strings.HasPrefix(line, "gpt-x answered in ") {
		t.Errorf("right key: %q, %v", line, err)
	}
	rt.stop()
	if _, err := TryChat(t.Context(), rt.chat()); err == nil || err.Error() != "Ollama on this computer did not answer: is it still running?" {
		t.Errorf("stopped runtime: %v", err)
	}
	if _, err := TryChat(t.Context(), engine.Chat{Kind: engine.Remote, URL: "http://example.com/v1", Model: "m"}); err == nil || !strings.Contains(err.Error(), "use https") {
		t.Errorf("plain http elsewhere: %v", err)
	}
}

func TestTrySpeech_Remote(t *testing.T) {
	mp3, err := os.ReadFile("../media/testdata/hello.mp3")
	if err != nil {
		t.Fatal(err)
	}
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-speech" {
			http.Error(w, `{"error":{"message":"no key"}}`, http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/v1/audio/transcriptions":
			io.WriteString(w, `{"text":"testing one two three"}`)
		case "/v1/audio/speech":
			w.Header().Set("Content-Type", "audio/mpeg")
			w.Write(mp3)
		default:
			http.NotFound(w, r)
		}
	})
	s := engine.Speech{Remote: true, URL: up.URL + "/v1", Model: "whisper-1", Key: "sk-speech"}
	if line, err := TrySpeechRecognition(t.Context(), s); err != nil || !strings.Contains(line, "“testing one two three”") {
		t.Errorf("TrySpeechRecognition = %q, %v", line, err)
	}
	s.Model = "tts-1"
	line, audio, err := TryVoices(t.Context(), s)
	if err != nil || len(audio) != len(mp3) || !strings.HasPrefix(line, "Spoke ") {
		t.Errorf("TryVoices = %q, %d bytes, %v", line, len(audio), err)
	}
	s.Key = "sk-wrong"
	if _, _, err := TryVoices(t.Context(), s); err == nil || !strings.Contains(err.Error(), "refused the API key (401)") || strings.Contains(err.Error(), "sk-wrong") {
		t.Errorf("wrong key: %v", err)
	}
}

// A service whose model runs elsewhere tells its clients that the model failed, not where it
// runs or what it said: the host may be one its operator keeps private.
func TestChat_UpstreamDetailsStayInTheLog(t *testing.T) {
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"model gpt-x is not on internal-llm.corp"}}`, http.StatusNotFound)
	})
	model := NewOpenAIChatWith(OpenAIChatOptions{BaseURL: up.URL + "/v1", Model: "gpt-x", Where: "internal-llm.corp"})
	e := newEnv(t, 10, func(c *Config) { c.LLM = model })
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
	msg, _ := r.Body["error"].(map[string]any)["message"].(string)
	if r.Status != http.StatusBadGateway || msg != "The chat model failed to answer; the points for this call were refunded." {
		t.Errorf("%d %s", r.Status, r.Raw)
	}
	if !strings.Contains(e.logs.String(), "internal-llm.corp") {
		t.Error("the log does not say what failed")
	}
	if acct := e.do("GET", "/v1/account", nil).data(); acct["chat_engine"] != "gpt-x" {
		t.Errorf("account says %v; want the model's name only", acct["chat_engine"])
	}
}

// The app's own service speaks with the default voice when a conversation names a voice of the
// engine it used before; any other service refuses the voice.
func TestSpeech_LenientVoices(t *testing.T) {
	mp3, err := os.ReadFile("../media/testdata/hello.mp3")
	if err != nil {
		t.Fatal(err)
	}
	var asked atomic.Value
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		asked.Store(body["voice"])
		w.Write(mp3)
	})
	eng := NewEngines(0)
	eng.Set(t.Context(), engine.Set{TTS: engine.Speech{Remote: true, URL: up.URL + "/v1", Model: "tts-1"}})
	for _, lenient := range []bool{false, true} {
		e := newEnv(t, 10, func(c *Config) { c.STT, c.TTS, c.LenientVoices = eng, eng, lenient })
		r := e.do("POST", "/v1/chat/speech", map[string]any{"text": "Hello there.", "voice": "slt"})
		switch {
		case !lenient && (r.Status != 422 || r.code() != "unknown_voice"):
			t.Errorf("strict: %d %s", r.Status, r.Raw)
		case lenient && (r.Status != 200 || asked.Load() != "alloy"):
			t.Errorf("lenient: %d %s, the engine was asked for voice %v", r.Status, r.Raw, asked.Load())
		}
	}
}

// A runtime that dies in a call that began before the person chose another engine says
// nothing: the status bar shows the engine in use, not the one replaced.
func TestEngines_ReplacedRuntimeSaysNothing(t *testing.T) {
	rt := newFakeRuntime(t)
	rt.held, rt.release = make(chan struct{}), make(chan struct{})
	rt.die.Store(true)
	eng := NewEngines(5 * time.Second)
	notices := make(chan engine.Status, 10)
	eng.OnStatus(func(s engine.Status) { notices <- s })
	eng.Set(t.Context(), engine.Set{Chat: rt.chat()})
	done := make(chan error, 1)
	go func() {
		_, err := eng.Complete(t.Context(), ChatRequest{UserText: "hi"})
		done <- err
	}()
	<-rt.held
	eng.Set(t.Context(), engine.Set{Chat: engine.Chat{Kind: engine.Offline}})
	close(rt.release)
	if err := <-done; err == nil {
		t.Fatal("the call the runtime died in succeeded")
	}
	select {
	case s := <-notices: // a notice comes before the call returns, if it comes at all
		t.Errorf("a notice about the engine replaced: %+v", s)
	default:
	}
	if st := eng.Status(); st.FellBack || st.Chat != "the offline responder" {
		t.Errorf("status %+v", st)
	}
}
