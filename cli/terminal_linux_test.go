//go:build linux

package cli_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
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

// echoes reports whether the terminal echoes what is typed.
func (term *terminal) echoes(t *testing.T) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(term.tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// waitExit waits for cmd to end and returns its exit code, killing it after a while.
func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) int {
	t.Helper()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(within):
		cmd.Process.Kill()
		<-done
		t.Errorf("parley did not end within %v of the signal", within)
		return -1
	}
}

func TestLogin_CtrlCAtTheHiddenPromptEndsAtOnce(t *testing.T) {
	f := newFake(t)
	term := openTerminal(t)
	h := newHome(t, "PARLEY_BASE_URL="+f.srv.URL)
	cmd := exec.Command(bin, "login")
	cmd.Env, cmd.Dir = h.env, h.dir
	cmd.Stdin, cmd.Stderr = term.tty, term.tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.waitFor(t, "API key: ")
	for deadline := time.Now().Add(20 * time.Second); term.echoes(t); {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the prompt never turned echo off")
		}
		time.Sleep(10 * time.Millisecond) // the terminal's state has no event to wait on
	}
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 5*time.Second); code != 130 {
		t.Errorf("Ctrl-C at the API key prompt: exit %d, want 130 at once", code)
	}
	term.waitFor(t, "interrupted")
	if !term.echoes(t) {
		t.Error("after Ctrl-C at the prompt the terminal no longer echoes")
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("the interrupted login sent %d requests", n)
	}
}

func TestStatus_InterruptedExitsLikeEveryCommand(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		t.Run(sig.String(), func(t *testing.T) {
			arrived := make(chan struct{}, 1)
			release := make(chan struct{})
			f := newFake(t)
			t.Cleanup(func() { close(release) }) // before the fake closes, which waits for its handlers
			f.handle("GET /v1/chat/conversations", func(http.ResponseWriter, *http.Request) {
				arrived <- struct{}{}
				<-release
			})
			h := newHome(t, "PARLEY_BASE_URL="+f.srv.URL, "PARLEY_API_KEY="+canary)
			cmd := exec.Command(bin, "status")
			cmd.Env = h.env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-arrived:
			case <-time.After(time.Minute):
				cmd.Process.Kill()
				t.Fatal("status never asked the service")
			}
			cmd.Process.Signal(sig)
			if code := waitExit(t, cmd, 10*time.Second); code != want || !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("status stopped by %v: exit %d, stdout %q, stderr %q; want %d and 'interrupted'", sig, code, stdout.String(), stderr.String(), want)
			}
		})
	}
}

// TestSpinner_ShowsForEveryServiceCall runs each command that calls the service against a
// service that answers only once the terminal shows the spinner.
func TestSpinner_ShowsForEveryServiceCall(t *testing.T) {
	wav := wavFile(t)
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
		{"speak", "POST /v1/chat/speech", `{"audio":"data:audio/mpeg;base64,` + mp3 + `"}`, []string{"speak", "-o", "hi.mp3", "Hi"}},
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
			cmd := exec.Command(bin, tc.args...)
			cmd.Env, cmd.Dir = h.env, h.dir
			var stdout bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, term.tty
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			term.waitFor(t, "Waiting for")
			once.Do(func() { close(release) })
			if code := waitExit(t, cmd, time.Minute); code != 0 {
				t.Errorf("parley %v: exit %d", tc.args, code)
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
