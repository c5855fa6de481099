package cli

import (
	"bytes"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a bytes.Buffer safe for the spinner's goroutine and the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestStderrPrinter_Redacts(t *testing.T) {
	var out bytes.Buffer
	p := &stderrPrinter{w: &out}
	p.addSecret("  plain-secret-without-prefix  ")
	p.addSecret("ab") // too short to redact safely: ignored
	for _, tc := range []struct{ in, want string }{
		{`unknown command "pk_0123456789abcdef" for "parley login"`, `unknown command "[REDACTED]" for "parley login"`},
		{"Authorization: Bearer abc.def-ghi", "Authorization: [REDACTED]"},
		{"key sk-proj-AbCdEf0123456789 refused", "key [REDACTED] refused"},
		{"got plain-secret-without-prefix back", "got [REDACTED] back"},
		{"conversation c_0123456789abcdef and 550e8400-e29b-41d4-a716-446655440000", "conversation c_0123456789abcdef and 550e8400-e29b-41d4-a716-446655440000"},
		{"the --api-key flag", "the --api-key flag"},
	} {
		out.Reset()
		if _, err := p.Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("printed %q, want %q", out.String(), tc.want)
		}
	}
}

func TestWaitFor_SpinnerOnlyOnATerminal(t *testing.T) {
	old := spinnerDelay
	spinnerDelay = 0
	t.Cleanup(func() { spinnerDelay = old })

	var out lockedBuffer
	g := &globals{stderr: &out, stderrTTY: true}
	stop := g.waitFor("the reply")
	for !strings.Contains(out.String(), "Waiting for the reply") {
		// With no delay the spinner draws at once; wait for its first frame.
		runtime.Gosched()
	}
	stop()
	stop() // a second stop is harmless
	s := out.String()
	if !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("the spinner did not erase its line: %q", s)
	}

	out = lockedBuffer{}
	g = &globals{stderr: &out, stderrTTY: false}
	g.waitFor("the reply")()
	if out.String() != "" {
		t.Errorf("off a terminal the spinner printed %q", out.String())
	}
}
