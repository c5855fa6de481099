package playback

import (
	"testing"
	"time"
)

// SetMaxDurationForTest lowers the decoding cap for the rest of the test.
func SetMaxDurationForTest(t testing.TB, d time.Duration) {
	t.Helper()
	old := maxDuration
	maxDuration = d
	t.Cleanup(func() { maxDuration = old })
}

// SetIdleCloseForTest sets how long the process's output stays open idle, for the rest of the test.
func SetIdleCloseForTest(t testing.TB, d time.Duration) {
	t.Helper()
	theDevice.mu.Lock()
	old := theDevice.idle
	theDevice.idle = d
	theDevice.mu.Unlock()
	t.Cleanup(func() {
		theDevice.mu.Lock()
		theDevice.idle = old
		theDevice.mu.Unlock()
	})
}
