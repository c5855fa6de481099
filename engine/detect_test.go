package engine

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/testenv"
)

// runtimeServer serves a model list at /v1/models and counts every request.
func runtimeServer(t testing.TB, body string) (port int, requests *atomic.Int64) {
	t.Helper()
	requests = &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if r.Method != http.MethodGet || r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return portOf(t, srv.URL), requests
}

func portOf(t testing.TB, raw string) int {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// silentPort accepts connections and never answers them, as a hung runtime does.
func silentPort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	testenv.HoldConnections(t, ln, nil)
	return ln.Addr().(*net.TCPAddr).Port
}

// closedPort is a port where nothing listens.
func closedPort(t testing.TB) int { return testenv.ClosedPort(t) }

func TestDetect_FindsRuntimesInPortOrder(t *testing.T) {
	ollama, _ := runtimeServer(t, `{"object":"list","data":[{"id":"nomic-embed-text:latest","owned_by":"library"},{"id":"llama3.2:latest","object":"model","owned_by":"library"}]}`)
	vllm, _ := runtimeServer(t, `{"data":[{"id":"Qwen/Qwen2.5-7B-Instruct","owned_by":"vllm","max_model_len":32768}]}`)
	notJSON, _ := runtimeServer(t, `<html>a web server</html>`)
	empty, _ := runtimeServer(t, `{"data":[]}`)
	ports := []Port{{closedPort(t), "Ollama"}, {notJSON, "llama.cpp"}, {ollama, "LM Studio"}, {empty, "a model server"}, {vllm, "llama.cpp"}}

	got := Detect(t.Context(), ports, time.Second)
	if len(got) != 2 {
		t.Fatalf("found %d runtimes (%+v); want the two that list a chat model", len(got), got)
	}
	// The runtime is named by what its list says over the port's usual one.
	if got[0].Name != "Ollama" || got[0].BaseURL != "http://127.0.0.1:"+strconv.Itoa(ollama)+"/v1" ||
		len(got[0].Models) != 1 || got[0].Models[0].ID != "llama3.2:latest" {
		t.Errorf("first runtime = %+v; want Ollama with llama3.2:latest only (the embedding model left out)", got[0])
	}
	if got[1].Name != "vLLM" || got[1].Models[0].ContextTokens != 32768 {
		t.Errorf("second runtime = %+v; want vLLM with its 32768-token context", got[1])
	}
	c := got[0].Chat(got[0].Models[0])
	if c.Describe() != "llama3.2, from Ollama on this computer" || c.Short() != "llama3.2 from Ollama" {
		t.Errorf("described as %q / %q", c.Describe(), c.Short())
	}
}

// A runtime that takes the connection and never answers costs the timeout, not the window.
func TestDetect_HungRuntimeDoesNotHold(t *testing.T) {
	live, _ := runtimeServer(t, `{"data":[{"id":"phi3","owned_by":"llamacpp"}]}`)
	ports := []Port{{silentPort(t), "Ollama"}, {silentPort(t), "LM Studio"}, {live, "vLLM"}}
	done := make(chan []Runtime, 1)
	go func() { done <- Detect(context.Background(), ports, 300*time.Millisecond) }()
	select {
	case got := <-done:
		if len(got) != 1 || got[0].Name != "llama.cpp" {
			t.Errorf("found %+v; want the llama.cpp server only", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Detect did not return while two runtimes held their connections without answering")
	}
}

// Detection dials 127.0.0.1 and nothing else, not even a proxy the environment names.
func TestDetect_LoopbackOnly(t *testing.T) {
	proxyHits := &atomic.Int64{}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyHits.Add(1)
		w.Write([]byte(`{"data":[{"id":"from-the-proxy"}]}`))
	}))
	defer proxy.Close()
	t.Setenv("HTTP_PROXY", proxy.URL)
	t.Setenv("http_proxy", proxy.URL)
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	live, requests := runtimeServer(t, `{"data":[{"id":"llama3.2"}]}`)
	var mu sync.Mutex
	var dialed []string
	record := func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	ports := append([]Port{{live, "Ollama"}}, DefaultPorts...)
	got := detect(t.Context(), ports, time.Second, record, trustAll).Runtimes
	if len(got) == 0 || got[0].Models[0].ID != "llama3.2" {
		t.Fatalf("found %+v; want the runtime on port %d first", got, live)
	}
	if proxyHits.Load() != 0 {
		t.Errorf("the proxy got %d probes", proxyHits.Load())
	}
	if requests.Load() != 1 {
		t.Errorf("the runtime got %d requests; want its model list only", requests.Load())
	}
	for _, a := range dialed {
		if !strings.HasPrefix(a, "127.0.0.1:") {
			t.Errorf("dialed %s", a)
		}
	}
	if len(dialed) != len(ports) {
		t.Errorf("dialed %d addresses for %d ports", len(dialed), len(ports))
	}
	if _, err := loopbackOnly(record)(t.Context(), "tcp", "192.0.2.1:11434"); err == nil {
		t.Error("the dialer accepted an address off this computer")
	}
}

func TestPorts(t *testing.T) {
	env := func(v string) func(string) string { return func(string) string { return v } }
	if p, err := Ports(nil); err != nil || len(p) != len(DefaultPorts) {
		t.Errorf("Ports(nil) = %v, %v", p, err)
	}
	if p, err := Ports(env("none")); err != nil || len(p) != 0 {
		t.Errorf("none = %v, %v", p, err)
	}
	p, err := Ports(env("18434=Ollama, 8080"))
	if err != nil || len(p) != 2 || p[0] != (Port{18434, "Ollama"}) || p[1] != (Port{8080, "llama.cpp"}) {
		t.Errorf("list = %v, %v", p, err)
	}
	for _, bad := range []string{"x", "0", "70000", "1,,2"} {
		if _, err := Ports(env(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseModels(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
		owner      string
		bad        bool
	}{
		{name: "openai list", body: `{"object":"list","data":[{"id":"gpt-4o-mini","owned_by":"system"},{"id":"whisper-1"},{"id":"tts-1-hd"},{"id":"text-embedding-3-small"}]}`, want: []string{"gpt-4o-mini"}, owner: "system"},
		{name: "ollama tags", body: `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"},{"model":"qwen2.5:7b"}]}`, want: []string{"llama3.2:latest", "qwen2.5:7b"}, owner: "ollama"},
		{name: "names that are not text", body: `{"data":[{"id":""},{"id":"a b"},{"id":"x\u0007"},{"id":"ok"},{"id":"ok"}]}`, want: []string{"ok"}},
		{name: "empty list", body: `{"data":[]}`},
		{name: "an array", body: `[{"id":"x"}]`, bad: true},
		{name: "an error object", body: `{"error":"unauthorized"}`, bad: true},
		{name: "html", body: `<html></html>`, bad: true},
		{name: "wrong types", body: `{"data":[{"id":5}]}`, bad: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			models, owner, err := ParseModels([]byte(c.body))
			if (err != nil) != c.bad {
				t.Fatalf("err = %v", err)
			}
			var ids []string
			for _, m := range models {
				ids = append(ids, m.ID)
			}
			if strings.Join(ids, ",") != strings.Join(c.want, ",") || (!c.bad && owner != c.owner) {
				t.Errorf("got %v owned by %q; want %v by %q", ids, owner, c.want, c.owner)
			}
		})
	}
}

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://api.openai.com/v1", "http://127.0.0.1:11434/v1", "http://localhost:8000/v1", "http://[::1]:1234/v1"} {
		if err := CheckURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "api.openai.com", "http://example.com/v1", "ftp://127.0.0.1/", "https://user:pw@example.com/v1", "https://example.com/v1?key=x"} {
		if err := CheckURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestChat_Describe(t *testing.T) {
	for _, c := range []struct {
		chat            Chat
		describe, short string
		window          int
	}{
		{Chat{Kind: Offline}, "the offline responder", "offline responder", 16384},
		{Chat{Kind: Remote, URL: "https://api.openai.com/v1", Model: "gpt-4o-mini"}, "gpt-4o-mini, from api.openai.com", "gpt-4o-mini from api.openai.com", 16384},
		{Chat{Kind: Remote, URL: "http://127.0.0.1:9999/v1", Model: "m"}, "m, from the model server at 127.0.0.1:9999 on this computer", "m on this computer", 4096},
		{Chat{Kind: Detected, URL: "http://127.0.0.1:8000/v1", Model: "q", Runtime: "vLLM", ContextTokens: 32768}, "q, from vLLM on this computer", "q from vLLM", 32768},
	} {
		if got := c.chat.Describe(); got != c.describe {
			t.Errorf("Describe = %q; want %q", got, c.describe)
		}
		if got := c.chat.Short(); got != c.short {
			t.Errorf("Short = %q; want %q", got, c.short)
		}
		if got := c.chat.ContextWindow(); got != c.window {
			t.Errorf("%s: ContextWindow = %d; want %d", c.describe, got, c.window)
		}
	}
}

func FuzzParseModels(f *testing.F) {
	for _, s := range []string{`{"data":[{"id":"llama3.2:latest","owned_by":"library"}]}`, `{"models":[{"name":"x"}]}`,
		`{"data":[{"id":"q","max_model_len":32768}]}`, `{"data":null}`, `{}`, `[]`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		models, _, err := ParseModels(body)
		if err != nil && len(models) > 0 {
			t.Fatal("models with an error")
		}
		if len(models) > maxModels {
			t.Fatalf("%d models", len(models))
		}
		for _, m := range models {
			if !usableName(m.ID) || m.ContextTokens < 0 {
				t.Fatalf("model %+v", m)
			}
		}
	})
}

// A key never shows when an engine is printed or logged.
func TestEngine_KeyNeverPrinted(t *testing.T) {
	const key = "sk-secret-0123456789"
	set := Set{Chat: Chat{Kind: Remote, URL: "https://api.example.com/v1", Model: "m", Key: key},
		STT: Speech{Remote: true, URL: "https://api.example.com/v1", Model: "whisper-1", Key: key}}
	var logged strings.Builder
	slog.New(slog.NewTextHandler(&logged, nil)).Info("engines", "chat", set.Chat, "stt", set.STT, "set", set)
	for _, s := range []string{fmt.Sprint(set), fmt.Sprintf("%+v", set), fmt.Sprintf("%#v", set), fmt.Sprint(set.Chat), logged.String()} {
		if strings.Contains(s, key) {
			t.Errorf("the key shows in %s", s)
		}
	}
	if !strings.Contains(fmt.Sprint(set.Chat), "key=[key]") {
		t.Errorf("printed as %s; want it to say a key is set", set.Chat)
	}
}
