package server

import (
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// The request bodies are small JSON objects, except transcribe bodies, which
// carry up to 13.4 MB of base64 in one string. encoding/json scans such a
// string four times on its way into a map and then a Go string; splitObject
// validates a body in one pass, with a tight loop over string contents, and
// hands long strings over without a second scan. FuzzSplitObject checks it
// against encoding/json.
//
// It stays because encoding/json loses what matters here, as measured by
// BenchmarkReadBody_* (jsonobj_bench_test.go) on a 13.4 MB transcribe body, on
// the 2-core machines this runs on: splitObject 28-52 ms and 14 MB a body,
// encoding/json into map[string]json.RawMessage 260-370 ms and 28 MB, and
// straight into a struct 180-200 ms and 14 MB. That is 5 to 10 times the CPU
// on the service's largest request, the one its admission gate queues.

var errSyntax = errors.New("invalid JSON")

// maxDepth bounds nesting inside ignored members.
const maxDepth = 64

// splitObject parses b, which must be exactly one JSON object with optional
// surrounding whitespace, into its members (later duplicates win).
func splitObject(b []byte) (fields, error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errSyntax
	}
	f := fields{}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return f, trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return nil, errSyntax
		}
		end, err := skipString(b, i)
		if err != nil {
			return nil, err
		}
		key, err := unquote(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errSyntax
		}
		i = skipSpace(b, i+1)
		vend, err := skipValue(b, i, 0)
		if err != nil {
			return nil, err
		}
		f[key] = json.RawMessage(b[i:vend])
		i = skipSpace(b, vend)
		if i >= len(b) {
			return nil, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return f, trailing(b, i+1)
		default:
			return nil, errSyntax
		}
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errSyntax
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i] == '"',
// checking its escapes and that it holds no control characters.
func skipString(b []byte, i int) (int, error) {
	i++
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c < 0x20:
			return 0, errSyntax
		case c == '\\':
			if i+1 >= len(b) {
				return 0, errSyntax
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return 0, errSyntax
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return 0, errSyntax
					}
				}
				i += 6
			default:
				return 0, errSyntax
			}
		default:
			i++
		}
	}
	return 0, errSyntax
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipValue returns the index after the value that starts at b[i].
func skipValue(b []byte, i, depth int) (int, error) {
	if i >= len(b) {
		return 0, errSyntax
	}
	switch c := b[i]; {
	case c == '"':
		return skipString(b, i)
	case c == '{' || c == '[':
		if depth >= maxDepth {
			return 0, errSyntax
		}
		return skipContainer(b, i, depth+1)
	default:
		// A number or a literal: it runs to the next delimiter, and
		// encoding/json judges it (it is short).
		j := i
		for j < len(b) && !isDelim(b[j]) {
			j++
		}
		if j == i || !json.Valid(b[i:j]) {
			return 0, errSyntax
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
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, nil
	}
	for {
		var err error
		if obj {
			if i >= len(b) || b[i] != '"' {
				return 0, errSyntax
			}
			if i, err = skipString(b, i); err != nil {
				return 0, err
			}
			i = skipSpace(b, i)
			if i >= len(b) || b[i] != ':' {
				return 0, errSyntax
			}
			i = skipSpace(b, i+1)
		}
		if i, err = skipValue(b, i, depth); err != nil {
			return 0, err
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, errSyntax
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case closing:
			return i + 1, nil
		default:
			return 0, errSyntax
		}
	}
}

// unquote decodes a JSON string already checked by skipString. Without
// escapes and with valid UTF-8 it is a copy; otherwise encoding/json decodes
// it (replacing invalid UTF-8 as it does).
func unquote(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' {
			plain = false
			break
		}
	}
	if plain && utf8.Valid(inner) {
		return string(inner), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errSyntax
	}
	return s, nil
}
