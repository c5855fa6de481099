package e2e

import (
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestCLI_LoginCtrlCAtTheHiddenPromptEndsAtOnce needs a real process: Ctrl-C is a signal, and
// the prompt turns the echo of the process's controlling terminal off and must turn it back on.
func TestCLI_LoginCtrlCAtTheHiddenPromptEndsAtOnce(t *testing.T) {
	f := testenv.NewFakeService(t)
	term := testenv.OpenTerminal(t)
	h := newCLIHome(t, "PARLEY_BASE_URL="+f.URL)
	cmd := h.command("login")
	cmd.Stdin, cmd.Stderr = term.TTY, term.TTY
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term.WaitFor(t, "API key: ")
	t.Cleanup(func() { cmd.Process.Kill() }) // if it never turns echo off
	testenv.WaitUntil(t, 20*time.Second, 10*time.Millisecond, "the prompt to turn echo off", func() bool { return !term.Echoes(t) })
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitCLIExit(t, cmd, 5*time.Second); code != 130 {
		t.Errorf("Ctrl-C at the API key prompt: exit %d, want 130 at once", code)
	}
	term.WaitFor(t, "interrupted")
	if !term.Echoes(t) {
		t.Error("after Ctrl-C at the prompt the terminal no longer echoes")
	}
	if n := len(f.Requests()); n != 0 {
		t.Errorf("the interrupted login sent %d requests", n)
	}
}
