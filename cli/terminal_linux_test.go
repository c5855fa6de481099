//go:build linux

package cli_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/cli"
	"parley/internal/testenv"
)

// TestSpinner_ShowsForEveryServiceCall runs each command that calls the service against a
// service that answers only once the terminal shows the spinner: the run's standard error is a
// pseudo-terminal.
func TestSpinner_ShowsForEveryServiceCall(t *testing.T) {
	t.Parallel()
	wav := wavFile(t)
	out := t.TempDir()
	mp3 := base64.StdEncoding.EncodeToString([]byte("\xff\xfb\x90\x00fake-mp3-frame-bytes"))
	for _, tc := range []struct {
		name, route, body string
		args              []string
	}{
		{"conversations", "GET /v1/chat/conversations", `[]`, []string{"conversations"}},
		{"history", "GET /v1/chat/conversations/7/messages", `{"messages":[]}`, []string{"history", "7"}},
		{"config shown", "GET /v1/chat/conversations/7/messages", `{"config":{}}`, []string{"config", "7"}},
		{"config saved", "PATCH /v1/chat/conversations/7/config", `{"config":{"max_tokens":5}}`, []string{"config", "7", "--max-tokens", "5"}},
		{"delete", "DELETE /v1/chat/conversations/7", `{}`, []string{"delete", "7"}},
		{"speak", "POST /v1/chat/speech", `{"audio":"data:audio/mpeg;base64,` + mp3 + `"}`, []string{"speak", "-o", filepath.Join(out, "hi.mp3"), "Hi"}},
		{"transcribe", "POST /v1/chat/transcribe", `{"text":"hello"}`, []string{"transcribe", wav}},
		{"chat", "POST /v1/chat/messages", `{"conversation_id":"c_1","reply":"ok"}`, []string{"chat", "hi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			var once sync.Once
			f := testenv.NewFakeService(t)
			t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the fake closes
			f.Handle(tc.route, func(w http.ResponseWriter, _ *http.Request) {
				<-release
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			})
			term := testenv.OpenTerminal(t)
			h := newHome(t, "PARLEY_BASE_URL="+f.URL, "PARLEY_API_KEY="+canary)
			var stdout testenv.SyncBuffer
			exited := make(chan int, 1)
			go func() {
				s := h.surroundings()
				s.SpinnerDelay = time.Millisecond // what is tested is that it shows, not after how long
				exited <- cli.RunInProcess(t.Context(), tc.args, strings.NewReader(""), &stdout, term.TTY, s)
			}()
			term.WaitFor(t, "Waiting for")
			once.Do(func() { close(release) })
			select {
			case code := <-exited:
				if code != 0 {
					t.Errorf("parley %v: exit %d", tc.args, code)
				}
			case <-time.After(time.Minute):
				t.Fatalf("parley %v did not end within a minute of the answer", tc.args)
			}
			if strings.Contains(term.Shown(), canary) {
				t.Errorf("parley %v showed the key on the terminal", tc.args)
			}
		})
	}
}
