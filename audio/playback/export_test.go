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
