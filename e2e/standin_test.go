package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/internal/testenv"
)

// A stand-in model runtime: this test binary, started again with standInEnv set, serves an
// OpenAI-compatible model list and chat completions as Ollama does, so that the built-in
// service and `parley serve --llm auto` find and use a real process on this computer.
const standInEnv = "PARLEY_E2E_STANDIN"

// standInModel is the one model the stand-in serves.
const standInModel = "standin:latest"

// standInSettings configure a stand-in.
type standInSettings struct {
	Addr string `json:"addr"` // where to listen: 127.0.0.1:11434, or 127.0.0.1:0
	Log  string `json:"log"`  // a file each request is appended to, as one JSON line
	// Key, when set, is the bearer token every request must carry (a remote engine).
	Key string `json:"key,omitempty"`
	// DieOn: a chat whose question holds it ends the process before any reply.
	DieOn string `json:"die_on,omitempty"`
	// SlowOn: a chat whose question holds it is answered after SlowFor (a model that takes its
	// time), unless the request is given up first.
	SlowOn  string        `json:"slow_on,omitempty"`
	SlowFor time.Duration `json:"slow_for,omitempty"`
	// FloodOn: a chat whose question holds it is answered with ~6 MB of bytes that are not
	// UTF-8 (each becomes U+FFFD, three bytes, once decoded).
	FloodOn string `json:"flood_on,omitempty"`
	// LongOn: a chat whose question holds it ("*": every chat) is answered with LongTokens words (sentences of
	// eight), the first after FirstToken, then TokensPerSecond a second, as a model on a laptop
	// writes: streamed when asked to stream, else whole once all are written. Its last word is
	// "Done.".
	// Reply, when set, is every chat's reply (else it says what it heard).
	Reply           string        `json:"reply,omitempty"`
	LongOn          string        `json:"long_on,omitempty"`
	LongTokens      int           `json:"long_tokens,omitempty"`
	FirstToken      time.Duration `json:"first_token,omitempty"`
	TokensPerSecond float64       `json:"tokens_per_second,omitempty"`
}

// standInLong is the long reply of n words: sentences of eight words ("Word1 word2 … word8."),
// the last word "Done.".
func standInLong(n int) []string {
	words := make([]string, 0, n)
	for i := 0; i < n-1; i++ {
		w := fmt.Sprintf("word%d", i+1)
		if i%8 == 0 {
			w = "W" + w[1:]
		}
		if i%8 == 7 {
			w += "."
		}
		words = append(words, w)
	}
	return append(words, "Done.")
}

// standInRequest is one request the stand-in got, as its log keeps it: never the key itself.
type standInRequest struct {
	Path   string           `json:"path"`
	KeyOK  bool             `json:"key_ok"`
	Model  string           `json:"model,omitempty"`
	Body   map[string]any   `json:"body,omitempty"`
	Chat   []map[string]any `json:"messages,omitempty"`
	Header string           `json:"auth_scheme,omitempty"`
	Stream bool             `json:"stream,omitempty"` // a chat asked for a streamed reply
}

// runStandIn serves until killed; it is what the test binary does with standInEnv set.
func runStandIn() {
	var s standInSettings
	if err := json.Unmarshal([]byte(os.Getenv(standInEnv)), &s); err != nil {
		fmt.Fprintln(os.Stderr, "stand-in:", err)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stand-in:", err)
		os.Exit(2)
	}
	fmt.Printf("listening %s\n", ln.Addr())
	var mu sync.Mutex
	record := func(r standInRequest) {
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(s.Log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return
		}
		json.NewEncoder(f).Encode(r)
		f.Close()
	}
	keyOK := func(r *http.Request) bool {
		return s.Key == "" || r.Header.Get("Authorization") == "Bearer "+s.Key
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		record(standInRequest{Path: r.URL.Path, KeyOK: keyOK(r)})
		if !keyOK(r) {
			http.Error(w, `{"error":{"message":"missing or wrong API key"}}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"library"}]}`, standInModel)
	})
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Model    string           `json:"model"`
			Messages []map[string]any `json:"messages"`
			Stream   bool             `json:"stream"`
		}
		json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&body)
		record(standInRequest{Path: r.URL.Path, KeyOK: keyOK(r), Model: body.Model, Chat: body.Messages, Stream: body.Stream})
		if !keyOK(r) {
			http.Error(w, `{"error":{"message":"missing or wrong API key"}}`, http.StatusUnauthorized)
			return
		}
		question := ""
		if n := len(body.Messages); n > 0 {
			question, _ = body.Messages[n-1]["content"].(string)
		}
		if s.DieOn != "" && strings.Contains(question, s.DieOn) {
			os.Exit(3) // mid-reply: the request was read, no answer will come
		}
		if s.SlowOn != "" && strings.Contains(question, s.SlowOn) {
			select {
			case <-time.After(s.SlowFor):
			case <-r.Context().Done():
				return
			}
		}
		if s.FloodOn != "" && strings.Contains(question, s.FloodOn) {
			io.WriteString(w, `{"choices":[{"message":{"role":"assistant","content":"`)
			w.Write(bytes.Repeat([]byte{0xff}, 6<<20))
			io.WriteString(w, `"}}]}`)
			return
		}
		earlier := 0
		for _, m := range body.Messages[:max(0, len(body.Messages)-1)] {
			if m["role"] == "user" {
				earlier++
			}
		}
		reply := fmt.Sprintf("The standin model heard %q after %d earlier questions.", question, earlier)
		if s.Reply != "" {
			reply = s.Reply
		}
		pieces := strings.SplitAfter(reply, " ")
		var first, every time.Duration
		if s.LongOn == "*" || s.LongOn != "" && strings.Contains(question, s.LongOn) {
			pieces = standInLong(s.LongTokens)
			for i := range pieces[:len(pieces)-1] {
				pieces[i] += " "
			}
			first, every = s.FirstToken, time.Duration(float64(time.Second)/s.TokensPerSecond)
		}
		if !body.Stream {
			// Answered whole, once the model would have written it all.
			select {
			case <-time.After(first + every*time.Duration(len(pieces)-1)):
			case <-r.Context().Done():
				return
			}
			json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": strings.Join(pieces, "")}}}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i, p := range pieces {
			wait := every
			if i == 0 {
				wait = first
			}
			select {
			case <-time.After(wait):
			case <-r.Context().Done():
				record(standInRequest{Path: "stopped", Model: body.Model})
				return
			}
			d, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": p}, "finish_reason": nil}}})
			fmt.Fprintf(w, "data: %s\n\n", d)
			rc.Flush()
		}
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
		record(standInRequest{Path: "finished", Model: body.Model})
	})
	http.Serve(ln, mux)
}

// standIn is a running stand-in runtime.
type standIn struct {
	url    string // its OpenAI-compatible base URL, ending in /v1
	port   string
	log    string
	cmd    *exec.Cmd
	exited chan struct{}
	// portsEnv is what the app and `parley serve` need in their environment to look at its
	// port: nothing when it has Ollama's.
	portsEnv []string
}

// startStandIn starts a stand-in on Ollama's port when it is free, else on a free port that
// portsEnv names; it is killed (by its PID) when the test ends.
func startStandIn(t testing.TB, s standInSettings) *standIn {
	t.Helper()
	si := &standIn{log: filepath.Join(t.TempDir(), "requests.jsonl"), exited: make(chan struct{})}
	s.Log = si.log
	if s.Addr == "" {
		s.Addr = "127.0.0.1:11434"
		if ln, err := net.Listen("tcp", s.Addr); err != nil {
			s.Addr = "127.0.0.1:0" // taken (a real Ollama?): the test-only setting points at ours
		} else {
			ln.Close()
		}
	}
	cfg, _ := json.Marshal(s)
	si.cmd = exec.Command(os.Args[0])
	si.cmd.Env = append(os.Environ(), standInEnv+"="+string(cfg))
	out, err := si.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	si.cmd.Stderr = &stderr
	if err := si.cmd.Start(); err != nil {
		t.Fatalf("starting the stand-in runtime: %v", err)
	}
	go func() { si.cmd.Wait(); close(si.exited) }()
	t.Cleanup(si.stop)
	line, err := bufio.NewReader(out).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		t.Fatalf("the stand-in runtime did not start: %q %v %s", line, err, stderr.String())
	}
	_, si.port, _ = net.SplitHostPort(addr)
	si.url = "http://" + addr + "/v1"
	if si.port != "11434" {
		si.portsEnv = []string{"PARLEY_TEST_RUNTIME_PORTS=" + si.port + "=Ollama"}
	} else {
		si.portsEnv = []string{"PARLEY_TEST_RUNTIME_PORTS="}
	}
	return si
}

func (si *standIn) stop() {
	select {
	case <-si.exited:
		return
	default:
	}
	si.cmd.Process.Kill()
	<-si.exited
}

// requests reads what the stand-in was asked.
func (si *standIn) requests(t *testing.T) []standInRequest {
	t.Helper()
	b, err := os.ReadFile(si.log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []standInRequest
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r standInRequest
		if l != "" && json.Unmarshal([]byte(l), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// chats are the chat requests the stand-in got.
func (si *standIn) chats(t *testing.T) []standInRequest {
	var out []standInRequest
	for _, r := range si.requests(t) {
		if r.Path == "/v1/chat/completions" {
			out = append(out, r)
		}
	}
	return out
}

// waitChats waits until the stand-in got n chat requests, and returns them.
func (si *standIn) waitChats(t *testing.T, n int) []standInRequest {
	t.Helper()
	var c []standInRequest
	testenv.Poll(t, 30*time.Second, 100*time.Millisecond, func() error {
		if c = si.chats(t); len(c) < n {
			return fmt.Errorf("the stand-in got %d chat requests; want %d", len(c), n)
		}
		return nil
	})
	return c
}

// waitChat waits until the stand-in was asked a question that holds words.
func (si *standIn) waitChat(t *testing.T, words string) {
	t.Helper()
	testenv.Poll(t, 30*time.Second, 100*time.Millisecond, func() error {
		for _, r := range si.chats(t) {
			if n := len(r.Chat); n > 0 {
				if q, _ := r.Chat[n-1]["content"].(string); strings.Contains(q, words) {
					return nil
				}
			}
		}
		return fmt.Errorf("the stand-in was not asked about %q", words)
	})
}
