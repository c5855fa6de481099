package cli

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"
)

// keyShaped matches text that looks like an API key or a bearer credential: a known key prefix
// followed by at least 8 key characters ("pk_…", "sk-…"), or "Bearer" and a token.
var keyShaped = regexp.MustCompile(`(?i)\b(?:pk|sk|rk|ak|api|key|tok|token)[-_][A-Za-z0-9][A-Za-z0-9_\-]{7,}|\bbearer\s+[^\s"']+`)

// redacted replaces a secret in what Parley prints.
const redacted = "[REDACTED]"

// stderrPrinter is the one way to standard error: every write, from Parley or from cobra, has the
// keys it knows of and anything key-shaped replaced by [REDACTED], so no path prints a key.
type stderrPrinter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string // keys given or read in this run; the longest first
}

// addSecret makes p redact s from now on; blank or very short values are ignored.
func (p *stderrPrinter) addSecret(s string) {
	s = strings.TrimSpace(s)
	if len(s) < 4 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range p.secrets {
		if k == s {
			return
		}
	}
	p.secrets = append(p.secrets, s)
	// Longest first, so a key that contains another is replaced whole.
	for i := len(p.secrets) - 1; i > 0 && len(p.secrets[i]) > len(p.secrets[i-1]); i-- {
		p.secrets[i], p.secrets[i-1] = p.secrets[i-1], p.secrets[i]
	}
}

// redact returns s without any secret p knows of and without anything key-shaped.
func (p *stderrPrinter) redact(s string) string {
	p.mu.Lock()
	for _, k := range p.secrets {
		s = strings.ReplaceAll(s, k, redacted)
	}
	p.mu.Unlock()
	return keyShaped.ReplaceAllString(s, redacted)
}

// Write redacts b and writes it; it reports len(b) written when the redacted text went out whole.
func (p *stderrPrinter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.redact(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// isTerminal reports whether w is a terminal (for the spinner and the hidden key prompt).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// spinnerDelay is how long a call may take before the spinner shows what Parley waits for; a
// variable so that tests need not wait.
var spinnerDelay = time.Second

// spinnerFrames are drawn one after another while a call is under way.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// waitFor shows, on a terminal and after spinnerDelay, a spinner on standard error saying what
// Parley waits for ("the reply"), with the seconds elapsed. The returned stop erases it; call it
// before printing anything else. Off a terminal it does nothing.
func (g *globals) waitFor(what string) (stop func()) {
	if !g.stderrTTY {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		start := time.Now()
		timer := time.NewTimer(spinnerDelay)
		defer timer.Stop()
		select {
		case <-done:
			return
		case <-timer.C:
		}
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			fmt.Fprintf(g.stderr, "\r%s Waiting for %s… %ds\033[K", spinnerFrames[i%len(spinnerFrames)], what, int(time.Since(start).Seconds()))
			select {
			case <-done:
				fmt.Fprint(g.stderr, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-finished
		})
	}
}
