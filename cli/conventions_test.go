package cli_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// TestRedaction_KeyInEveryPosition gives the key where a person might mistype it, including the
// positions cobra reports as usage errors, and checks (through h.run) that no output holds it.
func TestRedaction_KeyInEveryPosition(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 401, `{"error":{"code":"unauthorized","message":"Unknown API key `+canary+`."}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL)
	for _, args := range [][]string{
		{"login", canary},
		{"logout", canary},
		{canary},
		{"--api-key", canary, canary},
		{"--api-key", canary, "conversations"},
		{"--api-key", canary, "conversations", canary},
		{"--api-key", canary, "--nosuchflag=" + canary, "conversations"},
		{"--base-url", canary, "conversations"},
		{"--base-url", "http://" + canary + ":1", "conversations"},
		{"history", canary, "--api-key", canary},
		{"config", canary, "--temperature", canary},
		{"--timeout", canary, "conversations"},
		{"admin", "points", "grant", "--key", canary, "-5"},
		{"speak", "--voice", canary},
	} {
		r := h.run(t, "", args...)
		if r.Code == 0 {
			t.Errorf("parley %q succeeded: %s", args, r)
		}
		if n := strings.Count(strings.TrimSpace(r.Stderr), "\n"); n != 0 {
			t.Errorf("parley %q printed %d lines on stderr, want one: %s", args, n+1, r)
		}
	}
	// A key read from standard input by login, refused by the service, and named in its message.
	r := h.run(t, canary+"\n", "login")
	if r.Code != 1 || !strings.Contains(r.Stderr, "refused this API key") || strings.Contains(r.Stderr, "parley login") {
		t.Errorf("login with a refused key: %s; want a refusal that does not tell the person to run 'parley login'", r)
	}
}

func TestLogin_APIKeyFlagWarnsAboutHistory(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 200, `[]`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL)
	r := h.run(t, "", "login", "--api-key", canary)
	// No keyring in this home: the key is checked with the service, then cannot be stored.
	if len(f.Requests()) != 1 || f.Requests()[0].Auth != "Bearer "+canary {
		t.Fatalf("login --api-key did not check the given key: %s", r)
	}
	if !strings.Contains(r.Stderr, "shell history") || !strings.Contains(r.Stderr, "PARLEY_API_KEY") || r.Code != 1 {
		t.Errorf("login --api-key: %s; want the history warning, and the keyring failure with PARLEY_API_KEY as the way out", r)
	}
}

func TestBaseURL_MalformedIsUsageError(t *testing.T) {
	t.Parallel()
	h := newHome(t, "PARLEY_API_KEY="+canary)
	for _, tc := range []struct{ url, want string }{
		{"127.0.0.1:8780", `"http://127.0.0.1:8780"`},
		{"localhost:8780", `"http://localhost:8780"`},
		{"api.example.com/v1", `"https://api.example.com/v1"`},
	} {
		r := h.run(t, "", "--base-url", tc.url, "conversations")
		if r.Code != 2 || !strings.Contains(r.Stderr, tc.want) || strings.Contains(strings.ToLower(r.Stderr), "keyring") {
			t.Errorf("--base-url %s: %s; want exit 2 suggesting %s", tc.url, r, tc.want)
		}
	}
	// From the environment too, named as such.
	h = newHome(t, "PARLEY_API_KEY="+canary, "PARLEY_BASE_URL=localhost:8780")
	if r := h.run(t, "", "conversations"); r.Code != 2 || !strings.Contains(r.Stderr, "PARLEY_BASE_URL") {
		t.Errorf("PARLEY_BASE_URL=localhost:8780: %s", r)
	}
}

func TestBaseURL_DoubledV1IsNamed(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t) // answers 404 to /v1/v1/...
	h := newHome(t, "PARLEY_API_KEY="+canary)
	r := h.run(t, "", "--base-url", f.URL+"/v1", "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "drop the /v1") || strings.Contains(r.Stderr, "parley conversations") {
		t.Errorf("doubled /v1: %s", r)
	}
}

func TestKey_WithSpaceIsUsageError(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY=pk_abc def0123456789")
	if r := h.run(t, "", "conversations"); r.Code != 2 || !strings.Contains(r.Stderr, "space") || !strings.Contains(r.Stderr, "PARLEY_API_KEY") {
		t.Errorf("a key with a space: %s", r)
	}
	if len(f.Requests()) != 0 {
		t.Errorf("a key with a space was sent")
	}
}

func TestChat_EmptyConversationIsUsageError(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("POST /v1/chat/messages", 200, `{"conversation_id":"c1","reply":"hi"}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	for _, c := range []string{"", "  "} {
		r := h.run(t, "", "chat", "-c", c, "hello")
		if r.Code != 2 || !strings.Contains(r.Stderr, "--conversation is empty") {
			t.Errorf("chat -c %q: %s", c, r)
		}
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("an empty -c sent %d charged calls", n)
	}
}

// hang is a service that accepts connections and never answers, until the test ends.
func hang(t *testing.T) *testenv.FakeService {
	t.Helper()
	f := testenv.NewFakeService(t)
	stop := make(chan struct{})
	f.Handle("GET /v1/chat/conversations", func(http.ResponseWriter, *http.Request) { <-stop })
	f.Handle("POST /v1/chat/messages", func(http.ResponseWriter, *http.Request) { <-stop })
	t.Cleanup(func() { close(stop) })
	return f
}

func TestTimeout_FlagAndEnvironment(t *testing.T) {
	t.Parallel()
	f := hang(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	r := h.run(t, "", "--timeout", "300ms", "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "did not answer within 300ms") || !strings.Contains(r.Stderr, "--timeout") {
		t.Errorf("--timeout 300ms: %s", r)
	}
	h = newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary, "PARLEY_TIMEOUT=1s")
	r = h.run(t, "", "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "did not answer within 1s") {
		t.Errorf("PARLEY_TIMEOUT=1s: %s", r)
	}
	h = newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary, "PARLEY_TIMEOUT=soon")
	if r = h.run(t, "", "conversations"); r.Code != 2 || !strings.Contains(r.Stderr, "PARLEY_TIMEOUT") {
		t.Errorf("PARLEY_TIMEOUT=soon: %s", r)
	}
}

func TestVersionCompletionAndSuggestions(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	r := h.run(t, "", "--version")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "parley ") || !strings.Contains(r.Stdout, "commit ") || !strings.Contains(r.Stdout, runtime.Version()) {
		t.Errorf("--version: %s", r)
	}
	for shell, want := range map[string]string{"bash": "complete -o default", "zsh": "#compdef parley", "fish": "complete -c parley", "powershell": "Register-ArgumentCompleter"} {
		if r := h.run(t, "", "completion", shell); r.Code != 0 || !strings.Contains(r.Stdout, want) {
			t.Errorf("completion %s: exit %d, output without %q", shell, r.Code, want)
		}
	}
	r = h.run(t, "", "chta", "hello")
	if r.Code != 2 || !strings.Contains(r.Stderr, "did you mean 'chat'?") {
		t.Errorf("a misspelt command: %s", r)
	}
}

func TestVoices(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/voices", 200, `{"data":{"voices":[{"name":"en-us","language":"en-US","description":"English (American)","default":true},{"name":"fr","language":"fr-FR"}]}}`)
	f.On("POST /v1/chat/speech", 422, `{"error":{"code":"invalid_voice","message":"Unknown voice \"klingon\"."}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	r := h.run(t, "", "voices")
	if r.Code != 0 || !strings.Contains(r.Stdout, "en-us *") || !strings.Contains(r.Stdout, "fr-FR") {
		t.Errorf("voices: %s", r)
	}
	r = h.run(t, "", "voices", "--json")
	var vs []map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &vs); err != nil || len(vs) != 2 || vs[0]["default"] != true {
		t.Errorf("voices --json: %s (%v)", r, err)
	}
	r = h.run(t, "", "speak", "--voice", "klingon", "-o", filepath.Join(h.dir, "x.mp3"), "Hello")
	if r.Code != 1 || !strings.Contains(r.Stderr, "parley voices") {
		t.Errorf("speak with an unknown voice: %s; want the hint to list voices", r)
	}

	bare := testenv.NewFakeService(t) // no voices endpoint
	h = newHome(t, "PARLEY_BASE_URL="+bare.URL, "PARLEY_API_KEY="+canary)
	if r := h.run(t, "", "voices"); r.Code != 1 || !strings.Contains(r.Stderr, "does not list its voices") {
		t.Errorf("voices on a service without the list: %s", r)
	}
}

func TestStatus(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 200, `[]`)
	f.On("GET /v1/account", 200, `{"data":{"balance":41,"price":1}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	r := h.run(t, "", "status")
	for _, want := range []string{f.URL, "this machine", "PARLEY_API_KEY", "yes", "41 points", "1 point)"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("status does not say %q: %s", want, r)
		}
	}
	r = h.run(t, "", "status", "--json")
	var st map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st["reachable"] != true || st["balance"] != 41.0 || st["key_source"] != "env" {
		t.Errorf("status --json: %s (%v)", r, err)
	}

	// A service without the balance extension still answers; the balance is "not reported".
	bare := testenv.NewFakeService(t)
	bare.On("GET /v1/chat/conversations", 200, `[]`)
	h = newHome(t, "PARLEY_BASE_URL="+bare.URL)
	r = h.run(t, "", "--api-key", canary, "status")
	if r.Code != 0 || !strings.Contains(r.Stdout, "--api-key") || !strings.Contains(r.Stdout, "not reported") {
		t.Errorf("status on a service without a balance: %s", r)
	}

	r = h.run(t, "", "--api-key", canary, "--json", "status")
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st["key_source"] != "flag" {
		t.Errorf("status --json with --api-key: %s (%v); want key_source \"flag\"", r, err)
	}

	// No key: exit 1, and the status says where a key could come from.
	h = newHome(t, "PARLEY_BASE_URL="+bare.URL)
	r = h.run(t, "", "status")
	if r.Code != 1 || !regexp.MustCompile(`API key: +none \(log in with 'parley login', or set PARLEY_API_KEY\)\n`).MatchString(r.Stdout) {
		t.Errorf("status with no key: %s", r)
	}
	r = h.run(t, "", "--json", "status")
	if err := json.Unmarshal([]byte(r.Stdout), &st); err != nil || st["key_source"] != "none" {
		t.Errorf("status --json with no key: %s (%v); want key_source \"none\"", r, err)
	}

	// Where the key comes from does not depend on whether the service may be asked.
	h = newHome(t, "PARLEY_API_KEY="+canary)
	r = h.run(t, "", "--base-url", "http://10.0.0.1", "status")
	if r.Code != 1 || !strings.Contains(r.Stdout, "from PARLEY_API_KEY") || !strings.Contains(r.Stdout, "not asked: Parley sends the API key only over https") {
		t.Errorf("status with a key and a plain-http address elsewhere: %s", r)
	}
}

func TestCI_RunSetsCI(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "export CI=true") {
		t.Error(".ci/run does not export CI=true, so a test whose tool is missing would skip in CI")
	}
}

func TestChatJSON_KeepsIDTypesAndDocumentsFields(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("POST /v1/chat/messages", 200, `{"data":{"conversation_id":"c_9","reply":"ok","user_message_id":5,"reply_message_id":"m6","points_charged":1,"balance":9}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	r := h.run(t, "", "--json", "chat", "hi")
	var out map[string]any
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatalf("chat --json: %s (%v)", r, err)
	}
	if out["user_message_id"] != 5.0 || out["reply_message_id"] != "m6" || out["conversation_id"] != "c_9" {
		t.Errorf("chat --json = %v; want the IDs in the JSON types the service gave", out)
	}
	help := h.run(t, "", "chat", "--help")
	for field := range out {
		if !strings.Contains(help.Stdout, field) {
			t.Errorf("chat --help does not document the --json field %q", field)
		}
	}
}
