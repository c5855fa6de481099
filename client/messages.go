package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"parley/internal/jsonscan"
)

// SendMessageRequest is one chat turn; the optional settings are sent only when set.
type SendMessageRequest struct {
	// ConversationID continues a conversation; the zero ID starts a new one.
	ConversationID ConversationID
	// Message is the user's text.
	Message string
	// Persona is the role instruction; nil means not sent.
	Persona *string
	// Temperature is the sampling temperature; nil means not sent.
	Temperature *float64
	// TopP is the nucleus-sampling parameter; nil means not sent.
	TopP *float64
	// MaxTokens limits the generated tokens; nil means not sent.
	MaxTokens *int
}

// SendMessageResult is the service's answer to a chat turn.
type SendMessageResult struct {
	// ConversationID is the conversation the turn belongs to (new on a first call).
	ConversationID ConversationID `json:"conversation_id"`
	// Reply is the assistant's text.
	Reply string `json:"reply"`
	// UserMessageID is the ID of the user's message, when the service gave it.
	UserMessageID MessageID `json:"user_message_id,omitzero"`
	// ReplyMessageID is the ID of the reply message, when the service gave it.
	ReplyMessageID MessageID `json:"reply_message_id,omitzero"`
	// PointsCharged is what the call cost, when the service reported it.
	PointsCharged *int64 `json:"points_charged,omitempty"`
	// Balance is the account's balance after the call, when the service reported it.
	Balance *int64 `json:"balance,omitempty"`
	// Stopped is true for a streamed reply a person stopped: the reply is what the model wrote
	// until then, stored and charged as any reply.
	Stopped bool `json:"stopped,omitempty"`
}

// sendMessageBody is the JSON sent to POST /v1/chat/messages.
type sendMessageBody struct {
	Message        string          `json:"message"`
	ConversationID *ConversationID `json:"conversation_id,omitempty"`
	Persona        *string         `json:"persona,omitempty"`
	Temperature    *float64        `json:"temperature,omitempty"`
	TopP           *float64        `json:"top_p,omitempty"`
	MaxTokens      *int            `json:"max_tokens,omitempty"`
}

// SendMessage sends one chat turn (POST /v1/chat/messages) and returns the reply. The call is
// charged, so it is never re-sent once it may have reached the service; a failure after that point
// matches ErrReplyLost.
//
// The conversation ID goes back in the JSON form the service gave it. An all-digit ID from
// ParseConversationID may be a string or a number to the service: before the first such call,
// when this client has seen no ID from the service yet, SendMessage reads the first page of the
// conversation list (a free call) to learn which.
func (c *Client) SendMessage(ctx context.Context, req SendMessageRequest) (*SendMessageResult, error) {
	return c.sendMessage(ctx, req, nil)
}

// sendMessage sends one chat turn, asking for a streamed reply when stream is not nil.
func (c *Client) sendMessage(ctx context.Context, req SendMessageRequest, stream *StreamOptions) (*SendMessageResult, error) {
	const route = "/v1/chat/messages"
	if strings.TrimSpace(req.Message) == "" {
		return nil, errors.New("POST " + route + ": the message is empty")
	}
	body := sendMessageBody{
		Message:     req.Message,
		Persona:     req.Persona,
		Temperature: req.Temperature,
		TopP:        req.TopP,
		MaxTokens:   req.MaxTokens,
	}
	sent := req.ConversationID
	if !sent.IsZero() {
		var err error
		if sent, err = c.idToSend(ctx, sent); err != nil {
			return nil, err
		}
		body.ConversationID = &sent
	}
	r := &request{method: http.MethodPost, path: route, chat: true, stream: stream}
	if stream != nil {
		r.accept = "text/event-stream, application/json;q=0.9"
	}
	if err := r.jsonBody(body); err != nil {
		return nil, err
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !res.isJSON {
		return nil, unreadable(r, c.decodeError(res, "reply"))
	}
	out, err := c.decodeSendMessage(res, sent)
	if out != nil {
		out.Stopped = res.stopped
		if stream != nil && !res.streamed && stream.OnText != nil && err == nil {
			stream.OnText(out.Reply) // a service that said it streams answered whole
		}
	}
	switch {
	case err == nil:
		// A reply found is taken, whatever code the envelope carries ("code": 1 with
		// "msg": "success" is common).
		return out, nil
	case res.refusal != nil:
		// A 2xx whose envelope says it failed, with no reply: the service may still have
		// charged (a success status), so it is not a refusal to send again.
		return nil, unreadable(r, res.refusal)
	}
	// A success answer was charged: what cannot be read of it is a reply lost, never a
	// refusal that may be sent again.
	return nil, unreadable(r, err)
}

// chatAnswer is the payload of a chat answer. The reference service writes the first group of
// fields; the others are variants other services use. The reply is the first of: reply, message
// (an object that is not the user's), assistant_message, choices[0] (OpenAI), answer, response,
// output, the last non-user item of messages, message as a string, and, as the one fallback,
// the answer itself read as the assistant's message ({"id", "content"|"text"}).
type chatAnswer struct {
	ConversationID     jsonConvID  `json:"conversation_id"`
	Reply              jsonString  `json:"reply"`
	Message            chatMessage `json:"message"`
	UserMessageID      MessageID   `json:"user_message_id"`
	AssistantMessageID MessageID   `json:"assistant_message_id"`
	PointsCharged      jsonInt     `json:"points_charged"`
	Balance            jsonInt     `json:"balance"`

	ConversationIDCamel jsonConvID        `json:"conversationId"` // also matches conversationID
	Conversation        conversationRef   `json:"conversation"`
	AssistantMessage    chatMessage       `json:"assistant_message"`
	UserMessage         wireMessage       `json:"user_message"`
	ReplyMessageID      MessageID         `json:"reply_message_id"`
	Answer              jsonString        `json:"answer"`
	Response            jsonString        `json:"response"`
	Output              jsonString        `json:"output"`
	Choices             []openAIChoice    `json:"choices"`
	Messages            []json.RawMessage `json:"messages"`
	PointsChargedCamel  jsonInt           `json:"pointsCharged"`
	RemainingPoints     jsonInt           `json:"remaining_points"`
	Points              billing           `json:"points"` // {"charged", "balance"}; a bare number here could be either, so it is not read
	Billing             billing           `json:"billing"`
	Usage               billing           `json:"usage"` // {"points": n} is the charge; tokens and money ("cost") are not points

	ID          jsonConvID `json:"id"` // see fallbackIDIsConversation
	wireMessage            // the fallback: the answer is the assistant's message itself
}

// chatMessage is a message given as an object, or just its text.
type chatMessage struct {
	wireMessage
	text   jsonString
	object bool
}

// UnmarshalJSON reads a string as the message's text and an object as a message.
func (m *chatMessage) UnmarshalJSON(b []byte) error {
	switch jsonscan.FirstByte(b) {
	case '"':
		return m.text.UnmarshalJSON(b)
	case '{':
		m.object = decodeObject(b, &m.wireMessage)
	}
	return nil
}

// reply returns the text and ID of a message object that is not the user's.
func (m *chatMessage) reply() (text string, id MessageID, ok bool) {
	if !m.object || m.isUser() {
		return "", MessageID{}, false
	}
	text, ok = m.content()
	return text, m.ID, ok
}

// conversationRef is {"conversation": {"id": …}} or {"conversation": <the ID>}.
type conversationRef struct{ id ConversationID }

// UnmarshalJSON reads an object's id (or conversation_id) or the ID itself.
func (r *conversationRef) UnmarshalJSON(b []byte) error {
	if jsonscan.FirstByte(b) == '{' {
		var o struct {
			ID             jsonConvID `json:"id"`
			ConversationID jsonConvID `json:"conversation_id"`
		}
		decodeObject(b, &o)
		r.id = firstID(o.ID, o.ConversationID)
		return nil
	}
	var f jsonConvID
	_ = f.UnmarshalJSON(b)
	r.id = f.id
	return nil
}

// openAIChoice is an item of an OpenAI-style "choices" list.
type openAIChoice struct {
	Message wireMessage `json:"message"`
	Text    jsonString  `json:"text"`
}

// billing is a group of billing fields: {"points": {"charged": 3, "balance": 97}},
// {"billing": {...}} or {"usage": {"points": 2}}.
type billing struct {
	Charged       jsonInt `json:"charged"`
	PointsCharged jsonInt `json:"points_charged"`
	Points        jsonInt `json:"points"`
	Balance       jsonInt `json:"balance"`
	Remaining     jsonInt `json:"remaining"`
}

func (c *Client) decodeSendMessage(res *response, sent ConversationID) (*SendMessageResult, error) {
	var a chatAnswer
	if !decodeObject(res.payload, &a) {
		return nil, c.decodeError(res, "reply")
	}
	out := &SendMessageResult{}
	reply, replyID, ok := a.reply()
	if !ok {
		return nil, c.decodeError(res, "reply")
	}
	out.Reply = reply

	out.ConversationID = firstID(a.ConversationID, a.ConversationIDCamel)
	if out.ConversationID.IsZero() {
		out.ConversationID = a.Conversation.id
	}
	if out.ConversationID.IsZero() && sent.IsZero() && a.fallbackIDIsConversation() {
		out.ConversationID = a.ID.id
	}
	switch {
	case !out.ConversationID.IsZero():
		c.learnIDForm(out.ConversationID)
	case !sent.IsZero():
		out.ConversationID = sent
	default:
		return nil, c.decodeError(res, "conversation_id")
	}

	out.UserMessageID = firstMessageID(a.UserMessageID, a.UserMessage.ID)
	out.ReplyMessageID = firstMessageID(a.AssistantMessageID, a.ReplyMessageID, replyID)
	out.PointsCharged = firstInt(a.PointsCharged, a.PointsChargedCamel,
		a.Points.Charged, a.Points.PointsCharged,
		a.Billing.Charged, a.Billing.PointsCharged, a.Billing.Points,
		a.Usage.Points, a.Usage.PointsCharged)
	out.Balance = firstInt(a.Balance, a.RemainingPoints,
		a.Points.Balance, a.Points.Remaining,
		a.Billing.Balance, a.Billing.Remaining)
	return out, nil
}

// reply finds the reply's text and, when it came from a message object, that message's ID.
func (a *chatAnswer) reply() (text string, id MessageID, ok bool) {
	if s, ok := a.Reply.get(); ok {
		_, id, _ = a.Message.reply() // the reference service gives the reply message beside the text
		return s, id, true
	}
	for _, m := range []*chatMessage{&a.Message, &a.AssistantMessage} {
		if s, id, ok := m.reply(); ok {
			return s, id, true
		}
	}
	if len(a.Choices) > 0 {
		if s, ok := a.Choices[0].Message.content(); ok {
			return s, MessageID{}, true
		}
		if s, ok := a.Choices[0].Text.get(); ok {
			return s, MessageID{}, true
		}
	}
	for _, f := range []jsonString{a.Answer, a.Response, a.Output} {
		if s, ok := f.get(); ok {
			return s, MessageID{}, true
		}
	}
	for i := len(a.Messages) - 1; i >= 0; i-- {
		var m wireMessage
		if decodeObject(a.Messages[i], &m) && m.Role.ok && !m.isUser() {
			if s, ok := m.content(); ok {
				return s, m.ID, true
			}
		}
	}
	// "message" as a string is often a status ("Created"), so it comes after every other field.
	if s, ok := a.Message.text.get(); ok {
		return s, MessageID{}, true
	}
	if !a.isUser() {
		if s, ok := a.content(); ok {
			return s, MessageID{}, true
		}
	}
	return "", MessageID{}, false
}

// fallbackIDIsConversation reports whether the answer's bare "id" may name the conversation: on a
// first call, when the answer is neither a message with a role (whose id is the message's) nor
// OpenAI-shaped (whose id is the completion's).
func (a *chatAnswer) fallbackIDIsConversation() bool {
	return !a.Role.ok && len(a.Choices) == 0
}

// firstID returns the first ID that is set.
func firstID(ids ...jsonConvID) ConversationID {
	for _, f := range ids {
		if !f.id.IsZero() {
			return f.id
		}
	}
	return ConversationID{}
}

// firstText returns the first non-empty string.
func firstText(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// firstInt returns the first number that was given.
func firstInt(ns ...jsonInt) *int64 {
	for _, n := range ns {
		if n.ok {
			return n.ptr()
		}
	}
	return nil
}
