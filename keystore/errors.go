package keystore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	dbus "github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

// The kinds of failure a caller tells apart with errors.Is. Their messages state facts only: the
// program that shows them to a person decides what to advise.
var (
	// ErrNotFound matches the error returned when no key is stored for a base URL.
	ErrNotFound = errors.New("no API key is stored in the keyring")
	// ErrUnavailable matches the error returned when no keyring can be used: none is running, it
	// is locked, or it did not answer within the timeout. The error is an *UnavailableError.
	ErrUnavailable = errors.New("the system keyring is not available")
	// ErrTimeout matches the error returned when the keyring did not answer within the timeout;
	// such an error also matches ErrUnavailable.
	ErrTimeout = errors.New("the system keyring did not answer in time")
	// ErrInvalidKey matches the error returned when a key cannot be stored (empty, too long, or
	// with spaces, line breaks or other control characters).
	ErrInvalidKey = errors.New("the API key is not valid")
	// ErrKeyTooLong matches the error returned when a key is longer than MaxKeyLen or than the
	// keyring accepts; such an error also matches ErrInvalidKey.
	ErrKeyTooLong = errors.New("the API key is too long")
	// ErrInvalidBaseURL is returned when the base URL given is not an absolute URL.
	ErrInvalidBaseURL = errors.New("the service base URL is not an absolute URL")
)

// Reason says why a keyring could not be used.
type Reason int

// The reasons an UnavailableError gives.
const (
	// ReasonFailed is any failure not named below; the cause says more.
	ReasonFailed Reason = iota
	// ReasonTimeout: the keyring did not answer in time; it may be waiting for its password.
	ReasonTimeout
	// ReasonNoSessionBus: no D-Bus session bus runs, so no Secret Service can be reached.
	ReasonNoSessionBus
	// ReasonNoSecretService: the session bus has no Secret Service (no keyring daemon runs).
	ReasonNoSecretService
	// ReasonLocked: the keyring is locked and could not be unlocked.
	ReasonLocked
)

// String names the reason in a few words.
func (r Reason) String() string {
	switch r {
	case ReasonTimeout:
		return "it did not answer in time"
	case ReasonNoSessionBus:
		return "no D-Bus session bus is running"
	case ReasonNoSecretService:
		return "no Secret Service is running"
	case ReasonLocked:
		return "it is locked"
	}
	return "it failed"
}

// UnavailableError says that the keyring could not be used for one call. It matches
// ErrUnavailable (and ErrTimeout for a timeout) and unwraps to its cause, which is kept for logs.
type UnavailableError struct {
	// Op is what the call was doing: "read", "store" or "delete".
	Op string
	// BaseURL is the normalized base URL whose key the call was about.
	BaseURL string
	// Reason classifies the failure.
	Reason Reason
	// Err is the keyring's own error (never holding the key).
	Err error
}

func (e *UnavailableError) Error() string {
	cause := e.Err.Error()
	if name := dbusErrorName(e.Err); name != "" && !strings.Contains(cause, name) {
		cause += " [" + name + "]"
	}
	return fmt.Sprintf("cannot %s the API key for %s: the system keyring is not available (%s): %s", e.Op, e.BaseURL, e.Reason, cause)
}

// Unwrap returns ErrUnavailable and the cause.
func (e *UnavailableError) Unwrap() []error { return []error{ErrUnavailable, e.Err} }

// Operations, as UnavailableError.Op names them.
const (
	opRead   = "read"
	opStore  = "store"
	opDelete = "delete"
)

// notFoundError says that no key is stored for one base URL; it matches ErrNotFound.
type notFoundError struct{ baseURL string }

func (e *notFoundError) Error() string { return "no API key is stored for " + e.baseURL }

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// reasonOf classifies the cause of an unavailable keyring.
func reasonOf(cause error) Reason {
	msg := cause.Error()
	switch {
	case errors.Is(cause, ErrTimeout):
		return ReasonTimeout
	case errors.Is(cause, errNoSessionBus):
		return ReasonNoSessionBus
	case dbusErrorName(cause) == "org.freedesktop.DBus.Error.ServiceUnknown",
		strings.Contains(msg, "org.freedesktop.secrets was not provided"):
		return ReasonNoSecretService
	case strings.Contains(msg, "failed to unlock"), strings.Contains(msg, "locked"):
		return ReasonLocked
	}
	return ReasonFailed
}

// unavailable returns the error for a call that could not use the keyring because of cause.
func unavailable(op, baseURL string, cause error) *UnavailableError {
	return &UnavailableError{Op: op, BaseURL: baseURL, Reason: reasonOf(cause), Err: cause}
}

// dbusErrorName returns the D-Bus error name in err's chain, or "" if there is none.
func dbusErrorName(err error) string {
	var v dbus.Error
	if errors.As(err, &v) {
		return v.Name
	}
	var p *dbus.Error
	if errors.As(err, &p) && p != nil {
		return p.Name
	}
	return ""
}

// timeoutError is the cause of an UnavailableError for a call that took longer than d.
func timeoutError(d time.Duration) error {
	return fmt.Errorf("%w: no answer within %v", ErrTimeout, d)
}

// invalidKeyError says why a key cannot be stored; it matches ErrInvalidKey and never holds the key.
type invalidKeyError struct{ reason string }

func (e *invalidKeyError) Error() string        { return e.reason }
func (e *invalidKeyError) Is(target error) bool { return target == ErrInvalidKey }

// keyTooLongError says that a key is too long; it matches ErrKeyTooLong and ErrInvalidKey.
type keyTooLongError struct {
	size int // the key's length in bytes, or 0 when the keyring refused it without saying
}

func (e *keyTooLongError) Error() string {
	if e.size > MaxKeyLen {
		return fmt.Sprintf("the API key is too long: %d bytes, and at most %d are accepted", e.size, MaxKeyLen)
	}
	return "the API key is too long for the system keyring"
}

func (e *keyTooLongError) Is(target error) bool {
	return target == ErrKeyTooLong || target == ErrInvalidKey
}

// mapError turns a backend error into this package's errors. When key is not empty, it is
// scrubbed from the cause's message, and the original cause is dropped so no chain holds it.
func mapError(op, baseURL, key string, err error) error {
	switch {
	case errors.Is(err, keyring.ErrNotFound), errors.Is(err, ErrNotFound):
		return &notFoundError{baseURL: baseURL}
	case errors.Is(err, keyring.ErrSetDataTooBig), errors.Is(err, ErrKeyTooLong):
		return &keyTooLongError{}
	}
	if key != "" && strings.Contains(err.Error(), key) {
		err = errors.New(strings.ReplaceAll(err.Error(), key, "[REDACTED]"))
	}
	return unavailable(op, baseURL, err)
}
