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
		var err error
		if mimeType, payload, isBase64, err = splitDataURI(s); err != nil {
			return "", nil, err
		}
	}
	lim := dataLimit{max: max, audio: audio}
	decode := decodeBase64Data
	if !isBase64 {
		decode = decodeEscapedData
	}
	data, err := decode(payload, lim)
	if err != nil {
		return "", nil, err
	}
	return mimeType, data, nil
}

// splitDataURI splits "data:<mime>[;param...][;base64],<payload>" into its media type (text/plain
// when none is given), its payload and whether the payload is base64.
func splitDataURI(s string) (mimeType, payload string, isBase64 bool, err error) {
	comma := strings.IndexByte(s, ',')
	if comma < 0 {
		return "", "", false, errors.New("data URI has no comma before its data")
	}
	params := strings.Split(s[5:comma], ";")
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
		return "", "", false, fmt.Errorf("data URI has an invalid media type %q", truncate(mimeType, 40))
	}
	return mimeType, s[comma+1:], isBase64, nil
}

// dataLimit is the most decoded bytes parseDataURI accepts (none when max <= 0), and whether
// they are audio (whose refusal is ErrAudioTooLarge).
type dataLimit struct {
	max   int
	audio bool
}

// over reports whether n decoded bytes are more than the limit.
func (l dataLimit) over(n int64) bool { return l.max > 0 && n > int64(l.max) }

// tooLarge is the refusal of n decoded bytes (n < 0: more than the limit, exactly unknown).
func (l dataLimit) tooLarge(n int64) error {
	return &sizeError{what: "decoded data", size: n, limit: int64(l.max), audio: l.audio}
}

// decodeEscapedData decodes a data URI's percent-escaped (not base64) payload.
func decodeEscapedData(payload string, lim dataLimit) ([]byte, error) {
	if lim.max > 0 && len(payload) > 3*lim.max {
		return nil, lim.tooLarge(-1)
	}
	data, err := url.PathUnescape(payload)
	if err != nil {
		return nil, fmt.Errorf("data URI: %w", err)
	}
	if lim.over(int64(len(data))) {
		return nil, lim.tooLarge(int64(len(data)))
	}
	return []byte(data), nil
}

// decodeBase64Data decodes a base64 payload, standard or URL-safe, padded or not, with any
// whitespace or percent-escapes in it, checking its size before decoding it.
func decodeBase64Data(payload string, lim dataLimit) ([]byte, error) {
	payload = cleanBase64(payload)
	// Check the size before decoding: valid base64 of n characters (without padding) holds n*3/4 bytes.
	n := len(payload)
	for i := 0; i < 2 && n > 0 && payload[n-1] == '='; i++ {
		n--
	}
	if decoded := int64(n) * 3 / 4; lim.over(decoded) {
		return nil, lim.tooLarge(decoded)
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
		return nil, fmt.Errorf("invalid base64 data: %w", err)
	}
	if lim.over(int64(len(data))) {
		return nil, lim.tooLarge(int64(len(data)))
	}
	return data, nil
}

// cleanBase64 drops the whitespace from a base64 payload and undoes its percent-escapes (when
// they are valid).
func cleanBase64(payload string) string {
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
	return payload
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
