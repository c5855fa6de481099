package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"parley/server/store"
)

// messageJSON is a message on the wire.
type messageJSON struct {
	ID        int64  `json:"id"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	CreatedAt string `json:"created_at"`
}

func toMessageJSON(m store.Message) messageJSON {
	return messageJSON{ID: m.ID, Role: m.Role, Content: m.Content, CreatedAt: timestamp(m.CreatedAt)}
}

// chatResponse is the data of a successful chat call.
type chatResponse struct {
	ConversationID     string      `json:"conversation_id"`
	Reply              string      `json:"reply"`
	Message            messageJSON `json:"message"`
	UserMessageID      int64       `json:"user_message_id"`
	AssistantMessageID int64       `json:"assistant_message_id"`
	PointsCharged      int64       `json:"points_charged"`
	Balance            int64       `json:"balance"`
}

// handleChat is POST /v1/chat/messages: reserve the price, ask the model,
// then commit the turn with the charge, or void the charge if the model
// failed.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	f, e := readObject(r)
	if e != nil {
		return e
	}
	body, e := decodeChat(f)
	if e != nil {
		return e
	}
	res, err := s.store.Reserve(r.Context(), acct.ID, body.ConversationID)
	switch {
	case errors.Is(err, store.ErrInsufficientPoints):
		return errorf(http.StatusPaymentRequired, codeInsufficient,
			"The balance is below the price of a chat call; nothing was charged.")
	case errors.Is(err, store.ErrNotFound):
		return errNoConversation()
	case errors.Is(err, store.ErrUnknownKey):
		return errorf(http.StatusUnauthorized, codeUnauthorized, "The API key is unknown or revoked.")
	case err != nil:
		return s.internal(r, "reserve", err)
	}

	// From here the call is charged: finish it even if the client goes away,
	// so that the reply it paid for is in the conversation's history.
	ctx := context.WithoutCancel(r.Context())
	req := ChatRequest{History: res.History, UserText: body.Message}
	var saved store.Config
	if res.Conversation != nil {
		saved = res.Conversation.Config
	}
	eff := mergeSettings(saved, body.Settings)
	if eff.Persona != nil {
		req.Persona = *eff.Persona
	}
	req.Temperature, req.TopP, req.MaxTokens = eff.Temperature, eff.TopP, eff.MaxTokens

	reply, err := s.complete(ctx, req)
	if err == nil && reply == "" {
		err = errors.New("the model returned an empty reply")
	}
	if err != nil {
		s.log.Warn("chat model failed", "account", acct.ID, "call", res.CallID, "err", err)
		balance, verr := s.store.Void(ctx, res.CallID)
		if verr != nil {
			return s.internal(r, "void", verr)
		}
		e := errorf(http.StatusBadGateway, codeUpstream,
			"The chat model failed to answer; the points for this call were refunded.")
		e.Balance = &balance
		return e
	}

	p := store.CommitParams{CallID: res.CallID, ConversationID: body.ConversationID, UserText: body.Message, Reply: reply}
	if res.Conversation == nil {
		p.Config = toStoreConfig(body.Settings)
	}
	out, err := s.store.Commit(ctx, p)
	if err != nil {
		if _, verr := s.store.Void(ctx, res.CallID); verr != nil && !errors.Is(verr, store.ErrCallSettled) {
			s.log.Error("void after failed commit", "call", res.CallID, "err", verr)
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			// Deleted while the model was answering.
			return errNoConversation()
		case errors.Is(err, store.ErrCallSettled):
			// Voided meanwhile as left behind (a slow call seen by another
			// process's crash recovery): refunded, and nothing stored.
			s.log.Warn("chat call settled before commit", "account", acct.ID, "call", res.CallID)
			return errorf(http.StatusBadGateway, codeUpstream,
				"The chat model took too long; the points for this call were refunded.")
		}
		return s.internal(r, "commit", err)
	}
	writeData(w, chatResponse{
		ConversationID: out.ConversationID,
		Reply:          reply,
		Message: messageJSON{ID: out.AssistantMessageID, Role: "assistant", Content: reply,
			CreatedAt: timestamp(out.AssistantCreatedAt)},
		UserMessageID:      out.UserMessageID,
		AssistantMessageID: out.AssistantMessageID,
		PointsCharged:      out.Charged,
		Balance:            out.Balance,
	})
	return nil
}

// complete asks the model under the chat timeout; a panic in the model is a
// failure of the call like any other, so that its charge is voided.
func (s *Server) complete(ctx context.Context, req ChatRequest) (reply string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the model panicked: %v", p)
		}
	}()
	return s.llm.Complete(ctx, req)
}

func errNoConversation() *apiError {
	return errorf(http.StatusNotFound, codeNotFound, "There is no such conversation.")
}

// mergeSettings lays the settings of one call over a conversation's saved
// config: a field sent with the call wins, for that call only.
func mergeSettings(saved store.Config, call settings) store.Config {
	out := saved
	if call.Persona != nil {
		out.Persona = call.Persona
	}
	if call.Temperature != nil {
		out.Temperature = call.Temperature
	}
	if call.TopP != nil {
		out.TopP = call.TopP
	}
	if call.MaxTokens != nil {
		out.MaxTokens = call.MaxTokens
	}
	return out
}

// toStoreConfig is the config a first call saves. An empty persona is not
// saved.
func toStoreConfig(s settings) store.Config {
	c := store.Config{Temperature: s.Temperature, TopP: s.TopP, MaxTokens: s.MaxTokens}
	if s.Persona != nil && *s.Persona != "" {
		c.Persona = s.Persona
	}
	return c
}

// handleAccount is GET /v1/account: the balance of the caller and the price
// of a chat call.
func (s *Server) handleAccount(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	price, err := s.store.Price(r.Context())
	if err != nil {
		return s.internal(r, "price", err)
	}
	writeData(w, struct {
		Balance int64 `json:"balance"`
		Price   int64 `json:"price"`
	}{acct.Balance, price})
	return nil
}
