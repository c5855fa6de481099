package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/internal/i18n"
)

// RecogniserAPI is how a speech recognition server on this computer is asked.
type RecogniserAPI string

// The recognition APIs Parley speaks.
const (
	// OpenAITranscriptions is POST {base}/audio/transcriptions (base ending in /v1), multipart:
	// speaches (faster-whisper-server), LocalAI, vLLM with a Whisper model.
	OpenAITranscriptions RecogniserAPI = "openai"
	// WhisperCppInference is whisper.cpp's server: POST {base}/inference, multipart, 16 kHz WAV.
	WhisperCppInference RecogniserAPI = "whisper.cpp"
)

// Recogniser is a speech recognition server found on this computer.
type Recogniser struct {
	// Name is what kind of server it is ("faster-whisper", "whisper.cpp").
	Name string
	// BaseURL is where it is asked: "http://127.0.0.1:8000/v1" for OpenAITranscriptions,
	// "http://127.0.0.1:8080" for WhisperCppInference.
	BaseURL string
	// API is how it is asked.
	API RecogniserAPI
	// Model is the model requests name ("Systran/faster-whisper-small"); "" for whisper.cpp,
	// which hears with the one model it loaded.
	Model string
	// Owner is the user whose program listens at its port.
	Owner Owner
}

// Describe says what r is, for people: "whisper-small, from faster-whisper on this computer",
// "whisper.cpp's server on this computer".
func (r Recogniser) Describe() string {
	if r.Model == "" {
		return fmt.Sprintf(i18n.T("%s's server on this computer"), r.Name)
	}
	return fmt.Sprintf(i18n.T("%s, from %s on this computer"), RecogniserModelName(r.Model), r.Name)
}

// Short says what r is in a few words: "whisper-small from faster-whisper", "whisper.cpp's server".
func (r Recogniser) Short() string {
	if r.Model == "" {
		return fmt.Sprintf(i18n.T("%s's server"), r.Name)
	}
	return fmt.Sprintf(i18n.T("%s from %s"), RecogniserModelName(r.Model), r.Name)
}

// RecogniserModelName is a recognition model's name as people say it: the repository and
// faster-whisper's prefix dropped ("Systran/faster-whisper-small" → "whisper-small").
func RecogniserModelName(id string) string {
	if i := strings.LastIndexByte(id, '/'); i >= 0 {
		id = id[i+1:]
	}
	return strings.TrimPrefix(id, "faster-")
}

// DefaultRecogniserPorts are where FindRecognisers looks, in the order it prefers what it finds:
// speaches (faster-whisper-server) and vLLM at 8000, LocalAI and whisper.cpp's server at 8080.
var DefaultRecogniserPorts = []Port{{8000, "faster-whisper"}, {8080, "whisper.cpp"}}

// RecogniserPortsEnv is a test-only setting that replaces DefaultRecogniserPorts, written as
// PortsEnv is.
const RecogniserPortsEnv = "PARLEY_TEST_RECOGNISER_PORTS"

// RecogniserPorts reads RecogniserPortsEnv through getenv (nil: none set), as Ports reads PortsEnv.
func RecogniserPorts(getenv func(string) string) ([]Port, error) {
	return portsFrom(getenv, RecogniserPortsEnv, DefaultRecogniserPorts, "a speech server")
}

// maxIndexBody caps what is read of a server's front page.
const maxIndexBody = 64 << 10

// FindRecognisers asks each port of this computer (127.0.0.1 only, never through a proxy), all
// at once, each bounded by timeout (DetectTimeout when not positive), whether a speech
// recognition server listens there: an OpenAI-compatible model list (GET /v1/models) with a
// Whisper model in it, or whisper.cpp's server's front page (GET /). It returns them in the
// order of ports; nothing is sent to a port where another user's program listens (see
// DetectAll), and no audio to any.
func FindRecognisers(ctx context.Context, ports []Port, timeout time.Duration) []Recogniser {
	return findRecognisers(ctx, ports, timeout, (&net.Dialer{}).DialContext, CheckOwner)
}

func findRecognisers(ctx context.Context, ports []Port, timeout time.Duration, dial dialFunc, check OwnerCheck) []Recogniser {
	if timeout <= 0 {
		timeout = DetectTimeout
	}
	found := make([]*Recogniser, len(ports))
	var wg sync.WaitGroup
	for i, p := range ports {
		wg.Go(func() {
			pctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			found[i] = probeRecogniser(pctx, p, timeout, dial, check)
		})
	}
	wg.Wait()
	var out []Recogniser
	for _, r := range found {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// probeRecogniser asks one port for a Whisper model, then for whisper.cpp's front page; nil
// when neither answers.
func probeRecogniser(ctx context.Context, p Port, timeout time.Duration, dial dialFunc, check OwnerCheck) *Recogniser {
	var mu sync.Mutex
	var owner Owner
	seen := func(o Owner) { mu.Lock(); owner = o; mu.Unlock() }
	hc := probeClient(timeout, guard(p.Runtime, check, dial, seen))
	root := "http://127.0.0.1:" + strconv.Itoa(p.Number)
	var r *Recogniser
	body, status, err := get(ctx, hc, root+"/v1/models", maxModelsBody)
	if ue := (*UntrustedError)(nil); errors.As(err, &ue) || ctx.Err() != nil {
		return nil
	}
	if status == http.StatusOK {
		if models, listOwner, err := ParseRecognisers(body); err == nil && len(models) > 0 {
			r = &Recogniser{Name: recogniserName(p, models[0], listOwner), BaseURL: root + "/v1", API: OpenAITranscriptions, Model: models[0]}
		}
	}
	if r == nil {
		body, status, err = get(ctx, hc, root+"/", maxIndexBody)
		if err != nil || status != http.StatusOK || !WhisperCppPage(body) {
			return nil
		}
		r = &Recogniser{Name: "whisper.cpp", BaseURL: root, API: WhisperCppInference}
	}
	mu.Lock()
	r.Owner = owner
	mu.Unlock()
	return r
}

// get fetches url with hc and returns at most limit bytes of its body (nil when longer).
func get(ctx context.Context, hc *http.Client, url string, limit int64) ([]byte, int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil || int64(len(b)) > limit {
		return nil, resp.StatusCode, err
	}
	return b, resp.StatusCode, nil
}

// recogniserName names the server that listed model: by what lists it, its model's name, or
// the port's usual runtime.
func recogniserName(p Port, model, owner string) string {
	l := strings.ToLower(model)
	switch {
	case owner == "vllm":
		return "vLLM"
	case strings.Contains(l, "faster-whisper") || strings.Contains(l, "faster-distil-whisper") || strings.EqualFold(owner, "Systran"):
		return "faster-whisper"
	case p.Number == 8080:
		return "LocalAI"
	}
	return p.Runtime
}

// ParseRecognisers reads an OpenAI-compatible model list ({"data": [{"id", "owned_by"}]}) and
// returns its speech recognition models (Whisper's, by name), and the owned_by of the first of
// them. A body that is not a model list is an error; unusable names are left out.
func ParseRecognisers(body []byte) (models []string, owner string, err error) {
	var list struct {
		Data []struct {
			ID      string `json:"id"`
			OwnedBy string `json:"owned_by"`
		} `json:"data"`
	}
	if err := unmarshalList(body, &list); err != nil {
		return nil, "", err
	}
	if list.Data == nil {
		return nil, "", errors.New("not a model list: no data")
	}
	for _, m := range list.Data {
		if len(models) == maxModels || !usableName(m.ID) || !strings.Contains(strings.ToLower(m.ID), "whisper") {
			continue
		}
		if len(models) == 0 {
			owner = m.OwnedBy
		}
		models = append(models, m.ID)
	}
	return models, owner, nil
}

// WhisperCppPage reports whether a server's front page is whisper.cpp's server's
// ("<title>Whisper.cpp Server</title>").
func WhisperCppPage(body []byte) bool {
	return bytes.Contains(bytes.ToLower(body), []byte("whisper.cpp server"))
}
