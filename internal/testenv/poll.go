package testenv

import (
	"errors"
	"testing"
	"time"
)

// Poll calls check every interval until it returns nil, and fails the test with check's last
// error once timeout has passed. It is for what nothing signals: another process, a file, a
// port, the screen, state behind another package's lock. Wait on a channel when there is one,
// and use testing/synctest for goroutines and timers that are all in the test's process.
//
// check runs on the test's goroutine: it may fail the test itself, say when the process it
// waits for has exited.
func Poll(t testing.TB, timeout, interval time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v (waited %v)", err, timeout)
		}
		time.Sleep(interval)
	}
}

// WaitUntil is Poll for a condition: once timeout has passed it fails the test saying it timed
// out waiting for what.
func WaitUntil(t testing.TB, timeout, interval time.Duration, what string, cond func() bool) {
	t.Helper()
	Poll(t, timeout, interval, func() error {
		if cond() {
			return nil
		}
		return errors.New("timed out waiting for " + what)
	})
}
