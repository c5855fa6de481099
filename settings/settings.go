// Package settings holds the rules of a conversation's model settings (persona, temperature,
// top_p, max_tokens): the ranges the service accepts, and how one set of settings is laid over,
// or compared with, another. The service, the client, the app and the CLI all use it, so that
// each rule has one home. It imports nothing of Parley's.
package settings

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Config is a conversation's model settings; a nil field is not set (and not sent), which
// differs from zero.
type Config struct {
	// Persona is the system-style instruction describing the assistant's role.
	Persona *string `json:"persona,omitempty"`
	// Temperature is the sampling temperature.
	Temperature *float64 `json:"temperature,omitempty"`
	// TopP is the nucleus-sampling parameter.
	TopP *float64 `json:"top_p,omitempty"`
	// MaxTokens is the upper limit for generated tokens.
	MaxTokens *int `json:"max_tokens,omitempty"`
}

// The ranges the service accepts.
const (
	MinTemperature = 0.0
	MaxTemperature = 2.0
	MinTopP        = 0.0
	MaxTopP        = 1.0
	MinMaxTokens   = 1
	// MaxPersonaRunes is the longest persona, in characters.
	MaxPersonaRunes = 8000
)

// Field names one setting, as the API spells it.
type Field string

// The settings' names.
const (
	FieldPersona     Field = "persona"
	FieldTemperature Field = "temperature"
	FieldTopP        Field = "top_p"
	FieldMaxTokens   Field = "max_tokens"
)

// RangeError says a setting is outside the range the service accepts; the caller phrases it.
type RangeError struct {
	// Field is the setting.
	Field Field
	// Value is the value given; for the persona, its length in characters.
	Value float64
	// Min and Max bound the range; Max is +Inf for max_tokens, which has no upper bound here.
	Min, Max float64
}

// Error returns the facts in one line, for logs.
func (e *RangeError) Error() string {
	if math.IsInf(e.Max, 1) {
		return fmt.Sprintf("%s %v is below %v", e.Field, e.Value, e.Min)
	}
	return fmt.Sprintf("%s %v is outside %v to %v", e.Field, e.Value, e.Min, e.Max)
}

// Check returns a *RangeError for the first setting that is set and out of range, or nil.
func (c Config) Check() error {
	check := func(f Field, v, lo, hi float64) error {
		if !(v >= lo && v <= hi) { // NaN is out of range too
			return &RangeError{Field: f, Value: v, Min: lo, Max: hi}
		}
		return nil
	}
	if c.Persona != nil {
		if err := check(FieldPersona, float64(utf8.RuneCountInString(*c.Persona)), 0, MaxPersonaRunes); err != nil {
			return err
		}
	}
	if c.Temperature != nil {
		if err := check(FieldTemperature, *c.Temperature, MinTemperature, MaxTemperature); err != nil {
			return err
		}
	}
	if c.TopP != nil {
		if err := check(FieldTopP, *c.TopP, MinTopP, MaxTopP); err != nil {
			return err
		}
	}
	if c.MaxTokens != nil {
		if err := check(FieldMaxTokens, float64(*c.MaxTokens), MinMaxTokens, math.Inf(1)); err != nil {
			return err
		}
	}
	return nil
}

// IsZero reports whether no field of the config is set.
func (c Config) IsZero() bool {
	return c.Persona == nil && c.Temperature == nil && c.TopP == nil && c.MaxTokens == nil
}

// Equal reports whether two configs set the same fields to the same values.
func (c Config) Equal(o Config) bool {
	return samePtr(c.Persona, o.Persona) && samePtr(c.Temperature, o.Temperature) &&
		samePtr(c.TopP, o.TopP) && samePtr(c.MaxTokens, o.MaxTokens)
}

func samePtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// Patch changes some settings: the fields Set sets are given new values, and the fields named
// in Clear go back to "not set" (a field in both is cleared).
type Patch struct {
	// Set holds the new values; its nil fields are left as they are.
	Set Config
	// Clear names the fields to unset.
	Clear []Field
}

// Apply returns c changed by p. A chat call's settings are laid over a conversation's saved ones
// this way (a field sent with the call wins), and so is a PATCH of the saved ones.
func (c Config) Apply(p Patch) Config {
	over(&c.Persona, p.Set.Persona, p.clears(FieldPersona))
	over(&c.Temperature, p.Set.Temperature, p.clears(FieldTemperature))
	over(&c.TopP, p.Set.TopP, p.clears(FieldTopP))
	over(&c.MaxTokens, p.Set.MaxTokens, p.clears(FieldMaxTokens))
	return c
}

func (p Patch) clears(f Field) bool { return slices.Contains(p.Clear, f) }

// over sets *dst to v when v is set, and to nil when clear.
func over[T any](dst **T, v *T, clear bool) {
	if v != nil {
		*dst = v
	}
	if clear {
		*dst = nil
	}
}

// Changed returns the fields of next that differ from saved: what a PATCH must send. A field
// next leaves unset is not a change (the API has no way to unset a saved setting this way).
// Numbers are compared as the settings show them, to two decimals.
func Changed(saved, next Config) Config {
	var c Config
	if next.Persona != nil && (saved.Persona == nil || *saved.Persona != *next.Persona) {
		c.Persona = next.Persona
	}
	if next.Temperature != nil && (saved.Temperature == nil || !sameFloat(*saved.Temperature, *next.Temperature)) {
		c.Temperature = next.Temperature
	}
	if next.TopP != nil && (saved.TopP == nil || !sameFloat(*saved.TopP, *next.TopP)) {
		c.TopP = next.TopP
	}
	if next.MaxTokens != nil && (saved.MaxTokens == nil || *saved.MaxTokens != *next.MaxTokens) {
		c.MaxTokens = next.MaxTokens
	}
	return c
}

// sameFloat compares settings shown with two decimals.
func sameFloat(a, b float64) bool { return math.Abs(a-b) < 0.0005 }

// Number shows a setting's number in its shortest form (1.15, 0.3, 1), without the noise of a
// value stored by an earlier version as 1.1500000000000001.
func Number(v float64) string {
	if r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64); err == nil {
		v = r
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
