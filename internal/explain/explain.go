// Package explain says what went wrong, as one sentence of facts, for the errors the client and
// the keystore return (and the network and TLS errors under them). It gives no advice: the CLI
// and the app each add the action that fits where the sentence is shown ("run 'parley login'",
// "Open Account…"), so both tell a person the same facts in the same words.
//
// A sentence never holds the API key: it is made of the error's kind, the service's address and
// the service's own words, which the client has already cleaned of the key.
package explain

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
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"parley/client"
	"parley/internal/i18n"
	"parley/internal/loopback"
	"parley/keystore"
)

// Kind is the kind of failure a Fact reports; the CLI and the app pick their action by it.
type Kind int

// The kinds of failure.
const (
	Unknown            Kind = iota // none of those below; the sentence is the error's own text
	ReplyLost                      // a chat call failed after it may have reached the service
	KeyRefused                     // 401: the service refused the API key, or wants one
	NoPoints                       // 402: not enough points for the call
	Forbidden                      // 403: the key may not do that
	NoConversation                 // 404 for a conversation
	NoEndpoint                     // 404 for anything else
	DoubledV1                      // 404 at a base URL that ends in /v1, which Parley adds itself
	TooLarge                       // 413: the service refused the request's size
	AudioTooLarge                  // audio over the service's limit, refused before it was sent
	UnreadableAudio                // 415: the service cannot read the audio
	BadRequest                     // 400 or 422: the service refused the values
	VoiceRefused                   // 400 or 422 about the voice of a speech call
	Busy                           // 429: the service asks to wait
	UpstreamFailed                 // 502: the service's model or speech engine failed
	ServiceDown                    // 503, or another 5xx
	ErrorAnswer                    // a 2xx whose body carries an error, or another status
	Redirect                       // a 3xx, which the client refuses to follow
	Undecodable                    // a successful answer without a field the client needs
	Insecure                       // a base URL that would send the key without TLS
	BadBaseURL                     // a base URL the client cannot use: none, not a URL, no host, a query or a fragment
	UserInBaseURL                  // a base URL holding a user name or password, where the key does not belong
	Certificate                    // the service's TLS certificate is not trusted
	Timeout                        // the service did not answer in time
	Cancelled                      // the call was cancelled
	NotListening                   // connection refused
	HostNotFound                   // the host name did not resolve
	ConnectionFailed               // any other network failure
	NoKey                          // no API key is stored for the service
	KeyringUnavailable             // the system keyring cannot be used
	InvalidKey                     // a key that cannot be used or stored (never shown)
	ReplyUnreadable                // a chat call answered with success (so charged) whose reply the client cannot read
	StoppedUnwritten               // a streamed reply stopped before the model wrote anything (refunded)
	NarrowbandAudio                // 422: the recogniser cannot hear telephone-quality audio
	LanguageUnheard                // 422: the recogniser cannot hear the language asked for
)

// KeySource says where the API key of a call came from, when the caller knows.
type KeySource int

// Where a key came from.
const (
	KeyUnknown KeySource = iota // not said
	KeyNone                     // no key was sent
	KeyStored                   // the system keyring
	KeyTyped                    // typed or piped in just now, to be stored
	KeyFlag                     // the --api-key flag
	KeyEnv                      // the PARLEY_API_KEY environment variable
)

// Work is what the failed call was for, when the caller knows; else the request path tells.
type Work int

// What a call was for.
const (
	WorkUnknown Work = iota // not said: the request path decides
	WorkChat                // a chat message
	WorkSpeech              // speech or transcription
)

// Scene is what the caller knows about where an error happened; every field may be left empty.
type Scene struct {
	// BaseURL is the service's address.
	BaseURL string
	// Conversation is the ID of the conversation the call was about.
	Conversation string
	// Timeout is the time limit of the call.
	Timeout time.Duration
	// Key is where the call's API key came from.
	Key KeySource
	// Work is what the call was for.
	Work Work
}

// Name is a variable part of a sentence, such as an address or an ID, that a caller fitting a
// line may shorten by cutting out its middle.
type Name string

// Words is a variable part of a sentence, the service's own words, that a caller fitting a line
// may shorten by cutting off its end.
type Words string

// Fact is what happened, as a sentence without its final stop and without advice.
type Fact struct {
	// Kind is the kind of failure.
	Kind Kind
	// Format and Args make the sentence with fmt.Sprintf; the variable parts are Name or Words.
	// Format is in the window's language (i18n.T), except where a plain form differs: that one
	// is, and Format, with its status code, stays English for a terminal.
	Format string
	// Args are the values Format refers to.
	Args []any
	// RetryAfter is the wait the service asked for, for Busy.
	RetryAfter time.Duration
	// OtherHost is true for a Certificate made out to another host, which no authority fixes.
	OtherHost bool
	// plain is the sentence for a person in a window, where it differs: without the HTTP
	// status code and the service's machine code (see Plain).
	plain *Fact
}

// String is the sentence, without its final stop.
func (f Fact) String() string { return fmt.Sprintf(f.Format, f.Args...) }

// Clipped is the sentence with the service's words cut to at most n characters.
func (f Fact) Clipped(n int) string {
	args := make([]any, len(f.Args))
	for i, a := range f.Args {
		if w, ok := a.(Words); ok {
			a = w.Clip(n)
		}
		args[i] = a
	}
	return fmt.Sprintf(f.Format, args...)
}

// Plain is the sentence for a person reading a window, without its final stop: the same facts
// as String, without the HTTP status code ("(502: …)") or the service's machine code
// ("upstream_error"), which tell that person nothing; the service's words are cut to at most n
// characters. A terminal's user, who may search the code or report it, is given String.
func (f Fact) Plain(n int) string {
	if f.plain == nil {
		return f.Clipped(n)
	}
	return f.plain.Clipped(n)
}

// Clip cuts w to at most n characters, ending in an ellipsis when it was longer: after the last
// whole word that fits ("The points…", not "The poi…"), or mid-word when one word fills most of
// n.
func (w Words) Clip(n int) Words {
	r := []rune(string(w))
	if len(r) <= n {
		return w
	}
	if n < 1 {
		return ""
	}
	cut := n - 1
	if i := lastSpace(r[:cut+1]); i > cut/2 {
		cut = i
	}
	return Words(strings.TrimRight(string(r[:cut]), " ,;:") + "…")
}

// lastSpace is the index of the last space in r, -1 when there is none.
func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return -1
}

// fact makes a Fact.
func fact(k Kind, format string, args ...any) Fact {
	return Fact{Kind: k, Format: format, Args: args}
}

// coded makes a Fact about a refusal with an HTTP status code: for a terminal, in English, lead
// (formatted with args), then the code and the service's words in brackets, then tail ("The
// service is busy (429: Slow down)"). Its plain form, for the window, has no code: bare when the
// service gave no message of its own, else withWords, whose last verb takes that message ("The
// service is busy: %s" → "The service is busy: Slow down").
func coded(k Kind, code int, e *client.Error, lead, tail, bare, withWords string, args ...any) Fact {
	f := Fact{Kind: k, Format: lead + " (" + strconv.Itoa(code) + "%s)" + tail, Args: append(args[:len(args):len(args)], serviceWordsOf(e))}
	f.plain = plainFact(k, e, bare, withWords, args...)
	return f
}

// plainFact is the plain form of a Fact about a refusal: bare (formatted with args) when the
// service gave no message of its own, else withWords, formatted with args and that message.
func plainFact(k Kind, e *client.Error, bare, withWords string, args ...any) *Fact {
	if w := plainWords(e); w != "" {
		return &Fact{Kind: k, Format: withWords, Args: append(args[:len(args):len(args)], w)}
	}
	return &Fact{Kind: k, Format: bare, Args: args}
}

// serviceWordsOf is ServiceWords, "" without an error.
func serviceWordsOf(e *client.Error) Words {
	if e == nil {
		return ""
	}
	return ServiceWords(e)
}

// statusInWords finds the status codes services write into their messages: "(502)", the
// "502: " of "(502: upstream timeout)", "status 502".
var statusInWords = regexp.MustCompile(`\s*\([1-5][0-9][0-9]\)|\b[1-5][0-9][0-9]: |\s*\bstatus [1-5][0-9][0-9]\b`)

// WithoutStatusCodes is msg without the HTTP status codes written into it ("refused the API key
// (401): check the key" → "refused the API key: check the key"), for a window, whose reader they
// tell nothing.
func WithoutStatusCodes(msg string) string {
	return strings.TrimSpace(statusInWords.ReplaceAllString(msg, ""))
}

// plainWords is the service's own message for a person: without its machine code or a status
// code written into it; "" when it gave no message beyond the status text.
func plainWords(e *client.Error) Words {
	if e == nil {
		return ""
	}
	m := strings.Join(strings.Fields(e.Message), " ")
	if m == "" || strings.EqualFold(m, http.StatusText(e.StatusCode)) {
		return ""
	}
	m = strings.TrimSpace(statusInWords.ReplaceAllString(m, ""))
	m = strings.TrimRight(m, ". ")
	if m == "" {
		return ""
	}
	return Words(m)
}

// Error says what err means, as a Fact; an error of no kind named here comes back as Unknown
// with its own text, capitalized.
func Error(err error, s Scene) Fact {
	var (
		ce  *client.Error
		re  *client.RedirectError
		de  *client.DecodeError
		be  *client.BaseURLError
		ue  *keystore.UnavailableError
		dns *net.DNSError
		op  *net.OpError
	)
	switch {
	case err == nil:
		return fact(Unknown, i18n.T("No error"))
	case errors.Is(err, client.ErrReplyUnreadable):
		return unreadableFact(err)
	case errors.Is(err, client.ErrReplyLost):
		return fact(ReplyLost, i18n.T("The message was sent but the reply was lost, so you may have been charged"))
	case errors.As(err, &ce):
		return status(ce, s)
	case errors.As(err, &re):
		if re.Location == "" {
			f := fact(Redirect, "The service redirected to another address (%d); Parley does not follow redirects, so the key stays put", re.StatusCode)
			f.plain = &Fact{Kind: Redirect, Format: i18n.T("The service redirected to another address; Parley does not follow redirects, so the key stays put")}
			return f
		}
		to := Name(re.Location)
		f := fact(Redirect, "The service redirected to %s (%d); Parley does not follow redirects, so the key stays put", to, re.StatusCode)
		f.plain = &Fact{Kind: Redirect, Format: i18n.T("The service redirected to %s; Parley does not follow redirects, so the key stays put"), Args: []any{to}}
		return f
	case errors.As(err, &de):
		return fact(Undecodable, i18n.T("The service's answer has no %s that Parley can find"), de.Field)
	case errors.Is(err, client.ErrInsecureURL):
		if h := host(err, s); h != "" {
			return fact(Insecure, i18n.T("Parley sends the API key only over https to %s (plain http is for this machine only)"), Name(h))
		}
		return fact(Insecure, i18n.T("Parley sends the API key only over https to the service (plain http is for this machine only)"))
	case errors.As(err, &be):
		if be.Problem == client.URLWithUser {
			return fact(UserInBaseURL, "%s", Capitalize(be.Error()))
		}
		return fact(BadBaseURL, "%s", Capitalize(be.Error()))
	case errors.Is(err, client.ErrAudioTooLarge):
		return fact(AudioTooLarge, i18n.T("The audio is larger than the service's limit of %s bytes"), Number(10_000_000))
	case errors.Is(err, keystore.ErrNotFound):
		if s.BaseURL == "" {
			return fact(NoKey, i18n.T("No API key is stored for this service"))
		}
		return fact(NoKey, i18n.T("No API key is stored for %s"), Name(s.BaseURL))
	case errors.As(err, &ue):
		return fact(KeyringUnavailable, i18n.T("The system keyring is not available (%s)"), ue.Reason.String())
	case errors.Is(err, keystore.ErrInvalidKey), errors.Is(err, client.ErrInvalidKey):
		// The keystore's and the client's reasons name what is wrong with the key, never the key.
		return fact(InvalidKey, i18n.T("That is not a usable API key: %s"), invalidReason(err))
	case errors.Is(err, context.DeadlineExceeded):
		if s.Timeout > 0 {
			return fact(Timeout, i18n.T("The service did not answer within %s"), Round(s.Timeout))
		}
		return fact(Timeout, i18n.T("The service did not answer in time"))
	case errors.Is(err, context.Canceled):
		return fact(Cancelled, i18n.T("Cancelled"))
	case errors.Is(err, syscall.ECONNREFUSED):
		if loopback.URL(s.BaseURL) {
			return fact(NotListening, i18n.T("Nothing is listening at %s"), Name(s.BaseURL))
		}
		if h := host(err, s); h != "" {
			return fact(NotListening, i18n.T("%s refused the connection"), Name(h))
		}
		return fact(NotListening, i18n.T("The service refused the connection"))
	case errors.As(err, &dns):
		return fact(HostNotFound, i18n.T("The host %s was not found"), Name(dns.Name))
	case isCertificate(err):
		f := certificateFact(err, host(err, s))
		var he x509.HostnameError
		f.OtherHost = errors.As(err, &he)
		return f
	case errors.As(err, &op), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		if h := host(err, s); h != "" {
			return fact(ConnectionFailed, i18n.T("The connection to %s failed"), Name(h))
		}
		return fact(ConnectionFailed, i18n.T("The connection to the service failed"))
	}
	return fact(Unknown, "%s", Capitalize(strings.TrimSuffix(err.Error(), ".")))
}

// status says what a refusal by the service means.
func status(e *client.Error, s Scene) Fact {
	c := e.StatusCode
	if e.Code == client.CodeStopped {
		return fact(StoppedUnwritten, i18n.T("You stopped the reply before the model wrote anything; nothing was charged"))
	}
	switch c {
	case http.StatusUnauthorized:
		switch s.Key {
		case KeyNone:
			return coded(KeyRefused, c, e, "The service wants an API key", "",
				i18n.T("The service wants an API key"), i18n.T("The service wants an API key: %s"))
		case KeyTyped:
			return coded(KeyRefused, c, e, "The service refused this API key", "",
				i18n.T("The service refused this API key"), i18n.T("The service refused this API key: %s"))
		case KeyFlag:
			return coded(KeyRefused, c, e, "The service refused the API key given with --api-key", "",
				i18n.T("The service refused the API key given with --api-key"), i18n.T("The service refused the API key given with --api-key: %s"))
		case KeyEnv:
			return coded(KeyRefused, c, e, "The service refused the API key in PARLEY_API_KEY", "",
				i18n.T("The service refused the API key in PARLEY_API_KEY"), i18n.T("The service refused the API key in PARLEY_API_KEY: %s"))
		case KeyStored:
			return coded(KeyRefused, c, e, "The service refused the stored API key", "",
				i18n.T("The service refused the stored API key"), i18n.T("The service refused the stored API key: %s"))
		}
		return coded(KeyRefused, c, e, "The service refused the API key", "",
			i18n.T("The service refused the API key"), i18n.T("The service refused the API key: %s"))
	case http.StatusPaymentRequired:
		return coded(NoPoints, c, e, "Not enough points for this call", "",
			i18n.T("Not enough points for this call"), i18n.T("Not enough points for this call: %s"))
	case http.StatusForbidden:
		return coded(Forbidden, c, e, "The service does not let this API key do that", "",
			i18n.T("The service does not let this API key do that"), i18n.T("The service does not let this API key do that: %s"))
	case http.StatusNotFound:
		return notFound(e, s)
	case http.StatusRequestEntityTooLarge:
		return coded(TooLarge, c, e, "Too large for the service", "",
			i18n.T("Too large for the service"), i18n.T("Too large for the service: %s"))
	case http.StatusUnsupportedMediaType:
		return coded(UnreadableAudio, c, e, "The service cannot read this audio", "",
			i18n.T("The service cannot read this audio"), i18n.T("The service cannot read this audio: %s"))
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		if e.Code == client.CodeNarrowband {
			return fact(NarrowbandAudio, i18n.T("The audio has nothing above 4 kHz (telephone quality), which the service's recogniser cannot hear"))
		}
		if e.Code == client.CodeUnsupportedLanguage {
			return fact(LanguageUnheard, i18n.T("The service's recogniser cannot hear that language: the built-in one hears English only"))
		}
		if work(e, s) == WorkSpeech && mentions(e, "voice") {
			return coded(VoiceRefused, c, e, "The service refused the voice", "",
				i18n.T("The service refused the voice"), i18n.T("The service refused the voice: %s"))
		}
		return coded(BadRequest, c, e, "The service refused the request", "",
			i18n.T("The service refused the request"), i18n.T("The service refused the request: %s"))
	case http.StatusTooManyRequests:
		f := coded(Busy, c, e, "The service is busy", "",
			i18n.T("The service is busy"), i18n.T("The service is busy: %s"))
		f.RetryAfter = e.RetryAfter
		return f
	case http.StatusBadGateway:
		switch work(e, s) {
		case WorkChat:
			// The model failed, stopped before its reply was whole, or is not running: there is no reply,
			// and the service charges nothing for it. The window says so in plainer words.
			// The built-in service says it in the window's language.
			if mentions(e, "charge", "refund") || strings.Contains(e.Message, i18n.T("The points for this call were refunded.")) {
				return coded(UpstreamFailed, c, e, "The service's model failed", "",
					i18n.T("The model gave no reply"), i18n.T("The model gave no reply: %s"))
			}
			return coded(UpstreamFailed, c, e, "The service's model failed", "; a failed chat call is refunded",
				i18n.T("The model gave no reply; a failed chat call is refunded"), i18n.T("The model gave no reply: %s; a failed chat call is refunded"))
		case WorkSpeech:
			return coded(UpstreamFailed, c, e, "The service's speech engine failed", "",
				i18n.T("The service's speech engine failed"), i18n.T("The service's speech engine failed: %s"))
		}
		return coded(UpstreamFailed, c, e, "The service's model failed", "",
			i18n.T("The service's model failed"), i18n.T("The service's model failed: %s"))
	case http.StatusServiceUnavailable:
		return coded(ServiceDown, c, e, "The service is unavailable", "",
			i18n.T("The service is unavailable"), i18n.T("The service is unavailable: %s"))
	}
	if c >= 500 {
		return coded(ServiceDown, c, e, "The service failed", "",
			i18n.T("The service failed"), i18n.T("The service failed: %s"))
	}
	if c >= 200 && c < 300 {
		f := fact(ErrorAnswer, "The service answered with an error%s", ServiceWords(e))
		f.plain = plainFact(ErrorAnswer, e, i18n.T("The service answered with an error"), i18n.T("The service answered with an error: %s"))
		return f
	}
	return coded(ErrorAnswer, c, e, "The service refused the request", "",
		i18n.T("The service refused the request"), i18n.T("The service refused the request: %s"))
}

// notFound tells a wrong address from a conversation that does not exist.
func notFound(e *client.Error, s Scene) Fact {
	if EndsInV1(s.BaseURL) {
		f := fact(DoubledV1, "Not found (404) at %s", Name(s.BaseURL))
		f.plain = &Fact{Kind: DoubledV1, Format: i18n.T("Nothing was found at %s"), Args: []any{Name(s.BaseURL)}}
		return f
	}
	c := e.StatusCode
	if strings.Contains(e.Path, "/conversations/") || (strings.HasSuffix(e.Path, "/messages") && (s.Conversation != "" || mentions(e, "conversation"))) {
		if s.Conversation == "" {
			return coded(NoConversation, c, e, "No conversation with that ID on this service", "",
				i18n.T("No conversation with that ID on this service"), i18n.T("No conversation with that ID on this service: %s"))
		}
		return coded(NoConversation, c, e, "No conversation %s on this service", "",
			i18n.T("No conversation %s on this service"), i18n.T("No conversation %s on this service: %s"), Name(s.Conversation))
	}
	if s.BaseURL == "" {
		return coded(NoEndpoint, c, e, "The service has no %s", "",
			i18n.T("The service has no %s"), i18n.T("The service has no %s: %s"), Name(e.Method+" "+e.Path))
	}
	return coded(NoEndpoint, c, e, "The service at %s has no %s", "",
		i18n.T("The service at %s has no %s"), i18n.T("The service at %s has no %s: %s"), Name(s.BaseURL), Name(e.Method+" "+e.Path))
}

// work is what the call was for: as the scene says, else as the request path shows.
func work(e *client.Error, s Scene) Work {
	switch {
	case s.Work != WorkUnknown:
		return s.Work
	case strings.HasSuffix(e.Path, "/chat/messages"):
		return WorkChat
	case strings.HasSuffix(e.Path, "/speech"), strings.HasSuffix(e.Path, "/transcribe"):
		return WorkSpeech
	}
	return WorkUnknown
}

// ServiceWords is the service's own words for a refusal, as ": words"; "" when it gave none
// beyond the status text (then its code, if any). The client keeps at most 300 characters of
// them; Fact.Clipped shortens them further.
func ServiceWords(e *client.Error) Words {
	m := strings.Join(strings.Fields(e.Message), " ")
	if m == "" || strings.EqualFold(m, http.StatusText(e.StatusCode)) {
		if e.Code != "" {
			return Words(": " + e.Code)
		}
		return ""
	}
	return Words(": " + strings.TrimRight(m, ". "))
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

// invalidReason is why a key cannot be used, without its "the API key is not valid" wrapper.
func invalidReason(err error) string {
	return strings.TrimSuffix(err.Error(), ".")
}

// isCertificate reports whether err is a TLS certificate the client did not trust.
func isCertificate(err error) bool {
	var (
		cv *tls.CertificateVerificationError
		ua x509.UnknownAuthorityError
		he x509.HostnameError
		ci x509.CertificateInvalidError
	)
	return errors.As(err, &cv) || errors.As(err, &ua) || errors.As(err, &he) || errors.As(err, &ci)
}

// certificateFact says that the TLS certificate of host ("": not known) is not trusted, and
// what is wrong with it when err tells.
func certificateFact(err error, host string) Fact {
	var (
		ua x509.UnknownAuthorityError
		he x509.HostnameError
		ci x509.CertificateInvalidError
	)
	h := Name(host)
	switch {
	case host == "" && errors.As(err, &ua):
		return fact(Certificate, i18n.T("The TLS certificate of the service is not trusted (an unknown authority signed it)"))
	case host == "" && errors.As(err, &he):
		return fact(Certificate, i18n.T("The TLS certificate of the service is not trusted (it is made out to another host)"))
	case host == "" && errors.As(err, &ci) && ci.Reason == x509.Expired:
		return fact(Certificate, i18n.T("The TLS certificate of the service is not trusted (it has expired, or is not valid yet)"))
	case host == "":
		return fact(Certificate, i18n.T("The TLS certificate of the service is not trusted"))
	case errors.As(err, &ua):
		return fact(Certificate, i18n.T("The TLS certificate of %s is not trusted (an unknown authority signed it)"), h)
	case errors.As(err, &he):
		return fact(Certificate, i18n.T("The TLS certificate of %s is not trusted (it is made out to another host)"), h)
	case errors.As(err, &ci) && ci.Reason == x509.Expired:
		return fact(Certificate, i18n.T("The TLS certificate of %s is not trusted (it has expired, or is not valid yet)"), h)
	}
	return fact(Certificate, i18n.T("The TLS certificate of %s is not trusted"), h)
}

// host names the service briefly: its host from the scene, else from the error, else "".
func host(err error, s Scene) string {
	if u, perr := url.Parse(s.BaseURL); perr == nil && u.Host != "" {
		return u.Host
	}
	if s.BaseURL != "" {
		return s.BaseURL
	}
	var h interface{ Host() string }
	if errors.As(err, &h) && h.Host() != "" {
		return h.Host()
	}
	return ""
}

// EndsInV1 reports whether base ends in /v1, which Parley adds itself.
func EndsInV1(base string) bool {
	u, err := url.Parse(base)
	return err == nil && base != "" && strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1")
}

// Round prints d in whole seconds (or as given when shorter than a second).
func Round(d time.Duration) string {
	if d >= time.Second {
		return d.Round(time.Second).String()
	}
	return d.String()
}

// Capitalize upper-cases the first letter of s, unless s starts with a file name or an address,
// which keep their case.
func Capitalize(s string) string {
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

// Points is a number of points as people read it: "1 point", "-1 point", "1,000,000 points".
func Points(n int64) string {
	count := n
	if count < 0 {
		count = -count
	}
	if int64(int(count)) != count {
		count = 1_000_000 // beyond int: any large count takes the same plural
	}
	return fmt.Sprintf(i18n.N("%s point", "%s points", int(count)), Number(n))
}

// Number writes n with its thousands separated as the language in use does: 1,000,000 in
// English (and so in the CLI), 1.000.000 in German.
func Number(n int64) string {
	if int64(int(n)) == n {
		return i18n.Number(int(n))
	}
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var b strings.Builder
	if len(digits) < len(s) {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// unreadableFact says why a reply the service answered with success (so charged, or maybe, when
// it said it failed) could not be read, in few words: the CLI's line must keep room for advice.
func unreadableFact(err error) Fact {
	var (
		de *client.DecodeError
		ce *client.Error
	)
	switch {
	case errors.Is(err, client.ErrTooLarge):
		return fact(ReplyUnreadable, i18n.T("The service charged for the message, but its reply was too large to read"))
	case errors.Is(err, client.ErrStreamBroken):
		return fact(ReplyUnreadable, i18n.T("The streamed reply broke off; it is charged only if the model finished it"))
	case errors.As(err, &ce) && ce.Code == client.CodeReplyStored:
		return fact(ReplyUnreadable, i18n.T("The service charged for the message and kept its reply in the conversation's history, but failed to send it"))
	case errors.As(err, &ce):
		return fact(ReplyUnreadable, i18n.T("The service answered the message with success but said %s, so it may have charged"), Words(ce.Message))
	case errors.As(err, &de):
		return fact(ReplyUnreadable, i18n.T("The service charged for the message, but its reply was in a shape Parley does not know"))
	}
	return fact(ReplyUnreadable, i18n.T("The service charged for the message, but its reply was cut short"))
}
