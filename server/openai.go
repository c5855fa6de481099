package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"parley/engine"
	"parley/internal/i18n"
	"parley/internal/keyecho"
	"parley/internal/loopback"
)

// Limits of the OpenAI-compatible chat model.
const (
	// contextBudgetChars is how much history, in characters, is read for a chat call; the chat
	// model then keeps the newest of it that fits its context window.
	contextBudgetChars = 64000
	// maxUpstreamBody caps what is read of an upstream response.
	maxUpstreamBody = 8 << 20
)

// OpenAIChatOptions configure a chat model reached over the OpenAI-compatible chat API.
type OpenAIChatOptions struct {
	// BaseURL is the API's base URL, such as "http://127.0.0.1:11434/v1".
	BaseURL string
	// Model is the model's name.
	Model string
	// APIKey is sent as a bearer token; "" sends none.
	APIKey string
	// Where names the engine for people in failure messages ("Ollama on this computer"); empty
	// derives it from BaseURL.
	Where string
	// ContextTokens is the model's context window as its runtime reported it; 0 takes
	// engine.Chat's default for BaseURL. A reported window also caps the max_tokens sent, which
	// a runtime such as vLLM refuses when the prompt and the reply do not fit it together.
	ContextTokens int
	// HTTP is the client to use (nil: one with DefaultChatTimeout); redirects are refused either way.
	// Given no Transport, a client to an address of this computer gets engine.LoopbackTransport.
	HTTP *http.Client
	// Owners judges who holds the other end of a connection to an address of this computer
	// (nil: engine.CheckOwner); tests replace it.
	Owners engine.OwnerCheck
}

// NewOpenAIChat returns a ChatModel that asks an OpenAI-compatible
// chat-completions endpoint (OpenAI, Ollama, llama.cpp server, vLLM) at
// baseURL, such as "http://localhost:11434/v1". apiKey may be "". hc may be
// nil; redirects are refused either way. Every error is an upstream failure.
func NewOpenAIChat(baseURL, model, apiKey string, hc *http.Client) ChatModel {
	return NewOpenAIChatWith(OpenAIChatOptions{BaseURL: baseURL, Model: model, APIKey: apiKey, HTTP: hc})
}

// errRedirectRefused is what a chat API's client answers a redirect with: it follows none.
var errRedirectRefused = errors.New("redirect refused")

// NewOpenAIChatWith returns the ChatModel o describes. Its errors are *ChatFailure.
func NewOpenAIChatWith(o OpenAIChatOptions) ChatModel {
	c := &http.Client{Timeout: DefaultChatTimeout}
	if o.HTTP != nil {
		cp := *o.HTTP
		c = &cp
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return errRedirectRefused }
	if c.Transport == nil && loopback.URL(o.BaseURL) {
		// The person typed this address, but another user's program may be the one listening
		// there: each connection is checked as a runtime's is.
		c.Transport = engine.LoopbackTransport("", o.Owners)
	}
	spec := engine.Chat{Kind: engine.Remote, URL: o.BaseURL, Model: o.Model, ContextTokens: o.ContextTokens}
	where := o.Where
	if where == "" {
		where = spec.Where()
	}
	return &openAIChat{
		url:     strings.TrimRight(o.BaseURL, "/") + "/chat/completions",
		model:   o.Model,
		key:     o.APIKey,
		where:   where,
		hc:      c,
		context: spec.ContextWindow(),
		known:   o.ContextTokens > 0,
	}
}

type openAIChat struct {
	url, model, key string
	where           string
	hc              *http.Client
	// context is the model's context window, in tokens; known when the runtime reported it.
	context int
	known   bool
}

// Describe says which model answers, and where.
func (c *openAIChat) Describe() string { return engine.ModelName(c.model) + ", from " + c.where }

// ModelName names the model.
func (c *openAIChat) ModelName() string { return engine.ModelName(c.model) }

// ChatFailure is why a chat model failed to answer: Sentence says it to a person, naming the
// engine, in the window's language; Error, for the log, carries the cause too.
type ChatFailure struct {
	// Where names the engine ("Ollama on this computer").
	Where string
	// What says what went wrong and what to do, after Where, in English for the log: "did not
	// answer: is it still running?".
	What string
	// Unreachable is true when nothing answered: the runtime stopped, or never ran.
	Unreachable bool
	// Err is the cause.
	Err error

	// kind is which failure it is, for Sentence's whole sentence; status and detail are what
	// it names (the HTTP status, the server's message or the model).
	kind   failKind
	status int
	model  string
	detail string
}

// failKind is a kind of chat failure.
type failKind int

// The kinds of chat failure, each said by its own sentence.
const (
	failOther failKind = iota // What, as it is
	failTimeout
	failRedirect
	failUnreachable
	failAddress
	failKey
	failNoModel
	failNoAPI
	failBusy
	failStatus
	failAsk
	failTooLarge
	failNotChat
	failNoReply
	failEmpty
	failWriting
	failStoppedMidReply
	failStalled
	failUntrusted        // a server found another user's as it was called: named by Where
	failUntrustedAway    // a runtime found another user's before: named by itself
	failNotRunning       // in the app
	failNotRunningServed // in parley serve
)

func (f *ChatFailure) Error() string {
	return "chat upstream: " + f.Where + " " + f.What + ": " + f.Err.Error()
}

// Unwrap returns the cause.
func (f *ChatFailure) Unwrap() error { return f.Err }

// Sentence is the failure for people, one whole sentence that another may follow: "Ollama on
// this computer did not answer: is it still running?", "… refused the API key (401): check
// the key.".
func (f *ChatFailure) Sentence() string {
	var s string
	switch f.kind {
	case failTimeout:
		s = fmt.Sprintf(i18n.T("%s took too long to answer: try a shorter question, or a smaller model."), f.Where)
	case failRedirect:
		s = fmt.Sprintf(i18n.T("%s answered with a redirect, which Parley does not follow: check the address."), f.Where)
	case failUnreachable:
		s = fmt.Sprintf(i18n.T("%s did not answer: is it still running?"), f.Where)
	case failAddress:
		s = fmt.Sprintf(i18n.T("%s could not be reached: check the address and your connection."), f.Where)
	case failKey:
		s = fmt.Sprintf(i18n.T("%s refused the API key (%d): check the key."), f.Where, f.status)
	case failNoModel:
		s = fmt.Sprintf(i18n.T("%[1]s has no model %[2]q (404: %[3]s): check the model's name."), f.Where, f.model, f.detail)
	case failNoAPI:
		s = fmt.Sprintf(i18n.T("%s has no chat API at this address (404): check that it ends in /v1."), f.Where)
	case failBusy:
		s = fmt.Sprintf(i18n.T("%s is busy or out of quota (429): try again later."), f.Where)
	case failStatus:
		s = fmt.Sprintf(i18n.T("%[1]s failed (%[2]d: %[3]s)."), f.Where, f.status, f.detail)
	case failAsk:
		s = fmt.Sprintf(i18n.T("%s could not be asked: check the address."), f.Where)
	case failTooLarge:
		s = fmt.Sprintf(i18n.T("%s answered with more than 8 MB."), f.Where)
	case failNotChat:
		s = fmt.Sprintf(i18n.T("%s answered with something that is not a chat reply: is this an OpenAI-compatible address?"), f.Where)
	case failNoReply:
		s = fmt.Sprintf(i18n.T("%s answered with no reply."), f.Where)
	case failEmpty:
		s = fmt.Sprintf(i18n.T("%s answered with an empty reply."), f.Where)
	case failWriting:
		s = fmt.Sprintf(i18n.T("%[1]s failed while writing its reply (%[2]s)."), f.Where, f.detail)
	case failStoppedMidReply:
		s = fmt.Sprintf(i18n.T("%s stopped in the middle of its reply: is it still running?"), f.Where)
	case failStalled:
		s = fmt.Sprintf(i18n.T("%[1]s wrote nothing for %[2]s: try again, or a smaller model."), f.Where, f.detail)
	case failNotRunning:
		s = fmt.Sprintf(i18n.T("%s is not running: start it, or choose another engine in Preferences → Built-in service."), f.Where)
	case failNotRunningServed:
		s = f.Where + " is not running: start it, or start parley serve with another engine."
	case failUntrusted, failUntrustedAway:
		var ue *engine.UntrustedError
		switch {
		case !errors.As(f.Err, &ue):
			s = f.Where + " " + f.What
		case f.kind == failUntrusted:
			s = ue.SentenceAt(f.Where)
		default:
			s = ue.Error()
		}
	default: // failOther: What, in English
		s = f.Where + " " + f.What
	}
	s = sentence(s)
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

func (c *openAIChat) fail(kind failKind, what string, err error) *ChatFailure {
	return &ChatFailure{Where: c.where, What: what, Err: err, kind: kind}
}

// transportFailure says what a failed request means: nothing listening, or a connection that
// ended before the reply (the runtime stopped mid-reply), or too long a wait.
func (c *openAIChat) transportFailure(err error) *ChatFailure {
	var ne net.Error
	var ue *engine.UntrustedError
	switch {
	case errors.As(err, &ue):
		return c.fail(failUntrusted, ue.What(), err)
	case errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout():
		return c.fail(failTimeout, "took too long to answer; try a shorter question, or a smaller model", err)
	case errors.Is(err, errRedirectRefused):
		return c.fail(failRedirect, "answered with a redirect, which Parley does not follow: check the address", err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF),
		errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE):
		f := c.fail(failUnreachable, "did not answer: is it still running?", err)
		f.Unreachable = true
		return f
	}
	return c.fail(failAddress, "could not be reached: check the address and your connection", err)
}

// statusFailure says what an error status means.
func (c *openAIChat) statusFailure(status int, body []byte) *ChatFailure {
	msg := upstreamMessage(body, c.key)
	err := fmt.Errorf("status %d: %s", status, msg)
	var f *ChatFailure
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		f = c.fail(failKey, fmt.Sprintf("refused the API key (%d): check the key", status), err)
	case status == http.StatusNotFound && strings.Contains(strings.ToLower(msg), "model"):
		f = c.fail(failNoModel, fmt.Sprintf("has no model %q (404: %s): check the model's name", c.model, msg), err)
	case status == http.StatusNotFound:
		f = c.fail(failNoAPI, "has no chat API at this address (404): check that it ends in /v1", err)
	case status == http.StatusTooManyRequests:
		f = c.fail(failBusy, "is busy or out of quota (429): try again later", err)
	default:
		f = c.fail(failStatus, fmt.Sprintf("failed (%d: %s)", status, msg), err)
	}
	f.status, f.model, f.detail = status, c.model, msg
	return f
}

// upstreamMessage picks the message out of an error body (OpenAI's {"error":{"message"}},
// Ollama's {"error":"…"}, or the text), bounded, with the key blanked should it be echoed:
// whole, in part, in another letter case or encoded (see package keyecho).
func upstreamMessage(body []byte, key string) string {
	var e struct {
		Error json.RawMessage `json:"error"`
	}
	msg := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && len(e.Error) > 0 {
		var s string
		var o struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			msg = s
		} else if json.Unmarshal(e.Error, &o) == nil && o.Message != "" {
			msg = o.Message
		}
	}
	msg = strings.Join(strings.Fields(msg), " ")
	// Only the start is shown: bound the text before the key is looked for in it, then blank
	// the key, any piece of it, in any case or encoding.
	msg = keyecho.Blank(strings.ToValidUTF8(truncate(msg, 1000), ""), key, "[API key]")
	msg = strings.TrimRight(strings.ToValidUTF8(truncate(msg, 200), ""), ".")
	if msg == "" {
		msg = "no message"
	}
	return msg
}

type oaMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type oaRequest struct {
	Model       string      `json:"model"`
	Messages    []oaMessage `json:"messages"`
	Temperature *float64    `json:"temperature,omitempty"`
	TopP        *float64    `json:"top_p,omitempty"`
	MaxTokens   *int        `json:"max_tokens,omitempty"`
	Stream      bool        `json:"stream"`
}

type oaResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// Bounding the context. A chat call sends the persona, the newest turns of the conversation that
// fit, and the question. What fits is judged in tokens, estimated as one per 3 bytes of text
// (English runs about 4 characters a token, so the estimate errs long) and 4 more per message;
// the reply is given room first: its max_tokens, else a quarter of the window.
const (
	bytesPerToken    = 3
	tokensPerMessage = 4
)

// estimateTokens is an upper estimate of how many tokens text takes as one message.
func estimateTokens(text string) int {
	return (len(text)+bytesPerToken-1)/bytesPerToken + tokensPerMessage
}

// replyTokens is the room given to the reply: its max_tokens (at most half the window), else a
// quarter of the window.
func (c *openAIChat) replyTokens(req ChatRequest) int {
	if req.MaxTokens != nil && *req.MaxTokens > 0 {
		return min(*req.MaxTokens, c.context/2)
	}
	return c.context / 4
}

// messages builds the prompt: the persona as the system message, the history
// that fits the context window (the newest kept), then the user's text.
func (c *openAIChat) messages(req ChatRequest) []oaMessage {
	out := []oaMessage{}
	if req.Persona != "" {
		out = append(out, oaMessage{Role: "system", Content: req.Persona})
	}
	reply := c.replyTokens(req)
	budget := c.context - reply - estimateTokens(req.Persona) - estimateTokens(req.UserText)
	start := len(req.History)
	for start > 0 {
		n := estimateTokens(req.History[start-1].Content)
		if n > budget {
			break
		}
		budget -= n
		start--
	}
	for _, m := range req.History[start:] {
		role := m.Role
		if role != "user" && role != "assistant" && role != "system" {
			role = "assistant"
		}
		out = append(out, oaMessage{Role: role, Content: m.Content})
	}
	return append(out, oaMessage{Role: "user", Content: req.UserText})
}

// newRequest builds the chat-completions request for req; stream asks for the reply as it is
// written (server-sent events of chat.completion.chunk).
func (c *openAIChat) newRequest(ctx context.Context, req ChatRequest, stream bool) (*http.Request, error) {
	maxTokens := req.MaxTokens
	if c.known && maxTokens != nil {
		n := c.replyTokens(req) // the room the prompt left it
		maxTokens = &n
	}
	body, err := json.Marshal(oaRequest{
		Model: c.model, Messages: c.messages(req),
		Temperature: req.Temperature, TopP: req.TopP, MaxTokens: maxTokens, Stream: stream,
	})
	if err != nil {
		return nil, c.fail(failOther, "could not be asked", fmt.Errorf("encode request: %w", err))
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, c.fail(failAsk, "could not be asked: check the address", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	if stream {
		hreq.Header.Set("Accept", "text/event-stream, application/json")
	} else {
		hreq.Header.Set("Accept", "application/json")
	}
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	return hreq, nil
}

// Complete asks the endpoint once; it never retries (the call is charged). Its errors are
// *ChatFailure.
func (c *openAIChat) Complete(ctx context.Context, req ChatRequest) (string, error) {
	hreq, err := c.newRequest(ctx, req, false)
	if err != nil {
		return "", err
	}
	start := time.Now()
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return "", c.transportFailure(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody+1))
	if err != nil {
		return "", c.transportFailure(fmt.Errorf("read response after %v: %w", time.Since(start).Round(time.Millisecond), err))
	}
	if len(raw) > maxUpstreamBody {
		return "", c.fail(failTooLarge, "answered with more than 8 MB", fmt.Errorf("response larger than %d bytes", maxUpstreamBody))
	}
	if resp.StatusCode/100 != 2 {
		return "", c.statusFailure(resp.StatusCode, raw)
	}
	return c.wholeReply(raw)
}

// wholeReply reads a chat-completions answer given whole.
func (c *openAIChat) wholeReply(raw []byte) (string, error) {
	var out oaResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", c.fail(failNotChat, "answered with something that is not a chat reply: is this an OpenAI-compatible address?", fmt.Errorf("malformed response: %w", err))
	}
	if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
		return "", c.fail(failNoReply, "answered with no reply", errors.New("response has no choices"))
	}
	reply := strings.TrimSpace(*out.Choices[0].Message.Content)
	if reply == "" {
		return "", c.fail(failEmpty, "answered with an empty reply", errors.New("the reply is empty"))
	}
	return reply, nil
}
