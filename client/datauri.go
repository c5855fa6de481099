package client

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// parseDataURI decodes a "data:<mime>;base64,..." URI or plain base64, refusing more than max
// decoded bytes (max <= 0 means no limit); audio marks the refusal as ErrAudioTooLarge.
func parseDataURI(s string, max int, audio bool) (string, []byte, error) {
	s = strings.TrimSpace(s)
	mimeType, payload, isBase64 := "", s, true
	if len(s) >= 5 && strings.EqualFold(s[:5], "data:") {
		comma := strings.IndexByte(s, ',')
		if comma < 0 {
			return "", nil, errors.New("data URI has no comma before its data")
		}
		meta := s[5:comma]
		payload = s[comma+1:]
		isBase64 = false
		params := strings.Split(meta, ";")
		mimeType = strings.TrimSpace(params[0])
		for _, p := range params[1:] {
			if strings.EqualFold(strings.TrimSpace(p), "base64") {
				isBase64 = true
			}
		}
		if mimeType == "" {
			mimeType = "text/plain"
		}
		if strings.ContainsAny(mimeType, " \t\r\n\"") {
			return "", nil, fmt.Errorf("data URI has an invalid media type %q", truncate(mimeType, 40))
		}
	}
	tooLarge := func(n int64) error {
		return &sizeError{what: "decoded data", size: n, limit: int64(max), audio: audio}
	}
	if !isBase64 {
		if max > 0 && len(payload) > 3*max {
			return "", nil, tooLarge(-1)
		}
		data, err := url.PathUnescape(payload)
		if err != nil {
			return "", nil, fmt.Errorf("data URI: %w", err)
		}
		if max > 0 && len(data) > max {
			return "", nil, tooLarge(int64(len(data)))
		}
		return mimeType, []byte(data), nil
	}
	if strings.ContainsAny(payload, " \t\r\n") {
		payload = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, payload)
	}
	if strings.ContainsRune(payload, '%') {
		if p, err := url.PathUnescape(payload); err == nil {
			payload = p
		}
	}
	// Check the size before decoding: valid base64 of n characters (without padding) holds n*3/4 bytes.
	n := len(payload)
	for i := 0; i < 2 && n > 0 && payload[n-1] == '='; i++ {
		n--
	}
	if decoded := int64(n) * 3 / 4; max > 0 && decoded > int64(max) {
		return "", nil, tooLarge(decoded)
	}
	enc := base64.StdEncoding
	if strings.ContainsAny(payload, "-_") {
		enc = base64.URLEncoding
	}
	if n == len(payload) && n%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	data, err := enc.DecodeString(payload)
	if err != nil {
		return "", nil, fmt.Errorf("invalid base64 data: %w", err)
	}
	if max > 0 && len(data) > max {
		return "", nil, tooLarge(int64(len(data)))
	}
	return mimeType, data, nil
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut with "…".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
