package client

import (
	"bytes"
	"encoding/json"
	"strings"

	"parley/internal/jsonscan"
)

// MessageID identifies a message. The spec gives message IDs as integers, but a service may write
// them as strings: a MessageID keeps the JSON form it came in and is written back the same way,
// so `parley chat --json` and `parley history --json` print IDs in the type the service gave.
type MessageID struct {
	text   string // the string's contents, or the number as the service wrote it
	number bool   // the service wrote a JSON number
}

// String returns the ID as text, for display.
func (id MessageID) String() string { return id.text }

// IsZero reports whether the service gave no ID.
func (id MessageID) IsZero() bool { return id.text == "" }

// MarshalJSON writes a number as a number and anything else as a string; the zero ID is null.
func (id MessageID) MarshalJSON() ([]byte, error) {
	switch {
	case id.text == "":
		return []byte("null"), nil
	case id.number:
		return []byte(id.text), nil
	}
	return json.Marshal(id.text)
}

// UnmarshalJSON keeps a non-empty string or a number; any other value gives the zero ID.
func (id *MessageID) UnmarshalJSON(b []byte) error {
	*id = MessageID{}
	b = bytes.TrimSpace(b)
	switch c := jsonscan.FirstByte(b); {
	case c == '"':
		if s, ok := jsonscan.String(b); ok {
			id.text = strings.TrimSpace(s)
		}
	case c == '-' || (c >= '0' && c <= '9'):
		var n json.Number
		if json.Unmarshal(b, &n) == nil {
			*id = MessageID{text: string(b), number: true}
		}
	}
	return nil
}

// firstMessageID returns the first ID that was given.
func firstMessageID(ids ...MessageID) MessageID {
	for _, id := range ids {
		if !id.IsZero() {
			return id
		}
	}
	return MessageID{}
}
