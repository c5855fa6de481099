package backoff_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"parley/internal/backoff"
)

func TestDelay_JitteredDoublingCapped(t *testing.T) {
	p := backoff.Policy{Base: 100 * time.Millisecond, Max: 5 * time.Second}
	for attempt := range 20 {
		full := min(p.Base<<attempt, p.Max)
		for range 20 {
			if d := p.Delay(attempt, 0); d < full/2 || d > full {
				t.Fatalf("Delay(%d) = %v, want within [%v, %v]", attempt, d, full/2, full)
			}
		}
	}
	if d := p.Delay(1000, 0); d < p.Max/2 || d > p.Max {
		t.Errorf("a late attempt waits %v, want at most the cap %v", d, p.Max)
	}
}

func TestDelay_HonoursRetryAfter(t *testing.T) {
	p := backoff.Policy{Base: time.Millisecond, Max: time.Second}
	if d := p.Delay(0, 7*time.Second); d != 7*time.Second {
		t.Errorf("Delay with Retry-After 7s = %v", d)
	}
}

func TestSleep_StopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := backoff.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
	if err := backoff.Sleep(t.Context(), time.Microsecond); err != nil {
		t.Errorf("Sleep = %v", err)
	}
}
