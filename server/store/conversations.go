package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"parley/settings"
)

// Config holds a conversation's settings. A nil field is not set, so the
// service default applies; that differs from a zero value.
type Config = settings.Config

// Conversation is one account's chat thread.
type Conversation struct {
	ID           string // "c_" + 20 hex characters
	AccountID    int64
	Config       Config
	Title        string // the first user message, whitespace collapsed, at most 80 runes
	CreatedAt    time.Time
	UpdatedAt    time.Time
	MessageCount int
}

// Message is one turn's text in a conversation.
type Message struct {
	ID        int64 // increases with every message stored
	Role      string
	Content   string
	CreatedAt time.Time
}

// ConfigPatch changes some of a conversation's settings: set fields are
// given, cleared fields go back to "not set".
type ConfigPatch = settings.Patch

// titleRunes is the longest title, "…" included.
const titleRunes = 80

// title is a conversation's title made from its first user message.
func title(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(t) <= titleRunes {
		return t
	}
	r := []rune(t)[:titleRunes-1]
	return strings.TrimRight(string(r), " ") + "…"
}

const conversationColumns = `c.id, c.account_id, c.persona, c.temperature, c.top_p, c.max_tokens, c.title, c.created_at, c.updated_at,
	(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)`

// conversationColumnsUncounted leaves MessageCount 0, for the chat call,
// which does not need it.
const conversationColumnsUncounted = `c.id, c.account_id, c.persona, c.temperature, c.top_p, c.max_tokens, c.title, c.created_at, c.updated_at, 0`

type rowScanner interface {
	Scan(dest ...any) error
}

// conversationRow is a row of conversationColumns as scanned, NULLs and all
// (a LEFT JOIN that found no conversation gives a row of NULLs).
type conversationRow struct {
	id                sql.NullString
	accountID         sql.NullInt64
	persona, title    sql.NullString
	temperature, topP sql.NullFloat64
	maxTokens         sql.NullInt64
	created, updated  sql.NullInt64
	messageCount      sql.NullInt64
}

// dest is what Scan fills, in the order of conversationColumns.
func (r *conversationRow) dest() []any {
	return []any{&r.id, &r.accountID, &r.persona, &r.temperature, &r.topP, &r.maxTokens, &r.title, &r.created, &r.updated, &r.messageCount}
}

func (r *conversationRow) conversation() Conversation {
	c := Conversation{ID: r.id.String, AccountID: r.accountID.Int64, Title: r.title.String, MessageCount: int(r.messageCount.Int64),
		CreatedAt: fromMillis(r.created.Int64), UpdatedAt: fromMillis(r.updated.Int64)}
	if r.persona.Valid {
		c.Config.Persona = &r.persona.String
	}
	if r.temperature.Valid {
		c.Config.Temperature = &r.temperature.Float64
	}
	if r.topP.Valid {
		c.Config.TopP = &r.topP.Float64
	}
	if r.maxTokens.Valid {
		n := int(r.maxTokens.Int64)
		c.Config.MaxTokens = &n
	}
	return c
}

func scanConversation(row rowScanner) (Conversation, error) {
	var r conversationRow
	if err := row.Scan(r.dest()...); err != nil {
		return Conversation{}, err
	}
	return r.conversation(), nil
}

// conversation loads one of the account's conversations, or ErrNotFound.
func conversation(ctx context.Context, tx *txn, accountID int64, id string) (Conversation, error) {
	c, err := scanConversation(tx.QueryRowContext(ctx,
		"SELECT "+conversationColumns+" FROM conversations c WHERE c.id = ? AND c.account_id = ?", id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	return c, err
}

// messages loads a conversation's messages, oldest first.
func messages(ctx context.Context, tx *txn, id string) ([]Message, error) {
	rows, err := tx.QueryContext(ctx,
		"SELECT id, role, content, created_at FROM messages WHERE conversation_id = ? ORDER BY id", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	msgs := []Message{}
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// scanMessage reads a row of id, role, content, created_at.
func scanMessage(row rowScanner) (Message, error) {
	var m Message
	var created int64
	err := row.Scan(&m.ID, &m.Role, &m.Content, &created)
	m.CreatedAt = fromMillis(created)
	return m, err
}

// Conversation returns one of the account's conversations, or ErrNotFound.
func (s *Store) Conversation(ctx context.Context, accountID int64, id string) (Conversation, error) {
	var c Conversation
	err := s.read(ctx, func(tx *txn) (err error) {
		c, err = conversation(ctx, tx, accountID, id)
		return err
	})
	if err != nil {
		return Conversation{}, wrapUnlessSentinel("conversation", err)
	}
	return c, nil
}

// Messages returns all the messages of one of the account's conversations,
// oldest first, or ErrNotFound. It is for tools and tests: the service reads
// a conversation a page at a time (History) and the model's context within a
// budget (ChatContext).
func (s *Store) Messages(ctx context.Context, accountID int64, id string) ([]Message, error) {
	var msgs []Message
	err := s.read(ctx, func(tx *txn) error {
		if _, err := conversation(ctx, tx, accountID, id); err != nil {
			return err
		}
		var err error
		msgs, err = messages(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, wrapUnlessSentinel("messages", err)
	}
	return msgs, nil
}

// ChatContext returns what a model is given of one of the account's
// conversations: its newest messages whose contents together hold at most
// budget bytes, oldest first (so the oldest are dropped first), or
// ErrNotFound. It reads outside any write transaction and stops reading at
// the budget, so a long conversation costs a chat call no more than a short
// one.
func (s *Store) ChatContext(ctx context.Context, accountID int64, id string, budget int) ([]Message, error) {
	// One statement, so one implicit read transaction: the chat path's
	// hottest read.
	rows, err := s.query(ctx,
		`SELECT m.id, m.role, m.content, m.created_at FROM conversations c JOIN messages m ON m.conversation_id = c.id
		 WHERE c.id = ? AND c.account_id = ? ORDER BY m.id DESC`, id, accountID)
	if err != nil {
		return nil, fmt.Errorf("store: chat context: %w", err)
	}
	defer rows.Close()
	var msgs []Message
	used := 0
	for rows.Next() {
		m, err := scanMessage(rows)
		if err != nil {
			return nil, fmt.Errorf("store: chat context: %w", err)
		}
		if used += len(m.Content); used > budget {
			break
		}
		msgs = append(msgs, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: chat context: %w", err)
	}
	rows.Close()
	if len(msgs) == 0 && used == 0 { // no messages: is there a conversation?
		var one int
		err := s.queryRow(ctx, "SELECT 1 FROM conversations WHERE id = ? AND account_id = ?", id, accountID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, ErrNotFound
		}
		if err != nil {
			return nil, fmt.Errorf("store: chat context: %w", err)
		}
	}
	slices.Reverse(msgs)
	return msgs, nil
}

// History is one page of a conversation, as History returns it.
type History struct {
	Conversation Conversation
	Messages     []Message // oldest first
	More         bool      // older messages exist before Messages[0]
}

// History returns one of the account's conversations and a page of its
// messages (or ErrNotFound), read in one snapshot: the newest messages with
// IDs below before (0 for no bound), at most limit of them (0 or more than
// 1000 means 1000), oldest first, and fewer when their contents would hold
// more than maxBytes bytes. A page holds at least one message when any is
// left, so a single message larger than maxBytes still comes through.
func (s *Store) History(ctx context.Context, accountID int64, id string, before int64, limit, maxBytes int) (History, error) {
	if limit <= 0 || limit > maxHistoryLimit {
		limit = maxHistoryLimit
	}
	var h History
	err := s.read(ctx, func(tx *txn) error {
		var err error
		if h.Conversation, err = conversation(ctx, tx, accountID, id); err != nil {
			return err
		}
		query := "SELECT id, role, content, created_at FROM messages WHERE conversation_id = ?"
		args := []any{id}
		if before > 0 {
			query += " AND id < ?"
			args = append(args, before)
		}
		rows, err := tx.QueryContext(ctx, query+" ORDER BY id DESC LIMIT ?", append(args, limit+1)...)
		if err != nil {
			return err
		}
		defer rows.Close()
		used := 0
		for rows.Next() {
			if len(h.Messages) == limit {
				h.More = true
				break
			}
			m, err := scanMessage(rows)
			if err != nil {
				return err
			}
			if used += len(m.Content); used > maxBytes && len(h.Messages) > 0 {
				h.More = true
				break
			}
			h.Messages = append(h.Messages, m)
		}
		return rows.Err()
	})
	if err != nil {
		return History{}, wrapUnlessSentinel("history", err)
	}
	if h.Messages == nil {
		h.Messages = []Message{}
	}
	slices.Reverse(h.Messages)
	return h, nil
}

// maxHistoryLimit is the most messages History returns at once.
const maxHistoryLimit = 1000

// ListConversations returns a page of the account's conversations, most
// recently updated first (ties by ID), and the cursor of the next page, ""
// after the last one. limit 0 means 20, and more than 100 means 100. cursor is
// "" for the first page; one this store did not hand out is an error wrapping
// ErrBadCursor.
func (s *Store) ListConversations(ctx context.Context, accountID int64, limit int, cursor string) ([]Conversation, string, error) {
	switch {
	case limit <= 0:
		limit = 20
	case limit > 100:
		limit = 100
	}
	query := "SELECT " + conversationColumns + " FROM conversations c WHERE c.account_id = ?"
	args := []any{accountID}
	if cursor != "" {
		updated, id, err := parseCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		query += " AND (c.updated_at < ? OR c.updated_at = ? AND c.id < ?)"
		args = append(args, updated, updated, id)
	}
	query += " ORDER BY c.updated_at DESC, c.id DESC LIMIT ?"
	args = append(args, limit+1)

	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, "", fmt.Errorf("store: list conversations: %w", err)
	}
	defer rows.Close()
	convs := []Conversation{}
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, "", fmt.Errorf("store: list conversations: %w", err)
		}
		convs = append(convs, c)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("store: list conversations: %w", err)
	}
	next := ""
	if len(convs) > limit {
		convs = convs[:limit]
		last := convs[limit-1]
		next = makeCursor(last.UpdatedAt.UnixMilli(), last.ID)
	}
	return convs, next, nil
}

// A cursor is the position after the last conversation of a page: its
// updated_at and ID, base64url-encoded so callers treat it as opaque.
func makeCursor(updated int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(updated, 10) + ":" + id))
}

func parseCursor(cursor string) (int64, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return 0, "", fmt.Errorf("%w: %q", ErrBadCursor, cursor)
	}
	ms, id, ok := strings.Cut(string(raw), ":")
	updated, err := strconv.ParseInt(ms, 10, 64)
	if !ok || err != nil || !strings.HasPrefix(id, "c_") {
		return 0, "", fmt.Errorf("%w: %q", ErrBadCursor, cursor)
	}
	return updated, id, nil
}

// SaveConfig applies patch to one of the account's conversations and returns
// it, or ErrNotFound. Its updated time moves only when a setting changes, so
// a patch that changes nothing leaves the conversation list's order alone.
func (s *Store) SaveConfig(ctx context.Context, accountID int64, id string, patch ConfigPatch) (Conversation, error) {
	var c Conversation
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		cur, err := conversation(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		cfg := cur.Config.Apply(patch)
		if cfg.Equal(cur.Config) {
			c = cur
			return nil
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE conversations SET persona = ?, temperature = ?, top_p = ?, max_tokens = ?, updated_at = MAX(updated_at, ?)
			 WHERE id = ?`,
			cfg.Persona, cfg.Temperature, cfg.TopP, cfg.MaxTokens, now(), id); err != nil {
			return err
		}
		c, err = conversation(ctx, tx, accountID, id)
		return err
	})
	if err != nil {
		return Conversation{}, wrapUnlessSentinel("save config", err)
	}
	return c, nil
}

// DeleteConversation deletes one of the account's conversations and its
// messages, or returns ErrNotFound.
func (s *Store) DeleteConversation(ctx context.Context, accountID int64, id string) error {
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM conversations WHERE id = ? AND account_id = ?", id, accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return wrapUnlessSentinel("delete conversation", err)
	}
	return nil
}
