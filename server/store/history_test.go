package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"parley/server/store"
)

func TestHistory_PagesByCountAndBytes(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 100)
	conv := chat(t, s, acct, "", "one").ConversationID // messages 1, 2
	for _, text := range []string{"two", "three"} {
		chat(t, s, acct, conv, text) // 3..6
	}
	ids := func(h store.History) string {
		var out []string
		for _, m := range h.Messages {
			out = append(out, fmt.Sprint(m.ID))
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		before          int64
		limit, maxBytes int
		want            string
		more            bool
	}{
		{0, 0, 1 << 20, "1 2 3 4 5 6", false},
		{0, 4, 1 << 20, "3 4 5 6", true},
		{3, 4, 1 << 20, "1 2", false},
		{0, 10, 31, "4 5 6", true}, // 12 + 5 + 14 bytes
		{0, 10, 30, "5 6", true},
		{0, 10, 1, "6", true}, // one message always comes, even over the budget
		{1, 10, 1 << 20, "", false},
	} {
		h, err := s.History(ctx, acct, conv, c.before, c.limit, c.maxBytes)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(h); got != c.want || h.More != c.more {
			t.Errorf("History(before %d, limit %d, %d bytes) = [%s] more %v; want [%s] more %v", c.before, c.limit, c.maxBytes, got, h.More, c.want, c.more)
		}
		if h.Conversation.ID != conv || h.Conversation.MessageCount != 6 {
			t.Errorf("conversation %+v", h.Conversation)
		}
	}
	if _, err := s.History(ctx, newAccount(t, s, 1), conv, 0, 10, 1<<20); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another account's history: %v", err)
	}
}

func TestChatContext_NewestWithinBudget(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 100)
	conv := chat(t, s, acct, "", "aaaa").ConversationID // "aaaa", "reply to aaaa" (13)
	chat(t, s, acct, conv, "bbbb")                      // "bbbb", "reply to bbbb"
	msgs, err := s.ChatContext(ctx, acct, conv, 4+13)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 || msgs[0].Content != "bbbb" || msgs[1].Content != "reply to bbbb" {
		t.Errorf("ChatContext = %+v; want the newest turn, oldest first", msgs)
	}
	if msgs, _ := s.ChatContext(ctx, acct, conv, 1<<20); len(msgs) != 4 {
		t.Errorf("a large budget gives %d messages, want all 4", len(msgs))
	}
	if _, err := s.ChatContext(ctx, newAccount(t, s, 1), conv, 100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another account's conversation: %v", err)
	}
	if _, err := s.ChatContext(ctx, acct, "c_missing", 100); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a missing conversation: %v", err)
	}
}
