package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Limits of the OpenAI-compatible chat model.
const (
	// contextBudgetChars is how much history, in characters, is sent; the
	// oldest messages are dropped first.
	contextBudgetChars = 24000
	// maxUpstreamBody caps what is read of an upstream response.
	maxUpstreamBody = 8 << 20
)

// NewOpenAIChat returns a ChatModel that asks an OpenAI-compatible
// chat-completions endpoint (OpenAI, Ollama, llama.cpp server, vLLM) at
// baseURL, such as "http://localhost:11434/v1". apiKey may be "". hc may be
// nil; redirects are refused either way. Every error is an upstream failure.
func NewOpenAIChat(baseURL, model, apiKey string, hc *http.Client) ChatModel {
	c := &http.Client{Timeout: DefaultChatTimeout}
	if hc != nil {
		cp := *hc
		c = &cp
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return errors.New("redirect refused") }
	return &openAIChat{
		url:    strings.TrimRight(baseURL, "/") + "/chat/completions",
		model:  model,
		key:    apiKey,
		hc:     c,
		budget: contextBudgetChars,
	}
}

type openAIChat struct {
	url, model, key string
	hc              *http.Client
	budget          int
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

// messages builds the prompt: the persona as the system message, the history
// that fits the budget (the newest kept), then the user's text.
func (c *openAIChat) messages(req ChatRequest) []oaMessage {
	out := []oaMessage{}
	if req.Persona != "" {
		out = append(out, oaMessage{Role: "system", Content: req.Persona})
	}
	used := len(req.Persona) + len(req.UserText)
	start := len(req.History)
	for start > 0 {
		n := len(req.History[start-1].Content)
		if used+n > c.budget {
			break
		}
		used += n
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

// Complete asks the endpoint once; it never retries (the call is charged).
func (c *openAIChat) Complete(ctx context.Context, req ChatRequest) (string, error) {
	body, err := json.Marshal(oaRequest{
		Model: c.model, Messages: c.messages(req),
		Temperature: req.Temperature, TopP: req.TopP, MaxTokens: req.MaxTokens,
	})
	if err != nil {
		return "", fmt.Errorf("chat upstream: encode request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("chat upstream: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	start := time.Now()
	resp, err := c.hc.Do(hreq)
	if err != nil {
		return "", fmt.Errorf("chat upstream: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody+1))
	if err != nil {
		return "", fmt.Errorf("chat upstream: read response after %v: %w", time.Since(start).Round(time.Millisecond), err)
	}
	if len(raw) > maxUpstreamBody {
		return "", fmt.Errorf("chat upstream: response larger than %d bytes", maxUpstreamBody)
	}
	if resp.StatusCode/100 != 2 {
		return "", fmt.Errorf("chat upstream: status %d: %s", resp.StatusCode, truncate(strings.TrimSpace(string(raw)), 300))
	}
	var out oaResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", fmt.Errorf("chat upstream: malformed response: %w", err)
	}
	if len(out.Choices) == 0 || out.Choices[0].Message.Content == nil {
		return "", errors.New("chat upstream: response has no choices")
	}
	reply := strings.TrimSpace(*out.Choices[0].Message.Content)
	if reply == "" {
		return "", errors.New("chat upstream: the reply is empty")
	}
	return reply, nil
}
