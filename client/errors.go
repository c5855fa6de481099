package client

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrReplyLost marks a chat call that failed after the message may have reached the service, so it may have been charged.
var ErrReplyLost = errors.New("the reply was lost after the message was sent; you may have been charged")

// ErrReplyUnreadable marks a chat call the service answered with success, so it charged for it,
// in a form the client could not use: a body over the client's limit, not JSON, cut short, or
// with no reply the client can find. It also matches ErrReplyLost: such a call is never sent
// again by itself, and a person should be told that it was charged, not offered a free retry.
var ErrReplyUnreadable = errors.New("the service answered and charged, but its reply could not be read")

// ErrStreamBroken marks a streamed reply whose stream ended before its last event: the
// connection broke, or the service stopped. It comes with ErrReplyUnreadable. Parley's service
// reads the model to the end, stores the reply and charges for it when only the connection
// broke; when the service itself stopped, the call is refunded when it starts again.
var ErrStreamBroken = errors.New("the streamed reply broke off")

// CodeReplyStored is the error code with which the reference service (parley serve) answers a
// chat call that failed after its reply was stored and charged: such an answer matches
// ErrReplyUnreadable, and the reply is in the conversation's history.
const CodeReplyStored = "reply_stored"

// ErrInsecureURL marks a base URL refused because it would send the API key without TLS to a host that is not loopback.
var ErrInsecureURL = errors.New("insecure base URL")

// ErrInvalidKey marks an API key the client cannot send: one with spaces or control characters
// inside.
var ErrInvalidKey = errors.New("the API key contains spaces or control characters")

// URLProblem is what is wrong with a base URL the client refuses.
type URLProblem int

// What can be wrong with a base URL.
const (
	URLEmpty      URLProblem = iota + 1 // none was given
	URLUnparsable                       // it is not a URL
	URLWithUser                         // it holds a user name or password, which the client never sends
	URLWithQuery                        // it has a query or a fragment
	URLNoHost                           // it names no host
	URLPlainHTTP                        // plain http to a host that is not loopback: the key would cross the network in clear
	URLScheme                           // a scheme other than https or http
)

// BaseURLError is a base URL the client refuses before it sends anything. It says what is wrong,
// not what to do: the CLI and the app each say that in their own words. It matches
// ErrInsecureURL when the address would send the key without TLS (URLPlainHTTP, URLScheme).
type BaseURLError struct {
	// Problem is what is wrong with the address.
	Problem URLProblem
	// URL is as much of the address as the sentence repeats: without its query for
	// URLWithQuery, the scheme alone for URLScheme, and "" for URLEmpty, URLUnparsable and
	// URLWithUser (whose user name or password may be the key).
	URL string
	// Host is the host that plain http would reach, for URLPlainHTTP.
	Host string
	// Err is the parser's error, for URLUnparsable.
	Err error
}

// Error says what is wrong with the address, in the client's terms.
func (e *BaseURLError) Error() string {
	switch e.Problem {
	case URLEmpty:
		return "no base URL given"
	case URLUnparsable:
		return "the base URL is not a valid URL: " + e.Err.Error()
	case URLWithUser:
		return "the base URL must not contain a user name or password"
	case URLWithQuery:
		return fmt.Sprintf("the base URL %q must not have a query or fragment", e.URL)
	case URLNoHost:
		return fmt.Sprintf("the base URL %q has no host", e.URL)
	case URLPlainHTTP:
		return fmt.Sprintf("%v: %q uses plain http, not https, to %s, which would send the API key unencrypted (plain http is allowed only to loopback: 127.0.0.0/8, ::1, localhost)",
			ErrInsecureURL, e.URL, e.Host)
	case URLScheme:
		return fmt.Sprintf("%v: the base URL scheme %q is not supported (only https, and http to loopback)", ErrInsecureURL, e.URL)
	}
	return "unusable base URL"
}

// Is reports whether target is ErrInsecureURL and the address would send the key without TLS.
func (e *BaseURLError) Is(target error) bool {
	return target == ErrInsecureURL && (e.Problem == URLPlainHTTP || e.Problem == URLScheme)
}

// Unwrap returns the parser's error, for URLUnparsable.
func (e *BaseURLError) Unwrap() error { return e.Err }

// ErrTooLarge marks a body or decoded payload larger than the client accepts.
var ErrTooLarge = errors.New("too large")

// MaxAudioBytes is the service's limit on decoded audio for transcription (10 MB).
const MaxAudioBytes = 10_000_000

// ErrAudioTooLarge marks audio over MaxAudioBytes, refused before any upload.
var ErrAudioTooLarge = errors.New("audio is larger than the service's limit of 10,000,000 bytes")

// Caps on response bodies.
const (
	maxErrorBody   = 1 << 20  // error responses
	maxSuccessBody = 32 << 20 // successful responses
	maxKeptBody    = 1 << 10  // bytes of an error body kept in Error.Body
	maxMessage     = 300      // runes of a human message kept in Error.Message
)

// Error is a refusal by the service: any non-2xx answer, or a 200 whose body carries a non-zero code.
type Error struct {
	// StatusCode is the HTTP status of the response.
	StatusCode int
	// Code is the service's own error code, if the body gave one.
	Code string
	// Message is a short human message taken from the body, or the status text.
	Message string
	// Body holds at most 1 KiB of the response body, with the API key removed.
	Body []byte
	// RetryAfter is the wait the service asked for in Retry-After, or zero.
	RetryAfter time.Duration
	// Method is the HTTP method of the refused request.
	Method string
	// Path is the request path, relative to the base URL.
	Path string

	cause error // ErrTooLarge when the body went past the cap
}

// Error returns a short sentence with the status, the service's message and the request.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("the service answered ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if t := http.StatusText(e.StatusCode); t != "" {
		b.WriteString(" " + t)
	}
	if e.StatusCode >= 200 && e.StatusCode < 300 {
		b.WriteString(" with an error")
	}
	if e.Message != "" && e.Message != http.StatusText(e.StatusCode) {
		b.WriteString(": " + e.Message)
	}
	if e.Code != "" {
		b.WriteString(" (code " + strconv.Quote(e.Code) + ")")
	}
	if e.RetryAfter > 0 {
		b.WriteString("; retry after " + e.RetryAfter.String())
	}
	if e.Method != "" {
		b.WriteString(" [" + e.Method + " " + e.Path + "]")
	}
	if e.cause != nil {
		b.WriteString("; " + e.cause.Error())
	}
	return b.String()
}

// Unwrap returns ErrTooLarge when the error body went past the 1 MiB cap, else nil.
func (e *Error) Unwrap() error { return e.cause }

// RedirectError reports a 3xx answer, which the client refuses to follow so the API key stays with the configured host.
type RedirectError struct {
	// StatusCode is the 3xx status.
	StatusCode int
	// Location is the host the service tried to redirect to (empty if none was given).
	Location string
	// Method is the HTTP method of the redirected request.
	Method string
	// Path is the request path, relative to the base URL.
	Path string
}

// Error names the status and the target host.
func (e *RedirectError) Error() string {
	target := e.Location
	if target == "" {
		target = "an unnamed location"
	} else {
		target = "host " + strconv.Quote(target)
	}
	return fmt.Sprintf("the service answered %d %s redirecting to %s; redirects are refused so the API key is not sent elsewhere [%s %s]",
		e.StatusCode, http.StatusText(e.StatusCode), target, e.Method, e.Path)
}

// DecodeError reports a successful response in which a required field could not be found.
type DecodeError struct {
	// Field names the missing field as the client looked for it.
	Field string
	// BodyStart is the start of the response body, with the API key removed.
	BodyStart string
}

// Error names the field and shows the start of the body.
func (e *DecodeError) Error() string {
	return fmt.Sprintf("could not find %q in the service's response (body starts: %s)", e.Field, strconv.Quote(e.BodyStart))
}

// replyLostError is a chat failure after the message may have reached the service; it matches
// ErrReplyLost (and ErrReplyUnreadable when the service answered with success) and unwraps to
// its cause.
type replyLostError struct {
	method, path string
	cause        error
	answered     bool // a 2xx came back: the call was charged
}

func (e *replyLostError) Error() string {
	what := ErrReplyLost
	if e.answered {
		what = ErrReplyUnreadable
	}
	return what.Error() + " [" + e.method + " " + e.path + "]: " + e.cause.Error()
}

func (e *replyLostError) Unwrap() []error {
	if e.answered {
		return []error{ErrReplyUnreadable, ErrReplyLost, e.cause}
	}
	return []error{ErrReplyLost, e.cause}
}

// sizeError is a payload over a limit; it matches ErrTooLarge, and ErrAudioTooLarge when it is about audio.
type sizeError struct {
	what  string
	size  int64
	limit int64
	audio bool
}

func (e *sizeError) Error() string {
	if e.audio {
		return fmt.Sprintf("%s is %d bytes, larger than the service's limit of 10,000,000 bytes", e.what, e.size)
	}
	if e.size < 0 {
		return fmt.Sprintf("%s is larger than the limit of %d bytes", e.what, e.limit)
	}
	return fmt.Sprintf("%s is %d bytes, larger than the limit of %d bytes", e.what, e.size, e.limit)
}

func (e *sizeError) Is(target error) bool {
	return target == ErrTooLarge || (e.audio && target == ErrAudioTooLarge)
}
