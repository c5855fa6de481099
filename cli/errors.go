package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/keystore"
	"parley/server"
)

// This file is where the CLI phrases errors. The packages below it (client, keystore, audio,
// media, server) return short typed errors that state facts; here each kind becomes one line
// that says what happened and what to do at a terminal. The desktop app phrases the same kinds
// its own way.

// maxLine is the longest error line Parley prints, in characters.
const maxLine = 160

// describe turns an error into one line a person can act on; the printer redacts it again.
func (g *globals) describe(err error) string {
	return clipLine(g.phrase(err))
}

// phrase picks the sentence for err's kind.
func (g *globals) phrase(err error) string {
	var (
		pe  *phrasedError
		dv  *doubledV1Error
		ni  *noSuchInputError
		ce  *client.Error
		re  *client.RedirectError
		de  *client.DecodeError
		ue  *keystore.UnavailableError
		fe  *configFileError
		dns *net.DNSError
		cv  *tls.CertificateVerificationError
		ua  x509.UnknownAuthorityError
		op  *net.OpError
		nd  *server.NoDatabaseError
		dl  *server.DataDirLockedError
	)
	switch {
	case errors.As(err, &pe):
		return fit(pe.format, pe.args...)
	case errors.Is(err, client.ErrReplyLost):
		line := fmt.Sprintf("The message was sent but the reply was lost, so you may have been charged: check 'parley history %s' before sending it again.", g.conv)
		switch {
		case g.conv == "":
			return "The message was sent but the reply was lost, so you may have been charged: check 'parley conversations' before sending it again."
		case utf8.RuneCountInString(line) <= maxLine:
			return line
		}
		// A command cut short could not be run; the person gave the ID, so it is left out.
		return "The message was sent but the reply was lost, so you may have been charged: check 'parley history' with the conversation's ID before sending it again."
	case errors.As(err, &ce):
		return g.phraseStatus(ce)
	case errors.As(err, &re):
		to := "another address"
		if re.Location != "" {
			to = re.Location
		}
		return fit("The service redirected to %s (%d); Parley does not follow redirects, so the key stays put: use the final address as --base-url.", elastic(to), re.StatusCode)
	case errors.As(err, &de):
		return fit("The service's answer has no %s that Parley can find: check that %s is a Chat and Voice Service.", de.Field, elastic(g.hostOrBase()))
	case errors.Is(err, client.ErrInsecureURL):
		return fit("Parley sends the API key only over https to %s (plain http is for this machine only): use https://.", elastic(g.hostOrBase()))
	case errors.Is(err, client.ErrAudioTooLarge):
		return "The audio is larger than the service's limit of 10,000,000 bytes: send a shorter recording."
	case errors.Is(err, audio.ErrSilentDevice):
		return "The microphone delivers only silence: check that it is not muted, or pick another input with --device (see 'parley devices')."
	case errors.Is(err, audio.ErrDeviceFailed):
		return "The audio input stopped working: check the microphone's connection and try again."
	case errors.Is(err, playback.ErrNoDevice):
		return "No audio output device found: start a sound server (PulseAudio or PipeWire) or connect speakers; PARLEY_AUDIO_BACKEND picks the audio system."
	case errors.As(err, &ni):
		return fit("No audio input matches %q: list the inputs with 'parley devices', and give --device an ID or part of a name.", elastic(ni.name))
	case errors.Is(err, audio.ErrNoDevice):
		return "No audio device found: start a sound server (PulseAudio or PipeWire) or connect one; PARLEY_AUDIO_BACKEND picks the audio system."
	case errors.Is(err, server.ErrNoSuchKey):
		if g.command == "parley admin key revoke" {
			return "No account has this API key in the service's database: check the key, and --data if the service keeps its data elsewhere."
		}
		return "No account has this API key in the service's database: check --key, and --data if the service keeps its data elsewhere."
	case errors.As(err, &nd):
		return fit("There is no Parley database in %s: give the service's --data DIR, or create a key there first.", elastic(nd.Dir))
	case errors.As(err, &dl):
		if dl.PID > 0 {
			return fit("Another Parley (PID %d) uses the data directory %s: stop it, or give another --data.", dl.PID, elastic(dl.Dir))
		}
		return fit("Another Parley uses the data directory %s: stop it, or give another --data.", elastic(dl.Dir))
	case errors.Is(err, server.ErrTooManyPoints):
		return "That would take the balance past 9,007,199,254,740,991 points, the most an account may hold: grant fewer."
	case errors.Is(err, syscall.EADDRINUSE):
		return "The address is already in use, perhaps by another 'parley serve': stop it, or give another --addr (127.0.0.1:0 picks a free port)."
	case errors.As(err, &dv):
		return fit("No API key is stored for %s, but there is one without the /v1: drop it from the base URL (Parley adds /v1 itself).", elastic(dv.base))
	case errors.Is(err, keystore.ErrNotFound):
		return fit("No API key is stored for %s: run 'parley login', or set PARLEY_API_KEY.", elastic(g.base))
	case errors.As(err, &ue):
		return fmt.Sprintf("The system keyring is not available (%s): %s, or set PARLEY_API_KEY.", ue.Reason, keyringAdvice(ue.Reason))
	case errors.Is(err, keystore.ErrInvalidKey):
		return fmt.Sprintf("That is not a usable API key: %v.", err)
	case errors.As(err, &fe):
		switch {
		case fe.op == "parse":
			return fit("The config file %s is not valid JSON: fix or delete it.", elastic(fe.path))
		case fe.path == "":
			return fit("Cannot %s the config directory: %s.", fe.op, clippable(fe.err.Error()))
		}
		return fit("Cannot %s the config file %s: %s.", fe.op, elastic(fe.path), clippable(fe.err.Error()))
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("The service did not answer within %s: try again, or allow longer with --timeout.", roundDuration(g.timeoutUsed))
	case errors.Is(err, context.Canceled):
		return "Cancelled."
	case errors.Is(err, syscall.ECONNREFUSED):
		if g.isLocal() {
			return fit("Nothing is listening at %s: start the reference service with 'parley serve', or set --base-url.", elastic(g.base))
		}
		return fit("%s refused the connection: check the address, or try again later.", elastic(g.hostOrBase()))
	case errors.As(err, &dns):
		return fit("The host %s was not found: check the address in --base-url, and your connection.", elastic(dns.Name))
	case errors.As(err, &cv), errors.As(err, &ua):
		return fit("The TLS certificate of %s is not trusted: check the address, or install the certificate's authority.", elastic(g.hostOrBase()))
	case errors.As(err, &op), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fit("The connection to %s failed: check your connection and try again.", elastic(g.hostOrBase()))
	}
	return capitalize(err.Error()) + "."
}

// phraseStatus says what a refusal by the service means for the command that got it.
func (g *globals) phraseStatus(e *client.Error) string {
	what := serviceMessage(e)
	switch e.StatusCode {
	case http.StatusUnauthorized:
		switch {
		case g.command == "parley login":
			return fit("The service refused this API key (401%s): check the key; nothing was stored.", what)
		case g.keySource == fromNone:
			return fit("The service wants an API key (401%s): run 'parley login', or set PARLEY_API_KEY.", what)
		case g.keySource == fromFlag:
			return fit("The service refused the API key given with --api-key (401%s): check the key.", what)
		case g.keySource == fromEnv:
			return fit("The service refused the API key in PARLEY_API_KEY (401%s): fix it, or unset it to use the keyring.", what)
		}
		return fit("The service refused the stored API key (401%s): run 'parley login' with a valid key.", what)
	case http.StatusPaymentRequired:
		return fit("Not enough points for this call (402%s): ask the service's operator for more.", what)
	case http.StatusForbidden:
		return fit("The service does not let this API key do that (403%s): ask its operator for a key that may.", what)
	case http.StatusNotFound:
		return g.phraseNotFound(e, what)
	case http.StatusRequestEntityTooLarge:
		return fit("Too large for the service (413%s): send a shorter text or recording.", what)
	case http.StatusUnsupportedMediaType:
		return fit("The service cannot read this audio (415%s): try another format, such as WAV.", what)
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		if g.command == "parley speak" && mentions(e, "voice") {
			return fit("The service refused the voice (%d%s): list its voices with 'parley voices'.", e.StatusCode, what)
		}
		return fit("The service refused the request (%d%s): check the values you gave.", e.StatusCode, what)
	case http.StatusTooManyRequests:
		if e.RetryAfter > 0 {
			return fit("The service is busy (429%s): try again in %s.", what, roundDuration(e.RetryAfter))
		}
		return fit("The service is busy (429%s): try again in a moment.", what)
	case http.StatusBadGateway:
		if g.command == "parley chat" && !mentions(e, "charge", "refund") {
			return fit("The service's model failed (502%s); a failed chat call is refunded: try again.", what)
		}
		if g.command == "parley speak" || g.command == "parley transcribe" {
			return fit("The service's speech engine failed (502%s): try again.", what)
		}
		return fit("The service's model failed (502%s): try again.", what)
	case http.StatusServiceUnavailable:
		return fit("The service is unavailable (503%s): try again later.", what)
	}
	if e.StatusCode >= 500 {
		return fit("The service failed (%d%s): try again later.", e.StatusCode, what)
	}
	if e.StatusCode >= 200 && e.StatusCode < 300 {
		return fit("The service answered with an error%s.", what)
	}
	return fit("The service refused the request (%d%s).", e.StatusCode, what)
}

// phraseNotFound tells a wrong address from a conversation that does not exist.
func (g *globals) phraseNotFound(e *client.Error, what clippable) string {
	if g.endsInV1() {
		return fit("Not found (404) at %s: Parley adds /v1 itself, so drop the /v1 from the base URL.", elastic(g.base))
	}
	if strings.Contains(e.Path, "/conversations/") || (g.conv != "" && strings.HasSuffix(e.Path, "/messages")) {
		conv := elastic(g.conv)
		if conv == "" {
			conv = "with that ID"
		}
		return fit("No conversation %s on this service (404%s): list yours with 'parley conversations'.", conv, what)
	}
	return fit("The service at %s has no %s (404%s): check the base URL.", elastic(g.base), elastic(e.Method+" "+e.Path), what)
}

// endsInV1 reports whether the base URL ends in /v1, which Parley adds itself.
func (g *globals) endsInV1() bool {
	u, err := url.Parse(g.base)
	return err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1")
}

// serviceMessage is the service's own words for a refusal, as ": words", clipped; "" when it
// gave none beyond the status text. fit may clip it further.
func serviceMessage(e *client.Error) clippable {
	m := strings.Join(strings.Fields(e.Message), " ")
	if m == "" || strings.EqualFold(m, http.StatusText(e.StatusCode)) {
		if e.Code != "" {
			return clippable(": " + e.Code)
		}
		return ""
	}
	m = strings.TrimRight(m, ". ")
	const maxWords = 70
	if utf8.RuneCountInString(m) > maxWords {
		m = string([]rune(m)[:maxWords-1]) + "…"
	}
	return clippable(": " + m)
}

// mentions reports whether the service's message or code names any of words.
func mentions(e *client.Error, words ...string) bool {
	s := strings.ToLower(e.Message + " " + e.Code)
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// keyringAdvice says how to make a keyring usable again.
func keyringAdvice(r keystore.Reason) string {
	switch r {
	case keystore.ReasonTimeout, keystore.ReasonLocked:
		return "unlock it and try again"
	case keystore.ReasonNoSessionBus:
		return "run Parley in a desktop session"
	case keystore.ReasonNoSecretService:
		return "start a keyring such as gnome-keyring"
	}
	return "check your keyring"
}

// hostOrBase names the service briefly: its host, else its address.
func (g *globals) hostOrBase() string {
	if u, err := url.Parse(g.base); err == nil && u.Host != "" {
		return u.Host
	}
	if g.base != "" {
		return g.base
	}
	return "the service"
}

// isLocal reports whether the service is on this machine.
func (g *globals) isLocal() bool {
	u, err := url.Parse(g.base)
	return err == nil && isLoopbackHost(u.Hostname())
}

// roundDuration prints d in whole seconds (or as given when shorter than a second).
func roundDuration(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.String()
}

// capitalize upper-cases the first letter of s, unless s starts with a file name or an address,
// which keep their case.
func capitalize(s string) string {
	first, _, _ := strings.Cut(s, " ")
	if strings.ContainsAny(first, "./\\:") {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return strings.ToUpper(string(r)) + s[n:]
}

var spaces = regexp.MustCompile(`\s+`)

// clipLine makes s one line of at most maxLine characters. It is the last resort: the sentences
// are written to fit, with fit shortening their variable parts.
func clipLine(s string) string { return clipTo(s, maxLine) }

// clipTo makes s one line of at most limit characters.
func clipTo(s string, limit int) string {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit-1]) + "…"
	}
	return s
}

// elastic is a variable part of a line, such as a URL, a file name or an ID, that fit may
// shorten by cutting out its middle, so that the advice around it stays whole.
type elastic string

// clippable is a variable part of a line, such as the service's own words, that fit may
// shorten by cutting off its end.
type clippable string

// minElastic is the fewest characters fit leaves of a variable part.
const minElastic = 16

// fit formats a line like fmt.Sprintf and, when it is longer than maxLine characters, shortens
// its elastic and clippable arguments, the longest first, until it fits or they cannot shrink.
func fit(format string, args ...any) string { return fitIn(maxLine, format, args...) }

// fitIn is fit for a line of at most limit characters.
func fitIn(limit int, format string, args ...any) string {
	args = slices.Clone(args)
	for {
		s := fmt.Sprintf(format, args...)
		over := utf8.RuneCountInString(s) - limit
		if over <= 0 {
			return s
		}
		// Cut the longest parts down to one level, the highest at which the line fits.
		var sizes []int
		for _, a := range args {
			switch v := a.(type) {
			case elastic:
				sizes = append(sizes, utf8.RuneCountInString(string(v)))
			case clippable:
				sizes = append(sizes, utf8.RuneCountInString(string(v)))
			}
		}
		level := slices.Max(append(sizes, 0))
		for level > minElastic {
			cut := 0
			for _, n := range sizes {
				cut += max(0, n-(level-1))
			}
			level--
			if cut >= over {
				break
			}
		}
		if level >= slices.Max(append(sizes, 0)) {
			return s // nothing left to shorten
		}
		for i, a := range args {
			switch v := a.(type) {
			case elastic:
				if r := []rune(string(v)); len(r) > level {
					head := (level - 1) * 2 / 3
					args[i] = elastic(string(r[:head]) + "…" + string(r[len(r)-(level-1-head):]))
				}
			case clippable:
				if r := []rune(string(v)); len(r) > level {
					args[i] = clippable(string(r[:level-1]) + "…")
				}
			}
		}
	}
}

// phrasedError is an error the CLI has already phrased as a sentence; its variable parts may be
// elastic, and its cause is kept for errors.Is.
type phrasedError struct {
	format string
	args   []any
	cause  error
}

func (e *phrasedError) Error() string { return fmt.Sprintf(e.format, e.args...) }

func (e *phrasedError) Unwrap() error { return e.cause }

// phrased returns an error whose line is the sentence format makes of args, caused by cause.
func phrased(cause error, format string, args ...any) error {
	return &phrasedError{format: format, args: args, cause: cause}
}

// doubledV1Error is a base URL ending in /v1 for which no key is stored, while one is stored for
// the same address without /v1: the base URL names the API's root, and Parley adds /v1 itself.
type doubledV1Error struct{ base, without string }

func (e *doubledV1Error) Error() string {
	return fmt.Sprintf("no API key is stored for %s, but one is for %s", e.base, e.without)
}

func (e *doubledV1Error) Unwrap() error { return keystore.ErrNotFound }

// noSuchInputError is a --device that names none of the audio inputs.
type noSuchInputError struct{ name string }

func (e *noSuchInputError) Error() string {
	return fmt.Sprintf("no audio input matches %q", e.name)
}
