package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"parley/internal/jsonscan"
	"parley/settings"
)

// Limits on what a request may carry. docs/API.md lists them.
const (
	maxMessageRunes = 32000
	maxSpeechRunes  = 4096
	maxTokensLimit  = 32768
	// DefaultMaxBodyBytes caps a request body: a transcribe body with 10 MB
	// of audio in base64 (about 13.4 MB) fits.
	DefaultMaxBodyBytes = 16 << 20
)

// fields is a request body: a JSON object, its members not yet decoded, so
// that absent, null and ill-typed can each be told apart. Unknown members
// are ignored. jsonscan.Object splits it (validating it in one pass: a
// transcribe body carries up to 13.4 MB of base64 in one string).
type fields map[string]json.RawMessage

// readObject reads the request body as one JSON object.
func readObject(r *http.Request) (fields, *apiError) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, errorf(http.StatusUnsupportedMediaType, codeMediaType,
				"The request body must be JSON, sent with Content-Type: application/json.")
		}
	}
	body, err := readBody(r.Body, r.ContentLength)
	if err != nil {
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return nil, errorf(http.StatusRequestEntityTooLarge, codeBodyTooLarge,
				"The request body is larger than the service accepts (%d bytes).", tooBig.Limit)
		case clientGone(r):
			return nil, errClientClosed()
		}
		return nil, errorf(http.StatusBadRequest, codeBadJSON, "The request body could not be read.")
	}
	return parseObject(body)
}

// firstBodyBuffer is the buffer a body is first read into.
const firstBodyBuffer = 4 << 10

// readBody reads a request body into a buffer that grows with what arrives, never with what
// Content-Length announces (a client may announce 16 MiB and send one byte); announced only
// makes the last step land on the size, so that a body that does arrive whole is copied less.
func readBody(body io.Reader, announced int64) ([]byte, error) {
	size := firstBodyBuffer
	if announced >= 0 && announced < firstBodyBuffer {
		size = int(announced) + 1 // +1 to see the end without growing
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			next := 2 * cap(buf)
			if announced >= int64(len(buf)) && announced < int64(next) {
				next = int(announced) + 1
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// parseObject parses body as one JSON object with nothing after it.
func parseObject(body []byte) (fields, *apiError) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, errorf(http.StatusBadRequest, codeBadJSON, "The request body is empty; it must be a JSON object.")
	}
	if trimmed[0] != '{' {
		return nil, errorf(http.StatusBadRequest, codeBadJSON, "The request body must be a JSON object.")
	}
	f, err := jsonscan.Object(trimmed)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, codeBadJSON, "The request body is not valid JSON.")
	}
	return fields(f), nil
}

// isNull reports whether a present member is JSON null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// str decodes a string member. present is false when it is absent or null.
func (f fields) str(name string) (s string, present bool, e *apiError) {
	raw, ok := f[name]
	if !ok || isNull(raw) {
		return "", false, nil
	}
	s, ok = jsonscan.String(raw)
	if !ok {
		return "", false, errorf(http.StatusBadRequest, codeInvalidField, "The field %q must be a string.", name)
	}
	return s, true, nil
}

// requiredStr decodes a string member that must be present.
func (f fields) requiredStr(name string) (string, *apiError) {
	s, ok, e := f.str(name)
	if e != nil {
		return "", e
	}
	if !ok {
		return "", errorf(http.StatusBadRequest, codeInvalidField, "The field %q is required.", name)
	}
	return s, nil
}

// number decodes a number member into a new value; nil when absent or null.
func (f fields) number(name string) (*float64, *apiError) {
	raw, ok := f[name]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errorf(http.StatusBadRequest, codeInvalidField, "The field %q must be a number.", name)
	}
	return &v, nil
}

// integer decodes an integer member; a number with a fraction is ill-typed,
// one too large for any range is returned as math.MaxInt for the range check.
func (f fields) integer(name string) (*int, *apiError) {
	v, e := f.number(name)
	if e != nil || v == nil {
		if e != nil {
			e.Message = "The field \"" + name + "\" must be an integer."
		}
		return nil, e
	}
	if *v != math.Trunc(*v) {
		return nil, errorf(http.StatusBadRequest, codeInvalidField, "The field %q must be an integer.", name)
	}
	n := math.MaxInt
	switch {
	case *v < -1e15:
		n = math.MinInt
	case *v <= 1e15:
		n = int(*v)
	}
	return &n, nil
}

// readSettings decodes and range-checks persona, temperature, top_p and
// max_tokens; absent and null both leave a field nil.
func (f fields) readSettings() (settings.Config, *apiError) {
	var s settings.Config
	if p, ok, e := f.str("persona"); e != nil {
		return s, e
	} else if ok {
		s.Persona = &p
	}
	var e *apiError
	if s.Temperature, e = f.number("temperature"); e != nil {
		return s, e
	}
	if s.TopP, e = f.number("top_p"); e != nil {
		return s, e
	}
	if s.MaxTokens, e = f.integer("max_tokens"); e != nil {
		return s, e
	}
	return s, checkSettings(s)
}

// checkSettings enforces the ranges of the settings that are set: the
// settings package's, and the service's own bound on max_tokens.
func checkSettings(s settings.Config) *apiError {
	var re *settings.RangeError
	if err := s.Check(); errors.As(err, &re) {
		switch re.Field {
		case settings.FieldPersona:
			return errorf(http.StatusUnprocessableEntity, codeOutOfRange,
				"The persona is longer than %d characters.", settings.MaxPersonaRunes)
		case settings.FieldMaxTokens:
			// The range the service tells is its own, below.
		default:
			return errorf(http.StatusUnprocessableEntity, codeOutOfRange,
				"The %s must be between %v and %v.", re.Field, re.Min, re.Max)
		}
	}
	if s.MaxTokens != nil && (*s.MaxTokens < settings.MinMaxTokens || *s.MaxTokens > maxTokensLimit) {
		return errorf(http.StatusUnprocessableEntity, codeOutOfRange,
			"The max_tokens must be between %d and %d.", settings.MinMaxTokens, maxTokensLimit)
	}
	return nil
}

// chatBody is a decoded POST /v1/chat/messages body.
type chatBody struct {
	Message        string
	ConversationID string // "" starts a new conversation
	Settings       settings.Config
}

func decodeChat(f fields) (chatBody, *apiError) {
	var b chatBody
	var e *apiError
	if b.Message, e = f.requiredStr("message"); e != nil {
		return b, e
	}
	if b.ConversationID, _, e = f.str("conversation_id"); e != nil {
		return b, e
	}
	if b.Settings, e = f.readSettings(); e != nil {
		return b, e
	}
	return b, checkText(b.Message, "message", maxMessageRunes)
}

// checkText refuses text that is blank or longer than max characters; what names it.
func checkText(text, what string, max int) *apiError {
	if strings.TrimSpace(text) == "" {
		return errorf(http.StatusUnprocessableEntity, codeOutOfRange, "The %s is empty.", what)
	}
	if utf8.RuneCountInString(text) > max {
		return errorf(http.StatusUnprocessableEntity, codeOutOfRange, "The %s is longer than %d characters.", what, max)
	}
	return nil
}

// decodeConfigPatch decodes a PATCH .../config body: set fields change, null
// fields clear, absent fields stay. An empty persona is no persona.
func decodeConfigPatch(f fields) (settings.Patch, *apiError) {
	var p settings.Patch
	for _, name := range []settings.Field{settings.FieldPersona, settings.FieldTemperature, settings.FieldTopP, settings.FieldMaxTokens} {
		if raw, ok := f[string(name)]; ok && isNull(raw) {
			p.Clear = append(p.Clear, name)
		}
	}
	var e *apiError
	if p.Set, e = f.readSettings(); e != nil {
		return p, e
	}
	if p.Set.Persona != nil && *p.Set.Persona == "" {
		p.Set.Persona = nil
		p.Clear = append(p.Clear, settings.FieldPersona)
	}
	return p, nil
}

// speechBody is a decoded POST /v1/chat/speech body.
type speechBody struct {
	Text  string
	Voice string // "" for the default voice
}

func decodeSpeech(f fields) (speechBody, *apiError) {
	var b speechBody
	var e *apiError
	if b.Text, e = f.requiredStr("text"); e != nil {
		return b, e
	}
	if b.Voice, _, e = f.str("voice"); e != nil {
		return b, e
	}
	return b, checkText(b.Text, "text", maxSpeechRunes)
}
