// Package keystore keeps Parley's API keys in the operating system's keyring (the Secret Service
// on Linux, the Keychain on macOS, the Credential Manager on Windows), one key per service base
// URL, through github.com/zalando/go-keyring.
//
// Every call has a timeout, so a locked keyring that waits for a password prompt never hangs the
// program, and the failures a person can act on are told apart: ErrNotFound (no key is stored for
// this base URL: log in) and ErrUnavailable (no keyring can be used: unlock or install one, or set
// PARLEY_API_KEY). The key itself never appears in an error and is never written to a file by this
// package.
package keystore

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Service is the keyring service name under which Parley stores its API keys.
const Service = "parley"

// DefaultTimeout is how long one keyring call may take before it fails with ErrUnavailable.
const DefaultTimeout = 3 * time.Second

// MaxKeyLen is the longest API key, in bytes, that Set accepts.
const MaxKeyLen = 4096

// Backend is the secret storage a Store talks to: New uses the OS keyring, and tests inject their
// own through NewWithBackend.
//
// A backend reports a missing secret with keyring.ErrNotFound (from github.com/zalando/go-keyring)
// or ErrNotFound, and a secret it cannot hold with keyring.ErrSetDataTooBig or ErrKeyTooLong; any
// other error means the keyring could not be used.
type Backend interface {
	// Get returns the secret stored for service and user.
	Get(service, user string) (string, error)
	// Set stores secret for service and user, replacing any secret stored before.
	Set(service, user, secret string) error
	// Delete removes the secret stored for service and user.
	Delete(service, user string) error
}

// Store reads and writes API keys in a keyring, one per normalized base URL, with a timeout on
// every call. A Store is safe for concurrent use; its calls run one at a time.
//
// go-keyring offers no way to cancel a call, so a call that times out leaves its goroutine
// behind until the keyring answers, which for a keyring waiting on a password prompt may be
// never. While it waits, the Store's later calls wait for it (and time out) rather than each
// starting another goroutine and another unlock prompt: at most one goroutine per Store leaks.
// Once the keyring answers (the person unlocked it), the Store works again.
type Store struct {
	backend Backend
	timeout time.Duration
	// busy holds one token while a backend call runs. A call that never returns keeps it, so the
	// calls after it time out waiting instead of each leaving one more goroutine behind.
	busy chan struct{}
}

// New returns a Store over the real OS keyring, with DefaultTimeout on every call.
func New() *Store { return NewWithBackend(osKeyring{}, DefaultTimeout) }

// NewWithBackend returns a Store over b with the given timeout per call (DefaultTimeout if the
// timeout is not positive); tests use it to inject a backend.
func NewWithBackend(b Backend, timeout time.Duration) *Store {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Store{backend: b, timeout: timeout, busy: make(chan struct{}, 1)}
}

// Get returns the API key stored for baseURL. It fails with ErrNotFound when no key is stored for
// it and with ErrUnavailable when the keyring cannot be used or does not answer in time.
func (s *Store) Get(baseURL string) (string, error) {
	user, err := keyringUser(baseURL)
	if err != nil {
		return "", err
	}
	key, err := s.call(opRead, user, "", func() (string, error) {
		return s.backend.Get(Service, user)
	})
	if err == nil && key == "" {
		// An empty secret (stored by some other tool) is as good as none.
		err = &notFoundError{baseURL: user}
	}
	if err != nil {
		return "", err
	}
	return key, nil
}

// Set stores key for baseURL, replacing the key stored before. The key must be one line of
// printable text without surrounding spaces, at most MaxKeyLen bytes; otherwise Set fails with
// ErrInvalidKey (ErrKeyTooLong for length) before touching the keyring.
func (s *Store) Set(baseURL, key string) error {
	user, err := keyringUser(baseURL)
	if err != nil {
		return err
	}
	if err := ValidateKey(key); err != nil {
		return err
	}
	_, err = s.call(opStore, user, key, func() (string, error) {
		return "", s.backend.Set(Service, user, key)
	})
	return err
}

// Delete removes the key stored for baseURL. It fails with ErrNotFound when no key is stored for it.
func (s *Store) Delete(baseURL string) error {
	user, err := keyringUser(baseURL)
	if err != nil {
		return err
	}
	_, err = s.call(opDelete, user, "", func() (string, error) {
		return "", s.backend.Delete(Service, user)
	})
	return err
}

// call runs f on its own goroutine and waits for it at most s.timeout, including the time spent
// waiting for an earlier call to finish. It maps f's error (or panic) to this package's errors,
// with key (when not empty) scrubbed from every message. When the timeout passes first, the
// goroutine is left behind holding the busy token until f returns (see Store).
func (s *Store) call(op, baseURL, key string, f func() (string, error)) (string, error) {
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case s.busy <- struct{}{}:
	case <-timer.C:
		return "", unavailable(op, baseURL, timeoutError(s.timeout))
	}
	type result struct {
		value string
		err   error
	}
	done := make(chan result, 1) // buffered: a goroutine that outlives the timeout must not block
	go func() {
		defer func() { <-s.busy }()
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("the keyring library panicked: %v", p)}
			}
		}()
		v, err := f()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return "", mapError(op, baseURL, key, r.err)
		}
		return r.value, nil
	case <-timer.C:
		return "", unavailable(op, baseURL, timeoutError(s.timeout))
	}
}

// ValidateKey reports whether key can be stored: not empty, at most MaxKeyLen bytes, valid UTF-8
// with no control characters (such as a newline) and no spaces in it. Its errors never contain
// the key.
func ValidateKey(key string) error {
	switch {
	case key == "":
		return &invalidKeyError{reason: "the API key is empty"}
	case len(key) > MaxKeyLen:
		return &keyTooLongError{size: len(key)}
	case !utf8.ValidString(key):
		return &invalidKeyError{reason: "the API key is not valid UTF-8 text"}
	case strings.IndexFunc(key, unicode.IsControl) >= 0:
		return &invalidKeyError{reason: "the API key contains a line break or another control character"}
	case strings.IndexFunc(key, unicode.IsSpace) >= 0:
		return &invalidKeyError{reason: "the API key contains a space"}
	}
	return nil
}

// keyringUser returns the keyring user name for baseURL, or an error when it is not an absolute URL.
func keyringUser(baseURL string) (string, error) {
	user := NormalizeBaseURL(baseURL)
	if !isAbsoluteURL(user) {
		return "", ErrInvalidBaseURL
	}
	return user, nil
}
