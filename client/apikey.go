package client

import (
	"fmt"
	"log/slog"
)

const redacted = "[REDACTED]"

// APIKey is the secret that authenticates requests; every way of printing or encoding it yields "[REDACTED]".
type APIKey string

// String returns "[REDACTED]" so the key never reaches logs or error text.
func (k APIKey) String() string { return redacted }

// GoString returns "[REDACTED]" so %#v never shows the key.
func (k APIKey) GoString() string { return redacted }

// Format writes "[REDACTED]" for every fmt verb and flag.
func (k APIKey) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalJSON encodes the key as the JSON string "[REDACTED]".
func (k APIKey) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText encodes the key as "[REDACTED]".
func (k APIKey) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue makes log/slog print "[REDACTED]" for the key.
func (k APIKey) LogValue() slog.Value { return slog.StringValue(redacted) }

// Reveal returns the raw key; call it only where the key must be sent or stored.
func (k APIKey) Reveal() string { return string(k) }
