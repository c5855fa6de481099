package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
)

// SendMessageRequest is one chat turn; the optional settings are sent only when set.
type SendMessageRequest struct {
	// ConversationID continues a conversation; empty starts a new one.
	ConversationID string
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
	ConversationID string `json:"conversation_id"`
	// Reply is the assistant's text.
	Reply string `json:"reply"`
	// UserMessageID is the ID of the user's message, when the service gave it.
	UserMessageID string `json:"user_message_id,omitempty"`
	// ReplyMessageID is the ID of the reply message, when the service gave it.
	ReplyMessageID string `json:"reply_message_id,omitempty"`
	// PointsCharged is what the call cost, when the service reported it.
	PointsCharged *int64 `json:"points_charged,omitempty"`
	// Balance is the account's balance after the call, when the service reported it.
	Balance *int64 `json:"balance,omitempty"`
}

// sendMessageBody is the JSON sent to POST /v1/chat/messages.
type sendMessageBody struct {
	Message        string   `json:"message"`
	ConversationID any      `json:"conversation_id,omitempty"`
	Persona        *string  `json:"persona,omitempty"`
	Temperature    *float64 `json:"temperature,omitempty"`
	TopP           *float64 `json:"top_p,omitempty"`
	MaxTokens      *int     `json:"max_tokens,omitempty"`
}

// Names under which services put the parts of a chat answer.
var (
	conversationIDKeys = []string{"conversation_id", "conversationId", "conversationID"}
	conversationObjKey = []string{"conversation"}
	replyKeys          = []string{"reply", "answer", "content", "text", "output", "response", "message", "assistant_message", "reply_message", "assistant", "completion"}
	pointsChargedKeys  = []string{"points_charged", "pointsCharged", "points_used", "pointsUsed", "points_deducted", "pointsDeducted", "charged_points", "chargedPoints", "points_cost", "cost", "charged", "points"}
	balanceKeys        = []string{"balance", "points_balance", "pointsBalance", "remaining_points", "remainingPoints", "remaining_balance", "remainingBalance", "balance_after", "points_remaining", "pointsRemaining"}
)

// SendMessage sends one chat turn (POST /v1/chat/messages) and returns the reply. The call is
// charged, so it is never re-sent once it may have reached the service; a failure after that point
// matches ErrReplyLost.
func (c *Client) SendMessage(ctx context.Context, req SendMessageRequest) (*SendMessageResult, error) {
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
	convID := strings.TrimSpace(req.ConversationID)
	if convID != "" {
		body.ConversationID = c.idJSON(convID)
	}
	r := &request{method: http.MethodPost, path: route, chat: true}
	if err := r.jsonBody(body); err != nil {
		return nil, err
	}
	res, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if !res.isJSON {
		return nil, c.decodeError(res, "reply")
	}
	return c.decodeSendMessage(res, convID)
}

func (c *Client) decodeSendMessage(res *response, sentID string) (*SendMessageResult, error) {
	ls := layersOf(res.doc)
	out := &SendMessageResult{}

	reply, replyID, ok := findReply(ls)
	if !ok {
		return nil, c.decodeError(res, "reply")
	}
	out.Reply, out.ReplyMessageID = reply, replyID

	id, numeric, found := lookupID(ls, conversationIDKeys...)
	if !found {
		if conv, ok := lookupObject(ls, conversationObjKey...); ok {
			id, numeric, found = lookupID([]object{conv}, "id", "conversation_id", "conversationId")
		} else {
			id, numeric, found = lookupID(ls, conversationObjKey...)
		}
	}
	if !found && sentID == "" {
		// "id" is the conversation's only when nothing more specific was given; on a later
		// turn it is more likely a message's.
		id, numeric, found = lookupID(ls, "id")
	}
	switch {
	case found:
		out.ConversationID = id
		c.rememberID(id, numeric)
	case sentID != "":
		out.ConversationID = sentID
	default:
		return nil, c.decodeError(res, "conversation_id")
	}

	if id, _, ok := lookupID(ls, "user_message_id", "userMessageId", "user_message_ID"); ok {
		out.UserMessageID = id
	} else if m, ok := lookupObject(ls, "user_message", "userMessage", "question"); ok {
		out.UserMessageID, _, _ = idOf(m["id"])
	}
	if out.ReplyMessageID == "" {
		out.ReplyMessageID, _, _ = lookupID(ls, "reply_message_id", "replyMessageId", "assistant_message_id", "assistantMessageId", "message_id", "messageId")
	}

	billing := ls
	for _, k := range []string{"usage", "billing", "points", "account"} {
		if o, ok := lookupObject(ls, k); ok {
			billing = append(billing, o)
		}
	}
	if v, ok := lookup(billing, pointsChargedKeys...); ok {
		if n, ok := int64Of(v); ok {
			out.PointsCharged = &n
		}
	}
	if v, ok := lookup(billing, balanceKeys...); ok {
		if n, ok := int64Of(v); ok {
			out.Balance = &n
		}
	}
	return out, nil
}

// findReply finds the reply text: a string under one of replyKeys, the content of a message object,
// the last assistant message of a list, or an OpenAI-style choices[0].message.content.
func findReply(ls []object) (reply, messageID string, ok bool) {
	for _, o := range ls {
		for _, k := range replyKeys {
			switch v := o[k].(type) {
			case string:
				return v, "", true
			case object:
				if role, _ := v["role"].(string); role == "user" {
					continue // the user's own message, echoed back
				}
				if s, ok := lookupString([]object{v}, "content", "text", "reply", "message"); ok {
					id, _, _ := idOf(v["id"])
					return s, id, true
				}
			}
		}
	}
	if msgs, ok := lookupArray(ls, "messages"); ok {
		for i := len(msgs) - 1; i >= 0; i-- {
			m, _ := msgs[i].(object)
			if role, _ := m["role"].(string); role != "" && role != "user" {
				if s, ok := lookupString([]object{m}, "content", "text"); ok {
					id, _, _ := idOf(m["id"])
					return s, id, true
				}
			}
		}
	}
	if choices, ok := lookupArray(ls, "choices"); ok && len(choices) > 0 {
		if ch, ok := choices[0].(object); ok {
			if m, ok := ch["message"].(object); ok {
				if s, ok := m["content"].(string); ok {
					return s, "", true
				}
			}
			if s, ok := ch["text"].(string); ok {
				return s, "", true
			}
		}
	}
	return "", "", false
}
