package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// bare is an API key without a recognisable prefix, which only its length and randomness give away.
const bare = "Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2"

// assertNotShown fails the test if any of secrets is in what parley printed or in a file it wrote.
func assertNotShown(t *testing.T, h *home, args []string, r result, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if strings.Contains(r.Stdout+r.Stderr, s) {
			t.Errorf("parley %q printed %q: %s", args, s, r)
		}
		filepath.WalkDir(h.dir, func(path string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), s) {
					t.Errorf("parley %q wrote %q into %s", args, s, path)
				}
			}
			return nil
		})
	}
}

func TestLogin_BaseURLHoldingAKeyIsRefused(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 200, `[]`)
	h := newHome(t)
	const shaped = "pk_live_5Fq2Xr8Tn1Wb6Yc3Zd"
	for _, base := range []string{
		f.URL + "/" + canary,     // the key in use
		f.URL + "/" + shaped,     // another key, by its prefix
		f.URL + "/" + bare,       // another key, by its randomness
		f.URL + "/api?k=" + bare, // in a query
	} {
		args := []string{"login", "--base-url", base}
		r := h.run(t, canary+"\n", args...)
		if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, "--base-url") {
			t.Errorf("login --base-url …: %s; want exit 2 naming --base-url, and nothing on stdout", r)
		}
		assertNotShown(t, h, args, r, shaped, bare)
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("logins with a key in the base URL sent %d requests", n)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "config", "parley", "config.json")); err == nil {
		t.Error("a base URL holding a key was saved in config.json")
	}

	// A query or fragment is refused, with advice, though it holds no key.
	for _, base := range []string{f.URL + "/?tenant=acme", f.URL + "/#top"} {
		r := h.run(t, "", "--api-key", canary, "--base-url", base, "conversations")
		if r.Code != 2 || !strings.Contains(r.Stderr, "?query or #fragment") || !strings.Contains(r.Stderr, "such as https://") {
			t.Errorf("--base-url %s: %s; want exit 2 saying a query or fragment has no place there", base, r)
		}
	}

	// A key without prefix or randomness is refused once it is known to be the key in use.
	const plain = "correcthorsebatterystaple"
	args := []string{"login", "--base-url", f.URL + "/" + plain}
	r := h.run(t, plain+"\n", args...)
	if r.Code != 2 {
		t.Errorf("login with the key in the base URL's path: %s; want exit 2", r)
	}
	assertNotShown(t, h, args, r, plain)
}

func TestRedaction_BareKeyInTheWrongPlace(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("POST /v1/chat/messages", 404, `{"error":{"code":"not_found","message":"No conversation `+bare+`."}}`)
	f.On("GET /v1/chat/conversations/"+bare+"/messages", 404, `{"error":{"message":"No conversation `+bare+`."}}`)
	f.On("POST /v1/chat/speech", 422, `{"error":{"code":"invalid_voice","message":"Unknown voice \"`+bare+`\"."}}`)
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
	for _, args := range [][]string{
		{"--api-key", "chat", bare}, // the flag swallowed the command, leaving the key as one
		{bare},
		{"status", bare},
		{"conversations", bare},
		{"--base-url", bare, "conversations"},
		{"--timeout", bare, "conversations"},
		{"history", bare},
		{"chat", "-c", bare, "hello"},
		{"speak", "--voice", bare, "-o", filepath.Join(h.dir, "out.mp3"), "hello"},
		{"help", bare},
		{"admin", bare},
		{"-" + bare},
	} {
		r := h.run(t, "", args...)
		if r.Code == 0 {
			t.Errorf("parley %q succeeded: %s", args, r)
		}
		assertNotShown(t, h, args, r, bare)
	}
	r := h.run(t, "", "--api-key", "chat", bare)
	if r.Code != 2 || !strings.Contains(r.Stderr, "--api-key took a command's name") {
		t.Errorf("--api-key chat KEY: %s; want exit 2 saying the flag took the command", r)
	}
	r = h.run(t, "", bare)
	if !strings.Contains(r.Stderr, "unknown command (not shown, in case it is a key)") {
		t.Errorf("parley KEY: %s; want the unknown command not shown", r)
	}

	// IDs are not keys: a UUID and a reference-service conversation ID are shown, as is a long
	// conversation ID the service gave.
	const uuid = "550e8400-e29b-41d4-a716-446655440000"
	r = h.run(t, "", "chat", "-c", uuid, "hello")
	if !strings.Contains(r.Stderr, uuid) {
		t.Errorf("chat -c UUID: %s; want the UUID in the message", r)
	}
	for _, id := range []string{"c_0123456789abcdef0123", "k3J9x2M7q8P4w1Z6r5T0y8U3i2O7p6A5s4D1f2G9"} {
		f.On("POST /v1/chat/messages", 200, `{"conversation_id":"`+id+`","reply":"ok"}`)
		if r := h.run(t, "", "chat", "hello"); r.Code != 0 || !strings.Contains(r.Stderr, "conversation "+id) {
			t.Errorf("chat starting conversation %s: %s; want its ID on stderr", id, r)
		}
	}
}

func TestHelp_UnknownTopicIsNotEchoed(t *testing.T) {
	t.Parallel()
	h := newHome(t)
	for _, args := range [][]string{{"help", canary}, {"help", "admin", canary}} {
		r := h.run(t, "", args...)
		if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, "not shown") {
			t.Errorf("parley %q: %s; want exit 2, nothing on stdout", args, r)
		}
	}
	r := h.run(t, "", "help", "chta")
	if r.Code != 2 || !strings.Contains(r.Stderr, `unknown help topic "chta"`) || !strings.Contains(r.Stderr, "did you mean 'chat'?") {
		t.Errorf("help chta: %s", r)
	}
	if r := h.run(t, "", "help", "chat"); r.Code != 0 || !strings.Contains(r.Stdout, "Sends one message") {
		t.Errorf("help chat: %s", r)
	}
}

func TestRedaction_PiecesOfTheKeyFromTheService(t *testing.T) {
	t.Parallel()
	for _, piece := range []string{canary[:20] + "…", "…" + canary[len(canary)-16:], canary[8:28]} {
		f := testenv.NewFakeService(t)
		f.On("GET /v1/chat/conversations", 401, `{"error":{"code":"unauthorized","message":"Unknown API key `+piece+`"}}`)
		h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
		args := []string{"conversations"}
		r := h.run(t, "", args...)
		if r.Code != 1 || !strings.Contains(r.Stderr, "refused the API key") {
			t.Errorf("401 naming part of the key: %s", r)
		}
		assertNotShown(t, h, args, r, strings.Trim(piece, "…"))
	}
}

func TestRedaction_InnocentWordsStay(t *testing.T) {
	t.Parallel()
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 401, `{"error":{"message":"Unknown API key."}}`)
	// A short PARLEY_API_KEY that --api-key overrides is not the key in use: its word stays.
	h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY=service")
	r := h.run(t, "", "--api-key", canary, "conversations")
	if r.Code != 1 || !strings.Contains(r.Stderr, "The service refused") {
		t.Errorf("with PARLEY_API_KEY=service overridden: %s; want 'The service refused' whole", r)
	}
	// A file name with a key's prefix but no digit is a file name.
	r = h.run(t, "", "transcribe", "api_interview.wav")
	if r.Code != 1 || !strings.Contains(r.Stderr, "api_interview.wav") || strings.Contains(r.Stderr, "REDACTED") {
		t.Errorf("transcribe api_interview.wav: %s; want the file named", r)
	}
	// The key in use is redacted even when it is a word.
	echo := testenv.NewFakeService(t)
	echo.On("GET /v1/chat/conversations", 401, `{"error":{"message":"Unknown API key sesame."}}`)
	h = newHome(t, "PARLEY_BASE_URL="+echo.URL)
	r = h.run(t, "", "--api-key", "sesame", "conversations")
	if r.Code != 1 || strings.Contains(r.Stderr, "sesame") {
		t.Errorf("--api-key sesame: %s; want the key redacted", r)
	}
}
