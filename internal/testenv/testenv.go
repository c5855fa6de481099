// Package testenv gives tests the outside tools they need (PulseAudio, espeak-ng, a keyring, a
// display), started per test and stopped by t.Cleanup, and decides what a missing tool means:
// a skip with a clear message on a developer's machine, a failure under CI=true.
package testenv

import (
	"os"
	"os/exec"
	"testing"
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
