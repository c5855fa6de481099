//go:build unix && !darwin

package hotkey

import (
	"errors"
	"testing"
	"time"

	"parley/internal/testenv"
)

// wait waits for the next event, or fails.
func wait(t *testing.T, l *Listener, down bool) {
	t.Helper()
	select {
	case ev, ok := <-l.Events():
		if !ok {
			t.Fatalf("the events ended, waiting for down=%v", down)
		}
		if ev.Down != down {
			t.Fatalf("got down=%v, want down=%v", ev.Down, down)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("no event within 10 s, waiting for down=%v", down)
	}
}

// quiet checks that no event comes for d.
func quiet(t *testing.T, l *Listener, d time.Duration) {
	t.Helper()
	select {
	case ev := <-l.Events():
		t.Fatalf("unexpected event %+v", ev)
	case <-time.After(d):
	}
}

// startX11 starts a display and makes this an X11 session, whatever the test's own is.
func startX11(tb testing.TB) *testenv.Display {
	d := testenv.StartDisplay(tb)
	tb.Setenv("DISPLAY", d.Name)
	tb.Setenv("WAYLAND_DISPLAY", "")
	tb.Setenv("XDG_SESSION_TYPE", "x11")
	return d
}

func TestX11_HoldReleaseTakenAndGivenBack(t *testing.T) {
	d := startX11(t)
	l, err := Register(Default)
	if err != nil {
		t.Fatalf("Register: %v", err)
	}
	defer l.Close()
	if l.Via() != "X11" {
		t.Errorf("via %q", l.Via())
	}

	d.KeyDown(t, "ctrl+alt+space")
	wait(t, l, true)
	// Held past X's repeat delay (660 ms by default): the repeats are not new presses.
	quiet(t, l, 1200*time.Millisecond)
	d.KeyUp(t, "ctrl+alt+space")
	wait(t, l, false)

	// With Num Lock on, the same keys still work.
	d.Key(t, "Num_Lock")
	d.KeyDown(t, "ctrl+alt+space")
	wait(t, l, true)
	d.KeyUp(t, "ctrl+alt+space")
	wait(t, l, false)
	d.Key(t, "Num_Lock")

	// Other keys, and the key without its modifiers, are not ours.
	d.Key(t, "space", "ctrl+space", "alt+space", "ctrl+alt+a")
	quiet(t, l, 300*time.Millisecond)

	// Held by this listener, the combination is taken for anyone else.
	if _, err := Register(Default); !errors.Is(err, ErrTaken) {
		t.Fatalf("a second Register = %v, want ErrTaken", err)
	}
	other, err := Register(Combo{Ctrl | Alt, "P"})
	if err != nil {
		t.Fatalf("another combination: %v", err)
	}
	other.Close()

	l.Close()
	if _, ok := <-l.Events(); ok {
		t.Error("events still open after Close")
	}
	again, err := Register(Default)
	if err != nil {
		t.Fatalf("after Close, Register = %v", err)
	}
	again.Close()
}

func TestRegister_NoDisplay(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("XDG_SESSION_TYPE", "")
	_, err := Register(Default)
	var u *UnavailableError
	if !errors.As(err, &u) {
		t.Fatalf("Register = %v, want an UnavailableError", err)
	}
}
