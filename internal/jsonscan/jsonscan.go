// Package jsonscan splits JSON objects into their members without decoding them: the one scanner
// of the API client (service answers) and of the service (request bodies). The members are
// slices of the input, so that a large string in it, base64 audio of several megabytes, is
// scanned once and never copied until its value is asked for (String).
//
// It has two entries, for input in two states:
//   - Object reads input nobody has checked (the service's request bodies): it validates as it
//     splits, in one pass, and refuses anything encoding/json would refuse as an object.
//   - Members reads input already checked with json.Valid (the client validates an answer whole,
//     since an answer may be any JSON value, then splits it and the objects nested in it): it
//     does not validate again, so that a nested object holding the audio is not scanned twice.
//
// What both do, decided once here:
//   - Duplicate keys: a later member replaces an earlier one, as encoding/json does.
//   - Keys are kept exactly as written (decoded from JSON, not folded): callers look members up
//     by exact name. The client's typed decoding, which is encoding/json into structs, matches
//     field names case-insensitively after the split; that is encoding/json's rule, not this
//     package's.
//   - Keys and String decode invalid UTF-8 as encoding/json does (U+FFFD), and a string without
//     escapes is taken as it stands.
//   - White space around the object and around each value is skipped; a member's value has none.
//
// Where they differ, by design:
//   - Object refuses trailing data after the object, an ill-formed string, number or literal,
//     and members nested more than MaxDepth containers deep (a bound against a body crafted to
//     exhaust the stack). It returns ErrSyntax and no members.
//   - Members sets no bound of its own (json.Valid's applies: encoding/json nests up to 10,000
//     deep) and, given input that is not valid JSON, returns the members read up to the
//     first ill-formed one and never panics; which ones is not promised.
//
// Why not encoding/json: the benchmarks beside this file measure the largest bodies each side
// reads. A 13.4 MB transcribe request (BenchmarkObject_*): Object 28-52 ms and 14 MB a body,
// encoding/json into map[string]json.RawMessage 260-370 ms and 28 MB, into a struct 180-200 ms
// and 14 MB. The client's 6.6 MB speech answer (BenchmarkParseAnswer_* in package client):
// json.Valid and Members 48-55 ms and 7 MB, encoding/json 280-380 ms and 21 MB. That is 5 to 10
// times the CPU on the service's largest request, the one its admission gate queues, and on the
// answer a spoken reply waits for.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"
)

// ErrSyntax is Object's error for input that is not exactly one well-formed JSON object.
var ErrSyntax = errors.New("invalid JSON")

// MaxDepth bounds how deep Object lets containers nest inside a member's value.
const MaxDepth = 64

// Object splits b, which must be exactly one JSON object with optional white space around it,
// into its members, validating b as it goes. It returns ErrSyntax, and no members, for anything
// else.
func Object(b []byte) (map[string]json.RawMessage, error) {
	m, err := split(b, false)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Members splits b, valid JSON (json.Valid), into its members when it is an object; it returns
// nil for any other value. b is not checked again.
func Members(b []byte) map[string]json.RawMessage {
	if FirstByte(b) != '{' {
		return nil
	}
	m, _ := split(b, true)
	return m
}

// split reads the object at the start of b. trusted skips validation (Members); otherwise
// (Object) any flaw is ErrSyntax. What was read before a flaw is returned with it.
func split(b []byte, trusted bool) (map[string]json.RawMessage, error) {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, ErrSyntax
	}
	m := map[string]json.RawMessage{}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, rest(b, i+1, trusted)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return m, ErrSyntax
		}
		end, err := stringEnd(b, i, trusted)
		if err != nil {
			return m, err
		}
		key, ok := unquote(b[i:end])
		if !ok {
			return m, ErrSyntax
		}
		if i = SkipSpace(b, end); i >= len(b) || b[i] != ':' {
			return m, ErrSyntax
		}
		i = SkipSpace(b, i+1)
		vend, err := valueEnd(b, i, trusted)
		if err != nil {
			return m, err
		}
		m[key] = json.RawMessage(b[i:vend])
		if i = SkipSpace(b, vend); i >= len(b) {
			return m, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case '}':
			return m, rest(b, i+1, trusted)
		default:
			return m, ErrSyntax
		}
	}
}

// rest checks that only white space follows the object, unless the input is trusted.
func rest(b []byte, i int, trusted bool) error {
	if !trusted && SkipSpace(b, i) != len(b) {
		return ErrSyntax
	}
	return nil
}

// stringEnd returns the index after the string that starts at b[i] == '"'.
func stringEnd(b []byte, i int, trusted bool) (int, error) {
	if trusted {
		return validStringEnd(b, i), nil
	}
	return skipString(b, i)
}

// valueEnd returns the index after the value that starts at b[i].
func valueEnd(b []byte, i int, trusted bool) (int, error) {
	if trusted {
		return validValueEnd(b, i), nil
	}
	return skipValue(b, i, 0)
}

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// FirstByte returns the first byte of a JSON value after white space, or 0 when there is none.
func FirstByte(b []byte) byte {
	if i := SkipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// String returns the text of b, valid JSON with optional white space around it, when b is a
// string. A string without escapes, such as a long base64 payload, is taken as it stands
// instead of being scanned again.
func String(b []byte) (string, bool) {
	b = bytes.TrimRight(b[SkipSpace(b, 0):], " \t\r\n")
	if len(b) < 2 || b[0] != '"' {
		return "", false
	}
	return unquote(b)
}

// unquote decodes raw, a JSON string with its quotes. Without escapes and with valid UTF-8 it is
// a copy; otherwise encoding/json decodes it (replacing invalid UTF-8 as it does).
func unquote(raw []byte) (string, bool) {
	if s := raw[1 : len(raw)-1]; bytes.IndexByte(s, '\\') < 0 && bytes.IndexByte(s, '"') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// validStringEnd returns the index after the valid JSON string that starts at b[i] == '"'.
func validStringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); {
		q := bytes.IndexByte(b[j:], '"')
		if q < 0 {
			return len(b)
		}
		j += q
		n := 0 // backslashes before the quote: an odd number escapes it
		for k := j - 1; k > i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
	return len(b)
}

// validValueEnd returns the index after the valid JSON value that starts at b[i].
func validValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return validStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = validStringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j
}

// skipString returns the index after the string that starts at b[i] == '"', checking its
// escapes and that it holds no control characters.
func skipString(b []byte, i int) (int, error) {
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return 0, ErrSyntax
		case c == '\\':
			if i+1 >= len(b) {
				return 0, ErrSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, ErrSyntax
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, ErrSyntax
					}
				}
				i += 6
			default:
				return 0, ErrSyntax
			}
		default:
			i++
		}
	}
	return 0, ErrSyntax
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipValue returns the index after the value that starts at b[i], depth containers deep.
func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		if depth >= MaxDepth {
			return 0, ErrSyntax
		}
		return skipContainer(b, i, depth+1)
	default:
		// A number or a literal: it runs to the next delimiter, and encoding/json judges it
		// (it is short).
		j := i
		for j < len(b) && !isDelim(b[j]) {
			j++
		}
		if j == i || !json.Valid(b[i:j]) {
			return 0, ErrSyntax
		}
		return j, nil
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\n', '\r', '\t', ':', '"', '{', '[':
		return true
	}
	return false
}

// skipContainer returns the index after the object or array at b[i].
func skipContainer(b []byte, i, depth int) (int, error) {
	obj := b[i] == '{'
	closing := byte(']')
	if obj {
		closing = '}'
	}
	i = SkipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, nil
	}
	for {
		var err error
		if obj {
			if i >= len(b) || b[i] != '"' {
				return 0, ErrSyntax
			}
			if i, err = skipString(b, i); err != nil {
				return 0, err
			}
			i = SkipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, ErrSyntax
			}
			i = SkipSpace(b, i+1)
		}
		if i, err = skipValue(b, i, depth); err != nil {
			return 0, err
		}
		i = SkipSpace(b, i)
		if i >= len(b) {
			return 0, ErrSyntax
		}
		switch b[i] {
		case ',':
			i = SkipSpace(b, i+1)
		case closing:
			return i + 1, nil
		default:
			return 0, ErrSyntax
		}
	}
}
