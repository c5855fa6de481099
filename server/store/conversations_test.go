package store_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/server/store"
	"parley/settings"
)

// configString shows a Config with its pointers followed.
func configString(c store.Config) string {
	show := func(name string, v any, set bool) string {
		if !set {
			return name + "=unset"
		}
		return fmt.Sprintf("%s=%v", name, v)
	}
	var parts []string
	parts = append(parts, show("persona", deref(c.Persona), c.Persona != nil))
	parts = append(parts, show("temperature", deref(c.Temperature), c.Temperature != nil))
	parts = append(parts, show("top_p", deref(c.TopP), c.TopP != nil))
	parts = append(parts, show("max_tokens", deref(c.MaxTokens), c.MaxTokens != nil))
	return strings.Join(parts, " ")
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

func ptr[T any](v T) *T { return &v }

func TestConversations_OtherAccountIsNotFound(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	owner, stranger := newAccount(t, s, 5), newAccount(t, s, 5)
	conv := chat(t, s, owner, "", "secret").ConversationID

	if _, err := s.Reserve(ctx, stranger, conv); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Reserve error = %v, want ErrNotFound", err)
	}
	if _, err := s.Conversation(ctx, stranger, conv); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Conversation error = %v, want ErrNotFound", err)
	}
	if _, err := s.Messages(ctx, stranger, conv); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Messages error = %v, want ErrNotFound", err)
	}
	if _, err := s.SaveConfig(ctx, stranger, conv, store.ConfigPatch{Set: store.Config{Persona: ptr("x")}}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SaveConfig error = %v, want ErrNotFound", err)
	}
	if err := s.DeleteConversation(ctx, stranger, conv); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteConversation error = %v, want ErrNotFound", err)
	}
	if convs, _, err := s.ListConversations(ctx, stranger, 0, ""); err != nil || len(convs) != 0 {
		t.Errorf("stranger lists %d conversations, %v; want 0", len(convs), err)
	}
	// The refused Reserve charged the stranger nothing, and the owner's
	// conversation is intact.
	if entries := mustLedger(t, s, stranger); len(entries) != 1 {
		t.Errorf("stranger's ledger = %+v, want only the grant", entries)
	}
	if msgs, err := s.Messages(ctx, owner, conv); err != nil || len(msgs) != 2 {
		t.Errorf("owner's Messages = %d, %v; want 2", len(msgs), err)
	}
	if _, err := s.Messages(ctx, owner, "c_missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Messages(missing) error = %v, want ErrNotFound", err)
	}
}

func TestDeleteConversation_DeletesMessages(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 5)
	conv := chat(t, s, acct, "", "one").ConversationID
	chat(t, s, acct, conv, "two")
	if err := s.DeleteConversation(ctx, acct, conv); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Messages(ctx, acct, conv); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Messages after delete error = %v, want ErrNotFound", err)
	}
	if err := s.DeleteConversation(ctx, acct, conv); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete error = %v, want ErrNotFound", err)
	}
	verify(t, s) // includes the foreign key check: no orphaned messages
}

func TestListConversations_Pages(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 100)
	newAccount(t, s, 0) // another account's conversations never show
	const total = 45
	for i := range total {
		chat(t, s, acct, "", fmt.Sprintf("conversation %d", i))
	}
	seen := map[string]bool{}
	var sizes []int
	var all []store.Conversation
	cursor := ""
	for {
		page, next, err := s.ListConversations(ctx, acct, 20, cursor)
		if err != nil {
			t.Fatalf("ListConversations(%q): %v", cursor, err)
		}
		sizes = append(sizes, len(page))
		for _, c := range page {
			if seen[c.ID] {
				t.Errorf("conversation %s listed twice", c.ID)
			}
			seen[c.ID] = true
		}
		all = append(all, page...)
		if next == "" {
			break
		}
		if len(sizes) > 5 {
			t.Fatal("paging does not end")
		}
		cursor = next
	}
	if fmt.Sprint(sizes) != "[20 20 5]" {
		t.Errorf("page sizes = %v, want [20 20 5]", sizes)
	}
	if len(seen) != total {
		t.Errorf("listed %d distinct conversations, want %d", len(seen), total)
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.UpdatedAt.Before(b.UpdatedAt) || a.UpdatedAt.Equal(b.UpdatedAt) && a.ID < b.ID {
			t.Errorf("conversations %d and %d out of order", i-1, i)
		}
	}
	// Newest first: the last one created leads.
	if all[0].Title != fmt.Sprintf("conversation %d", total-1) {
		t.Errorf("first listed %q, want the newest", all[0].Title)
	}
	// Talking in the oldest conversation brings it to the front.
	oldest := all[len(all)-1]
	chat(t, s, acct, oldest.ID, "again")
	page, _, err := s.ListConversations(ctx, acct, 1, "")
	if err != nil || len(page) != 1 || page[0].ID != oldest.ID || page[0].MessageCount != 4 {
		t.Errorf("after a new turn first page = %+v, %v; want %s", page, err, oldest.ID)
	}
	// Defaults and bounds.
	if page, _, _ := s.ListConversations(ctx, acct, 0, ""); len(page) != 20 {
		t.Errorf("limit 0 gave %d, want 20", len(page))
	}
}

func TestListConversations_BadCursor(t *testing.T) {
	s, _ := store.OpenTemp(t)
	acct := newAccount(t, s, 0)
	for _, cursor := range []string{"!!!", "bm9wZQ", "MTIzOmFiYw"} { // bad base64, "nope", "123:abc"
		if _, _, err := s.ListConversations(t.Context(), acct, 0, cursor); !errors.Is(err, store.ErrBadCursor) {
			t.Errorf("cursor %q: error = %v, want ErrBadCursor", cursor, err)
		}
	}
}

func TestSaveConfig_Patch(t *testing.T) {
	s, _ := store.OpenTemp(t)
	ctx := t.Context()
	acct := newAccount(t, s, 5)
	r, err := s.Reserve(ctx, acct, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Commit(ctx, store.CommitParams{CallID: r.CallID, UserText: "hi", Reply: "hello",
		Config: store.Config{Persona: ptr("poet"), Temperature: ptr(0.7), TopP: ptr(0.9), MaxTokens: ptr(100)}})
	if err != nil {
		t.Fatal(err)
	}
	id := res.ConversationID
	before, _ := s.Conversation(ctx, acct, id)

	tests := []struct {
		name  string
		patch store.ConfigPatch
		want  string
	}{
		{"empty patch changes nothing", store.ConfigPatch{},
			"persona=poet temperature=0.7 top_p=0.9 max_tokens=100"},
		{"one field", store.ConfigPatch{Set: store.Config{Temperature: ptr(0.0)}},
			"persona=poet temperature=0 top_p=0.9 max_tokens=100"},
		{"clear two", store.ConfigPatch{Clear: []settings.Field{settings.FieldPersona, settings.FieldMaxTokens}},
			"persona=unset temperature=0 top_p=0.9 max_tokens=unset"},
		{"set to zero values", store.ConfigPatch{Set: store.Config{Persona: ptr(""), MaxTokens: ptr(0)}},
			"persona= temperature=0 top_p=0.9 max_tokens=0"},
		{"clear the rest", store.ConfigPatch{Clear: []settings.Field{settings.FieldTemperature, settings.FieldTopP}},
			"persona= temperature=unset top_p=unset max_tokens=0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := s.SaveConfig(ctx, acct, id, tt.patch)
			if err != nil {
				t.Fatal(err)
			}
			if got := configString(c.Config); got != tt.want {
				t.Errorf("returned config %s, want %s", got, tt.want)
			}
			stored, _ := s.Conversation(ctx, acct, id)
			if got := configString(stored.Config); got != tt.want {
				t.Errorf("stored config %s, want %s", got, tt.want)
			}
			if stored.UpdatedAt.Before(before.UpdatedAt) || stored.Title != "hi" || stored.MessageCount != 2 {
				t.Errorf("stored conversation = %+v", stored)
			}
		})
	}
}

func TestTitle_LongFirstMessageIsCut(t *testing.T) {
	s, _ := store.OpenTemp(t)
	acct := newAccount(t, s, 5)
	text := strings.Repeat("ünïcödé ", 20)
	conv := chat(t, s, acct, "", text).ConversationID
	c, err := s.Conversation(t.Context(), acct, conv)
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(c.Title); n > 80 || n < 70 || !strings.HasSuffix(c.Title, "…") || !strings.HasPrefix(c.Title, "ünïcödé ünïcödé") {
		t.Errorf("title %q (%d runes), want the text cut to 80 runes ending in …", c.Title, n)
	}
}
