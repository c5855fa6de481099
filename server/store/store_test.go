package store_test

import (
	"testing"

	"parley/server/store"
)

// newAccount creates a key with points and returns its account ID.
func newAccount(t *testing.T, s *store.Store, points int64) int64 {
	t.Helper()
	_, acct, err := s.CreateKey(t.Context(), points)
	if err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	return acct.ID
}

// chat runs one whole successful call and returns its result.
func chat(t *testing.T, s *store.Store, accountID int64, conversationID, text string) store.CommitResult {
	t.Helper()
	ctx := t.Context()
	r, err := s.Reserve(ctx, accountID, conversationID)
	if err != nil {
		t.Fatalf("Reserve: %v", err)
	}
	res, err := s.Commit(ctx, store.CommitParams{CallID: r.CallID, ConversationID: conversationID, UserText: text, Reply: "reply to " + text})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	return res
}

func verify(t *testing.T, s *store.Store) {
	t.Helper()
	if err := s.Verify(t.Context()); err != nil {
		t.Errorf("Verify: %v", err)
	}
}

func balance(t *testing.T, s *store.Store, key string) int64 {
	t.Helper()
	acct, err := s.AccountByKey(t.Context(), key)
	if err != nil {
		t.Fatalf("AccountByKey: %v", err)
	}
	return acct.Balance
}

func TestOpen_ReopenKeepsDataAndMigratesOnce(t *testing.T) {
	s, path := store.OpenTemp(t)
	key, _, err := s.CreateKey(t.Context(), 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	s.Close()
	for range 2 {
		s2, err := store.Open(t.Context(), path)
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		if got := balance(t, s2, key); got != 7 {
			t.Errorf("balance after reopen = %d, want 7", got)
		}
		if p, err := s2.Price(t.Context()); err != nil || p != 3 {
			t.Errorf("Price after reopen = %d, %v; want 3", p, err)
		}
		verify(t, s2)
		s2.Close()
	}
}

func TestPrice_DefaultsToOne(t *testing.T) {
	s, _ := store.OpenTemp(t)
	if p, err := s.Price(t.Context()); err != nil || p != 1 {
		t.Fatalf("Price = %d, %v; want 1", p, err)
	}
	if err := s.SetPrice(t.Context(), -1); err == nil {
		t.Error("SetPrice(-1) succeeded")
	}
}
