//go:build windows

package hotkey

import (
	"errors"
	"testing"
)

// Run under Wine by the package test, or on Windows: registering, a second registration of the
// same keys refused as taken, and the keys given back on Close.
func TestWindows_RegisterTakenAndGivenBack(t *testing.T) {
	l, err := Register(Default)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	if l.Via() != "Windows" {
		t.Errorf("via %q", l.Via())
	}
	if _, err := Register(Default); !errors.Is(err, ErrTaken) {
		t.Errorf("a second Register = %v, want ErrTaken", err)
	}
	l.Close()
	for range l.Events() {
	}
	again, err := Register(Default)
	if err != nil {
		t.Fatalf("after Close, Register = %v", err)
	}
	again.Close()
}
