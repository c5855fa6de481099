package store_test

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"testing"
	"time"

	"parley/server/store"
)

func TestKeys_CreateAuthenticateRevoke(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^pk_[0-9a-f]{32}$`).MatchString(key) {
		t.Errorf("key %q is not pk_ and 32 hex characters", key)
	}
	if acct.Balance != 10 || acct.Revoked || acct.CreatedAt.IsZero() || acct.CreatedAt.Location() != time.UTC {
		t.Errorf("new account = %+v", acct)
	}
	got, err := s.Authenticate(ctx, key)
	if err != nil || got.ID != acct.ID || got.Balance != 10 {
		t.Fatalf("Authenticate = %+v, %v; want account %d with 10 points", got, err, acct.ID)
	}
	if _, err := s.Authenticate(ctx, "pk_00000000000000000000000000000000"); !errors.Is(err, store.ErrUnknownKey) {
		t.Errorf("Authenticate(unknown) error = %v, want ErrUnknownKey", err)
	}
	if n, err := s.KeyCount(ctx); err != nil || n != 1 {
		t.Errorf("KeyCount = %d, %v; want 1", n, err)
	}

	if err := s.RevokeKey(ctx, key); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}
	if _, err := s.Authenticate(ctx, key); !errors.Is(err, store.ErrUnknownKey) {
		t.Errorf("Authenticate(revoked) error = %v, want ErrUnknownKey", err)
	}
	if got, err := s.AccountByKey(ctx, key); err != nil || !got.Revoked {
		t.Errorf("AccountByKey(revoked) = %+v, %v; want it, revoked", got, err)
	}
	if _, err := s.Reserve(ctx, acct.ID, ""); !errors.Is(err, store.ErrUnknownKey) {
		t.Errorf("Reserve on a revoked account error = %v, want ErrUnknownKey", err)
	}
	if n, err := s.KeyCount(ctx); err != nil || n != 0 {
		t.Errorf("KeyCount after revoke = %d, %v; want 0", n, err)
	}
	if err := s.RevokeKey(ctx, "pk_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey(unknown) error = %v, want ErrNotFound", err)
	}
	if _, err := s.AccountByKey(ctx, "pk_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("AccountByKey(unknown) error = %v, want ErrNotFound", err)
	}
}

func TestKeys_OnlyTheHashIsStored(t *testing.T) {
	s, path := store.OpenTemp(t)
	var keys []string
	for range 3 {
		key, _, err := s.CreateKey(t.Context(), 5)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	s.Close() // checkpoints the WAL into the main file
	var files []byte
	for _, name := range []string{path, path + "-wal", path + "-shm"} {
		b, err := os.ReadFile(name)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		files = append(files, b...)
	}
	if len(files) == 0 {
		t.Fatal("database file is empty")
	}
	for _, key := range keys {
		if bytes.Contains(files, []byte(key)) || bytes.Contains(files, []byte(key[3:])) {
			t.Errorf("key %s appears in the database files", key)
		}
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("database file mode = %v, want private", perm)
	}
}

func TestGrant(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := s.Grant(ctx, key, 5, "welcome"); err != nil || b != 5 {
		t.Fatalf("Grant(+5) = %d, %v; want 5", b, err)
	}
	if b, err := s.Grant(ctx, key, -3, "take back"); err != nil || b != 2 {
		t.Fatalf("Grant(-3) = %d, %v; want 2", b, err)
	}
	if _, err := s.Grant(ctx, key, -3, "too much"); !errors.Is(err, store.ErrInsufficientPoints) {
		t.Errorf("Grant below zero error = %v, want ErrInsufficientPoints", err)
	}
	if _, err := s.Grant(ctx, "pk_nope", 1, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Grant(unknown) error = %v, want ErrNotFound", err)
	}
	if got := balance(t, s, key); got != 2 {
		t.Errorf("balance = %d, want 2", got)
	}
	entries, err := s.Ledger(ctx, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("ledger has %d entries, want 2 (no entry for a zero-point key or a refused grant): %+v", len(entries), entries)
	}
	want := []store.LedgerEntry{
		{Kind: "grant", Amount: 5, BalanceAfter: 5, Note: "welcome"},
		{Kind: "grant", Amount: -3, BalanceAfter: 2, Note: "take back"},
	}
	for i, e := range entries {
		w := want[i]
		if e.Kind != w.Kind || e.Amount != w.Amount || e.BalanceAfter != w.BalanceAfter || e.Note != w.Note || e.CallID != "" || e.Status != "" {
			t.Errorf("ledger[%d] = %+v, want %+v", i, e, w)
		}
	}
	verify(t, s)
}
