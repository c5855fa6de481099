package store_test

import (
	"errors"
	"path/filepath"
	"testing"

	"parley/server/store"
)

func TestReplaceKey_SameAccountNewKey(t *testing.T) {
	st, err := store.Open(t.Context(), filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	old, acct, err := st.CreateKey(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	key, err := st.ReplaceKey(t.Context(), acct.ID)
	if err != nil || key == old {
		t.Fatalf("ReplaceKey = %q, %v", key, err)
	}
	if _, err := st.Authenticate(t.Context(), old); !errors.Is(err, store.ErrUnknownKey) {
		t.Errorf("the old key still works: %v", err)
	}
	got, err := st.Authenticate(t.Context(), key)
	if err != nil || got.ID != acct.ID || got.Balance != 10 {
		t.Errorf("the new key reaches %+v, %v; want account %d with 10 points", got, err, acct.ID)
	}
	if _, err := st.ReplaceKey(t.Context(), acct.ID+100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an unknown account: %v", err)
	}
}
