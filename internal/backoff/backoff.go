// Package backoff is the one retry pace of Parley's API client and service: exponential with
// jitter, capped, honouring the wait a server asked for and the context. It only paces retries;
// whether a call may be sent again at all (a charged chat call never is, once it may have
// reached the service) is each caller's policy.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy paces retries.
type Policy struct {
	// Base is the full wait before the first retry; each further retry doubles it.
	Base time.Duration
	// Max caps the full wait.
	Max time.Duration
}

// Delay returns the wait before retry number attempt (0 for the first): a random time between
// half and all of Base·2^attempt, capped at Max. A positive retryAfter, the wait the server
// asked for (its Retry-After), is taken instead, as it is.
func (p Policy) Delay(attempt int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return retryAfter
	}
	d := p.Base << min(max(attempt, 0), 16)
	if d > p.Max || d <= 0 {
		d = p.Max
	}
	half := d / 2
	return half + rand.N(half+1)
}

// Sleep waits d, or until ctx is done, when it returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
