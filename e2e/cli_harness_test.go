package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// The CLI's own tests (cli/) run each command line in-process; the tests in the cli_*_test.go
// files here run the built binary, for what only a real process shows: exit codes, signals,
// the terminal, the audio libraries that read the process's environment, and what the process
// writes on its own standard error.

// canary is the API key the CLI tests use; it must never appear in any output or file.
const canary = "pk_CANARY_7f3a9c2e5b1d4f6a8c0e2b4d6f8a0c2e"

// cliHome is a private HOME with config directories, and no keyring reachable.
type cliHome struct {
	dir string
	env []string
}

// newCLIHome makes a home whose environment is the process's without PARLEY_, DBUS_, HOME and
// XDG_ variables, with HOME and the XDG directories in the home, a D-Bus address where no bus
// listens, and extra (NAME=value).
func newCLIHome(t *testing.T, extra ...string) *cliHome {
	t.Helper()
	h := &cliHome{dir: t.TempDir()}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PARLEY_") || strings.HasPrefix(kv, "DBUS_") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_") {
			continue
		}
		h.env = append(h.env, kv)
	}
	h.env = append(h.env, "HOME="+h.dir, "XDG_CONFIG_HOME="+filepath.Join(h.dir, "config"),
		"XDG_DATA_HOME="+filepath.Join(h.dir, "data"), "DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(h.dir, "no-bus"))
	h.env = append(h.env, extra...)
	return h
}

// run runs the binary in h, checks that the canary key appears nowhere in what it printed or
// wrote, and returns what happened.
func (h *cliHome) run(t *testing.T, input string, args ...string) result {
	t.Helper()
	r := testenv.Run(t, testenv.Cmd{Bin: bin, Env: h.env, Dir: h.dir, Stdin: input, Timeout: time.Minute}, args...)
	if strings.Contains(r.Stdout+r.Stderr, canary) || strings.Contains(r.Stdout+r.Stderr, canary[3:]) {
		t.Errorf("parley %v printed the API key: %s", args, r)
	}
	testenv.AssertSecretInNoFile(t, canary, h.dir)
	return r
}

// command is the binary with args, to start in h.
func (h *cliHome) command(args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env, cmd.Dir = h.env, h.dir
	return cmd
}

// waitCLIExit waits for cmd to end and returns its exit code, killing it after within.
func waitCLIExit(t *testing.T, cmd *exec.Cmd, within time.Duration) int {
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

// oneLine fails the test unless r's standard error is exactly one line of text.
func oneLine(t *testing.T, what string, r result) {
	t.Helper()
	if s := strings.TrimSuffix(r.Stderr, "\n"); s == "" || strings.Contains(s, "\n") {
		t.Errorf("%s: standard error holds %d lines, want one:\n%s", what, strings.Count(r.Stderr, "\n"), r.Stderr)
	}
}
