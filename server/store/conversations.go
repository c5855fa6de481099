package store

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Config holds a conversation's settings. A nil field is not set, so the
// service default applies; that differs from a zero value.
type Config struct {
	Persona     *string
	Temperature *float64
	TopP        *float64
	MaxTokens   *int
}

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

// ConfigPatch changes some of a conversation's settings: non-nil fields are
// set, and each Clear flag sets its field back to "not set".
type ConfigPatch struct {
	Persona     *string
	Temperature *float64
	TopP        *float64
	MaxTokens   *int

	ClearPersona, ClearTemperature, ClearTopP, ClearMaxTokens bool
}

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

type rowScanner interface {
	Scan(dest ...any) error
}

func scanConversation(row rowScanner) (Conversation, error) {
	var c Conversation
	var persona sql.NullString
	var temperature, topP sql.NullFloat64
	var maxTokens sql.NullInt64
	var created, updated int64
	if err := row.Scan(&c.ID, &c.AccountID, &persona, &temperature, &topP, &maxTokens, &c.Title, &created, &updated, &c.MessageCount); err != nil {
		return c, err
	}
	if persona.Valid {
		c.Config.Persona = &persona.String
	}
	if temperature.Valid {
		c.Config.Temperature = &temperature.Float64
	}
	if topP.Valid {
		c.Config.TopP = &topP.Float64
	}
	if maxTokens.Valid {
		n := int(maxTokens.Int64)
		c.Config.MaxTokens = &n
	}
	c.CreatedAt, c.UpdatedAt = fromMillis(created), fromMillis(updated)
	return c, nil
}

// conversation loads one of the account's conversations, or ErrNotFound.
func conversation(ctx context.Context, tx *sql.Tx, accountID int64, id string) (Conversation, error) {
	c, err := scanConversation(tx.QueryRowContext(ctx,
		"SELECT "+conversationColumns+" FROM conversations c WHERE c.id = ? AND c.account_id = ?", id, accountID))
	if errors.Is(err, sql.ErrNoRows) {
		return c, ErrNotFound
	}
	return c, err
}

// messages loads a conversation's messages, oldest first.
func messages(ctx context.Context, tx *sql.Tx, id string) ([]Message, error) {
	rows, err := tx.QueryContext(ctx,
		"SELECT id, role, content, created_at FROM messages WHERE conversation_id = ? ORDER BY id", id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	msgs := []Message{}
	for rows.Next() {
		var m Message
		var created int64
		if err := rows.Scan(&m.ID, &m.Role, &m.Content, &created); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMillis(created)
		msgs = append(msgs, m)
	}
	return msgs, rows.Err()
}

// Conversation returns one of the account's conversations, or ErrNotFound.
func (s *Store) Conversation(ctx context.Context, accountID int64, id string) (Conversation, error) {
	var c Conversation
	err := s.read(ctx, func(tx *sql.Tx) (err error) {
		c, err = conversation(ctx, tx, accountID, id)
		return err
	})
	if err != nil {
		return Conversation{}, wrapUnlessSentinel("conversation", err)
	}
	return c, nil
}

// Messages returns the messages of one of the account's conversations, oldest
// first, or ErrNotFound.
func (s *Store) Messages(ctx context.Context, accountID int64, id string) ([]Message, error) {
	var msgs []Message
	err := s.read(ctx, func(tx *sql.Tx) error {
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

	rows, err := s.db.QueryContext(ctx, query, args...)
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

// SaveConfig applies patch to one of the account's conversations, bumps its
// updated time and returns it, or ErrNotFound.
func (s *Store) SaveConfig(ctx context.Context, accountID int64, id string, patch ConfigPatch) (Conversation, error) {
	var c Conversation
	err := s.write(ctx, func(tx *sql.Tx) error {
		cur, err := conversation(ctx, tx, accountID, id)
		if err != nil {
			return err
		}
		cfg := patch.apply(cur.Config)
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

// apply returns cfg changed by the patch.
func (p ConfigPatch) apply(cfg Config) Config {
	if p.Persona != nil {
		cfg.Persona = p.Persona
	}
	if p.ClearPersona {
		cfg.Persona = nil
	}
	if p.Temperature != nil {
		cfg.Temperature = p.Temperature
	}
	if p.ClearTemperature {
		cfg.Temperature = nil
	}
	if p.TopP != nil {
		cfg.TopP = p.TopP
	}
	if p.ClearTopP {
		cfg.TopP = nil
	}
	if p.MaxTokens != nil {
		cfg.MaxTokens = p.MaxTokens
	}
	if p.ClearMaxTokens {
		cfg.MaxTokens = nil
	}
	return cfg
}

// DeleteConversation deletes one of the account's conversations and its
// messages, or returns ErrNotFound.
func (s *Store) DeleteConversation(ctx context.Context, accountID int64, id string) error {
	err := s.write(ctx, func(tx *sql.Tx) error {
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
