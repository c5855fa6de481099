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
	"net/url"
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
	return Chat{Kind: Detected, URL: r.BaseURL, Model: m.ID, Runtime: r.Name, ContextTokens: m.ContextTokens}
}

// Ports reads PortsEnv through getenv (nil: none set): DefaultPorts when it is unset, none for
// "none". An entry that is not a port is an error.
func Ports(getenv func(string) string) ([]Port, error) {
	v := ""
	if getenv != nil {
		v = strings.TrimSpace(getenv(PortsEnv))
	}
	switch v {
	case "":
		return DefaultPorts, nil
	case "none":
		return nil, nil
	}
	var ports []Port
	for _, f := range strings.Split(v, ",") {
		num, name, _ := strings.Cut(strings.TrimSpace(f), "=")
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("%s: %q is not a port", PortsEnv, num)
		}
		if name == "" {
			name = "a model server"
			for _, p := range DefaultPorts {
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
// order of ports. Nothing else is sent to them.
func Detect(ctx context.Context, ports []Port, timeout time.Duration) []Runtime {
	return detect(ctx, ports, timeout, (&net.Dialer{}).DialContext)
}

// dialFunc opens a connection, as net.Dialer.DialContext does.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

func detect(ctx context.Context, ports []Port, timeout time.Duration, dial dialFunc) []Runtime {
	if timeout <= 0 {
		timeout = DetectTimeout
	}
	hc := probeClient(timeout, dial)
	found := make([]*Runtime, len(ports))
	var wg sync.WaitGroup
	for i, p := range ports {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			found[i] = probe(pctx, hc, p)
		}()
	}
	wg.Wait()
	var out []Runtime
	for _, r := range found {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// probeClient is the HTTP client of probes: 127.0.0.1 only, no proxy, no redirect, no
// connection kept.
func probeClient(timeout time.Duration, dial dialFunc) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  nil, // a proxy would take the probe off this computer
			DialContext:            loopbackOnly(dial),
			DisableKeepAlives:      true,
			MaxResponseHeaderBytes: 16 << 10,
			ResponseHeaderTimeout:  timeout,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return errors.New("redirect refused") },
	}
}

// Reachable reports whether the runtime on this computer at base (as Runtime.BaseURL) answers
// its model list, with model in it, within DetectTimeout.
func Reachable(ctx context.Context, base, model string) bool {
	u, err := url.Parse(base)
	if err != nil || u.Hostname() != "127.0.0.1" {
		return false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	r := probe(ctx, probeClient(DetectTimeout, (&net.Dialer{}).DialContext), Port{Number: port})
	return r != nil && r.BaseURL == strings.TrimRight(base, "/") && slices.ContainsFunc(r.Models, func(m Model) bool { return m.ID == model })
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

// probe asks one port for its models; nil when nothing usable answers.
func probe(ctx context.Context, hc *http.Client, p Port) *Runtime {
	base := "http://127.0.0.1:" + strconv.Itoa(p.Number) + "/v1"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/models", nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxModelsBody+1))
	if err != nil || len(body) > maxModelsBody {
		return nil
	}
	models, owner, err := ParseModels(body)
	if err != nil || len(models) == 0 {
		return nil
	}
	name := p.Runtime
	if n := runtimeByOwner(owner); n != "" {
		name = n
	}
	return &Runtime{Name: name, BaseURL: base, Models: models}
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
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return nil, "", errors.New("not a model list")
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, "", fmt.Errorf("not a model list: %w", err)
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
