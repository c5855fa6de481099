package client

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/internal/jsonscan"
)

// The two calls in this file are extensions of the reference service (docs/API.md), not part of
// the spec: a service without them answers 404, which the caller reports as "not available".

// Voice is one voice the speech endpoint accepts.
type Voice struct {
	// Name is what to send as "voice".
	Name string `json:"name"`
	// Language is the voice's language tag, such as "en-US", when given.
	Language string `json:"language,omitempty"`
	// Description says what the voice sounds like, when given.
	Description string `json:"description,omitempty"`
	// Default is true for the voice used when none is named.
	Default bool `json:"default,omitempty"`
}

// Account is the caller's balance and the price of a chat call.
type Account struct {
	// Balance is the caller's points, when the service reported them.
	Balance *int64 `json:"balance,omitempty"`
	// Price is what one chat call costs, when the service reported it.
	Price *int64 `json:"price,omitempty"`
	// ChatEngine says which chat model answers ("llama3.2, from Ollama on this computer"), when
	// the service says (the reference service does).
	ChatEngine string `json:"chat_engine,omitempty"`
}

// Voices lists the voices of the speech endpoint (GET /v1/chat/voices, an extension). The
// reference service answers {"data": {"voices": […]}}; a bare list of voices is accepted too.
func (c *Client) Voices(ctx context.Context) ([]Voice, error) {
	res, err := c.do(ctx, &request{method: http.MethodGet, path: "/v1/chat/voices", retry: true})
	if err != nil {
		return nil, err
	}
	var list []Voice
	var obj struct {
		Voices []Voice `json:"voices"`
	}
	switch {
	case !res.isJSON:
		return nil, c.decodeError(res, "voices")
	case jsonscan.FirstByte(res.payload) == '[':
		if json.Unmarshal(res.payload, &list) != nil {
			return nil, c.decodeError(res, "voices")
		}
	case decodeObject(res.payload, &obj) && obj.Voices != nil:
		list = obj.Voices
	default:
		return nil, c.decodeError(res, "voices")
	}
	voices := list[:0]
	for _, v := range list {
		if v.Name != "" {
			voices = append(voices, v)
		}
	}
	return voices, nil
}

// Account reads the caller's balance and the price of a chat call (GET /v1/account, an extension).
func (c *Client) Account(ctx context.Context) (*Account, error) {
	res, err := c.do(ctx, &request{method: http.MethodGet, path: "/v1/account", retry: true})
	if err != nil {
		return nil, err
	}
	return c.decodeAccount(res)
}

// decodeAccount reads an account answer: a balance or a price at least, and the chat engine
// when it is text.
func (c *Client) decodeAccount(res *response) (*Account, error) {
	var a struct {
		Balance    jsonInt `json:"balance"`
		Price      jsonInt `json:"price"`
		ChatEngine any     `json:"chat_engine"`
		Streams    any     `json:"streams"`
	}
	if !res.isJSON || !decodeObject(res.payload, &a) || (!a.Balance.ok && !a.Price.ok) {
		return nil, c.decodeError(res, "balance")
	}
	engine, _ := a.ChatEngine.(string) // anything but text is left out
	if list, ok := a.Streams.([]any); ok && slices.Contains(list, any("chat")) {
		c.streams.Store(true)
	}
	return &Account{Balance: firstInt(a.Balance), Price: firstInt(a.Price), ChatEngine: printable(engine, 200)}, nil
}

// printable is s on one line without control characters, cut to max runes: text from a
// service that is shown as it is.
func printable(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, ""))
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return s
}
