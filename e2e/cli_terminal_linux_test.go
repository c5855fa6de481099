package e2e

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// cliTerminal is a pseudo-terminal: the program under test gets tty as its terminal, and the
// test reads what was written to it from the other side.
type cliTerminal struct {
	tty  *os.File
	mu   sync.Mutex
	seen bytes.Buffer
	more chan struct{} // gets a value after each read
}

// openCLITerminal opens a pseudo-terminal, closed when the test ends.
func openCLITerminal(t *testing.T) *cliTerminal {
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
	term := &cliTerminal{tty: tty, more: make(chan struct{}, 1)}
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
func (term *cliTerminal) waitFor(t *testing.T, want string) {
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
func (term *cliTerminal) echoes(t *testing.T) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(term.tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}

// TestCLI_LoginCtrlCAtTheHiddenPromptEndsAtOnce needs a real process: Ctrl-C is a signal, and
// the prompt turns the echo of the process's controlling terminal off and must turn it back on.
func TestCLI_LoginCtrlCAtTheHiddenPromptEndsAtOnce(t *testing.T) {
	f := newCLIFake(t)
	term := openCLITerminal(t)
	h := newCLIHome(t, "PARLEY_BASE_URL="+f.srv.URL)
	cmd := h.command("login")
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
	if code := waitCLIExit(t, cmd, 5*time.Second); code != 130 {
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
