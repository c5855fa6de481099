package testenv

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Terminal is a pseudo-terminal: the program under test gets TTY as its terminal, and the test
// reads what was written to it from the other side.
type Terminal struct {
	// TTY is the terminal's side that the program under test is given.
	TTY  *os.File
	mu   sync.Mutex
	seen bytes.Buffer
	more chan struct{} // gets a value after each read
}

// OpenTerminal opens a pseudo-terminal, closed when the test ends.
func OpenTerminal(t testing.TB) *Terminal {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	term := &Terminal{TTY: tty, more: make(chan struct{}, 1)}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := ptm.Read(b)
			term.mu.Lock()
			term.seen.Write(b[:n])
			term.mu.Unlock()
			select {
			case term.more <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { tty.Close(); ptm.Close() })
	return term
}

// WaitFor waits until the terminal has shown want, and fails the test after a while.
func (term *Terminal) WaitFor(t testing.TB, want string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		s := term.Shown()
		if strings.Contains(s, want) {
			return
		}
		select {
		case <-term.more:
		case <-deadline:
			t.Fatalf("the terminal never showed %q; it shows %q", want, s)
		}
	}
}

// Shown returns everything the terminal has shown so far.
func (term *Terminal) Shown() string {
	term.mu.Lock()
	defer term.mu.Unlock()
	return term.seen.String()
}

// Echoes reports whether the terminal echoes what is typed.
func (term *Terminal) Echoes(t testing.TB) bool {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(term.TTY.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return tio.Lflag&unix.ECHO != 0
}
