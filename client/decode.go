package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"parley/internal/jsonscan"
)

// This file holds the reading of response bodies. The service's shapes are only partly fixed by
// the spec, so each answer is decoded into a typed struct (one per endpoint, in the file of its
// endpoint) that names the reference service's fields and the variants other services are known
// to use. Every field has one meaning and one JSON type: a value of another type counts as
// absent, so a billing object named "points" is never read as a number of points, and a
// "message" object is never read as the reply's text. The field types below carry that rule.

// parseAnswer reads a successful JSON body: the members of an object body (nil for any other
// JSON value) and the payload, which is what an envelope carries ({"data": …}, {"code", "msg",
// "data": …}, and such an envelope nested once) or else the whole body. ok is false when the body
// is not exactly one JSON value. The body is validated once (json.Valid); jsonscan.Members then
// splits it and the objects in it without scanning them again, and every member and the payload
// are slices of the body.
func parseAnswer(body []byte) (top map[string]json.RawMessage, payload []byte, ok bool) {
	if !json.Valid(body) {
		return nil, nil, false
	}
	if jsonscan.FirstByte(body) != '{' {
		return nil, body, true
	}
	top = jsonscan.Members(body)
	return top, envelopePayload(top, body), true
}

// envelopePayload returns the object or array under "data", unwrapping a second {code, data}
// envelope inside it, or else body.
func envelopePayload(top map[string]json.RawMessage, body []byte) []byte {
	d := top["data"]
	switch jsonscan.FirstByte(d) {
	case '[':
		return d
	case '{':
		if inner := jsonscan.Members(d); len(inner) <= 3 {
			_, hasCode := inner["code"]
			if dd := inner["data"]; hasCode && (jsonscan.FirstByte(dd) == '{' || jsonscan.FirstByte(dd) == '[') {
				return dd // {code, data: {code, msg, data: …}}
			}
		}
		return d
	}
	return body
}

// decodeObject decodes the JSON object b into v, which is made of the tolerant field types below
// and of structs and slices of them; a member of an unexpected JSON type is left unset. It
// reports false when b is not an object.
func decodeObject(b []byte, v any) bool {
	if jsonscan.FirstByte(b) != '{' {
		return false
	}
	err := json.Unmarshal(b, v)
	var te *json.UnmarshalTypeError
	return err == nil || errors.As(err, &te)
}

// isNull reports whether b is the JSON literal null.
func isNull(b []byte) bool { return jsonscan.FirstByte(b) == 'n' }

// jsonString is a member read only when it is a JSON string.
type jsonString struct {
	s  string
	ok bool
}

// UnmarshalJSON keeps a string and ignores any other value.
func (f *jsonString) UnmarshalJSON(b []byte) error {
	f.s, f.ok = jsonscan.String(b)
	return nil
}

// get returns the string and whether it was given.
func (f jsonString) get() (string, bool) { return f.s, f.ok }

// jsonInt is a whole number given as a JSON number or a numeric string.
type jsonInt struct {
	n  int64
	ok bool
}

// UnmarshalJSON keeps a whole number and ignores any other value.
func (f *jsonInt) UnmarshalJSON(b []byte) error {
	if s, ok := numberText(b); ok {
		f.n, f.ok = wholeNumber(s)
	}
	return nil
}

// ptr returns the number, or nil when none was given.
func (f jsonInt) ptr() *int64 {
	if !f.ok {
		return nil
	}
	n := f.n
	return &n
}

// jsonFloat is a number given as a JSON number or a numeric string.
type jsonFloat struct {
	f  float64
	ok bool
}

// UnmarshalJSON keeps a finite number and ignores any other value.
func (f *jsonFloat) UnmarshalJSON(b []byte) error {
	if s, ok := numberText(b); ok {
		v, err := strconv.ParseFloat(s, 64)
		f.f, f.ok = v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	return nil
}

// jsonTime is a timestamp in any form parseTime reads; an unreadable one counts as absent.
type jsonTime struct{ t time.Time }

// UnmarshalJSON keeps a readable timestamp and ignores anything else.
func (f *jsonTime) UnmarshalJSON(b []byte) error {
	switch c := jsonscan.FirstByte(b); {
	case c == '"':
		if s, ok := jsonscan.String(b); ok {
			f.t, _ = parseTime(s)
		}
	case c == '-' || (c >= '0' && c <= '9'):
		f.t, _ = parseTime(json.Number(bytes.TrimSpace(b)))
	}
	return nil
}

// jsonID is a message identifier given as a non-empty string or a number, kept as text.
type jsonID struct{ s string }

// UnmarshalJSON keeps a string or a number and ignores any other value.
func (f *jsonID) UnmarshalJSON(b []byte) error {
	switch c := jsonscan.FirstByte(b); {
	case c == '"':
		s, _ := jsonscan.String(b)
		f.s = strings.TrimSpace(s)
	case c == '-' || (c >= '0' && c <= '9'):
		f.s = string(bytes.TrimSpace(b))
	}
	return nil
}

// jsonConvID is a conversation ID as the service wrote it; a value that is not one is absent.
type jsonConvID struct{ id ConversationID }

// UnmarshalJSON keeps a string or a number and ignores any other value.
func (f *jsonConvID) UnmarshalJSON(b []byte) error {
	if f.id.UnmarshalJSON(b) != nil {
		f.id = ConversationID{}
	}
	return nil
}

// numberText returns the text of a JSON number, or of a JSON string holding one.
func numberText(b []byte) (string, bool) {
	switch c := jsonscan.FirstByte(b); {
	case c == '"':
		s, ok := jsonscan.String(b)
		return strings.TrimSpace(s), ok
	case c == '-' || (c >= '0' && c <= '9'):
		return string(bytes.TrimSpace(b)), true
	}
	return "", false
}

// wholeNumber reads a whole number written as an integer or as a float without a fraction.
func wholeNumber(s string) (int64, bool) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// pageCursor is where list answers put the cursor of the next page. "next" may also be the URL
// of the next page, whose "cursor" parameter is then the cursor; a page number is not a cursor.
type pageCursor struct {
	NextCursor         jsonID     `json:"next_cursor"`
	NextCursorCamel    jsonID     `json:"nextCursor"`
	NextPageToken      jsonID     `json:"next_page_token"`
	NextPageTokenCamel jsonID     `json:"nextPageToken"`
	Next               jsonString `json:"next"`
}

// cursor returns the next page's cursor, or "" when there is none.
func (p pageCursor) cursor() string {
	for _, c := range []jsonID{p.NextCursor, p.NextCursorCamel, p.NextPageToken, p.NextPageTokenCamel} {
		if c.s != "" {
			return c.s
		}
	}
	next, ok := p.Next.get()
	next = strings.TrimSpace(next)
	if !ok || next == "" {
		return ""
	}
	if strings.Contains(next, "://") || strings.HasPrefix(next, "/") || strings.HasPrefix(next, "?") {
		u, err := url.Parse(next)
		if err != nil {
			return ""
		}
		return u.Query().Get("cursor")
	}
	return next
}

// envelopeFailure reports whether a 2xx body is in fact an error: a non-zero code, "success":
// false, "ok": false, a failure status, or an error without data. top holds the body's members.
func envelopeFailure(top map[string]json.RawMessage) (code, message string, failed bool) {
	if top == nil {
		return "", "", false
	}
	errObj := jsonscan.Members(top["error"]) // nil unless an object
	msg := func() string {
		for _, o := range []map[string]json.RawMessage{errObj, top} {
			for _, k := range []string{"msg", "message", "error_description", "detail", "error", "errmsg", "error_msg"} {
				if s, ok := jsonscan.String(o[k]); ok {
					return s
				}
			}
		}
		return ""
	}
	for _, k := range []string{"code", "errcode", "error_code", "errorCode"} {
		v, ok := top[k]
		if !ok || isNull(v) {
			continue
		}
		if !successCode(v) {
			return codeText(v), msg(), true
		}
	}
	if b, ok := rawBool(top["success"]); ok && !b {
		return codeText(top["code"]), msg(), true
	}
	if b, ok := rawBool(top["ok"]); ok && !b {
		return codeText(top["code"]), msg(), true
	}
	if s, ok := jsonscan.String(top["status"]); ok {
		switch strings.ToLower(s) {
		case "error", "fail", "failed", "failure":
			return codeText(top["code"]), msg(), true
		}
	}
	if _, hasData := top["data"]; !hasData {
		if s, ok := jsonscan.String(top["error"]); ok && s != "" {
			return "", s, true
		}
		if len(errObj) > 0 {
			c := codeText(errObj["code"])
			if c == "" {
				c = codeText(errObj["type"])
			}
			return c, msg(), true
		}
	}
	return "", "", false
}

// rawBool returns the boolean a raw JSON value holds.
func rawBool(b json.RawMessage) (v, ok bool) {
	switch jsonscan.FirstByte(b) {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}

// codeText is an envelope code as text: a trimmed string or a number's digits.
func codeText(b json.RawMessage) string {
	var id jsonID
	_ = id.UnmarshalJSON(b)
	return id.s
}

// successCode reports whether an envelope code means success: 0, a 2xx number, or a word like "ok".
func successCode(b json.RawMessage) bool {
	switch c := jsonscan.FirstByte(b); {
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(b)), 64)
		return err == nil && (f == 0 || (f >= 200 && f < 300))
	case c == '"':
		s, _ := jsonscan.String(b)
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "", "0", "00", "000", "200", "ok", "success", "succeeded", "successful":
			return true
		}
		return false
	case c == 't' || c == 'f':
		v, _ := rawBool(b)
		return v
	}
	return true
}

// errorDetails extracts the service's code and a human message from an error body of any shape:
// JSON (whole or truncated), HTML or plain text.
func errorDetails(body []byte, contentType string) (code, message string) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return "", ""
	}
	switch {
	case trimmed[0] == '{' || trimmed[0] == '[' || trimmed[0] == '"':
		code, message = jsonErrorDetails(trimmed)
		if message != "" || code != "" {
			return code, message
		}
		if trimmed[0] != '"' {
			return "", "" // JSON without a message: the status text will do
		}
	case looksHTML(trimmed, contentType):
		return "", htmlText(trimmed)
	}
	return "", cleanMessage(string(trimmed))
}

// jsonErrorDetails walks JSON tokens, so it also reads truncated bodies up to the cut.
func jsonErrorDetails(body []byte) (code, message string) {
	type frame struct {
		obj     bool
		wantKey bool
		key     string
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []frame
	found := map[string]string{}
	record := func(key string, v any) {
		if _, seen := found[key]; seen {
			return
		}
		switch x := v.(type) {
		case string:
			if x != "" {
				found[key] = x
			}
		case json.Number:
			found[key] = string(x)
		}
	}
	for steps := 0; steps < 10000; steps++ {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{', '[':
				key := ""
				if n := len(stack); n > 0 {
					top := &stack[n-1]
					key = top.key
					if top.obj {
						top.wantKey = true
					}
				}
				stack = append(stack, frame{obj: d == '{', wantKey: d == '{', key: key})
			default:
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			}
			continue
		}
		if n := len(stack); n > 0 && stack[n-1].obj {
			top := &stack[n-1]
			if top.wantKey {
				top.key, _ = tok.(string)
				top.wantKey = false
				continue
			}
			top.wantKey = true
			record(top.key, tok)
			continue
		}
		key := ""
		if n := len(stack); n > 0 {
			key = stack[n-1].key
		}
		record(key, tok)
	}
	for _, k := range []string{"message", "msg", "detail", "error_description", "error", "errmsg", "error_msg", "errors", "description", "title", ""} {
		if s, ok := found[k]; ok && !isNumber(s) {
			message = cleanMessage(s)
			break
		}
	}
	for _, k := range []string{"code", "error_code", "errorCode", "errcode", "type"} {
		if s, ok := found[k]; ok {
			code = truncate(cleanMessage(s), 100)
			break
		}
	}
	return code, message
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func looksHTML(b []byte, contentType string) bool {
	if strings.Contains(strings.ToLower(contentType), "html") {
		return true
	}
	if b[0] != '<' {
		return false
	}
	head := asciiLower(b[:min(len(b), 512)])
	for _, tag := range []string{"<!doctype", "<html", "<head", "<body", "<title", "<h1", "<p>", "<center", "<div"} {
		if bytes.Contains(head, []byte(tag)) {
			return true
		}
	}
	return false
}

// htmlText turns an HTML error page into a short message: its title, or else its visible text
// (script and style left out).
func htmlText(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b))
	var text, title strings.Builder
	inTitle, skip := false, false
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if t := cleanMessage(title.String()); t != "" {
				return t // a title cut off by the end of the body still names the page
			}
			return cleanMessage(text.String())
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			open := tt == html.StartTagToken
			switch atom.Lookup(name) {
			case atom.Title:
				if !open {
					if t := cleanMessage(title.String()); t != "" {
						return t
					}
					title.Reset()
				}
				inTitle = open
			case atom.Script, atom.Style:
				skip = open
			}
			text.WriteByte(' ')
		case html.TextToken:
			switch {
			case inTitle:
				title.Write(z.Text())
			case !skip && text.Len() < 4*maxMessage:
				text.Write(z.Text())
			}
		}
	}
}

// asciiLower lowers ASCII letters only, keeping every byte in place.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// cleanMessage makes text from a response fit for one line: no control characters, single spaces, bounded length.
func cleanMessage(s string) string {
	if len(s) > 8*maxMessage {
		s = s[:8*maxMessage]
	}
	var b strings.Builder
	space := false
	runes := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			runes++
			space = false
		}
		if runes >= maxMessage {
			return strings.TrimRight(b.String(), " ") + "…"
		}
		b.WriteRune(r)
		runes++
	}
	return b.String()
}

// bodyStart is the beginning of a body for error messages: printable, one line, at most 200 bytes.
func bodyStart(body []byte) string {
	s := string(body[:min(len(body), 400)])
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return truncate(strings.TrimSpace(s), 200)
}
