package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"unicode"
	"unicode/utf8"

	"parley/internal/jsonscan"
)

// ConversationID identifies a conversation. It keeps the JSON form in which the service wrote
// it, a string or a number, and goes back to the service in that form; String gives it for display.
//
// An ID that came from the service compares equal only to IDs of the same form; compare String
// values when one side was typed by a person.
type ConversationID struct {
	text string // the string's contents, or the number as the service wrote it
	form idForm
}

// idForm is the JSON form of a conversation ID.
type idForm uint32

const (
	formUnknown idForm = iota // typed by a person, all digits: a string or a number to the service
	formString                // a JSON string
	formNumber                // a JSON number
)

// ParseConversationID reads a conversation ID typed by a person, such as a command-line argument.
// It goes to the service as a JSON string, except that an ID of digits only is sent as a number
// when the service writes its IDs as numbers (see Client.SendMessage).
func ParseConversationID(s string) (ConversationID, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ConversationID{}, errors.New("empty conversation ID")
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, unicode.IsControl) {
		return ConversationID{}, errors.New("the conversation ID contains control characters or invalid UTF-8")
	}
	form := formString
	if isDigits(s) && (s == "0" || s[0] != '0') {
		form = formUnknown // a JSON number has no leading zero, so only these may be numbers
	}
	return ConversationID{text: s, form: form}, nil
}

// String returns the ID as text, for display and for paths.
func (id ConversationID) String() string { return id.text }

// IsZero reports whether the ID is empty, as in a request that starts a new conversation.
func (id ConversationID) IsZero() bool { return id.text == "" }

// MarshalJSON writes the ID in the form the service gave it: a number stays a number. An ID
// typed by a person is written as a string, and the zero ID as "".
func (id ConversationID) MarshalJSON() ([]byte, error) {
	if id.form == formNumber {
		return []byte(id.text), nil
	}
	return json.Marshal(id.text)
}

// UnmarshalJSON reads an ID given as a JSON string or number; null and "" give the zero ID.
func (id *ConversationID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimRight(b[jsonscan.SkipSpace(b, 0):], " \t\r\n")
	switch c := jsonscan.FirstByte(b); {
	case c == 'n' && string(b) == "null":
		*id = ConversationID{}
	case c == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if strings.TrimSpace(s) == "" {
			*id = ConversationID{}
			return nil
		}
		*id = ConversationID{text: s, form: formString}
	case c == '-' || (c >= '0' && c <= '9'):
		var n json.Number
		if err := json.Unmarshal(b, &n); err != nil {
			return err
		}
		*id = ConversationID{text: string(b), form: formNumber}
	default:
		return errors.New("a conversation ID must be a JSON string or number")
	}
	return nil
}

// learnIDForm records the form in which the service writes conversation IDs.
func (c *Client) learnIDForm(id ConversationID) {
	if id.form != formUnknown && !id.IsZero() {
		c.idForm.Store(uint32(id.form))
	}
}

// idToSend returns id in the form the service uses. Only an all-digit ID typed by a person is in
// doubt. When this client has not yet seen an ID from the service, it reads the first page of the
// conversation list once (a free call): the IDs there show the form. If the list is empty or
// cannot be read, the ID goes as a string, which a service that wants a number refuses with an
// error and without a charge. The chat call itself is never sent twice to find out.
func (c *Client) idToSend(ctx context.Context, id ConversationID) (ConversationID, error) {
	if id.form != formUnknown {
		return id, nil
	}
	if idForm(c.idForm.Load()) == formUnknown && c.listedForForm.CompareAndSwap(false, true) {
		if _, err := c.ListConversations(ctx, ListConversationsRequest{}); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return id, cerr
			}
			c.log.LogAttrs(ctx, slog.LevelInfo, "could not learn the form of conversation IDs; sending the ID as a string",
				slog.String("error", c.redact(err.Error())))
		}
	}
	id.form = formString
	if idForm(c.idForm.Load()) == formNumber {
		id.form = formNumber
	}
	return id, nil
}
