//go:build linux

package cli_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"parley/cli"
)

// terminal is a pseudo-terminal: the program under test gets tty as its terminal, and the test
// reads what was written to it from the other side.
type terminal struct {
	tty  *os.File
	mu   sync.Mutex
	seen bytes.Buffer
	more chan struct{} // gets a value after each read
}

// openTerminal opens a pseudo-terminal, closed when the test ends.
func openTerminal(t *testing.T) *terminal {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{tty: tty, more: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptm.Read(b)
			term.mu.Lock()
			term.seen.Write(b[:n])
			term.mu.Unlock()
			select {
			case term.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); ptm.Close() })
	return term
}

// waitFor waits until the terminal has shown want, and fails the test after a while.
func (term *terminal) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		term.mu.Lock()
		s := term.seen.String()
		term.mu.Unlock()
		if strings.Contains(s, want) {
			return
		}
		select {
		case <-term.more:
		case <-deadline:
			t.Fatalf("the terminal never showed %q; it shows %q", want, s)
		}
	}
}

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
			f := newFake(t)
			t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the fake closes
			f.handle(tc.route, func(w http.ResponseWriter, _ *http.Request) {
				<-release
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, tc.body)
			})
			term := openTerminal(t)
			h := newHome(t, "PARLEY_BASE_URL="+f.srv.URL, "PARLEY_API_KEY="+canary)
			var stdout lockedBuffer
			exited := make(chan int, 1)
			go func() {
				s := h.surroundings()
				s.SpinnerDelay = time.Millisecond // what is tested is that it shows, not after how long
				exited <- cli.RunInProcess(t.Context(), tc.args, strings.NewReader(""), &stdout, term.tty, s)
			}()
			term.waitFor(t, "Waiting for")
			once.Do(func() { close(release) })
			select {
			case code := <-exited:
				if code != 0 {
					t.Errorf("parley %v: exit %d", tc.args, code)
				}
			case <-time.After(time.Minute):
				t.Fatalf("parley %v did not end within a minute of the answer", tc.args)
			}
			term.mu.Lock()
			shown := term.seen.String()
			term.mu.Unlock()
			if strings.Contains(shown, canary) {
				t.Errorf("parley %v showed the key on the terminal", tc.args)
			}
		})
	}
}
