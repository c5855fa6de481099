package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Config is a conversation's saved settings; a nil field is not set (and not sent), which differs from zero.
type Config struct {
	// Persona is the system-style instruction describing the assistant's role.
	Persona *string `json:"persona,omitempty"`
	// Temperature is the sampling temperature.
	Temperature *float64 `json:"temperature,omitempty"`
	// TopP is the nucleus-sampling parameter.
	TopP *float64 `json:"top_p,omitempty"`
	// MaxTokens is the upper limit for generated tokens.
	MaxTokens *int `json:"max_tokens,omitempty"`
}

// IsZero reports whether no field of the config is set.
func (cfg Config) IsZero() bool {
	return cfg.Persona == nil && cfg.Temperature == nil && cfg.TopP == nil && cfg.MaxTokens == nil
}

// Message is one message of a conversation's history.
type Message struct {
	// ID is the message's identifier, kept as a string whatever JSON form the service used.
	ID string `json:"id"`
	// Role is "user" for the user's messages; other values are the service's.
	Role string `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
	// CreatedAt is when the message was created; zero when the service gave no readable time.
	CreatedAt time.Time `json:"created_at"`
}

// ListConversationsRequest selects a page of the conversation list; zero fields are not sent.
type ListConversationsRequest struct {
	// Limit is sent as the query parameter "limit" when positive.
	Limit int
	// Cursor is sent as the query parameter "cursor" when not empty.
	Cursor string
}

// Conversation is one item of the conversation list; fields the service did not give are zero.
type Conversation struct {
	// ID identifies the conversation.
	ID string `json:"id"`
	// Title is the conversation's title, name, preview or summary, if any.
	Title string `json:"title,omitempty"`
	// CreatedAt is when the conversation was created; zero when unknown.
	CreatedAt time.Time `json:"created_at,omitzero"`
	// UpdatedAt is when the conversation last changed; zero when unknown.
	UpdatedAt time.Time `json:"updated_at,omitzero"`
	// MessageCount is the number of messages, when the service gave it.
	MessageCount int `json:"message_count,omitempty"`
}

// ConversationList is a page of conversations.
type ConversationList struct {
	// Conversations are the items in the service's order.
	Conversations []Conversation `json:"conversations"`
	// NextCursor fetches the next page; empty when there is none or the service does not page.
	NextCursor string `json:"next_cursor,omitempty"`
}

// HistoryRequest names the conversation whose history is read.
type HistoryRequest struct {
	// ConversationID is required.
	ConversationID string
}

// History is a conversation's settings and messages.
type History struct {
	// ConversationID is the conversation that was read.
	ConversationID string `json:"conversation_id"`
	// Config holds the saved settings.
	Config Config `json:"config"`
	// Messages are in the service's order (normally oldest first).
	Messages []Message `json:"messages"`
}

// SaveConfigRequest saves settings; only the non-nil fields of Config are sent.
type SaveConfigRequest struct {
	// ConversationID is required.
	ConversationID string
	// Config holds the fields to change.
	Config Config
}

// DeleteRequest names the conversation to delete.
type DeleteRequest struct {
	// ConversationID is required.
	ConversationID string
}

// DeleteResult confirms a deletion.
type DeleteResult struct {
	// ConversationID is the conversation that was deleted.
	ConversationID string `json:"conversation_id"`
}

// Names under which services put conversation lists and their parts.
var (
	listKeys     = []string{"conversations", "items", "list", "data", "results", "records", "rows"}
	itemIDKeys   = []string{"id", "conversation_id", "conversationId", "conversationID", "uuid"}
	titleKeys    = []string{"title", "name", "preview", "summary", "topic", "subject", "last_message", "lastMessage"}
	createdKeys  = []string{"created_at", "createdAt", "created", "create_time", "createTime", "inserted_at", "timestamp", "time"}
	updatedKeys  = []string{"updated_at", "updatedAt", "updated", "update_time", "updateTime", "last_message_at", "lastMessageAt", "modified_at", "modifiedAt", "last_active_at", "last_activity"}
	countKeys    = []string{"message_count", "messageCount", "messages_count", "messagesCount", "num_messages", "n_messages"}
	cursorKeys   = []string{"next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next_page", "cursor", "next"}
	messagesKeys = []string{"messages", "history", "items", "list", "records"}
	configKeys   = []string{"config", "settings", "configuration", "conversation_config", "params", "parameters"}
)

// ListConversations returns a page of the caller's conversations (GET /v1/chat/conversations).
func (c *Client) ListConversations(ctx context.Context, req ListConversationsRequest) (*ConversationList, error) {
	r := &request{method: http.MethodGet, path: "/v1/chat/conversations", retry: true}
	if req.Limit > 0 || req.Cursor != "" {
		r.query = url.Values{}
		if req.Limit > 0 {
			r.query.Set("limit", strconv.Itoa(req.Limit))
		}
		if req.Cursor != "" {
			r.query.Set("cursor", req.Cursor)
		}
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !res.isJSON {
		return nil, c.decodeError(res, "conversations")
	}
	return c.decodeConversationList(res)
}

func (c *Client) decodeConversationList(res *response) (*ConversationList, error) {
	var items []any
	ls := layersOf(res.doc)
	switch p := payloadOf(res.doc).(type) {
	case []any:
		items = p
	default:
		found := false
		for _, o := range ls {
			if items, found = lookupArray([]object{o}, listKeys...); found {
				break
			}
			// {data: {conversations: {items: [...]}}} and the like.
			if inner, ok := lookupObject([]object{o}, "conversations", "page", "result"); ok {
				if items, found = lookupArray([]object{inner}, listKeys...); found {
					ls = append([]object{inner}, ls...)
					break
				}
			}
		}
		if !found {
			if !hasNull(ls, listKeys...) { // an explicit null list means no conversations
				return nil, c.decodeError(res, "conversations")
			}
		}
	}
	out := &ConversationList{Conversations: make([]Conversation, 0, len(items))}
	for i, it := range items {
		o, ok := it.(object)
		if !ok {
			// A bare list of IDs is a list too.
			if id, numeric, ok := idOf(it); ok {
				c.rememberID(id, numeric)
				out.Conversations = append(out.Conversations, Conversation{ID: id})
				continue
			}
			return nil, c.decodeError(res, fmt.Sprintf("conversations[%d]", i))
		}
		item := []object{o}
		id, numeric, ok := lookupID(item, itemIDKeys...)
		if !ok {
			return nil, c.decodeError(res, fmt.Sprintf("conversations[%d].id", i))
		}
		c.rememberID(id, numeric)
		conv := Conversation{ID: id, CreatedAt: timeOf(item, createdKeys...), UpdatedAt: timeOf(item, updatedKeys...)}
		for _, k := range titleKeys {
			switch v := o[k].(type) {
			case string:
				conv.Title = cleanMessage(v)
			case object: // a last_message object
				if s, ok := lookupString([]object{v}, "content", "text"); ok {
					conv.Title = cleanMessage(s)
				}
			}
			if conv.Title != "" {
				break
			}
		}
		if v, ok := lookup(item, countKeys...); ok {
			if n, ok := int64Of(v); ok && n >= 0 && n < 1<<31 {
				conv.MessageCount = int(n)
			}
		} else if msgs, ok := o["messages"].([]any); ok {
			conv.MessageCount = len(msgs)
		}
		out.Conversations = append(out.Conversations, conv)
	}
	if v, ok := lookup(ls, cursorKeys...); ok {
		if s, _, ok := idOf(v); ok {
			out.NextCursor = s
		}
	}
	if o, ok := lookupObject(ls, "pagination", "paging", "page_info", "pageInfo", "meta"); ok {
		if v, ok := lookup([]object{o}, cursorKeys...); ok && out.NextCursor == "" {
			out.NextCursor, _, _ = idOf(v)
		}
	}
	return out, nil
}

// History returns a conversation's settings and messages (GET /v1/chat/conversations/{id}/messages).
func (c *Client) History(ctx context.Context, req HistoryRequest) (*History, error) {
	id, err := pathID(http.MethodGet, "/v1/chat/conversations/{id}/messages", req.ConversationID)
	if err != nil {
		return nil, err
	}
	r := &request{method: http.MethodGet, path: "/v1/chat/conversations/" + id + "/messages", retry: true}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !res.isJSON {
		return nil, c.decodeError(res, "messages")
	}
	return c.decodeHistory(res, req.ConversationID)
}

func (c *Client) decodeHistory(res *response, convID string) (*History, error) {
	out := &History{ConversationID: convID, Messages: []Message{}}
	var msgs []any
	ls := layersOf(res.doc)
	if conv, ok := lookupObject(ls, "conversation"); ok { // settings kept on a conversation object
		ls = append(ls, conv)
	}
	switch p := payloadOf(res.doc).(type) {
	case []any:
		msgs = p
	default:
		var found, hasConfig bool
		msgs, found = lookupArray(ls, messagesKeys...)
		found = found || hasNull(ls, "messages") // present but null: no messages yet
		if cfg, ok := lookupObject(ls, configKeys...); ok {
			out.Config = decodeConfig(cfg)
			hasConfig = true
		}
		if !found && !hasConfig {
			return nil, c.decodeError(res, "messages")
		}
	}
	for i, m := range msgs {
		o, ok := m.(object)
		if !ok {
			return nil, c.decodeError(res, fmt.Sprintf("messages[%d]", i))
		}
		out.Messages = append(out.Messages, decodeMessage(o))
	}
	return out, nil
}

func decodeMessage(o object) Message {
	item := []object{o}
	var m Message
	m.ID, _, _ = lookupID(item, "id", "message_id", "messageId", "uuid")
	m.Role, _ = lookupString(item, "role", "sender", "author", "from", "type")
	if s, ok := lookupString(item, "content", "text", "message", "body"); ok {
		m.Content = s
	} else if parts, ok := o["content"].([]any); ok {
		// [{type: "text", text: "..."}] content parts.
		for _, p := range parts {
			if po, ok := p.(object); ok {
				if s, ok := po["text"].(string); ok {
					m.Content += s
				}
			}
		}
	}
	m.CreatedAt = timeOf(item, createdKeys...)
	return m
}

// decodeConfig reads the Config fields from an object; absent, null or unreadable fields stay nil.
func decodeConfig(o object) Config {
	var cfg Config
	ls := []object{o}
	if s, ok := lookupString(ls, "persona", "system_prompt", "systemPrompt", "system"); ok {
		cfg.Persona = &s
	}
	if v, ok := lookup(ls, "temperature"); ok {
		if f, ok := float64Of(v); ok {
			cfg.Temperature = &f
		}
	}
	if v, ok := lookup(ls, "top_p", "topP", "top-p"); ok {
		if f, ok := float64Of(v); ok {
			cfg.TopP = &f
		}
	}
	if v, ok := lookup(ls, "max_tokens", "maxTokens", "max-tokens", "max_new_tokens"); ok {
		if n, ok := int64Of(v); ok && n >= -1<<31 && n < 1<<31 {
			i := int(n)
			cfg.MaxTokens = &i
		}
	}
	return cfg
}

func hasConfigField(o object) bool {
	for _, k := range []string{"persona", "temperature", "top_p", "topP", "max_tokens", "maxTokens", "system_prompt"} {
		if _, ok := o[k]; ok {
			return true
		}
	}
	return false
}

// SaveConfig saves a conversation's settings (PATCH /v1/chat/conversations/{id}/config), sending only
// the fields that are set. It returns the saved config as the service reports it, or, when the
// answer carries none, the fields that were sent.
func (c *Client) SaveConfig(ctx context.Context, req SaveConfigRequest) (*Config, error) {
	const route = "/v1/chat/conversations/{id}/config"
	id, err := pathID(http.MethodPatch, route, req.ConversationID)
	if err != nil {
		return nil, err
	}
	if req.Config.IsZero() {
		return nil, errors.New("PATCH " + route + ": no settings given to save")
	}
	r := &request{method: http.MethodPatch, path: "/v1/chat/conversations/" + id + "/config", retry: true}
	if err := r.jsonBody(req.Config); err != nil {
		return nil, err
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if res.isJSON {
		ls := layersOf(res.doc)
		if cfg, ok := lookupObject(ls, configKeys...); ok {
			out := decodeConfig(cfg)
			return &out, nil
		}
		for _, o := range ls {
			if hasConfigField(o) {
				out := decodeConfig(o)
				return &out, nil
			}
		}
	}
	out := req.Config
	return &out, nil
}

// DeleteConversation deletes a conversation (DELETE /v1/chat/conversations/{id}).
func (c *Client) DeleteConversation(ctx context.Context, req DeleteRequest) (*DeleteResult, error) {
	id, err := pathID(http.MethodDelete, "/v1/chat/conversations/{id}", req.ConversationID)
	if err != nil {
		return nil, err
	}
	r := &request{method: http.MethodDelete, path: "/v1/chat/conversations/" + id, retry: true}
	if _, err := c.do(ctx, r); err != nil {
		return nil, err
	}
	return &DeleteResult{ConversationID: req.ConversationID}, nil
}

// hasNull reports whether any layer holds an explicit null under one of keys.
func hasNull(ls []object, keys ...string) bool {
	for _, o := range ls {
		for _, k := range keys {
			if v, ok := o[k]; ok && v == nil {
				return true
			}
		}
	}
	return false
}
