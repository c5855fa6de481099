package keystore

import (
	"errors"
	"fmt"
	"strings"
	"time"

	dbus "github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
)

var (
	// ErrNotFound matches (with errors.Is) the error returned when no key is stored for a base URL.
	ErrNotFound = errors.New("no API key is stored in the keyring; run `parley login`")
	// ErrUnavailable matches the error returned when no keyring can be used: none is running, it
	// is locked, or it did not answer within the timeout.
	ErrUnavailable = errors.New("the system keyring is not available; unlock or start it, or set PARLEY_API_KEY")
	// ErrTimeout matches the error returned when the keyring did not answer within the timeout;
	// such an error also matches ErrUnavailable.
	ErrTimeout = errors.New("the system keyring did not answer in time")
	// ErrInvalidKey matches the error returned when Set is given a key that cannot be stored
	// (empty, too long, or with line breaks or other control characters).
	ErrInvalidKey = errors.New("the API key is not valid")
	// ErrKeyTooLong matches the error returned when a key is longer than MaxKeyLen or than the
	// keyring accepts; such an error also matches ErrInvalidKey.
	ErrKeyTooLong = errors.New("the API key is too long")
	// ErrInvalidBaseURL is returned when the base URL given is not an absolute URL.
	ErrInvalidBaseURL = errors.New("the service base URL must be an absolute URL such as https://api.example.com")
)

// operation names what a keyring call was doing, for error messages.
type operation string

const (
	opRead   operation = "read"
	opStore  operation = "store"
	opDelete operation = "delete"
)

// notFoundError says that no key is stored for one base URL; it matches ErrNotFound.
type notFoundError struct{ baseURL string }

func (e *notFoundError) Error() string {
	return fmt.Sprintf("no API key is stored for %s; run `parley login --base-url %s`, or set PARLEY_API_KEY", e.baseURL, e.baseURL)
}

func (e *notFoundError) Is(target error) bool { return target == ErrNotFound }

// unavailableError says that the keyring could not be used; it matches ErrUnavailable and
// unwraps to its cause, which is kept for logs.
type unavailableError struct {
	op      operation
	baseURL string
	cause   error
}

func (e *unavailableError) Error() string {
	reason, advice := explain(e.cause)
	cause := e.cause.Error()
	if name := dbusErrorName(e.cause); name != "" && !strings.Contains(cause, name) {
		cause += " [" + name + "]"
	}
	return fmt.Sprintf("cannot %s the API key for %s: the system keyring is not available (%s). %s, or set PARLEY_API_KEY. Cause: %s",
		e.op, e.baseURL, reason, advice, cause)
}

func (e *unavailableError) Unwrap() []error { return []error{ErrUnavailable, e.cause} }

// explain turns the cause of an unavailable keyring into a reason and advice a person can act on.
func explain(cause error) (reason, advice string) {
	msg := cause.Error()
	switch {
	case errors.Is(cause, ErrTimeout):
		return "it did not answer in time; it may be locked and waiting for its password", "Unlock your keyring and try again"
	case errors.Is(cause, errNoSessionBus):
		return "no D-Bus session bus is running", "Run Parley inside a desktop session that has a keyring"
	case dbusErrorName(cause) == "org.freedesktop.DBus.Error.ServiceUnknown",
		strings.Contains(msg, "org.freedesktop.secrets was not provided"):
		return "no Secret Service is running", "Install and start a keyring (on Linux: gnome-keyring, or another Secret Service such as KeePassXC)"
	case strings.Contains(msg, "failed to unlock"), strings.Contains(msg, "locked"):
		return "it is locked", "Unlock your keyring"
	}
	return "it returned an error", "Unlock or start your keyring (on Linux: gnome-keyring, or another Secret Service such as KeePassXC)"
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

// timeoutError is the cause of an unavailableError for a call that took longer than d.
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
func mapError(op operation, baseURL, key string, err error) error {
	switch {
	case errors.Is(err, keyring.ErrNotFound), errors.Is(err, ErrNotFound):
		return &notFoundError{baseURL: baseURL}
	case errors.Is(err, keyring.ErrSetDataTooBig), errors.Is(err, ErrKeyTooLong):
		return &keyTooLongError{}
	}
	if key != "" && strings.Contains(err.Error(), key) {
		err = errors.New(strings.ReplaceAll(err.Error(), key, "[REDACTED]"))
	}
	return &unavailableError{op: op, baseURL: baseURL, cause: err}
}
