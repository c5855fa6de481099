// Package testenv gives tests the outside tools they need (PulseAudio, espeak-ng, a keyring, a
// display), started per test and stopped by t.Cleanup, and decides what a missing tool means:
// a skip with a clear message on a developer's machine, a failure under CI=true.
package testenv

import (
	"net"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// InCI reports whether the tests run under CI, where a missing tool is a failure, not a skip.
func InCI() bool { return os.Getenv("CI") == "true" }

// RequireCommands skips the test (or fails it under CI=true) unless every named command is on PATH.
func RequireCommands(t testing.TB, names ...string) {
	t.Helper()
	var missing []string
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "this test needs %v on PATH; run `make test` (it installs them) or install them with apt"
	if InCI() {
		t.Fatalf(msg, missing)
	}
	t.Skipf(msg, missing)
}

// ForEachLoopback runs f as a subtest for each way a person may write this computer's address
// (127.0.0.1, localhost, [::1]), with a listener on a free port of the matching loopback; f
// owns the listener. A loopback this machine lacks skips its subtest.
func ForEachLoopback(t *testing.T, f func(t *testing.T, ln net.Listener, host string)) {
	for _, c := range []struct{ listen, host string }{
		{"127.0.0.1:0", "127.0.0.1"},
		{"127.0.0.1:0", "localhost"},
		{"[::1]:0", "[::1]"},
	} {
		t.Run(c.host, func(t *testing.T) {
			ln, err := net.Listen("tcp", c.listen)
			if err != nil {
				t.Skipf("cannot listen at %s here: %v", c.listen, err)
			}
			f(t, ln, c.host)
		})
	}
}

// HoldConnections accepts every connection to ln and holds it open until the test ends, when ln
// and each connection are closed; serve, when not nil, is given each connection on a goroutine of
// its own as it comes. It returns how many connections were accepted so far.
func HoldConnections(t testing.TB, ln net.Listener, serve func(net.Conn)) *atomic.Int64 {
	accepted := &atomic.Int64{}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			if serve != nil {
				go serve(c)
			}
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return accepted
}

// EndProcess ends a started process as a session does: sig first, then a kill if it has not
// ended within grace; exited is closed when it ends (its Wait returned). It reports whether it
// had to be killed.
func EndProcess(cmd *exec.Cmd, sig os.Signal, exited <-chan struct{}, grace time.Duration) (killed bool) {
	cmd.Process.Signal(sig)
	select {
	case <-exited:
		return false
	case <-time.After(grace):
		cmd.Process.Kill()
		<-exited
		return true
	}
}
