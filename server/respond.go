package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// apiError is a failure the client is told about: an HTTP status and the
// {"error": {"code", "message"}} body. Extra fields (say the balance after a
// refund) go beside code and message.
type apiError struct {
	Status  int
	Code    string
	Message string
	Balance *int64 // set when a chat call's charge was refunded: the balance after it
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error codes, one per kind of failure; docs/API.md lists them.
const (
	codeBadJSON             = "invalid_json"
	codeInvalidField        = "invalid_field"
	codeUnauthorized        = "unauthorized"
	codeInsufficient        = "insufficient_points"
	codeNotFound            = "not_found"
	codeMethod              = "method_not_allowed"
	codeBodyTooLarge        = "body_too_large"
	codeAudioTooLarge       = "audio_too_large"
	codeMediaType           = "unsupported_media_type"
	codeUnsupportedAudio    = "unsupported_audio"
	codeNarrowband          = "narrowband_audio"
	codeUnsupportedLanguage = "unsupported_language"
	codeOutOfRange          = "out_of_range"
	codeUnknownVoice        = "unknown_voice"
	codeUpstream            = "upstream_failed"
	codeEngineMissing       = "engine_missing"
	codeInternal            = "internal_error"
	// codeReplyStored: a chat call failed after its reply was stored and charged; the reply is
	// in the conversation's history (a client must not send the message again).
	codeReplyStored = "reply_stored"
)

type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Balance *int64 `json:"balance,omitempty"`
	Charged *int64 `json:"points_charged,omitempty"`
}

// writeJSON writes v as the response body with the given status. <, > and &
// are written as they are, not as \u003c escapes (which made text full of
// them six times larger): the body is JSON, never HTML (nosniff).
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode ends the body with a newline
		status = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"code":"internal_error","message":"The response could not be encoded."}}` + "\n")
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// writeData writes a 200 {"data": v} response.
func writeData(w http.ResponseWriter, v any) {
	writeJSON(w, http.StatusOK, struct {
		Data any `json:"data"`
	}{v})
}

// writeError writes e as the error body, with the headers its status needs.
func writeError(w http.ResponseWriter, e *apiError) {
	d := e.detail()
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="parley"`)
	}
	writeJSON(w, e.Status, errorBody{Error: d})
}

// detail is e as the error object carries it: a refunded chat call's balance, and that it
// charged nothing.
func (e *apiError) detail() errorDetail {
	d := errorDetail{Code: e.Code, Message: e.Message, Balance: e.Balance}
	if e.Balance != nil {
		zero := int64(0)
		d.Charged = &zero
	}
	return d
}

// timestamp formats a time the way the wire carries it: RFC 3339, UTC,
// milliseconds.
func timestamp(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
