package keystore_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	dbus "github.com/godbus/dbus/v5"
	"github.com/zalando/go-keyring"
	"go.uber.org/goleak"

	"parley/keystore"
)

// generous is a timeout that a fake backend which answers at once never reaches, even on a
// loaded machine under -race.
const generous = time.Minute

// fakeBackend is an in-memory Backend whose calls can be made to fail, panic or block.
type fakeBackend struct {
	mu      sync.Mutex
	secrets map[string]string // by service + "\x00" + user
	err     error             // when set, every call returns it
	panics  any               // when set, every call panics with it
	errFor  func(secret string) error
	block   chan struct{} // when set, every call waits until it is closed
	calls   atomic.Int32
}

func (f *fakeBackend) enter(secret string) error {
	f.calls.Add(1)
	if f.block != nil {
		<-f.block
	}
	if f.panics != nil {
		panic(f.panics)
	}
	if f.errFor != nil {
		return f.errFor(secret)
	}
	return f.err
}

func (f *fakeBackend) Get(service, user string) (string, error) {
	if err := f.enter(""); err != nil {
		return "", err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.secrets[service+"\x00"+user]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return s, nil
}

func (f *fakeBackend) Set(service, user, secret string) error {
	if err := f.enter(secret); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.secrets == nil {
		f.secrets = map[string]string{}
	}
	f.secrets[service+"\x00"+user] = secret
	return nil
}

func (f *fakeBackend) Delete(service, user string) error {
	if err := f.enter(""); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.secrets[service+"\x00"+user]; !ok {
		return keyring.ErrNotFound
	}
	delete(f.secrets, service+"\x00"+user)
	return nil
}

const base = "https://api.example.com/v1"

// storeCalls runs each of a Store's three calls, so a test can check all of them.
var storeCalls = []struct {
	name string
	do   func(s *keystore.Store) error
}{
	{"Get", func(s *keystore.Store) error { _, err := s.Get(base); return err }},
	{"Set", func(s *keystore.Store) error { return s.Set(base, "sk-test-key") }},
	{"Delete", func(s *keystore.Store) error { return s.Delete(base) }},
}

func TestStore_CallThatNeverReturnsTimesOut(t *testing.T) {
	leaks := goleak.IgnoreCurrent()
	f := &fakeBackend{block: make(chan struct{})}
	s := keystore.NewWithBackend(f, 20*time.Millisecond)
	for _, c := range storeCalls {
		err := c.do(s)
		if !errors.Is(err, keystore.ErrUnavailable) || !errors.Is(err, keystore.ErrTimeout) {
			t.Errorf("%s on a keyring that never answers: err = %v, want ErrUnavailable and ErrTimeout", c.name, err)
		}
		if errors.Is(err, keystore.ErrNotFound) {
			t.Errorf("%s on a keyring that never answers: err = %v matches ErrNotFound", c.name, err)
		}
		var ue *keystore.UnavailableError
		if !errors.As(err, &ue) || ue.Reason != keystore.ReasonTimeout {
			t.Errorf("%s: err = %#v, want an *UnavailableError with ReasonTimeout", c.name, err)
		}
	}
	// The first call is still stuck in the backend; the later ones waited for it instead of
	// leaving one more stuck goroutine each.
	if n := f.calls.Load(); n != 1 {
		t.Errorf("backend entered %d times, want 1 while the first call is stuck", n)
	}

	// Once the backend returns, the stuck goroutine ends and the Store works again.
	close(f.block) // later calls pass through a closed channel at once
	goleak.VerifyNone(t, leaks)
	if err := s.Set(base, "sk-after"); err != nil {
		t.Fatalf("Set after the keyring came back: %v", err)
	}
	if got, err := s.Get(base); err != nil || got != "sk-after" {
		t.Fatalf("Get after the keyring came back = %q, %v; want sk-after", got, err)
	}
}

func TestStore_ErrorKinds(t *testing.T) {
	serviceUnknown := dbus.Error{
		Name: "org.freedesktop.DBus.Error.ServiceUnknown",
		Body: []any{"The name org.freedesktop.secrets was not provided by any .service files"},
	}
	tests := []struct {
		name        string
		backendErr  error
		panics      any
		want        error
		wantNot     []error
		wantMessage []string
		wantReason  keystore.Reason
	}{
		{"go-keyring not found", keyring.ErrNotFound, nil, keystore.ErrNotFound,
			[]error{keystore.ErrUnavailable}, []string{base}, 0},
		{"wrapped not found", fmt.Errorf("finding item: %w", keyring.ErrNotFound), nil, keystore.ErrNotFound,
			[]error{keystore.ErrUnavailable}, []string{base}, 0},
		{"no Secret Service (D-Bus error value)", serviceUnknown, nil, keystore.ErrUnavailable,
			[]error{keystore.ErrNotFound, keystore.ErrTimeout}, []string{"no Secret Service", "ServiceUnknown"}, keystore.ReasonNoSecretService},
		{"no Secret Service (D-Bus error pointer)", &serviceUnknown, nil, keystore.ErrUnavailable,
			[]error{keystore.ErrNotFound}, []string{"no Secret Service"}, keystore.ReasonNoSecretService},
		{"locked collection", errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'"), nil,
			keystore.ErrUnavailable, []error{keystore.ErrNotFound}, []string{"locked", "failed to unlock correct collection"}, keystore.ReasonLocked},
		{"other D-Bus failure", errors.New("dbus: connection closed by user"), nil, keystore.ErrUnavailable,
			[]error{keystore.ErrNotFound}, []string{"connection closed"}, keystore.ReasonFailed},
		{"data too big", keyring.ErrSetDataTooBig, nil, keystore.ErrKeyTooLong,
			[]error{keystore.ErrUnavailable, keystore.ErrNotFound}, []string{"too long"}, 0},
		{"backend panics", nil, "index out of range", keystore.ErrUnavailable,
			[]error{keystore.ErrNotFound}, []string{"panicked", "index out of range"}, keystore.ReasonFailed},
	}
	for _, tt := range tests {
		for _, c := range storeCalls {
			t.Run(tt.name+"/"+c.name, func(t *testing.T) {
				s := keystore.NewWithBackend(&fakeBackend{err: tt.backendErr, panics: tt.panics}, generous)
				err := c.do(s)
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want one matching %v", err, tt.want)
				}
				for _, not := range tt.wantNot {
					if errors.Is(err, not) {
						t.Errorf("err = %v also matches %v", err, not)
					}
				}
				for _, w := range tt.wantMessage {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("message %q does not contain %q", err, w)
					}
				}
				if ue := (*keystore.UnavailableError)(nil); errors.As(err, &ue) && ue.Reason != tt.wantReason {
					t.Errorf("reason %v, want %v", ue.Reason, tt.wantReason)
				}
				if tt.backendErr != nil && errors.Is(err, keystore.ErrUnavailable) {
					// The cause is kept for logs: in the chain, and in the message.
					var dbusErr dbus.Error
					inChain := errors.As(err, &dbusErr)
					if reflect.TypeOf(tt.backendErr).Comparable() {
						inChain = errors.Is(err, tt.backendErr)
					}
					if !inChain || !strings.Contains(err.Error(), tt.backendErr.Error()) {
						t.Errorf("err = %v does not keep its cause %v", err, tt.backendErr)
					}
				}
			})
		}
	}
}

func TestStore_MemoryRoundTrip(t *testing.T) {
	f := &fakeBackend{}
	s := keystore.NewWithBackend(f, generous)
	if _, err := s.Get(base); !errors.Is(err, keystore.ErrNotFound) {
		t.Fatalf("Get before Set: err = %v, want ErrNotFound", err)
	}
	if err := s.Set("HTTPS://API.Example.com:443/v1/", "sk-one"); err != nil {
		t.Fatal(err)
	}
	// The key is stored under the service name and the normalized base URL.
	if got := f.secrets[keystore.Service+"\x00"+base]; got != "sk-one" {
		t.Fatalf("backend holds %q under (%s, %s), want sk-one; all: %v", got, keystore.Service, base, f.secrets)
	}
	if got, err := s.Get(base); err != nil || got != "sk-one" {
		t.Fatalf("Get = %q, %v; want sk-one", got, err)
	}
	if err := s.Delete(base + "/"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(base); !errors.Is(err, keystore.ErrNotFound) {
		t.Fatalf("second Delete: err = %v, want ErrNotFound", err)
	}
}

func TestStore_EmptyStoredSecretIsNotFound(t *testing.T) {
	f := &fakeBackend{secrets: map[string]string{keystore.Service + "\x00" + base: ""}}
	if _, err := keystore.NewWithBackend(f, generous).Get(base); !errors.Is(err, keystore.ErrNotFound) {
		t.Fatalf("Get of an empty stored secret: err = %v, want ErrNotFound", err)
	}
}

func TestStore_SetRefusesBadKeysBeforeTheKeyring(t *testing.T) {
	tests := []struct {
		name string
		key  string
		want error
	}{
		{"empty", "", keystore.ErrInvalidKey},
		{"newline inside", "sk-abc\ndef", keystore.ErrInvalidKey},
		{"trailing newline", "sk-abc\n", keystore.ErrInvalidKey},
		{"carriage return", "sk-abc\r", keystore.ErrInvalidKey},
		{"tab", "sk\tabc", keystore.ErrInvalidKey},
		{"NUL", "sk\x00abc", keystore.ErrInvalidKey},
		{"escape sequence", "sk-\x1b[2Jabc", keystore.ErrInvalidKey},
		{"leading space", " sk-abc", keystore.ErrInvalidKey},
		{"space inside", "sk-abc def", keystore.ErrInvalidKey},
		{"no-break space inside", "sk-abc\u00a0def", keystore.ErrInvalidKey},
		{"invalid UTF-8", "sk-\xffabc", keystore.ErrInvalidKey},
		{"one byte too long", strings.Repeat("k", keystore.MaxKeyLen+1), keystore.ErrKeyTooLong},
		{"a megabyte", strings.Repeat("k", 1<<20), keystore.ErrKeyTooLong},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeBackend{}
			err := keystore.NewWithBackend(f, generous).Set(base, tt.key)
			if !errors.Is(err, tt.want) || !errors.Is(err, keystore.ErrInvalidKey) {
				t.Fatalf("err = %v, want %v (and ErrInvalidKey)", err, tt.want)
			}
			if n := f.calls.Load(); n != 0 {
				t.Fatalf("the keyring was called %d times for a key that cannot be stored", n)
			}
		})
	}
	// The longest key accepted, and text beyond ASCII, are stored.
	for _, key := range []string{strings.Repeat("k", keystore.MaxKeyLen), "sk-ключ-鍵"} {
		if err := keystore.NewWithBackend(&fakeBackend{}, generous).Set(base, key); err != nil {
			t.Errorf("Set of a valid %d-byte key: %v", len(key), err)
		}
	}
}

func TestStore_RefusesBaseURLsThatAreNotAbsolute(t *testing.T) {
	for _, u := range []string{"", "   ", "/", "api.example.com", "https://", "mailto:someone@example.com"} {
		f := &fakeBackend{}
		s := keystore.NewWithBackend(f, generous)
		_, getErr := s.Get(u)
		for _, err := range []error{getErr, s.Set(u, "sk-x"), s.Delete(u)} {
			if !errors.Is(err, keystore.ErrInvalidBaseURL) {
				t.Errorf("base URL %q: err = %v, want ErrInvalidBaseURL", u, err)
			}
		}
		if n := f.calls.Load(); n != 0 {
			t.Errorf("base URL %q: the keyring was called %d times", u, n)
		}
	}
}

// TestStore_KeyNeverInErrors runs a canary key through every way Set can fail, including a
// backend that puts the secret in its own error message, and checks every rendering of the error.
func TestStore_KeyNeverInErrors(t *testing.T) {
	const canary = "sk-CANARY-7f3a9c2e51d84b06"
	// Nothing this package does may leave the key in a file: run with every place a file could
	// go pointing at empty directories, and check them afterwards.
	dirs := map[string]string{}
	for _, v := range []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		dirs[v] = t.TempDir()
		t.Setenv(v, dirs[v])
	}
	dirs["cwd"] = t.TempDir()
	t.Chdir(dirs["cwd"])

	echo := func(secret string) error { return errors.New("cannot store secret " + secret) }
	backends := map[string]*fakeBackend{
		"echoing error": {errFor: echo},
		"echoing D-Bus error": {errFor: func(secret string) error {
			return dbus.Error{Name: "org.freedesktop.Secret.Error.IsLocked", Body: []any{"refused " + secret}}
		}},
		"echoing wrapped error": {errFor: func(secret string) error { return fmt.Errorf("creating item: %w", echo(secret)) }},
		"echoing panic":         {panics: "bad secret " + canary},
		"not found":             {err: keyring.ErrNotFound},
		"too big":               {err: keyring.ErrSetDataTooBig},
		"never answers":         {block: make(chan struct{})},
	}
	keys := map[string]string{
		"valid":       canary,
		"newline":     canary + "\n",
		"inner space": canary + "\x00" + canary,
		"padded":      " " + canary + " ",
		"too long":    strings.Repeat(canary, keystore.MaxKeyLen/len(canary)+1),
	}
	for bname, b := range backends {
		s := keystore.NewWithBackend(b, 50*time.Millisecond)
		if b.block == nil {
			s = keystore.NewWithBackend(b, generous)
		}
		for kname, key := range keys {
			err := s.Set(base, key)
			if err == nil {
				t.Errorf("%s, %s key: Set succeeded, want an error", bname, kname)
				continue
			}
			for e := error(err); e != nil; e = errors.Unwrap(e) {
				assertNoCanary(t, bname+", "+kname+" key", e)
			}
			var multi interface{ Unwrap() []error }
			if errors.As(err, &multi) {
				for _, e := range multi.Unwrap() {
					assertNoCanary(t, bname+", "+kname+" key (cause)", e)
				}
			}
		}
	}
	close(backends["never answers"].block)

	for name, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			t.Errorf("%s: the package left %s behind", name, filepath.Join(dir, e.Name()))
		}
	}
}

func assertNoCanary(t *testing.T, what string, err error) {
	t.Helper()
	for _, format := range []string{"%v", "%+v", "%#v", "%q", "%s"} {
		if s := fmt.Sprintf(format, err); strings.Contains(s, "CANARY") {
			t.Errorf("%s: the key shows in the error (%s): %s", what, format, s)
		}
	}
}

func TestNormalizeBaseURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.example.com", "https://api.example.com"},
		{"https://api.example.com/", "https://api.example.com"},
		{"https://api.example.com///", "https://api.example.com"},
		{"  https://api.example.com/v1/ \n", "https://api.example.com/v1"},
		{"HTTPS://API.Example.COM/V1", "https://api.example.com/V1"}, // paths keep their case
		{"https://api.example.com:443/v1", "https://api.example.com/v1"},
		{"http://localhost:80/", "http://localhost"},
		{"http://localhost:8080/", "http://localhost:8080"},
		{"https://api.example.com:8443", "https://api.example.com:8443"},
		{"http://127.0.0.1:8080/api/", "http://127.0.0.1:8080/api"},
		{"http://[::1]:80/v1", "http://[::1]/v1"},
		{"http://[::1]:8080/v1", "http://[::1]:8080/v1"},
		{"https://user:secret@api.example.com/v1", "https://api.example.com/v1"},
		{"https://api.example.com/v1?x=1#frag", "https://api.example.com/v1"},
		{"https://api.example.com/a%20b/", "https://api.example.com/a%20b"},
		{"api.example.com/", "api.example.com"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := keystore.NormalizeBaseURL(tt.in); got != tt.want {
			t.Errorf("NormalizeBaseURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := keystore.NormalizeBaseURL(keystore.NormalizeBaseURL(tt.in)); got != tt.want {
			t.Errorf("NormalizeBaseURL is not idempotent on %q: second pass gives %q", tt.in, got)
		}
	}
}
