package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"parley/internal/jsonscan"
	"parley/settings"
)

// Config is a conversation's saved settings; a nil field is not set (and not sent), which differs
// from zero. The settings package holds its ranges and how configs combine.
type Config = settings.Config

// Message is one message of a conversation's history.
type Message struct {
	// ID is the message's identifier, in the JSON form the service used.
	ID MessageID `json:"id"`
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
	ID ConversationID `json:"id"`
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

// History is a conversation's settings and messages.
type History struct {
	// ConversationID is the conversation that was read.
	ConversationID ConversationID `json:"conversation_id"`
	// Title is the conversation's title when the answer gives one (the reference service does),
	// on one line; "" otherwise.
	Title string `json:"title,omitempty"`
	// Config holds the saved settings.
	Config Config `json:"config"`
	// Messages are in the service's order (normally oldest first).
	Messages []Message `json:"messages"`
}

// HistoryPageRequest selects a page of a conversation's messages; zero fields are not sent.
type HistoryPageRequest struct {
	// Limit is sent as the query parameter "limit" when positive: the most messages on the page.
	Limit int
	// Before is sent as the query parameter "before" when not zero: the page ends with the
	// message just older than this one.
	Before MessageID
}

// HistoryPage is one page of a conversation's history: the newest page unless Before was given.
type HistoryPage struct {
	History
	// NextBefore fetches the page of older messages, passed as HistoryPageRequest.Before; zero
	// when there is none, or when the service does not page its history.
	NextBefore MessageID
}

// maxHistoryPages bounds how many pages History follows, against a service whose pages never end.
const maxHistoryPages = 100_000

// wireMessage is a message as services write it. The reference service writes
// {"id", "role", "content", "created_at"}; "text" for "content", content parts
// [{"type": "text", "text": …}] and "createdAt" are variants.
type wireMessage struct {
	ID             MessageID      `json:"id"`
	Role           jsonString     `json:"role"`
	Content        messageContent `json:"content"`
	Text           jsonString     `json:"text"`
	CreatedAt      jsonTime       `json:"created_at"`
	CreatedAtCamel jsonTime       `json:"createdAt"`
}

// isUser reports whether the message is the user's.
func (m *wireMessage) isUser() bool { return m.Role.s == "user" }

// content returns the message's text.
func (m *wireMessage) content() (string, bool) {
	if m.Content.ok {
		return m.Content.s, true
	}
	return m.Text.get()
}

// message converts the wire form.
func (m *wireMessage) message() Message {
	text, _ := m.content()
	return Message{ID: m.ID, Role: m.Role.s, Content: text, CreatedAt: firstTime(m.CreatedAt, m.CreatedAtCamel)}
}

// messageContent is a message's text: a string, or the text parts of a list of content parts.
type messageContent struct {
	s  string
	ok bool
}

// UnmarshalJSON reads a string, or joins the "text" of [{"type": "text", "text": …}] parts.
func (c *messageContent) UnmarshalJSON(b []byte) error {
	switch jsonscan.FirstByte(b) {
	case '"':
		c.ok = json.Unmarshal(b, &c.s) == nil
	case '[':
		var parts []struct {
			Text jsonString `json:"text"`
		}
		var te *json.UnmarshalTypeError
		if err := json.Unmarshal(b, &parts); err != nil && !errors.As(err, &te) {
			return nil
		}
		for _, p := range parts {
			if s, ok := p.Text.get(); ok {
				c.s += s
				c.ok = true
			}
		}
	}
	return nil
}

// configWire is a config as services write it. The reference service writes persona,
// temperature, top_p and max_tokens; system_prompt, topP, maxTokens and numbers in strings are variants.
type configWire struct {
	Persona        jsonString `json:"persona"`
	SystemPrompt   jsonString `json:"system_prompt"`
	Temperature    jsonFloat  `json:"temperature"`
	TopP           jsonFloat  `json:"top_p"`
	TopPCamel      jsonFloat  `json:"topP"`
	MaxTokens      jsonInt    `json:"max_tokens"`
	MaxTokensCamel jsonInt    `json:"maxTokens"`
}

// configObject is a config given as a JSON object; any other value counts as absent.
type configObject struct {
	w  configWire
	ok bool
}

// UnmarshalJSON reads an object and ignores any other value.
func (o *configObject) UnmarshalJSON(b []byte) error {
	o.ok = decodeObject(b, &o.w)
	return nil
}

// config converts the wire form; absent, null or unreadable fields stay nil.
func (w *configWire) config() Config {
	var cfg Config
	for _, f := range []jsonString{w.Persona, w.SystemPrompt} {
		if s, ok := f.get(); ok {
			cfg.Persona = &s
			break
		}
	}
	if w.Temperature.ok {
		cfg.Temperature = &w.Temperature.f
	}
	for _, f := range []jsonFloat{w.TopP, w.TopPCamel} {
		if f.ok {
			cfg.TopP = &f.f
			break
		}
	}
	for _, f := range []jsonInt{w.MaxTokens, w.MaxTokensCamel} {
		if f.ok && f.n >= -1<<31 && f.n < 1<<31 {
			n := int(f.n)
			cfg.MaxTokens = &n
			break
		}
	}
	return cfg
}

// conversationItem is an item of the conversation list. The reference service writes
// {"id", "title", "created_at", "updated_at", "message_count"}; the other fields are variants.
type conversationItem struct {
	ConversationID      jsonConvID        `json:"conversation_id"`
	ConversationIDCamel jsonConvID        `json:"conversationId"`
	ID                  jsonConvID        `json:"id"`
	Title               jsonString        `json:"title"`
	Name                jsonString        `json:"name"`
	Preview             jsonString        `json:"preview"`
	Summary             jsonString        `json:"summary"`
	LastMessage         chatMessage       `json:"last_message"`
	CreatedAt           jsonTime          `json:"created_at"`
	CreatedAtCamel      jsonTime          `json:"createdAt"`
	CreateTime          jsonTime          `json:"create_time"`
	UpdatedAt           jsonTime          `json:"updated_at"`
	UpdatedAtCamel      jsonTime          `json:"updatedAt"`
	UpdateTime          jsonTime          `json:"update_time"`
	MessageCount        jsonInt           `json:"message_count"`
	MessageCountCamel   jsonInt           `json:"messageCount"`
	Messages            []json.RawMessage `json:"messages"`
}

// listAnswer is the payload of a conversation list: the reference service's
// {"conversations": [...], "next_cursor": …}, or the variants "items" and "list"; a bare array
// is read as the items. A null list is an empty one.
type listAnswer struct {
	Conversations json.RawMessage `json:"conversations"`
	Items         json.RawMessage `json:"items"`
	List          json.RawMessage `json:"list"`
	pageCursor
	Pagination pageCursor `json:"pagination"`
}

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
	var items []json.RawMessage
	out := &ConversationList{}
	switch jsonscan.FirstByte(res.payload) {
	case '[':
		if json.Unmarshal(res.payload, &items) != nil {
			return nil, c.decodeError(res, "conversations")
		}
	case '{':
		var a listAnswer
		decodeObject(res.payload, &a)
		list := firstPresent(a.Conversations, a.Items, a.List)
		switch jsonscan.FirstByte(list) {
		case '[':
			if json.Unmarshal(list, &items) != nil {
				return nil, c.decodeError(res, "conversations")
			}
		case 'n': // null: no conversations
		default:
			return nil, c.decodeError(res, "conversations")
		}
		out.NextCursor = firstText(a.cursor(), a.Pagination.cursor())
	default:
		return nil, c.decodeError(res, "conversations")
	}
	if out.NextCursor == "" && res.top != nil {
		// {"data": [...], "next_cursor": …}: the cursor beside the list, on the envelope.
		var env listAnswer
		decodeObject(res.body, &env)
		out.NextCursor = firstText(env.cursor(), env.Pagination.cursor())
	}
	out.Conversations = make([]Conversation, 0, len(items))
	for i, raw := range items {
		conv, ok := decodeConversation(raw)
		if !ok {
			field := fmt.Sprintf("conversations[%d]", i)
			if jsonscan.FirstByte(raw) == '{' {
				field += ".id"
			}
			return nil, c.decodeError(res, field)
		}
		c.learnIDForm(conv.ID)
		out.Conversations = append(out.Conversations, conv)
	}
	return out, nil
}

// decodeConversation reads a list item: an object, or a bare ID.
func decodeConversation(raw json.RawMessage) (Conversation, bool) {
	var it conversationItem
	if !decodeObject(raw, &it) {
		var id jsonConvID
		_ = id.UnmarshalJSON(raw)
		return Conversation{ID: id.id}, !id.id.IsZero()
	}
	conv := Conversation{
		ID:        firstID(it.ConversationID, it.ConversationIDCamel, it.ID),
		CreatedAt: firstTime(it.CreatedAt, it.CreatedAtCamel, it.CreateTime),
		UpdatedAt: firstTime(it.UpdatedAt, it.UpdatedAtCamel, it.UpdateTime),
	}
	if conv.ID.IsZero() {
		return conv, false
	}
	for _, f := range []jsonString{it.Title, it.Name, it.Preview, it.Summary} {
		if s, ok := f.get(); ok && s != "" {
			conv.Title = cleanMessage(s)
			break
		}
	}
	if conv.Title == "" { // the last message, given as its text or as a message of either role
		if s, ok := it.LastMessage.text.get(); ok {
			conv.Title = cleanMessage(s)
		} else if s, ok := it.LastMessage.content(); ok {
			conv.Title = cleanMessage(s)
		}
	}
	switch n := firstInt(it.MessageCount, it.MessageCountCamel); {
	case n != nil && *n >= 0 && *n < 1<<31:
		conv.MessageCount = int(*n)
	case n == nil && it.Messages != nil:
		conv.MessageCount = len(it.Messages)
	}
	return conv, true
}

// historyAnswer is the payload of a message history: the spec's {"config", "messages"}, to
// which the reference service adds "id", "title" and "next_before" (the ID to pass as "before"
// for the older page; null on the oldest). "settings" for "config", a config or a title on a
// "conversation" object, and a bare array of messages are variants.
type historyAnswer struct {
	ID              jsonConvID      `json:"id"`
	ConversationID  jsonConvID      `json:"conversation_id"`
	Title           jsonString      `json:"title"`
	Config          configObject    `json:"config"`
	Settings        configObject    `json:"settings"`
	Messages        json.RawMessage `json:"messages"`
	NextBefore      MessageID       `json:"next_before"`
	NextBeforeCamel MessageID       `json:"nextBefore"`
	Conversation    struct {
		ID       jsonConvID   `json:"id"`
		Title    jsonString   `json:"title"`
		Config   configObject `json:"config"`
		Settings configObject `json:"settings"`
	} `json:"conversation"`
}

// History returns a conversation's settings and all its messages, oldest first
// (GET /v1/chat/conversations/{id}/messages). It follows the service's pages back to the first
// message; a service that does not page answers with one.
func (c *Client) History(ctx context.Context, id ConversationID) (*History, error) {
	page, err := c.HistoryPage(ctx, id, HistoryPageRequest{})
	if err != nil {
		return nil, err
	}
	out := page.History
	pages := [][]Message{page.Messages} // newest first
	asked := map[string]bool{}
	for before := page.NextBefore; !before.IsZero(); before = page.NextBefore {
		if asked[before.String()] {
			break // the service answered the same page again: it does not page
		}
		if len(pages) == maxHistoryPages {
			return nil, fmt.Errorf("GET /v1/chat/conversations/{id}/messages: the history goes on for more than %d pages", maxHistoryPages)
		}
		asked[before.String()] = true
		if page, err = c.HistoryPage(ctx, id, HistoryPageRequest{Before: before}); err != nil {
			return nil, err
		}
		if len(page.Messages) == 0 || page.NextBefore == before {
			break
		}
		pages = append(pages, page.Messages)
	}
	if len(pages) > 1 {
		slices.Reverse(pages)
		out.Messages = slices.Concat(pages...)
	}
	return &out, nil
}

// HistoryPage returns a conversation's settings and one page of its messages, in the service's
// order (GET /v1/chat/conversations/{id}/messages?limit=&before=): the newest page, or the one
// before req.Before. NextBefore leads to the older page.
func (c *Client) HistoryPage(ctx context.Context, id ConversationID, req HistoryPageRequest) (*HistoryPage, error) {
	p, err := pathID(http.MethodGet, "/v1/chat/conversations/{id}/messages", id)
	if err != nil {
		return nil, err
	}
	r := &request{method: http.MethodGet, path: "/v1/chat/conversations/" + p + "/messages", retry: true}
	if req.Limit > 0 || !req.Before.IsZero() {
		r.query = url.Values{}
		if req.Limit > 0 {
			r.query.Set("limit", strconv.Itoa(req.Limit))
		}
		if !req.Before.IsZero() {
			r.query.Set("before", req.Before.String())
		}
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !res.isJSON {
		return nil, c.decodeError(res, "messages")
	}
	return c.decodeHistory(res, id)
}

func (c *Client) decodeHistory(res *response, asked ConversationID) (*HistoryPage, error) {
	out := &HistoryPage{History: History{ConversationID: asked, Messages: []Message{}}}
	var msgs []json.RawMessage
	switch jsonscan.FirstByte(res.payload) {
	case '[':
		if json.Unmarshal(res.payload, &msgs) != nil {
			return nil, c.decodeError(res, "messages")
		}
	case '{':
		var a historyAnswer
		decodeObject(res.payload, &a)
		cfg := firstConfig(a.Config, a.Settings, a.Conversation.Config, a.Conversation.Settings)
		if cfg != nil {
			out.Config = cfg.config()
		}
		switch jsonscan.FirstByte(a.Messages) {
		case '[':
			if json.Unmarshal(a.Messages, &msgs) != nil {
				return nil, c.decodeError(res, "messages")
			}
		case 'n': // null: no messages yet
		default:
			if cfg == nil {
				return nil, c.decodeError(res, "messages")
			}
		}
		for _, f := range []jsonString{a.Title, a.Conversation.Title} {
			if t, _ := f.get(); cleanMessage(t) != "" {
				out.Title = cleanMessage(t)
				break
			}
		}
		// The answer may name the conversation; only its form is taken from it.
		if id := firstID(a.ConversationID, a.Conversation.ID, a.ID); id.String() == asked.String() {
			out.ConversationID = id
			c.learnIDForm(id)
		}
		out.NextBefore = firstMessageID(a.NextBefore, a.NextBeforeCamel)
	default:
		return nil, c.decodeError(res, "messages")
	}
	for i, raw := range msgs {
		var m wireMessage
		if !decodeObject(raw, &m) {
			return nil, c.decodeError(res, fmt.Sprintf("messages[%d]", i))
		}
		out.Messages = append(out.Messages, m.message())
	}
	return out, nil
}

// configAnswer is the payload of a settings save: the reference service's {"id", "config"}, or
// {"settings"}, or the config fields themselves.
type configAnswer struct {
	Config   configObject `json:"config"`
	Settings configObject `json:"settings"`
	configWire
}

// SaveConfig saves a conversation's settings (PATCH /v1/chat/conversations/{id}/config), sending only
// the fields of cfg that are set. It returns the saved config as the service reports it, or, when the
// answer carries none, the fields that were sent.
func (c *Client) SaveConfig(ctx context.Context, id ConversationID, cfg Config) (*Config, error) {
	const route = "/v1/chat/conversations/{id}/config"
	p, err := pathID(http.MethodPatch, route, id)
	if err != nil {
		return nil, err
	}
	if cfg.IsZero() {
		return nil, errors.New("PATCH " + route + ": no settings given to save")
	}
	r := &request{method: http.MethodPatch, path: "/v1/chat/conversations/" + p + "/config", retry: true}
	if err := r.jsonBody(cfg); err != nil {
		return nil, err
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	var a configAnswer
	if res.isJSON && decodeObject(res.payload, &a) {
		if w := firstConfig(a.Config, a.Settings); w != nil {
			out := w.config()
			return &out, nil
		}
		if out := a.config(); !out.IsZero() {
			return &out, nil
		}
	}
	out := cfg
	return &out, nil
}

// DeleteConversation deletes a conversation (DELETE /v1/chat/conversations/{id}).
func (c *Client) DeleteConversation(ctx context.Context, id ConversationID) error {
	p, err := pathID(http.MethodDelete, "/v1/chat/conversations/{id}", id)
	if err != nil {
		return err
	}
	r := &request{method: http.MethodDelete, path: "/v1/chat/conversations/" + p, retry: true}
	_, err = c.do(ctx, r)
	return err
}

// firstPresent returns the first member that was given (null included).
func firstPresent(raws ...json.RawMessage) json.RawMessage {
	for _, r := range raws {
		if r != nil {
			return r
		}
	}
	return nil
}

// firstConfig returns the first config that was given as an object, or nil.
func firstConfig(os ...configObject) *configWire {
	for _, o := range os {
		if o.ok {
			return &o.w
		}
	}
	return nil
}

// firstTime returns the first readable time.
func firstTime(ts ...jsonTime) time.Time {
	for _, t := range ts {
		if !t.t.IsZero() {
			return t.t
		}
	}
	return time.Time{}
}
