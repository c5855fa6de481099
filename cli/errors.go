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
	"os"
	"regexp"
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
	)
	switch {
	case errors.Is(err, client.ErrReplyLost):
		if g.conv != "" {
			return fmt.Sprintf("The message was sent but the reply was lost, so you may have been charged: check 'parley history %s' before sending it again.", g.conv)
		}
		return "The message was sent but the reply was lost, so you may have been charged: check 'parley conversations' before sending it again."
	case errors.As(err, &ce):
		return g.phraseStatus(ce)
	case errors.As(err, &re):
		to := "another address"
		if re.Location != "" {
			to = re.Location
		}
		return fmt.Sprintf("The service redirected to %s (%d); Parley does not follow redirects, so the key stays put: use the final address as --base-url.", to, re.StatusCode)
	case errors.As(err, &de):
		return fmt.Sprintf("The service's answer has no %s that Parley can find: check that %s is a Chat and Voice Service.", de.Field, g.hostOrBase())
	case errors.Is(err, client.ErrInsecureURL):
		return fmt.Sprintf("Parley sends the API key only over https to %s (plain http is for this machine only): use https://.", g.hostOrBase())
	case errors.Is(err, client.ErrAudioTooLarge):
		return "The audio is larger than the service's limit of 10,000,000 bytes: send a shorter recording."
	case errors.Is(err, audio.ErrSilentDevice):
		return "The microphone delivers only silence: check that it is not muted, or pick another input with --device (see 'parley devices')."
	case errors.Is(err, audio.ErrDeviceFailed):
		return "The audio input stopped working: check the microphone's connection and try again."
	case errors.Is(err, playback.ErrNoDevice):
		return "No audio output device found: start a sound server (PulseAudio or PipeWire) or connect speakers; PARLEY_AUDIO_BACKEND picks the audio system."
	case errors.Is(err, audio.ErrNoDevice):
		return "No audio device found: start a sound server (PulseAudio or PipeWire) or connect one; PARLEY_AUDIO_BACKEND picks the audio system."
	case errors.Is(err, server.ErrNoSuchKey):
		return "No account has this API key in the service's database: check --key, and --data if the service keeps its data elsewhere."
	case errors.As(err, &nd):
		return fmt.Sprintf("There is no Parley database in %s: give the service's --data DIR, or create a key there first.", nd.Dir)
	case errors.Is(err, syscall.EADDRINUSE):
		return "The address is already in use, perhaps by another 'parley serve': stop it, or give another --addr (127.0.0.1:0 picks a free port)."
	case errors.Is(err, keystore.ErrNotFound):
		return fmt.Sprintf("No API key is stored for %s: run 'parley login', or set PARLEY_API_KEY.", g.base)
	case errors.As(err, &ue):
		return fmt.Sprintf("The system keyring is not available (%s): %s, or set PARLEY_API_KEY.", ue.Reason, keyringAdvice(ue.Reason))
	case errors.Is(err, keystore.ErrInvalidKey):
		return fmt.Sprintf("That is not a usable API key: %v.", err)
	case errors.As(err, &fe):
		if fe.op == "parse" {
			return fmt.Sprintf("The config file %s is not valid JSON: fix or delete it.", fe.path)
		}
		return capitalize(fe.Error()) + "."
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("The service did not answer within %s: try again, or allow longer with --timeout.", roundDuration(g.timeoutUsed))
	case errors.Is(err, context.Canceled):
		return "Cancelled."
	case errors.Is(err, syscall.ECONNREFUSED):
		if g.isLocal() {
			return fmt.Sprintf("Nothing is listening at %s: start the reference service with 'parley serve', or set --base-url.", g.base)
		}
		return fmt.Sprintf("%s refused the connection: check the address, or try again later.", g.hostOrBase())
	case errors.As(err, &dns):
		return fmt.Sprintf("The host %s was not found: check the address in --base-url, and your connection.", dns.Name)
	case errors.As(err, &cv), errors.As(err, &ua):
		return fmt.Sprintf("The TLS certificate of %s is not trusted: check the address, or install the certificate's authority.", g.hostOrBase())
	case errors.As(err, &op), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return fmt.Sprintf("The connection to %s failed: check your connection and try again.", g.hostOrBase())
	case errors.Is(err, os.ErrNotExist):
		return capitalize(err.Error()) + "."
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
			return fmt.Sprintf("The service refused this API key (401%s): check the key; nothing was stored.", what)
		case g.keySource == fromNone:
			return fmt.Sprintf("The service wants an API key (401%s): run 'parley login', or set PARLEY_API_KEY.", what)
		case g.keySource == fromFlag:
			return fmt.Sprintf("The service refused the API key given with --api-key (401%s): check the key.", what)
		case g.keySource == fromEnv:
			return fmt.Sprintf("The service refused the API key in PARLEY_API_KEY (401%s): fix it, or unset it to use the keyring.", what)
		}
		return fmt.Sprintf("The service refused the stored API key (401%s): run 'parley login' with a valid key.", what)
	case http.StatusPaymentRequired:
		return fmt.Sprintf("Not enough points for this call (402%s): ask the service's operator for more.", what)
	case http.StatusForbidden:
		return fmt.Sprintf("The service does not let this API key do that (403%s): ask its operator for a key that may.", what)
	case http.StatusNotFound:
		return g.phraseNotFound(e, what)
	case http.StatusRequestEntityTooLarge:
		return fmt.Sprintf("Too large for the service (413%s): send a shorter text or recording.", what)
	case http.StatusUnsupportedMediaType:
		return fmt.Sprintf("The service cannot read this audio (415%s): try another format, such as WAV.", what)
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		if g.command == "parley speak" && mentions(e, "voice") {
			return fmt.Sprintf("The service refused the voice (%d%s): list its voices with 'parley voices'.", e.StatusCode, what)
		}
		return fmt.Sprintf("The service refused the request (%d%s): check the values you gave.", e.StatusCode, what)
	case http.StatusTooManyRequests:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("The service is busy (429%s): try again in %s.", what, roundDuration(e.RetryAfter))
		}
		return fmt.Sprintf("The service is busy (429%s): try again in a moment.", what)
	case http.StatusBadGateway:
		if g.command == "parley chat" && !mentions(e, "charge", "refund") {
			return fmt.Sprintf("The service's model failed (502%s); a failed chat call is refunded: try again.", what)
		}
		if g.command == "parley speak" || g.command == "parley transcribe" {
			return fmt.Sprintf("The service's speech engine failed (502%s): try again.", what)
		}
		return fmt.Sprintf("The service's model failed (502%s): try again.", what)
	case http.StatusServiceUnavailable:
		return fmt.Sprintf("The service is unavailable (503%s): try again later.", what)
	}
	if e.StatusCode >= 500 {
		return fmt.Sprintf("The service failed (%d%s): try again later.", e.StatusCode, what)
	}
	if e.StatusCode >= 200 && e.StatusCode < 300 {
		return fmt.Sprintf("The service answered with an error%s.", what)
	}
	return fmt.Sprintf("The service refused the request (%d%s).", e.StatusCode, what)
}

// phraseNotFound tells a wrong address from a conversation that does not exist.
func (g *globals) phraseNotFound(e *client.Error, what string) string {
	if u, err := url.Parse(g.base); err == nil && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1") {
		return fmt.Sprintf("Not found (404) at %s: Parley adds /v1 itself, so drop the /v1 from the base URL.", g.base)
	}
	if strings.Contains(e.Path, "/conversations/") || (g.conv != "" && strings.HasSuffix(e.Path, "/messages")) {
		conv := g.conv
		if conv == "" {
			conv = "with that ID"
		}
		return fmt.Sprintf("No conversation %s on this service (404%s): list yours with 'parley conversations'.", conv, what)
	}
	return fmt.Sprintf("The service has no %s %s (404%s): check that the base URL %s is right.", e.Method, e.Path, what, g.base)
}

// serviceMessage is the service's own words for a refusal, as ": words", clipped; "" when it
// gave none beyond the status text.
func serviceMessage(e *client.Error) string {
	m := strings.Join(strings.Fields(e.Message), " ")
	if m == "" || strings.EqualFold(m, http.StatusText(e.StatusCode)) {
		if e.Code != "" {
			return ": " + e.Code
		}
		return ""
	}
	m = strings.TrimRight(m, ". ")
	const maxWords = 70
	if utf8.RuneCountInString(m) > maxWords {
		m = string([]rune(m)[:maxWords-1]) + "…"
	}
	return ": " + m
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

// capitalize upper-cases the first letter of s.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return strings.ToUpper(string(r)) + s[n:]
}

var spaces = regexp.MustCompile(`\s+`)

// clipLine makes s one line of at most maxLine characters.
func clipLine(s string) string {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	if utf8.RuneCountInString(s) > maxLine {
		s = string([]rune(s)[:maxLine-1]) + "…"
	}
	return s
}
