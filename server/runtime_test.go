package server

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strconv"
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
	// listed counts the requests of its model list.
	listed atomic.Int64
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
		rt.listed.Add(1)
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

// chats is how many chat requests it got.
func (rt *fakeRuntime) chats() int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return len(rt.requests)
}

func (rt *fakeRuntime) chat() engine.Chat {
	return engine.Chat{Kind: engine.Detected, URL: rt.url(), Model: "tiny:latest", Runtime: "Ollama"}
}

// errorMessage is error.message of a failure, "" for a success.
func errorMessage(r reply) string {
	eobj, _ := r.Body["error"].(map[string]any)
	msg, _ := eobj["message"].(string)
	return msg
}

// A runtime found on this computer answers; when it dies mid-reply the call is refunded with a
// message naming it, the person is told, and calls fail, refunded, until it is back.
func TestEngines_RuntimeGoesAndComesBack(t *testing.T) {
	rt := newFakeRuntime(t)
	eng := NewEngines(5 * time.Second)
	eng.recheckEvery = 300 * time.Millisecond
	notices := make(chan engine.Status, 10)
	eng.OnStatus(func(s engine.Status) { notices <- s })
	st := eng.Set(t.Context(), engine.Set{Chat: rt.chat()})
	if st.Away || st.Chat != "tiny, from Ollama on this computer" || st.Short != "tiny from Ollama" || st.Notice != "" {
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
	if r.Status != http.StatusBadGateway || errorMessage(r) != "Ollama on this computer did not answer: is it still running? The points for this call were refunded." {
		t.Fatalf("a call the runtime died in: %d %s", r.Status, r.Raw)
	}
	if e.balance() != 9 {
		t.Errorf("balance %d; want 9 (one call charged, the failed one refunded)", e.balance())
	}
	select {
	case s := <-notices:
		if !s.Away || s.Short != "tiny from Ollama (not running)" ||
			s.Notice != "Ollama on this computer stopped answering: chat calls fail, and cost nothing, until it is back. Start it again, or choose another engine in Preferences → Built-in service." {
			t.Errorf("notice %+v", s)
		}
	default:
		t.Error("the person was not told that the runtime went away")
	}

	r = e.do("POST", "/v1/chat/messages", map[string]any{"message": "what is the capital of France"})
	if r.Status != http.StatusBadGateway || !strings.HasPrefix(errorMessage(r), "Ollama on this computer is not running: start it") || e.balance() != 9 {
		t.Errorf("with the runtime away: %d %s, balance %d; want a refunded failure", r.Status, r.Raw, e.balance())
	}
	if acct := e.do("GET", "/v1/account", nil).data(); acct["chat_engine"] != "tiny, from Ollama on this computer (not running)" {
		t.Errorf("account says %v while the runtime is away", acct)
	}

	rt.die.Store(false)
	rt.restart()
	// The person hears of it without sending anything: the service asks in the background.
	select {
	case s := <-notices:
		if s.Away || s.Short != "tiny from Ollama" || s.Notice != "Ollama on this computer is back: tiny answers again." {
			t.Errorf("notice %+v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the person was not told that the runtime is back")
	}
	if got := e.chat(map[string]any{"message": "back?"})["reply"]; got != "tiny says hello" {
		t.Errorf("with the runtime back, the reply is %v", got)
	}
	if e.balance() != 8 {
		t.Errorf("balance %d; want 8", e.balance())
	}
	e.verify()
}

// A runtime chosen before that does not run when the service starts: the status says so, and
// chat calls fail, refunded, until it runs.
func TestEngines_ChosenRuntimeNotRunning(t *testing.T) {
	rt := newFakeRuntime(t)
	rt.stop()
	eng := NewEngines(0)
	st := eng.Set(t.Context(), engine.Set{Chat: rt.chat()})
	if !st.Away || st.Chat != "tiny, from Ollama on this computer (not running)" ||
		st.Notice != "Ollama on this computer is not running: chat calls fail, and cost nothing, until it is. Start it, or choose another engine in Preferences → Built-in service." {
		t.Errorf("status %+v", st)
	}
	e := newEnv(t, 10, func(c *Config) { c.LLM, c.ExplainUpstream = eng, true })
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hello"})
	if r.Status != http.StatusBadGateway || strings.Contains(string(r.Raw), "[offline]") || e.balance() != 10 {
		t.Errorf("a call: %d %s, balance %d; want a refunded failure", r.Status, r.Raw, e.balance())
	}
	// A `parley serve --llm auto` says what its operator can do.
	eng.served = true
	if st := eng.Set(t.Context(), engine.Set{Chat: rt.chat()}); !strings.HasSuffix(st.Notice, "Start it, or start parley serve with another engine.") {
		t.Errorf("parley serve's notice: %q", st.Notice)
	}
}

// uidCheck is an OwnerCheck whose answer the test changes: the runtime's end of each connection
// is held by the uid stored, which is trusted when it is 1000 (this user) or below 1000.
func uidCheck(uid *atomic.Int64) engine.OwnerCheck {
	return func(_, _ netip.AddrPort) (engine.Owner, error) {
		u := uid.Load()
		id := strconv.FormatInt(u, 10)
		return engine.Owner{ID: id, Name: "uid " + id, Trusted: u <= 1000}, nil
	}
}

// A runtime whose port another user's program listens on is sent nothing, not even a probe:
// calls fail, refunded, with a line that says why; when the runtime runs as this user again, it
// answers.
func TestEngines_AnotherUsersRuntime(t *testing.T) {
	rt := newFakeRuntime(t)
	var uid atomic.Int64
	uid.Store(1001)
	eng := NewEngines(5 * time.Second)
	eng.recheckEvery = 50 * time.Millisecond
	eng.owners = uidCheck(&uid)
	notices := make(chan engine.Status, 10)
	eng.OnStatus(func(s engine.Status) { notices <- s })
	port := strings.TrimPrefix(rt.addr, "127.0.0.1:")
	refusal := "Ollama on port " + port + " belongs to another user (uid 1001): Parley does not send your conversations to it."

	st := eng.Set(t.Context(), engine.Set{Chat: rt.chat()})
	if !st.Away || st.Short != "tiny from Ollama (refused: another user's)" || !strings.HasPrefix(st.Notice, refusal+" Chat calls fail") {
		t.Errorf("status %+v", st)
	}
	e := newEnv(t, 10, func(c *Config) { c.LLM, c.ExplainUpstream = eng, true })
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "my secret plans"})
	if r.Status != http.StatusBadGateway || errorMessage(r) != refusal+" The points for this call were refunded." || e.balance() != 10 {
		t.Errorf("a call: %d %s, balance %d", r.Status, r.Raw, e.balance())
	}
	if n, c := rt.listed.Load(), rt.chats(); n != 0 || c != 0 {
		t.Errorf("another user's runtime was asked for its models %d times and sent %d chats", n, c)
	}

	uid.Store(1000) // the person's own Ollama again
	select {
	case s := <-notices:
		if s.Away || s.Notice != "Ollama on this computer is back: tiny answers again." {
			t.Errorf("notice %+v", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the person was not told that the runtime is back")
	}
	if got := e.chat(map[string]any{"message": "hello"})["reply"]; got != "tiny says hello" || e.balance() != 9 {
		t.Errorf("reply %v, balance %d", got, e.balance())
	}

	// Another user's program takes the port while the runtime is in use: the next call is
	// refused before anything is sent, and refunded.
	before := rt.chats()
	uid.Store(1002)
	r = e.do("POST", "/v1/chat/messages", map[string]any{"message": "more secret plans"})
	want := "Ollama on port " + port + " belongs to another user (uid 1002): Parley does not send your conversations to it. The points for this call were refunded."
	if r.Status != http.StatusBadGateway || errorMessage(r) != want || e.balance() != 9 {
		t.Errorf("a call to a port taken over: %d %s, balance %d", r.Status, r.Raw, e.balance())
	}
	if rt.chats() != before {
		t.Errorf("the chat was sent to the port taken over")
	}
	select {
	case s := <-notices:
		if !s.Away || !strings.HasPrefix(s.Notice, "Ollama on port "+port+" belongs to another user (uid 1002)") {
			t.Errorf("notice %+v", s)
		}
	default:
		t.Error("the person was not told")
	}
	e.verify()
}

// A runtime chosen when one user ran it, found running as another (trusted) one: it answers,
// and the person is told.
func TestEngines_RuntimeOwnerChanged(t *testing.T) {
	rt := newFakeRuntime(t)
	var uid atomic.Int64
	uid.Store(998) // the ollama system user, say
	eng := NewEngines(0)
	eng.owners = uidCheck(&uid)
	c := rt.chat()
	c.Owner = "1000"
	st := eng.Set(t.Context(), engine.Set{Chat: c})
	if st.Away || !strings.HasPrefix(st.Notice, "Ollama on this computer now runs as uid 998, not as uid 1000 as when you chose it.") {
		t.Errorf("status %+v", st)
	}
	c.Owner = "998"
	if st := eng.Set(t.Context(), engine.Set{Chat: c}); st.Away || st.Notice != "" {
		t.Errorf("the same owner: %+v", st)
	}

	// It stops, and comes back as yet another user: the notice that it is back says so.
	notices := make(chan engine.Status, 10)
	eng.OnStatus(func(s engine.Status) { notices <- s })
	rt.stop()
	if _, err := eng.Complete(t.Context(), ChatRequest{UserText: "hi"}); err == nil {
		t.Fatal("a call to a runtime stopped succeeded")
	}
	uid.Store(997)
	rt.restart()
	if reply, err := eng.Complete(t.Context(), ChatRequest{UserText: "hi"}); err != nil || reply != "tiny says hello" {
		t.Fatalf("back: %q, %v", reply, err)
	}
	var got []string
	for len(notices) > 0 {
		got = append(got, (<-notices).Notice)
	}
	if len(got) != 2 || !strings.HasSuffix(got[1], "is back: tiny answers again. Ollama on this computer now runs as uid 997, not as uid 998 as when you chose it. If you did not change that, check what listens on port "+strings.TrimPrefix(rt.addr, "127.0.0.1:")+".") {
		t.Errorf("notices %q", got)
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
	if err == nil || err.Error() != "The model server at "+strings.TrimPrefix(keyed.URL, "http://")+" on this computer refused the API key (401): check the key." {
		t.Errorf("wrong key: %v", err)
	}
	remote.Key = "sk-right"
	if line, err := TryChat(t.Context(), remote); err != nil || !strings.HasPrefix(line, "gpt-x answered in ") {
		t.Errorf("right key: %q, %v", line, err)
	}
	var uid atomic.Int64
	uid.Store(1001)
	before := rt.chats()
	if _, err := tryChat(t.Context(), rt.chat(), uidCheck(&uid)); err == nil ||
		err.Error() != "Ollama on port "+strings.TrimPrefix(rt.addr, "127.0.0.1:")+" belongs to another user (uid 1001): Parley does not send your conversations to it" {
		t.Errorf("another user's runtime: %v", err)
	}
	if rt.chats() != before {
		t.Error("the test question was sent to another user's runtime")
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
	if st := eng.Status(); st.Away || st.Chat != "the offline responder" {
		t.Errorf("status %+v", st)
	}
}

// While a runtime chosen is away, chat calls fail and cost nothing: nothing answers in its
// place. Two calls after it died mid-reply are refunded, with a message saying what to do; once
// it is back, a call is answered and charged once.
func TestEngines_AwayRuntimeIsNotCharged(t *testing.T) {
	rt := newFakeRuntime(t)
	eng := NewEngines(5 * time.Second)
	eng.recheckEvery = time.Hour // only the calls ask whether it is back
	eng.Set(t.Context(), engine.Set{Chat: rt.chat()})
	e := newEnv(t, 10, func(c *Config) { c.LLM, c.STT, c.TTS, c.ExplainUpstream = eng, eng, eng, true })
	accountBalance := func() any { return e.do("GET", "/v1/account", nil).data()["balance"] }

	if got := e.chat(map[string]any{"message": "hi"})["reply"]; got != "tiny says hello" {
		t.Fatalf("reply %v", got)
	}
	rt.die.Store(true)
	if r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "are you there?"}); r.Status != http.StatusBadGateway {
		t.Fatalf("a call the runtime died in: %d %s", r.Status, r.Raw)
	}
	rt.stop()
	for i, q := range []string{"what is the capital of France", "and of Spain"} {
		r := e.do("POST", "/v1/chat/messages", map[string]any{"message": q})
		msg := errorMessage(r)
		if r.Status != http.StatusBadGateway || r.code() != codeUpstream ||
			msg != "Ollama on this computer is not running: start it, or choose another engine in Preferences → Built-in service. The points for this call were refunded." {
			t.Errorf("call %d while the runtime is away: %d %s", i+1, r.Status, r.Raw)
		}
		if got := accountBalance(); got != 9.0 || e.balance() != 9 {
			t.Errorf("after call %d while the runtime is away, the account says %v, the store %d; want 9 (nothing charged)", i+1, got, e.balance())
		}
	}

	rt.die.Store(false)
	rt.restart()
	if got := e.chat(map[string]any{"message": "back?"})["reply"]; got != "tiny says hello" {
		t.Errorf("with the runtime back, the reply is %v", got)
	}
	if got := accountBalance(); got != 8.0 {
		t.Errorf("the account says %v after the runtime came back; want 8 (one more call charged)", got)
	}
	e.verify()
}
