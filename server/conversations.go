package server

import (
	"errors"
	"net/http"
	"strconv"

	"parley/server/store"
)

// Paging of the conversation list.
const (
	defaultListLimit = 20
	maxListLimit     = 100
)

// configJSON is a conversation's saved settings; unset fields are left out.
type configJSON struct {
	Persona     *string  `json:"persona,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
}

func toConfigJSON(c store.Config) configJSON {
	return configJSON{Persona: c.Persona, Temperature: c.Temperature, TopP: c.TopP, MaxTokens: c.MaxTokens}
}

// conversationJSON is an item of the conversation list.
type conversationJSON struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	CreatedAt    string `json:"created_at"`
	UpdatedAt    string `json:"updated_at"`
	MessageCount int    `json:"message_count"`
}

// handleList is GET /v1/chat/conversations?limit=&cursor=: newest first.
func (s *Server) handleList(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	q := r.URL.Query()
	limit := defaultListLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errorf(http.StatusBadRequest, codeInvalidField, "The limit must be an integer.")
		}
		if n < 1 || n > maxListLimit {
			return errorf(http.StatusUnprocessableEntity, codeOutOfRange, "The limit must be between 1 and %d.", maxListLimit)
		}
		limit = n
	}
	convs, next, err := s.store.ListConversations(r.Context(), acct.ID, limit, q.Get("cursor"))
	if errors.Is(err, store.ErrBadCursor) {
		return errorf(http.StatusBadRequest, codeInvalidField, "The cursor is not one this service handed out.")
	}
	if err != nil {
		return s.internal(r, "list", err)
	}
	out := struct {
		Conversations []conversationJSON `json:"conversations"`
		NextCursor    *string            `json:"next_cursor"`
	}{Conversations: make([]conversationJSON, 0, len(convs))}
	for _, c := range convs {
		out.Conversations = append(out.Conversations, conversationJSON{
			ID: c.ID, Title: c.Title, CreatedAt: timestamp(c.CreatedAt), UpdatedAt: timestamp(c.UpdatedAt),
			MessageCount: c.MessageCount,
		})
	}
	if next != "" {
		out.NextCursor = &next
	}
	writeData(w, out)
	return nil
}

// Paging of a conversation's messages.
const (
	defaultHistoryLimit = 100
	maxHistoryLimit     = 1000
	// historyPageBytes is about how much message text one page holds at most
	// (a single longer message still makes a page), so that reading a huge
	// conversation costs the service a few megabytes a request, not its size.
	historyPageBytes = 1 << 20
)

// handleHistory is GET /v1/chat/conversations/{id}/messages?limit=&before=:
// the saved config and a page of messages, the newest page first (messages
// oldest first within it); next_before fetches the page before it.
func (s *Server) handleHistory(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	id := r.PathValue("id")
	q := r.URL.Query()
	limit := defaultHistoryLimit
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errorf(http.StatusBadRequest, codeInvalidField, "The limit must be an integer.")
		}
		if n < 1 || n > maxHistoryLimit {
			return errorf(http.StatusUnprocessableEntity, codeOutOfRange, "The limit must be between 1 and %d.", maxHistoryLimit)
		}
		limit = n
	}
	var before int64
	if v := q.Get("before"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return errorf(http.StatusBadRequest, codeInvalidField, "The before parameter must be a message ID (a positive integer).")
		}
		before = n
	}
	h, err := s.store.History(r.Context(), acct.ID, id, before, limit, historyPageBytes)
	if errors.Is(err, store.ErrNotFound) {
		return errNoConversation()
	}
	if err != nil {
		return s.internal(r, "history", err)
	}
	out := struct {
		ID         string        `json:"id"`
		Title      string        `json:"title"`
		Config     configJSON    `json:"config"`
		Messages   []messageJSON `json:"messages"`
		NextBefore *int64        `json:"next_before"`
	}{ID: h.Conversation.ID, Title: h.Conversation.Title, Config: toConfigJSON(h.Conversation.Config),
		Messages: make([]messageJSON, 0, len(h.Messages))}
	for _, m := range h.Messages {
		out.Messages = append(out.Messages, toMessageJSON(m))
	}
	if h.More {
		out.NextBefore = &h.Messages[0].ID
	}
	writeData(w, out)
	return nil
}

type configResponse struct {
	ID     string     `json:"id"`
	Config configJSON `json:"config"`
}

// handleGetConfig is GET /v1/chat/conversations/{id}/config.
func (s *Server) handleGetConfig(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	conv, err := s.store.Conversation(r.Context(), acct.ID, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return errNoConversation()
	}
	if err != nil {
		return s.internal(r, "conversation", err)
	}
	writeData(w, configResponse{ID: conv.ID, Config: toConfigJSON(conv.Config)})
	return nil
}

// handlePatchConfig is PATCH /v1/chat/conversations/{id}/config: fields sent
// change, fields sent as null are cleared, the others stay.
func (s *Server) handlePatchConfig(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	f, e := readObject(r)
	if e != nil {
		return e
	}
	p, e := decodeConfigPatch(f)
	if e != nil {
		return e
	}
	conv, err := s.store.SaveConfig(r.Context(), acct.ID, r.PathValue("id"), p)
	if errors.Is(err, store.ErrNotFound) {
		return errNoConversation()
	}
	if err != nil {
		return s.internal(r, "save config", err)
	}
	writeData(w, configResponse{ID: conv.ID, Config: toConfigJSON(conv.Config)})
	return nil
}

// handleDelete is DELETE /v1/chat/conversations/{id}.
func (s *Server) handleDelete(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	id := r.PathValue("id")
	err := s.store.DeleteConversation(r.Context(), acct.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return errNoConversation()
	}
	if err != nil {
		return s.internal(r, "delete", err)
	}
	writeData(w, struct {
		ID      string `json:"id"`
		Deleted bool   `json:"deleted"`
	}{id, true})
	return nil
}
