package cli

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"parley/keystore"
)

// Surroundings is what a run takes from the process besides its streams, given by a test in
// place of the process's own, so that runs in parallel in one test process share none of it.
type Surroundings struct {
	Env       map[string]string // the environment: a variable not in it is unset
	ConfigDir string            // the user's config directory (what os.UserConfigDir gives)
	DataDir   string            // the service's default --data directory
	Keyring   keystore.Backend  // the system keyring
	// SpinnerDelay is how long a call may take before the spinner shows on a terminal; 0 keeps
	// the CLI's own delay.
	SpinnerDelay time.Duration
}

// RunInProcess runs the command line in args as Main does, in this process, within s. It
// catches no signal: the test ends a run through ctx. The working directory is the process's,
// which the commands resolve relative file names against.
func RunInProcess(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, s Surroundings) int {
	return run(ctx, s.globals(stdin, stdout, stderr), args)
}

// globals wires a run's streams within s.
func (s Surroundings) globals(stdin io.Reader, stdout, stderr io.Writer) *globals {
	g := newGlobals(stdin, stdout, stderr, func(name string) string { return s.Env[name] })
	g.userConfigDir = func() (string, error) { return s.ConfigDir, nil }
	g.dataDir = func() string { return s.DataDir }
	g.keyring = keystore.NewWithBackend(s.Keyring, 0)
	if s.SpinnerDelay > 0 {
		g.spinnerDelay = s.SpinnerDelay
	}
	return g
}

// NoKeyring is a keyring that cannot be reached, as on a machine whose D-Bus session bus
// address names a socket that does not exist: every call fails as go-keyring then fails.
type NoKeyring struct{ Bus string }

// Get fails: the keyring cannot be reached.
func (k NoKeyring) Get(string, string) (string, error) { return "", k.err() }

// Set fails: the keyring cannot be reached.
func (k NoKeyring) Set(string, string, string) error { return k.err() }

// Delete fails: the keyring cannot be reached.
func (k NoKeyring) Delete(string, string) error { return k.err() }

func (k NoKeyring) err() error {
	return &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: k.Bus, Net: "unix"},
		Err: os.NewSyscallError("connect", syscall.ENOENT)}
}

// isolatedGlobals wires a run's streams in surroundings of the test's own: an empty
// environment, new directories, and no keyring.
func isolatedGlobals(t testing.TB, stdin io.Reader, stdout, stderr io.Writer) *globals {
	dir := t.TempDir()
	s := Surroundings{
		Env:       map[string]string{},
		ConfigDir: filepath.Join(dir, "config"),
		DataDir:   filepath.Join(dir, "data", "parley"),
		Keyring:   NoKeyring{Bus: filepath.Join(dir, "no-bus")},
	}
	return s.globals(stdin, stdout, stderr)
}

func TestParsePoints_AsPrinted(t *testing.T) {
	for in, want := range map[string]int64{"1000": 1000, "1_000": 1000, "1,000": 1000, "1,000,000": 1000000} {
		if n, err := parsePoints(in, "points", false); err != nil || n != want {
			t.Errorf("parsePoints(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	if _, err := parsePoints("1.5", "points", false); err == nil {
		t.Error("1.5 was taken")
	}
}
