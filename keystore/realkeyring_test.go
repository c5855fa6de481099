package keystore_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"parley/internal/testenv"
	"parley/keystore"
)

// These tests talk to a real gnome-keyring-daemon on a private session bus (testenv.StartKeyring):
// the same D-Bus calls the app makes on a desktop, with nothing of the user's keyring touched.

func TestRealKeyring_SetGetOverwriteDelete(t *testing.T) {
	testenv.StartKeyring(t)
	s := keystore.New()

	if _, err := s.Get(base); !errors.Is(err, keystore.ErrNotFound) || errors.Is(err, keystore.ErrUnavailable) {
		t.Fatalf("Get before any Set: err = %v, want ErrNotFound only", err)
	}
	if err := s.Set(base, "sk-first"); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if got, err := s.Get(base); err != nil || got != "sk-first" {
		t.Fatalf("Get = %q, %v; want sk-first", got, err)
	}
	if err := s.Set(base, "sk-second"); err != nil {
		t.Fatalf("Set over an existing key: %v", err)
	}
	if got, err := s.Get(base); err != nil || got != "sk-second" {
		t.Fatalf("Get after overwrite = %q, %v; want sk-second", got, err)
	}
	if err := s.Delete(base); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	// Overwriting replaced the item rather than adding a second one: one Delete removed the key.
	if _, err := s.Get(base); !errors.Is(err, keystore.ErrNotFound) {
		t.Fatalf("Get after Delete: err = %v, want ErrNotFound", err)
	}
	if err := s.Delete(base); !errors.Is(err, keystore.ErrNotFound) || errors.Is(err, keystore.ErrUnavailable) {
		t.Fatalf("Delete of a missing key: err = %v, want ErrNotFound only", err)
	}
}

func TestRealKeyring_StoredUnderServiceAndNormalizedURL(t *testing.T) {
	testenv.StartKeyring(t)
	s := keystore.New()
	if err := s.Set("HTTPS://API.Example.com:443/v1/", "sk-normalized"); err != nil {
		t.Fatalf("Set: %v", err)
	}
	// Another program using the same convention (service "parley", user = the base URL) finds it.
	if got, err := keyring.Get(keystore.Service, base); err != nil || got != "sk-normalized" {
		t.Fatalf("go-keyring Get(%q, %q) = %q, %v; want sk-normalized", keystore.Service, base, got, err)
	}
	for _, spelling := range []string{base, base + "/", "https://API.EXAMPLE.COM/v1", " https://api.example.com:443/v1 "} {
		if got, err := s.Get(spelling); err != nil || got != "sk-normalized" {
			t.Errorf("Get(%q) = %q, %v; want sk-normalized", spelling, got, err)
		}
	}
	if _, err := s.Get("https://api.example.com/V1"); !errors.Is(err, keystore.ErrNotFound) {
		t.Errorf("a path differing in case named the same key: err = %v, want ErrNotFound", err)
	}
}

func TestRealKeyring_BaseURLsKeptApart(t *testing.T) {
	testenv.StartKeyring(t)
	s := keystore.New()
	other := "http://127.0.0.1:8080"
	prefix := base + "/more" // a longer path is another service, not a match of base
	for u, key := range map[string]string{base: "sk-api", other: "sk-local", prefix: "sk-prefix"} {
		if err := s.Set(u, key); err != nil {
			t.Fatalf("Set(%s): %v", u, err)
		}
	}
	if err := s.Delete(prefix); err != nil {
		t.Fatalf("Delete(%s): %v", prefix, err)
	}
	for u, want := range map[string]string{base: "sk-api", other: "sk-local"} {
		if got, err := s.Get(u); err != nil || got != want {
			t.Errorf("Get(%s) = %q, %v; want %q", u, got, err, want)
		}
	}
	if _, err := s.Get(prefix); !errors.Is(err, keystore.ErrNotFound) {
		t.Errorf("Get(%s) after its Delete: err = %v, want ErrNotFound", prefix, err)
	}
}

func TestRealKeyring_OversizedKey(t *testing.T) {
	testenv.StartKeyring(t)
	s := keystore.New()
	if err := s.Set(base, "sk-kept"); err != nil {
		t.Fatal(err)
	}
	err := s.Set(base, strings.Repeat("x", keystore.MaxKeyLen+1))
	if !errors.Is(err, keystore.ErrKeyTooLong) || errors.Is(err, keystore.ErrUnavailable) {
		t.Fatalf("Set of a %d-byte key: err = %v, want ErrKeyTooLong", keystore.MaxKeyLen+1, err)
	}
	if got, err := s.Get(base); err != nil || got != "sk-kept" {
		t.Fatalf("after the refused Set, Get = %q, %v; want the earlier key sk-kept", got, err)
	}
	// The longest key accepted goes through the real keyring intact.
	longest := strings.Repeat("k", keystore.MaxKeyLen-3) + "end"
	if err := s.Set(base, longest); err != nil {
		t.Fatalf("Set of a %d-byte key: %v", len(longest), err)
	}
	if got, err := s.Get(base); err != nil || got != longest {
		t.Fatalf("Get of the %d-byte key returned %d bytes, %v", len(longest), len(got), err)
	}
}

func TestRealKeyring_NoSecretService(t *testing.T) {
	testenv.StartSessionBus(t) // a bus, but no keyring on it
	s := keystore.New()
	_, getErr := s.Get(base)
	for name, err := range map[string]error{"Get": getErr, "Set": s.Set(base, "sk-x"), "Delete": s.Delete(base)} {
		if !errors.Is(err, keystore.ErrUnavailable) || errors.Is(err, keystore.ErrNotFound) {
			t.Errorf("%s with no Secret Service: err = %v, want ErrUnavailable, not ErrNotFound", name, err)
			continue
		}
		for _, want := range []string{"no Secret Service"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: message %q does not say %q", name, err, want)
			}
		}
	}
}

func TestRealKeyring_Locked(t *testing.T) {
	k := testenv.StartKeyring(t)
	s := keystore.New()
	if err := s.Set(base, "sk-locked-away"); err != nil {
		t.Fatal(err)
	}
	if err := k.Lock(); err != nil {
		t.Fatal(err)
	}
	// No prompt can be shown, so the unlock fails: a locked keyring is unavailable, and the key
	// stored in it is not reported as missing.
	_, getErr := s.Get(base)
	for name, err := range map[string]error{"Get": getErr, "Set": s.Set(base, "sk-x"), "Delete": s.Delete(base)} {
		if !errors.Is(err, keystore.ErrUnavailable) || errors.Is(err, keystore.ErrNotFound) {
			t.Errorf("%s on a locked keyring: err = %v, want ErrUnavailable, not ErrNotFound", name, err)
		} else if !strings.Contains(err.Error(), "locked") {
			t.Errorf("%s: message %q does not say the keyring is locked", name, err)
		}
	}
}

func TestRealKeyring_DaemonGone(t *testing.T) {
	k := testenv.StartKeyring(t)
	s := keystore.New()
	if err := s.Set(base, "sk-x"); err != nil {
		t.Fatal(err)
	}
	k.Stop()
	if _, err := s.Get(base); !errors.Is(err, keystore.ErrUnavailable) || errors.Is(err, keystore.ErrNotFound) {
		t.Fatalf("Get after the keyring daemon died: err = %v, want ErrUnavailable, not ErrNotFound", err)
	}
}
