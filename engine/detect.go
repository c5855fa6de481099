package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Port is a port a kind of model runtime listens on by default.
type Port struct {
	Number  int
	Runtime string
}

// DefaultPorts are where Detect looks, in the order it prefers what it finds: Ollama, LM
// Studio, llama.cpp's server, vLLM.
var DefaultPorts = []Port{{11434, "Ollama"}, {1234, "LM Studio"}, {8080, "llama.cpp"}, {8000, "vLLM"}}

// PortsEnv is a test-only setting that replaces DefaultPorts: "none", or a comma-separated list
// of port or port=Runtime ("18434=Ollama,18435"). Tests use it to put a stand-in runtime where
// the real ports are taken; people have no need of it.
const PortsEnv = "PARLEY_TEST_RUNTIME_PORTS"

// DetectTimeout bounds each probe: a runtime on this computer answers its model list in a few
// milliseconds, and the person must not wait for one that does not.
const DetectTimeout = 400 * time.Millisecond

// maxModelsBody caps what is read of a model list.
const maxModelsBody = 1 << 20

// maxModels caps how many models of one runtime are kept.
const maxModels = 100

// Runtime is a model runtime found on this computer, with the chat models it offers.
type Runtime struct {
	// Name is what kind of runtime it is ("Ollama").
	Name string
	// BaseURL is its OpenAI-compatible base URL ("http://127.0.0.1:11434/v1").
	BaseURL string
	// Models are its chat models, in the order it lists them.
	Models []Model
	// Owner is the user whose program listens at its port (see owner.go).
	Owner Owner
}

// Model is one chat model of a runtime.
type Model struct {
	// ID is the name requests use ("llama3.2:latest").
	ID string
	// ContextTokens is its context window when the runtime says (vLLM does); 0 otherwise.
	ContextTokens int
}

// Chat is the choice of model m of r.
func (r Runtime) Chat(m Model) Chat {
	return Chat{Kind: Detected, URL: r.BaseURL, Model: m.ID, Runtime: r.Name, ContextTokens: m.ContextTokens, Owner: r.Owner.ID}
}

// Ports reads PortsEnv through getenv (nil: none set): DefaultPorts when it is unset, none for
// "none". An entry that is not a port is an error.
func Ports(getenv func(string) string) ([]Port, error) {
	return portsFrom(getenv, PortsEnv, DefaultPorts, "a model server")
}

// portsFrom reads the setting env through getenv (nil: none set) as Ports does: defaults when it
// is unset, none for "none", else its ports, each named as given, else as in defaults, else
// unnamed.
func portsFrom(getenv func(string) string, env string, defaults []Port, unnamed string) ([]Port, error) {
	v := ""
	if getenv != nil {
		v = strings.TrimSpace(getenv(env))
	}
	switch v {
	case "":
		return defaults, nil
	case "none":
		return nil, nil
	}
	var ports []Port
	for _, f := range strings.Split(v, ",") {
		num, name, _ := strings.Cut(strings.TrimSpace(f), "=")
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%s: %q is not a port", env, num)
		}
		if name == "" {
			name = unnamed
			for _, p := range defaults {
				if p.Number == n {
					name = p.Runtime
				}
			}
		}
		ports = append(ports, Port{Number: n, Runtime: name})
	}
	return ports, nil
}

// Detect asks each port of this computer (127.0.0.1 only, never through a proxy) for its
// OpenAI-compatible model list (GET /v1/models), all at once, each bounded by timeout
// (DetectTimeout when not positive), and returns the runtimes that listed a chat model, in the
// order of ports. Nothing else is sent to them, and nothing at all to a port where another
// user's program listens (see DetectAll).
func Detect(ctx context.Context, ports []Port, timeout time.Duration) []Runtime {
	return DetectAll(ctx, ports, timeout).Runtimes
}

// Found is what a search of this computer found.
type Found struct {
	// Runtimes are the runtimes that listed a chat model, in the order of ports.
	Runtimes []Runtime
	// Refused are the ports left alone, the model list not asked for: another user's program
	// listens there, or Parley cannot tell whose it is.
	Refused []*UntrustedError
}

// DetectAll is Detect, which also says which ports it left alone, and why.
func DetectAll(ctx context.Context, ports []Port, timeout time.Duration) Found {
	return detect(ctx, ports, timeout, (&net.Dialer{}).DialContext, CheckOwner)
}

// dialFunc opens a connection, as net.Dialer.DialContext does.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func detect(ctx context.Context, ports []Port, timeout time.Duration, dial dialFunc, check OwnerCheck) Found {
	if timeout <= 0 {
		timeout = DetectTimeout
	}
	found := make([]*Runtime, len(ports))
	refused := make([]*UntrustedError, len(ports))
	var wg sync.WaitGroup
	for i, p := range ports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			var err error
			found[i], err = probe(pctx, p, timeout, dial, check)
			errors.As(err, &refused[i])
		}()
	}
	wg.Wait()
	var out Found
	for i, r := range found {
		if r != nil {
			out.Runtimes = append(out.Runtimes, *r)
		}
		if refused[i] != nil {
			out.Refused = append(out.Refused, refused[i])
		}
	}
	return out
}

// probeClient is the HTTP client of probes: 127.0.0.1 only, no proxy, no redirect, no
// connection kept; dial connects.
func probeClient(timeout time.Duration, dial dialFunc) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil, // a proxy would take the probe off this computer
			DialContext:            dial,
			DisableKeepAlives:      true,
			MaxResponseHeaderBytes: 16 << 10,
			ResponseHeaderTimeout:  timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("redirect refused") },
	}
}

// ErrNotRunning is CheckRuntime's answer when nothing at a runtime's port lists its model.
var ErrNotRunning = errors.New("not running")

// CheckRuntime asks the runtime of c (a model found on this computer) for its model list, within
// DetectTimeout, through the same checks as Detect: who runs it and nil when it lists c's model;
// an *UntrustedError, asking nothing, when another user's program listens at its port (check:
// nil for CheckOwner); ErrNotRunning otherwise.
func CheckRuntime(ctx context.Context, c Chat, check OwnerCheck) (Owner, error) {
	port, err := loopbackPort(c.URL)
	if err != nil {
		return Owner{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	r, err := probe(ctx, Port{Number: port, Runtime: c.Runtime}, DetectTimeout, (&net.Dialer{}).DialContext, check)
	if ue := (*UntrustedError)(nil); errors.As(err, &ue) {
		return ue.Owner, ue
	}
	if r == nil || r.BaseURL != strings.TrimRight(c.URL, "/") || !slices.ContainsFunc(r.Models, func(m Model) bool { return m.ID == c.Model }) {
		return Owner{}, ErrNotRunning
	}
	return r.Owner, nil
}

// Reachable reports whether the runtime on this computer at base (as Runtime.BaseURL) answers
// its model list, with model in it, within DetectTimeout; never when another user's program
// listens at its port (see CheckRuntime).
func Reachable(ctx context.Context, base, model string) bool {
	_, err := CheckRuntime(ctx, Chat{Kind: Detected, URL: base, Model: model}, CheckOwner)
	return err == nil
}

// loopbackOnly refuses to dial anything but 127.0.0.1.
func loopbackOnly(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, err := net.SplitHostPort(addr)
		if err != nil || host != "127.0.0.1" {
			return nil, fmt.Errorf("detection dials 127.0.0.1 only, not %q", addr)
		}
		return dial(ctx, "tcp4", addr)
	}
}

// probe asks one port for its models, dialling through guard (check judges who listens): nil
// when nothing usable answers, and the error of a request that could not be sent.
func probe(ctx context.Context, p Port, timeout time.Duration, dial dialFunc, check OwnerCheck) (*Runtime, error) {
	var mu sync.Mutex
	var owner Owner
	seen := func(o Owner) { mu.Lock(); owner = o; mu.Unlock() }
	hc := probeClient(timeout, guard(p.Runtime, check, dial, seen))
	base := "http://127.0.0.1:" + strconv.Itoa(p.Number) + "/v1"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody+1))
	if err != nil || len(body) > maxModelsBody {
		return nil, nil
	}
	models, listOwner, err := ParseModels(body)
	if err != nil || len(models) == 0 {
		return nil, nil
	}
	name := p.Runtime
	if n := runtimeByOwner(listOwner); n != "" {
		name = n
	}
	mu.Lock()
	defer mu.Unlock()
	return &Runtime{Name: name, BaseURL: base, Models: models, Owner: owner}, nil
}

// runtimeByOwner names the runtime whose model lists say owned_by: owner, "" when unknown.
func runtimeByOwner(owner string) string {
	switch owner {
	case "llamacpp":
		return "llama.cpp"
	case "vllm":
		return "vLLM"
	case "organization_owner":
		return "LM Studio"
	case "library", "ollama":
		return "Ollama"
	}
	return ""
}

// ParseModels reads an OpenAI-compatible model list ({"data": [{"id": …}]}) or Ollama's own
// ({"models": [{"name": …}]}) and returns its chat models, without the embedding, speech and
// reranking models some runtimes list beside them, and the owned_by of the first model. A body
// that is neither is an error; names that are empty, too long or not text are left out.
func ParseModels(body []byte) (models []Model, owner string, err error) {
	var list struct {
		Data []struct {
			ID          string          `json:"id"`
			OwnedBy     string          `json:"owned_by"`
			MaxModelLen json.RawMessage `json:"max_model_len"`
		} `json:"data"`
		Models []struct {
			Name  string `json:"name"`
			Model string `json:"model"`
		} `json:"models"`
	}
	if err := unmarshalList(body, &list); err != nil {
		return nil, "", err
	}
	if list.Data == nil && list.Models == nil {
		return nil, "", errors.New("not a model list: no data or models")
	}
	seen := map[string]bool{}
	add := func(id string, ctxTokens int) {
		if len(models) == maxModels || !usableName(id) || seen[id] || !chatModel(id) {
			return
		}
		seen[id] = true
		models = append(models, Model{ID: id, ContextTokens: ctxTokens})
	}
	for i, m := range list.Data {
		if i == 0 {
			owner = m.OwnedBy
		}
		n := 0
		if v, err := strconv.Atoi(string(m.MaxModelLen)); err == nil && v > 0 && v <= 1<<24 {
			n = v
		}
		add(m.ID, n)
	}
	if len(list.Data) == 0 {
		for _, m := range list.Models {
			id := m.Name
			if id == "" {
				id = m.Model
			}
			add(id, 0)
		}
		if len(list.Models) > 0 {
			owner = "ollama"
		}
	}
	return models, owner, nil
}

// unmarshalList reads a JSON object (a model list) into v; anything else is an error.
func unmarshalList(body []byte, v any) error {
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return errors.New("not a model list")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("not a model list: %w", err)
	}
	return nil
}

// usableName reports whether a model name can be shown and sent: printable text, 1 to 200 bytes.
func usableName(id string) bool {
	return id != "" && len(id) <= 200 && utf8.ValidString(id) && strings.IndexFunc(id, func(r rune) bool {
		return unicode.IsControl(r) || unicode.IsSpace(r)
	}) < 0
}

// notChat are parts of the names of models that do not chat.
var notChat = []string{"embed", "whisper", "tts", "rerank", "bge-", "minilm"}

// chatModel reports whether a model's name is not that of an embedding, speech or reranking model.
func chatModel(id string) bool {
	l := strings.ToLower(id)
	return !slices.ContainsFunc(notChat, func(s string) bool { return strings.Contains(l, s) })
}
