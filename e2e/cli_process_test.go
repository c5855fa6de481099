package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// TestCLI_ExitCodesOfTheRealProcess checks what a script sees of the binary: 0 on success, 1
// when the service or the network failed, 2 for a wrong command line, each failure one line.
func TestCLI_ExitCodesOfTheRealProcess(t *testing.T) {
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 200, `{"conversations":[{"conversation_id":7,"name":"Trip plans"}]}`)
	dead := httptest.NewServer(http.NotFoundHandler())
	deadURL := dead.URL
	dead.Close()
	h := newCLIHome(t, "PARLEY_API_KEY="+canary)
	for _, c := range []struct {
		args []string
		code int
		want string // on stdout for 0, on the one line of stderr otherwise
	}{
		{[]string{"--base-url", f.URL, "conversations"}, 0, "Trip plans"},
		{[]string{"--version"}, 0, "parley "},
		{[]string{"--base-url", deadURL, "conversations"}, 1, "parley serve"},
		{[]string{"--base-url", f.URL, "history", "8"}, 1, "parley: "},
		{[]string{"nosuchcommand"}, 2, "parley: "},
		{[]string{"--base-url", f.URL, "chat", "--temperature", "2.5", "hi"}, 2, "parley: "},
	} {
		r := h.run(t, "", c.args...)
		if r.Code != c.code {
			t.Errorf("parley %q: %s; want exit %d", c.args, r, c.code)
			continue
		}
		if c.code == 0 {
			if !strings.Contains(r.Stdout, c.want) || r.Stderr != "" {
				t.Errorf("parley %q: %s; want %q on stdout and nothing on stderr", c.args, r, c.want)
			}
			continue
		}
		if !strings.Contains(r.Stderr, c.want) {
			t.Errorf("parley %q: %s; want %q on stderr", c.args, r, c.want)
		}
		oneLine(t, strings.Join(c.args, " "), r)
	}
}

// TestCLI_KeyNeverReachesTheProcessStderr gives the key where a person might mistype it, and a
// service that repeats it, and checks (through h.run) what the real process wrote on its
// standard error: the in-process tests see the CLI's writer, this one the file descriptor.
func TestCLI_KeyNeverReachesTheProcessStderr(t *testing.T) {
	f := testenv.NewFakeService(t)
	f.On("GET /v1/chat/conversations", 401, `{"error":{"code":"unauthorized","message":"Unknown API key `+canary+`."}}`)
	h := newCLIHome(t, "PARLEY_BASE_URL="+f.URL)
	for _, args := range [][]string{
		{"login", canary},
		{canary},
		{"--api-key", canary, "conversations"},
		{"--api-key", canary, "--nosuchflag=" + canary, "conversations"},
		{"--base-url", "http://" + canary + ":1", "conversations"},
		{"history", canary, "--api-key", canary},
		{"speak", "--voice", canary},
	} {
		r := h.run(t, "", args...)
		if r.Code == 0 {
			t.Errorf("parley %q succeeded: %s", args, r)
		}
		oneLine(t, strings.Join(args, " "), r)
	}
	r := h.run(t, canary+"\n", "login")
	if r.Code != 1 || !strings.Contains(r.Stderr, "refused this API key") {
		t.Errorf("login with a refused key: %s", r)
	}
}
