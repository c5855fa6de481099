package cli

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/term"
)

// keyShaped matches text that looks like an API key or a bearer credential: a known key prefix
// followed by at least 8 key characters ("pk_…", "sk-…"), or "Bearer" and a token. A prefixed
// match counts only when it holds a digit (see redactKeyShaped), so that "api_interview" stays.
var keyShaped = regexp.MustCompile(`(?i)\b(?:pk|sk|rk|ak|api|key|tok|token)[-_][A-Za-z0-9][A-Za-z0-9_\-]{7,}|\bbearer\s+[^\s"']+`)

// longToken matches a run of 32 or more key characters: a candidate for a key without a prefix.
var longToken = regexp.MustCompile(`[A-Za-z0-9_-]{32,}`)

// uuidShaped is a UUID as services write them, lower-case hex 8-4-4-4-12: an ID, not a key.
var uuidShaped = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// callIDShaped is the ID the reference service gives a chat call ("call_" and 32 lower-case hex
// characters), which its log and 'parley admin ledger' show so that the two can be matched: an
// ID, not a key.
var callIDShaped = regexp.MustCompile(`^call_[0-9a-f]{32}$`)

// issuedKeyShaped is a key as the reference service issues it ("pk_" and 32 hex characters):
// redacted even in the rare key whose hex holds no digit, which keyShaped alone would keep.
var issuedKeyShaped = regexp.MustCompile(`^(?i:pk)_[0-9a-fA-F]{32}$`)

// minSecret is the shortest secret replaced wherever it occurs, and the shortest piece of a
// known key that is replaced on its own (a service may echo part of the key it refused).
// A shorter key is replaced only as a whole word, and only the key in use.
const minSecret = 12

// redacted replaces a secret in what Parley prints.
const redacted = "[REDACTED]"

// stderrPrinter is the one way to standard error: every write, from Parley or from cobra, has the
// keys it knows of, pieces of them, and anything key-shaped replaced by [REDACTED], so no path
// prints a key.
type stderrPrinter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string        // keys given or read in this run; the longest first
	public  map[string]bool // long IDs the service gave, which look random but are not keys
}

// addSecret makes p redact s from now on. inUse says s is the key this run sends: only then is
// a value shorter than minSecret redacted (as a whole word), since redacting a key that is a
// common word matters more than the word. Blank values, and shorter ones not in use, are ignored.
func (p *stderrPrinter) addSecret(s string, inUse bool) {
	s = strings.TrimSpace(s)
	if len(s) < 4 || (len(s) < minSecret && !inUse) {
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

// allow tells p that id came from the service as an ID (a conversation's, say): it is printed
// even when it looks random, unless it is a known secret.
func (p *stderrPrinter) allow(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.public == nil {
		p.public = map[string]bool{}
	}
	p.public[id] = true
}

// redact returns s without any secret p knows of, without any piece of one of at least
// minSecret characters, and without anything key-shaped or random-looking enough to be a key.
func (p *stderrPrinter) redact(s string) string {
	s = p.redactKnown(s)
	p.mu.Lock()
	public := p.public
	p.mu.Unlock()
	s = redactKeyShaped(s)
	return longToken.ReplaceAllStringFunc(s, func(tok string) string {
		if public[tok] || !looksRandom(tok) {
			return tok
		}
		return redacted
	})
}

// redactKnown returns s without the secrets p knows of, and without pieces of them.
func (p *stderrPrinter) redactKnown(s string) string {
	p.mu.Lock()
	secrets := p.secrets
	p.mu.Unlock()
	for _, k := range secrets {
		if len(k) < minSecret {
			s = replaceWord(s, k)
		} else {
			s = strings.ReplaceAll(s, k, redacted)
		}
	}
	for _, k := range secrets {
		if len(k) > minSecret {
			s = replacePieces(s, k)
		}
	}
	return s
}

// knows reports whether s holds a secret p knows of, or a piece of one.
func (p *stderrPrinter) knows(s string) bool { return p.redactKnown(s) != s }

// redactKeyShaped replaces bearer tokens, and prefixed tokens that hold a digit.
func redactKeyShaped(s string) string {
	return keyShaped.ReplaceAllStringFunc(s, func(m string) string {
		if strings.HasPrefix(strings.ToLower(m), "bearer") || strings.ContainsFunc(m, unicode.IsDigit) || issuedKeyShaped.MatchString(m) {
			return redacted
		}
		return m
	})
}

// looksKeyShaped reports whether s holds text the printer would redact without knowing it.
func looksKeyShaped(s string) bool {
	if redactKeyShaped(s) != s {
		return true
	}
	for _, tok := range longToken.FindAllString(s, -1) {
		if looksRandom(tok) {
			return true
		}
	}
	return false
}

// looksRandom reports whether a token of key characters reads like a generated key rather than
// like words, numbers and dates: it holds letters and digits that change places at least four
// times (a key does about once in every four characters; "Recording_2024_01_05" and
// "Meeting20240105" do once or not at all), and it is not a UUID or a chat call's ID.
func looksRandom(tok string) bool {
	if uuidShaped.MatchString(tok) || callIDShaped.MatchString(tok) {
		return false
	}
	changes := 0
	prev := byte(0) // 'a' letter, '0' digit, 0 separator
	for i := 0; i < len(tok); i++ {
		var c byte
		switch ch := tok[i]; {
		case ch >= '0' && ch <= '9':
			c = '0'
		case ch == '-' || ch == '_':
			c = 0
		default:
			c = 'a'
		}
		if c != 0 && prev != 0 && c != prev {
			changes++
		}
		prev = c
	}
	return changes >= 4
}

// isWordByte reports whether b may be part of a key: the characters around a short key that
// make it part of a longer word.
func isWordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// replaceWord replaces k in s where it stands alone, not inside a longer word.
func replaceWord(s, k string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, k)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := i + len(k)
		if (i > 0 && isWordByte(s[i-1])) || (j < len(s) && isWordByte(s[j])) {
			b.WriteString(s[:i+1])
			s = s[i+1:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(redacted)
		s = s[j:]
	}
}

// replacePieces replaces every run of at least minSecret characters of s that is also a run of
// the key k: what is left of a key a service cut short, or began to show.
func replacePieces(s, k string) string {
	var b strings.Builder
	i := 0
	for i+minSecret <= len(s) {
		if !strings.Contains(k, s[i:i+minSecret]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i + minSecret
		for j < len(s) && strings.Contains(k, s[i:j+1]) {
			j++
		}
		b.WriteString(redacted)
		i = j
	}
	b.WriteString(s[i:])
	return b.String()
}

// Write redacts b and writes it; it reports len(b) written when the redacted text went out whole.
func (p *stderrPrinter) Write(b []byte) (int, error) {
	if _, err := io.WriteString(p.w, p.redact(string(b))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// showURL is a service address as Parley prints it on standard output: without any key it
// knows of or anything key-shaped, like everything on standard error.
func (g *globals) showURL(u string) string {
	return g.printer.redact(u)
}

// isTerminal reports whether w is a terminal (for the spinner and the hidden key prompt).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// spinnerFrames are drawn one after another while a call is under way.
var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// waitFor shows, on a terminal and after g.spinnerDelay, a spinner on standard error saying what
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
		timer := time.NewTimer(g.spinnerDelay)
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
