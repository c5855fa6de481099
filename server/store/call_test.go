package store_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"parley/server/store"
)

// raceReserveCommit runs 20 concurrent calls against an account holding 5
// points at price 1, spread over the given handles, and checks that exactly 5
// are charged.
func raceReserveCommit(t *testing.T, handles ...*store.Store) {
	t.Helper()
	ctx := t.Context()
	key, acct, err := handles[0].CreateKey(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	const calls = 20
	errs := make(chan error, calls)
	var wg sync.WaitGroup
	for i := range calls {
		s := handles[i%len(handles)]
		wg.Go(func() {
			r, err := s.Reserve(ctx, acct.ID, "")
			if err != nil {
				errs <- err
				return
			}
			_, err = s.Commit(ctx, store.CommitParams{CallID: r.CallID, UserText: "hi", Reply: "hello"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	ok, broke := 0, 0
	for err := range errs {
		switch {
		case err == nil:
			ok++
		case errors.Is(err, store.ErrInsufficientPoints):
			broke++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 5 || broke != 15 {
		t.Errorf("%d calls succeeded and %d ran out of points, want 5 and 15", ok, broke)
	}
	if got := balance(t, handles[0], key); got != 0 {
		t.Errorf("balance = %d, want 0", got)
	}
	convs, _, err := handles[0].ListConversations(ctx, acct.ID, 100, "")
	if err != nil || len(convs) != 5 {
		t.Errorf("ListConversations = %d conversations, %v; want 5", len(convs), err)
	}
	verify(t, handles[0])
}

func TestReserve_ConcurrentCallsNeverOverdraw(t *testing.T) {
	s, _ := store.OpenTemp(t)
	raceReserveCommit(t, s)
}

func TestReserve_ConcurrentCallsFromTwoHandlesNeverOverdraw(t *testing.T) {
	s, path := store.OpenTemp(t)
	s2, err := store.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	raceReserveCommit(t, s, s2)
}

func TestReserve_InsufficientPointsChargesNothing(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(ctx, 3); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, acct.ID, ""); !errors.Is(err, store.ErrInsufficientPoints) {
		t.Fatalf("Reserve error = %v, want ErrInsufficientPoints", err)
	}
	if got := balance(t, s, key); got != 2 {
		t.Errorf("balance = %d, want 2", got)
	}
	if entries, _ := s.Ledger(ctx, acct.ID); len(entries) != 1 {
		t.Errorf("ledger has %d entries, want only the grant", len(entries))
	}
}

func TestReserve_PriceZeroIsFree(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(ctx, 0); err != nil {
		t.Fatal(err)
	}
	res := chat(t, s, acct.ID, "", "free")
	if res.Charged != 0 || res.Balance != 0 {
		t.Errorf("Commit = %+v, want nothing charged", res)
	}
	if got := balance(t, s, key); got != 0 {
		t.Errorf("balance = %d, want 0", got)
	}
	verify(t, s)
}

func TestCommit_StoresTurnAndPostsCharge(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(ctx, 2); err != nil {
		t.Fatal(err)
	}
	persona := "a pirate"
	r, res := commitFirstTurn(t, s, acct.ID, persona)
	checkFirstTurnStored(t, s, acct.ID, res, persona)

	// A second turn sees the first as its context and keeps the title.
	commitSecondTurn(t, s, acct.ID, res)
	c, _ := s.Conversation(ctx, acct.ID, res.ConversationID)
	if c.Title != "Hello there, captain" || c.MessageCount != 4 || *c.Config.Persona != persona {
		t.Errorf("after second turn: title %q, %d messages, persona %q", c.Title, c.MessageCount, *c.Config.Persona)
	}
	if got := balance(t, s, key); got != 6 {
		t.Errorf("balance = %d, want 6", got)
	}
	entries, _ := s.Ledger(ctx, acct.ID)
	if len(entries) != 3 || entries[1].Kind != "charge" || entries[1].Status != "posted" || entries[1].Amount != -2 || entries[1].CallID != r.CallID {
		t.Errorf("ledger = %+v", entries)
	}
	verify(t, s)
}

// commitFirstTurn reserves a call at price 2 from an account holding 10 points and commits a
// first turn, with persona and temperature 0, into a new conversation; it checks the
// reservation and the result.
func commitFirstTurn(t *testing.T, s *store.Store, accountID int64, persona string) (*store.Reservation, store.CommitResult) {
	t.Helper()
	ctx := t.Context()
	r, err := s.Reserve(ctx, accountID, "")
	if err != nil {
		t.Fatal(err)
	}
	if r.Price != 2 || r.BalanceAfter != 8 || r.Conversation != nil || r.AccountID != accountID {
		t.Errorf("Reservation = %+v", r)
	}
	temp := 0.0
	res, err := s.Commit(ctx, store.CommitParams{
		CallID:   r.CallID,
		Config:   store.Config{Persona: &persona, Temperature: &temp},
		UserText: "  Hello\n\tthere,   captain  ",
		Reply:    "Arr.",
	})
	if err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if res.Charged != 2 || res.Balance != 8 || res.AssistantMessageID <= res.UserMessageID || res.UserCreatedAt.IsZero() {
		t.Errorf("CommitResult = %+v", res)
	}
	return r, res
}

// checkFirstTurnStored checks the conversation commitFirstTurn made: its title from the
// question, its settings, and the question and the reply as they were given.
func checkFirstTurnStored(t *testing.T, s *store.Store, accountID int64, res store.CommitResult, persona string) {
	t.Helper()
	ctx := t.Context()
	c, err := s.Conversation(ctx, accountID, res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if c.Title != "Hello there, captain" || c.MessageCount != 2 {
		t.Errorf("conversation title %q with %d messages, want %q with 2", c.Title, c.MessageCount, "Hello there, captain")
	}
	if c.Config.Persona == nil || *c.Config.Persona != persona || c.Config.Temperature == nil || *c.Config.Temperature != 0 ||
		c.Config.TopP != nil || c.Config.MaxTokens != nil {
		t.Errorf("conversation config = %s", configString(c.Config))
	}
	msgs, err := s.Messages(ctx, accountID, res.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[0].Content != "  Hello\n\tthere,   captain  " ||
		msgs[1].Role != "assistant" || msgs[1].Content != "Arr." || msgs[0].ID != res.UserMessageID {
		t.Errorf("messages = %+v", msgs)
	}
}

// commitSecondTurn checks that the first turn is the context of the next, then reserves and
// commits a second turn in its conversation (with another persona, which must not stick) and
// checks that the message IDs went on increasing.
func commitSecondTurn(t *testing.T, s *store.Store, accountID int64, first store.CommitResult) {
	t.Helper()
	ctx := t.Context()
	if hist, err := s.ChatContext(ctx, accountID, first.ConversationID, 1000); err != nil || len(hist) != 2 || hist[0].ID != first.UserMessageID {
		t.Fatalf("ChatContext = %+v, %v; want the first turn", hist, err)
	}
	r2, err := s.Reserve(ctx, accountID, first.ConversationID)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Conversation == nil || r2.Conversation.ID != first.ConversationID {
		t.Fatalf("second Reservation = %+v", r2)
	}
	other := "ignored"
	res2, err := s.Commit(ctx, store.CommitParams{CallID: r2.CallID, ConversationID: first.ConversationID,
		Config: store.Config{Persona: &other}, UserText: "Second", Reply: "Aye"})
	if err != nil {
		t.Fatal(err)
	}
	if res2.UserMessageID <= first.AssistantMessageID {
		t.Errorf("message IDs did not increase: %d after %d", res2.UserMessageID, first.AssistantMessageID)
	}
}

func TestRefund_RefundsExactlyOnce(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, acct.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := balance(t, s, key); got != 2 {
		t.Errorf("balance while pending = %d, want 2", got)
	}
	if b, err := s.Refund(ctx, r.CallID); err != nil || b != 3 {
		t.Fatalf("Refund = %d, %v; want 3", b, err)
	}
	if _, err := s.Refund(ctx, r.CallID); !errors.Is(err, store.ErrCallSettled) {
		t.Errorf("second Refund error = %v, want ErrCallSettled", err)
	}
	if _, err := s.Commit(ctx, store.CommitParams{CallID: r.CallID, UserText: "x", Reply: "y"}); !errors.Is(err, store.ErrCallSettled) {
		t.Errorf("Commit after Refund error = %v, want ErrCallSettled", err)
	}
	if _, err := s.Refund(ctx, "call_unknown"); !errors.Is(err, store.ErrCallSettled) {
		t.Errorf("Refund(unknown call) error = %v, want ErrCallSettled", err)
	}
	if got := balance(t, s, key); got != 3 {
		t.Errorf("balance = %d, want 3", got)
	}
	convs, _, err := s.ListConversations(ctx, acct.ID, 0, "")
	if err != nil || len(convs) != 0 {
		t.Errorf("ListConversations = %d conversations, %v; want none stored by a failed call", len(convs), err)
	}
	entries, _ := s.Ledger(ctx, acct.ID)
	if len(entries) != 3 || entries[1].Status != "voided" || entries[2].Kind != "refund" || entries[2].Amount != 1 || entries[2].BalanceAfter != 3 {
		t.Errorf("ledger = %+v", entries)
	}
	verify(t, s)
}

func TestCommit_Twice(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 3)
	r, err := s.Reserve(ctx, acct, "")
	if err != nil {
		t.Fatal(err)
	}
	p := store.CommitParams{CallID: r.CallID, UserText: "x", Reply: "y"}
	if _, err := s.Commit(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, p); !errors.Is(err, store.ErrCallSettled) {
		t.Errorf("second Commit error = %v, want ErrCallSettled", err)
	}
	if _, err := s.Refund(ctx, r.CallID); !errors.Is(err, store.ErrCallSettled) {
		t.Errorf("Refund after Commit error = %v, want ErrCallSettled", err)
	}
	convs, _, _ := s.ListConversations(ctx, acct, 0, "")
	if len(convs) != 1 || convs[0].MessageCount != 2 {
		t.Errorf("conversations = %+v, want one with 2 messages", convs)
	}
	verify(t, s)
}

func TestCommit_ConversationDeletedDuringCallRefunds(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	conv := chat(t, s, acct.ID, "", "first").ConversationID
	r, err := s.Reserve(ctx, acct.ID, conv)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteConversation(ctx, acct.ID, conv); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, store.CommitParams{CallID: r.CallID, ConversationID: conv, UserText: "x", Reply: "y"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Commit error = %v, want ErrNotFound", err)
	}
	if got := balance(t, s, key); got != 4 {
		t.Errorf("balance = %d, want 4 (only the first call charged)", got)
	}
	if _, err := s.Refund(ctx, r.CallID); !errors.Is(err, store.ErrCallSettled) {
		t.Errorf("Refund after the refund error = %v, want ErrCallSettled", err)
	}
	verify(t, s)
}

func TestCommit_OtherConversationThanReservedIsRefused(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 5)
	r, err := s.Reserve(ctx, acct, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Commit(ctx, store.CommitParams{CallID: r.CallID, ConversationID: "c_00000000000000000000", UserText: "x"}); err == nil {
		t.Fatal("Commit into a conversation other than the reserved one succeeded")
	}
	if _, err := s.Refund(ctx, r.CallID); err != nil {
		t.Errorf("Refund after the refused Commit: %v", err)
	}
}

func TestRecoverPending_RefundsLeftovers(t *testing.T) {
	s, path := store.OpenTemp(t)
	ctx := t.Context()
	key, acct, err := s.CreateKey(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := s.Reserve(ctx, acct.ID, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got := balance(t, s, key); got != 2 {
		t.Fatalf("balance with 3 pending = %d, want 2", got)
	}
	// Another Open in this process leaves its own live calls alone.
	s2, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	if n, err := s.RecoverPending(ctx, time.Hour); err != nil || n != 0 {
		t.Errorf("RecoverPending(1h) = %d, %v; want 0 (the calls are new)", n, err)
	}
	if got := balance(t, s, key); got != 2 {
		t.Fatalf("balance = %d, want 2 still", got)
	}
	if n, err := s.RecoverPending(ctx, 0); err != nil || n != 3 {
		t.Errorf("RecoverPending(0) = %d, %v; want 3", n, err)
	}
	if got := balance(t, s, key); got != 5 {
		t.Errorf("balance after recovery = %d, want 5", got)
	}
	for _, e := range mustLedger(t, s, acct.ID) {
		if e.Status == "pending" {
			t.Errorf("charge %s still pending", e.CallID)
		}
	}
	verify(t, s)
}

func mustLedger(t *testing.T, s *store.Store, accountID int64) []store.LedgerEntry {
	t.Helper()
	entries, err := s.Ledger(t.Context(), accountID)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// BenchmarkReserveCommit measures one whole successful chat call, two write
// transactions with synchronous=FULL, one after another.
func BenchmarkReserveCommit(b *testing.B) {
	s, err := store.Open(b.Context(), b.TempDir()+"/parley.db")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	_, acct, err := s.CreateKey(b.Context(), 1<<40)
	if err != nil {
		b.Fatal(err)
	}
	conv := ""
	for turn := 0; b.Loop(); turn++ {
		r, err := s.Reserve(b.Context(), acct.ID, conv)
		if err != nil {
			b.Fatal(err)
		}
		res, err := s.Commit(b.Context(), store.CommitParams{CallID: r.CallID, ConversationID: conv, UserText: "hi", Reply: "hello"})
		if err != nil {
			b.Fatal(err)
		}
		conv = res.ConversationID
		if turn%20 == 19 {
			conv = "" // start afresh after 20 turns
		}
	}
}
