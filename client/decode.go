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
// is not exactly one JSON value. The body is validated once; members and payload are slices of it.
func parseAnswer(body []byte) (top map[string]json.RawMessage, payload []byte, ok bool) {
	if !json.Valid(body) {
		return nil, nil, false
	}
	if firstByte(body) != '{' {
		return nil, body, true
	}
	top = members(body)
	return top, envelopePayload(top, body), true
}

// envelopePayload returns the object or array under "data", unwrapping a second {code, data}
// envelope inside it, or else body.
func envelopePayload(top map[string]json.RawMessage, body []byte) []byte {
	d := top["data"]
	switch firstByte(d) {
	case '[':
		return d
	case '{':
		if inner := members(d); len(inner) <= 3 {
			_, hasCode := inner["code"]
			if dd := inner["data"]; hasCode && (firstByte(dd) == '{' || firstByte(dd) == '[') {
				return dd // {code, data: {code, msg, data: …}}
			}
		}
		return d
	}
	return body
}

// members splits a JSON object into its members (a later duplicate wins). b must be valid JSON:
// it is not checked again, so that a large answer is scanned once.
//
// It is hand-written, not json.Unmarshal into map[string]json.RawMessage, because that loses
// what matters on the largest answers, a speech answer with its audio in base64, which the
// spoken reply waits for: BenchmarkParseAnswer_* (decode_bench_test.go) on a 6.6 MB answer
// measured 48-55 ms and 7 MB with members, 280-380 ms and 21 MB with encoding/json (which
// validates again and copies every member). The typed decoding of each endpoint's answer is
// encoding/json; only this split is not.
func members(b []byte) map[string]json.RawMessage {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	m := map[string]json.RawMessage{}
	for i = skipSpace(b, i+1); i < len(b) && b[i] == '"'; {
		end := stringEnd(b, i)
		key, ok := rawString(b[i:end])
		if !ok {
			return m
		}
		i = skipSpace(b, end) // at ':'
		i = skipSpace(b, i+1) // at the value
		vend := valueEnd(b, i)
		m[key] = b[i:vend]
		if i = skipSpace(b, vend); i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return m
}

// skipSpace returns the index of the first byte at or after i that is not JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// stringEnd returns the index after the valid JSON string that starts at b[i] == '"'.
func stringEnd(b []byte, i int) int {
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

// valueEnd returns the index after the valid JSON value that starts at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return len(b)
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
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

// firstByte returns the first byte of a JSON value after white space, or 0 when there is none.
func firstByte(b []byte) byte {
	if i := skipSpace(b, 0); i < len(b) {
		return b[i]
	}
	return 0
}

// decodeObject decodes the JSON object b into v, which is made of the tolerant field types below
// and of structs and slices of them; a member of an unexpected JSON type is left unset. It
// reports false when b is not an object.
func decodeObject(b []byte, v any) bool {
	if firstByte(b) != '{' {
		return false
	}
	err := json.Unmarshal(b, v)
	var te *json.UnmarshalTypeError
	return err == nil || errors.As(err, &te)
}

// isNull reports whether b is the JSON literal null.
func isNull(b []byte) bool { return firstByte(b) == 'n' }

// jsonString is a member read only when it is a JSON string.
type jsonString struct {
	s  string
	ok bool
}

// UnmarshalJSON keeps a string and ignores any other value.
func (f *jsonString) UnmarshalJSON(b []byte) error {
	f.s, f.ok = rawString(b)
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
	switch c := firstByte(b); {
	case c == '"':
		if s, ok := rawString(b); ok {
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
	switch c := firstByte(b); {
	case c == '"':
		s, _ := rawString(b)
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
	switch c := firstByte(b); {
	case c == '"':
		s, ok := rawString(b)
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
	errObj := members(top["error"]) // nil unless an object
	msg := func() string {
		for _, o := range []map[string]json.RawMessage{errObj, top} {
			for _, k := range []string{"msg", "message", "error_description", "detail", "error", "errmsg", "error_msg"} {
				if s, ok := rawString(o[k]); ok {
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
	if s, ok := rawString(top["status"]); ok {
		switch strings.ToLower(s) {
		case "error", "fail", "failed", "failure":
			return codeText(top["code"]), msg(), true
		}
	}
	if _, hasData := top["data"]; !hasData {
		if s, ok := rawString(top["error"]); ok && s != "" {
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

// rawString returns the string a raw JSON value holds; b must be valid JSON. A string without
// escapes, such as a long base64 payload, is taken as it stands instead of being scanned again.
func rawString(b json.RawMessage) (string, bool) {
	b = bytes.TrimRight(b[skipSpace(b, 0):], " \t\r\n")
	if len(b) < 2 || b[0] != '"' {
		return "", false
	}
	if s := b[1 : len(b)-1]; bytes.IndexByte(s, '\\') < 0 && bytes.IndexByte(s, '"') < 0 && utf8.Valid(s) {
		return string(s), true
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// rawBool returns the boolean a raw JSON value holds.
func rawBool(b json.RawMessage) (v, ok bool) {
	switch firstByte(b) {
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
	switch c := firstByte(b); {
	case c == '-' || (c >= '0' && c <= '9'):
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(b)), 64)
		return err == nil && (f == 0 || (f >= 200 && f < 300))
	case c == '"':
		s, _ := rawString(b)
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
