package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"
	"unicode/utf8"

	"parley/internal/backoff"
	"parley/internal/i18n"
	"parley/server/store"
	"parley/settings"
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

// maxReplyEncoded bounds a reply as the chat answer encodes it (JSON-escaped). The answer holds
// the reply twice (reply and message.content), so it stays near 8 MB at most: well inside what
// clients read of an answer (Parley's client, 32 MB), also for a model that wrote invalid UTF-8,
// each byte of which grows to three as U+FFFD. A history page is bounded by historyPageBytes.
const maxReplyEncoded = 4 << 20

// encodedLen is the length of s as writeJSON encodes it (a JSON string without HTML escaping,
// quotes excluded): invalid UTF-8 becomes \ufffd, control characters and U+2028/U+2029 are
// escaped.
func encodedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			switch {
			case b == '"' || b == '\\' || b == '\n' || b == '\r' || b == '\t':
				n += 2
			case b < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
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

// handleChat is POST /v1/chat/messages: read the model's context, reserve
// the price, ask the model, then commit the turn with the charge, or refund the
// charge if the model failed. Only the reserve, the commit and the refund write
// to the database. The commit and the refund wait out a locked database rather
// than fail (a reserve that cannot write fails, and has charged nothing).
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	f, e := readObject(r)
	if e != nil {
		return e
	}
	body, e := decodeChat(f)
	if e != nil {
		return e
	}
	// The model's context, read outside any write: the newest messages, as
	// much as the model is given (contextBudgetChars), never the whole
	// conversation.
	var history []store.Message
	if body.ConversationID != "" {
		h, err := s.store.ChatContext(r.Context(), acct.ID, body.ConversationID, contextBudgetChars)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return errNoConversation()
		case err != nil:
			return s.internal(r, "chat context", err)
		}
		history = h
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

	req := ChatRequest{History: history, UserText: body.Message}
	var saved store.Config
	if res.Conversation != nil {
		saved = res.Conversation.Config
	}
	eff := saved.Apply(settings.Patch{Set: body.Settings}) // a field sent with the call wins, for that call only
	if eff.Persona != nil {
		req.Persona = *eff.Persona
	}
	req.Temperature, req.TopP, req.MaxTokens = eff.Temperature, eff.TopP, eff.MaxTokens
	call := &chatCall{acct: acct, res: res, body: body, req: req}
	if wantsStream(r) {
		s.streamChat(w, r, call)
		return nil
	}

	// From here the call is charged: finish it even if the client goes away,
	// so that the reply it paid for is in the conversation's history.
	ctx := context.WithoutCancel(r.Context())
	reply, err := s.complete(ctx, req)
	answer, e := s.settle(ctx, r, call, reply, err)
	if e != nil {
		return e
	}
	writeData(w, answer)
	return nil
}

// chatCall is a chat call whose price is reserved.
type chatCall struct {
	acct store.Account
	res  *store.Reservation
	body chatBody
	req  ChatRequest
}

// settle ends a charged call with the model's reply (or its failure): the charge is posted
// with the turn stored, or refunded. It returns the answer, or the error the client is told.
func (s *Server) settle(ctx context.Context, r *http.Request, call *chatCall, reply string, err error) (*chatResponse, *apiError) {
	res, acct := call.res, call.acct
	if err == nil && reply == "" {
		err = errors.New("the model returned an empty reply")
	}
	var tooLong *errReplyTooLong
	n := 0
	switch {
	case errors.As(err, &tooLong):
		n = tooLong.encoded
	case err == nil:
		n = encodedLen(reply)
	}
	if n > maxReplyEncoded {
		// The answer carries the reply twice, escaped: a client that cannot read it would have
		// paid for a reply it never sees. Bounded here, before anything is charged for good.
		s.log.Warn("chat reply too long to send", "account", acct.ID, "call", res.CallID, "encoded_bytes", n)
		size := fmt.Sprintf("%.1f MB, the limit is %d MB", float64(n)/(1<<20), maxReplyEncoded>>20)
		if tooLong != nil {
			size = fmt.Sprintf("over the limit of %d MB", maxReplyEncoded>>20) // it was stopped there
		}
		return nil, s.refund(ctx, r, res.CallID, http.StatusBadGateway, codeUpstream,
			"The model's reply was too long to send ("+size+"); the points for this call were refunded. Ask for a shorter answer, or lower max_tokens.")
	}
	if err != nil {
		s.log.Warn("chat model failed", "account", acct.ID, "call", res.CallID, "err", err)
		msg := "The chat model failed to answer; the points for this call were refunded."
		var cf *ChatFailure
		if errors.As(err, &cf) && s.explain {
			msg = cf.Sentence() + " " + i18n.T("The points for this call were refunded.")
		}
		return nil, s.refund(ctx, r, res.CallID, http.StatusBadGateway, codeUpstream, msg)
	}

	p := store.CommitParams{CallID: res.CallID, ConversationID: call.body.ConversationID, UserText: call.body.Message, Reply: reply}
	if res.Conversation == nil {
		p.Config = toStoreConfig(call.body.Settings)
	}
	out, err := s.commit(ctx, p)
	switch {
	case err == nil:
	case errors.Is(err, store.ErrNotFound):
		// Deleted while the model was answering: Commit refunded the charge.
		e := errorf(http.StatusNotFound, codeNotFound,
			"The conversation was deleted while the model was answering; the points for this call were refunded.")
		e.Balance = &out.Balance
		return nil, e
	case errors.Is(err, store.ErrCallSettled):
		// Settled meanwhile by someone else: refunded as left behind by another
		// process's crash recovery (a very slow call), or posted.
		s.log.Warn("chat call settled before commit", "account", acct.ID, "call", res.CallID)
		return nil, s.settledElsewhere(ctx, r, res.CallID)
	case errors.Is(err, store.ErrClosed):
		return nil, s.stopping(r, res.CallID, err)
	default:
		s.log.Error("chat commit failed", "account", acct.ID, "call", res.CallID, "err", err)
		return nil, s.refund(ctx, r, res.CallID, http.StatusInternalServerError, codeInternal,
			"The service could not store the reply; the points for this call were refunded.")
	}
	return &chatResponse{
		ConversationID: out.ConversationID,
		Reply:          reply,
		Message: messageJSON{ID: out.AssistantMessageID, Role: "assistant", Content: reply,
			CreatedAt: timestamp(out.AssistantCreatedAt)},
		UserMessageID:      out.UserMessageID,
		AssistantMessageID: out.AssistantMessageID,
		PointsCharged:      out.Charged,
		Balance:            out.Balance,
	}, nil
}

// Settling a charged call waits out a locked database: the commit is tried
// again while SQLite reports it busy, and the refund until it succeeds, with
// backoff between tries, for as long as the process runs (or its store is
// open). The client hears the outcome only once it is committed.
var settlePace = backoff.Policy{Base: 100 * time.Millisecond, Max: 5 * time.Second}

// commit posts the call's charge and stores its turn, trying again while the
// database is busy.
func (s *Server) commit(ctx context.Context, p store.CommitParams) (store.CommitResult, error) {
	for attempt := 1; ; attempt++ {
		out, err := s.store.Commit(ctx, p)
		if err == nil || !store.IsBusy(err) {
			return out, err
		}
		if err := s.settleWait(ctx, "commit", p.CallID, attempt, err); err != nil {
			return out, err
		}
	}
}

// refundCharge refunds the call's charge, trying again until it succeeds, the call
// turns out settled already (ErrCallSettled) or the store is closed.
func (s *Server) refundCharge(ctx context.Context, callID string) (int64, error) {
	for attempt := 1; ; attempt++ {
		balance, err := s.store.Refund(ctx, callID)
		if err == nil || errors.Is(err, store.ErrCallSettled) || errors.Is(err, store.ErrClosed) {
			return balance, err
		}
		if err := s.settleWait(ctx, "refund", callID, attempt, err); err != nil {
			return balance, err
		}
	}
}

// settleWait logs a failed attempt to settle a call and waits before the
// next one, at settlePace.
func (s *Server) settleWait(ctx context.Context, op, callID string, attempt int, err error) error {
	d := settlePace.Delay(attempt-1, 0)
	s.log.Warn("chat settle retry", "op", op, "call", callID, "attempt", attempt, "wait_ms", d.Milliseconds(), "err", err)
	return backoff.Sleep(ctx, d)
}

// refund refunds the call's charge and returns the error the client is told:
// status, code and message (which says the points were refunded) with the
// balance after the refund, once the refund is committed. If the call turned
// out settled already, the client is told what happened instead.
func (s *Server) refund(ctx context.Context, r *http.Request, callID string, status int, code, message string) *apiError {
	balance, err := s.refundCharge(ctx, callID)
	switch {
	case err == nil:
		e := errorf(status, code, "%s", message)
		e.Balance = &balance
		return e
	case errors.Is(err, store.ErrCallSettled):
		return s.settledElsewhere(ctx, r, callID)
	case errors.Is(err, store.ErrClosed):
		return s.stopping(r, callID, err)
	}
	return s.internal(r, "refund", err)
}

// settledElsewhere tells the client the outcome of a call that another
// process (or a crash recovery) settled before this one could: refunded, or
// charged with its reply stored.
func (s *Server) settledElsewhere(ctx context.Context, r *http.Request, callID string) *apiError {
	status, balance, err := s.store.CallStatus(ctx, callID)
	switch {
	case err != nil:
		return s.internal(r, "call status", err)
	case status == store.StatusRefunded:
		e := errorf(http.StatusBadGateway, codeUpstream,
			"The chat call took too long and was given up; the points for this call were refunded.")
		e.Balance = &balance
		return e
	case status == "posted":
		s.log.Error("chat call posted though its commit failed", "call", callID)
		return errorf(http.StatusInternalServerError, codeReplyStored,
			"The service failed after storing the reply; the call was charged and its reply is in the conversation's history.")
	}
	return s.internal(r, "settle", fmt.Errorf("call %s is %s after its settlement failed", callID, status))
}

// stopping is what a client hears when the service stops before its call is
// settled: the charge stays pending, and the next start refunds it.
func (s *Server) stopping(r *http.Request, callID string, err error) *apiError {
	s.log.Error("chat call left pending: the store is closed", "call", callID, "err", err)
	return errorf(http.StatusInternalServerError, codeInternal,
		"The service is stopping; the points reserved for this call will be refunded when it starts again.")
}

// complete asks the model under the chat timeout; a panic in the model is a
// failure of the call like any other, so that its charge is refunded.
func (s *Server) complete(ctx context.Context, req ChatRequest) (reply string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	defer func() {
		if p := recover(); p != nil {
			err = errPanicked(p)
		}
	}()
	return s.llm.Complete(ctx, req)
}

// errPanicked is the failure of a model that panicked.
func errPanicked(p any) error { return fmt.Errorf("the model panicked: %v", p) }

func errNoConversation() *apiError {
	return errorf(http.StatusNotFound, codeNotFound, "There is no such conversation.")
}

// toStoreConfig is the config a first call saves. An empty persona is not
// saved.
func toStoreConfig(s settings.Config) store.Config {
	c := s
	if c.Persona != nil && *c.Persona == "" {
		c.Persona = nil
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
		Balance    int64    `json:"balance"`
		Price      int64    `json:"price"`
		ChatEngine string   `json:"chat_engine,omitempty"`
		Streams    []string `json:"streams"`
	}{acct.Balance, price, describeChat(s.llm, s.explain), []string{"chat"}})
	return nil
}
