package client

import (
	"bytes"
	"encoding/json"
	"html"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file holds the tolerant reading of response bodies: the service's shapes are not fixed by
// the spec, so fields are looked up under every name a real implementation is likely to choose.

type object = map[string]any

// parseJSON decodes a whole body, keeping numbers exact; ok is false if the body is not one JSON value.
func parseJSON(body []byte) (doc any, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data
	}
	return doc, true
}

// payloadOf returns what an envelope carries: the value under "data" when it is an object or an array, else doc itself.
func payloadOf(doc any) any {
	if o, ok := doc.(object); ok {
		switch d := o["data"].(type) {
		case object:
			if inner, ok := d["data"]; ok && len(d) <= 3 && isContainer(inner) {
				if _, ok := d["code"]; ok {
					return inner // {code, data: {code, msg, data: ...}}
				}
			}
			return d
		case []any:
			return d
		}
		for _, k := range []string{"result", "payload", "response"} {
			if d, ok := o[k].(object); ok && len(o) <= 4 {
				return d
			}
		}
	}
	return doc
}

func isContainer(v any) bool {
	switch v.(type) {
	case object, []any:
		return true
	}
	return false
}

// layersOf returns the objects to search, innermost payload first, then the outer envelope.
func layersOf(doc any) []object {
	var ls []object
	if p, ok := payloadOf(doc).(object); ok {
		ls = append(ls, p)
	}
	if o, ok := doc.(object); ok && (len(ls) == 0 || !sameObject(ls[0], o)) {
		ls = append(ls, o)
	}
	return ls
}

func sameObject(a, b object) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// lookup returns the first non-null value under any of keys, searching each layer in turn.
func lookup(ls []object, keys ...string) (any, bool) {
	for _, o := range ls {
		for _, k := range keys {
			if v, ok := o[k]; ok && v != nil {
				return v, true
			}
		}
	}
	return nil, false
}

// lookupString returns the first string value under any of keys.
func lookupString(ls []object, keys ...string) (string, bool) {
	for _, o := range ls {
		for _, k := range keys {
			if s, ok := o[k].(string); ok {
				return s, true
			}
		}
	}
	return "", false
}

// lookupObject returns the first object under any of keys.
func lookupObject(ls []object, keys ...string) (object, bool) {
	for _, o := range ls {
		for _, k := range keys {
			if v, ok := o[k].(object); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// lookupArray returns the first array under any of keys.
func lookupArray(ls []object, keys ...string) ([]any, bool) {
	for _, o := range ls {
		for _, k := range keys {
			if v, ok := o[k].([]any); ok {
				return v, true
			}
		}
	}
	return nil, false
}

// lookupID returns the first identifier (a non-empty string or a number) under any of keys.
func lookupID(ls []object, keys ...string) (id string, numeric, ok bool) {
	for _, o := range ls {
		for _, k := range keys {
			if id, numeric, ok := idOf(o[k]); ok {
				return id, numeric, true
			}
		}
	}
	return "", false, false
}

// idOf reads an identifier given as a string or a JSON number; numeric reports the number form.
func idOf(v any) (id string, numeric, ok bool) {
	switch x := v.(type) {
	case string:
		x = strings.TrimSpace(x)
		return x, false, x != ""
	case json.Number:
		return string(x), true, true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true, true
	}
	return "", false, false
}

// int64Of reads a whole number given as a JSON number or a numeric string.
func int64Of(v any) (int64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = strings.TrimSpace(x)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// float64Of reads a number given as a JSON number or a numeric string.
func float64Of(v any) (float64, bool) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = strings.TrimSpace(x)
	case float64:
		return x, true
	default:
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// timeOf reads an optional timestamp under any of keys; an unreadable one counts as absent.
func timeOf(ls []object, keys ...string) time.Time {
	for _, o := range ls {
		for _, k := range keys {
			v, ok := o[k]
			if !ok || v == nil {
				continue
			}
			if pt, err := ParseTime(v); err == nil {
				return pt
			}
		}
	}
	return time.Time{}
}

// envelopeFailure reports whether a 2xx body is in fact an error: a non-zero code, "success": false,
// a failure status, or an error without data.
func envelopeFailure(doc any) (code, message string, failed bool) {
	o, ok := doc.(object)
	if !ok {
		return "", "", false
	}
	msg := func() string {
		ls := []object{o}
		if e, ok := o["error"].(object); ok {
			ls = []object{e, o}
		}
		s, _ := lookupString(ls, "msg", "message", "error_description", "detail", "error", "errmsg", "error_msg")
		return s
	}
	codeText := func(v any) string {
		if s, _, ok := idOf(v); ok {
			return s
		}
		return ""
	}
	for _, k := range []string{"code", "errcode", "error_code", "errorCode"} {
		v, ok := o[k]
		if !ok || v == nil {
			continue
		}
		if !successCode(v) {
			return codeText(v), msg(), true
		}
	}
	if b, ok := o["success"].(bool); ok && !b {
		return codeText(o["code"]), msg(), true
	}
	if b, ok := o["ok"].(bool); ok && !b {
		return codeText(o["code"]), msg(), true
	}
	if s, ok := o["status"].(string); ok {
		switch strings.ToLower(s) {
		case "error", "fail", "failed", "failure":
			return codeText(o["code"]), msg(), true
		}
	}
	if _, hasData := o["data"]; !hasData {
		switch e := o["error"].(type) {
		case string:
			if e != "" {
				return "", e, true
			}
		case object:
			if len(e) > 0 {
				c := ""
				for _, k := range []string{"code", "type"} {
					if c = codeText(e[k]); c != "" {
						break
					}
				}
				return c, msg(), true
			}
		}
	}
	return "", "", false
}

// successCode reports whether an envelope code means success: 0, a 2xx number, or a word like "ok".
func successCode(v any) bool {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		return err == nil && (f == 0 || (f >= 200 && f < 300))
	case float64:
		return x == 0 || (x >= 200 && x < 300)
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "", "0", "00", "000", "200", "ok", "success", "succeeded", "successful":
			return true
		}
		return false
	case bool:
		return x
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
	head := bytes.ToLower(b[:min(len(b), 512)])
	for _, tag := range []string{"<!doctype", "<html", "<head", "<body", "<title", "<h1", "<p>", "<center", "<div"} {
		if bytes.Contains(head, []byte(tag)) {
			return true
		}
	}
	return false
}

// htmlText turns an HTML error page into a short message: its title, or else its visible text.
func htmlText(b []byte) string {
	lower := bytes.ToLower(b)
	if i := bytes.Index(lower, []byte("<title")); i >= 0 {
		if j := bytes.IndexByte(lower[i:], '>'); j >= 0 {
			start := i + j + 1
			end := bytes.Index(lower[start:], []byte("</title"))
			if end < 0 {
				end = len(lower) - start
			}
			if t := cleanMessage(html.UnescapeString(string(b[start : start+end]))); t != "" {
				return t
			}
		}
	}
	var out strings.Builder
	inTag, skip := false, ""
	for i := 0; i < len(b) && out.Len() < 4*maxMessage; i++ {
		c := b[i]
		switch {
		case skip != "":
			if c == '<' && bytes.HasPrefix(lower[i:], []byte("</"+skip)) {
				skip = ""
				inTag = true
			}
		case inTag:
			if c == '>' {
				inTag = false
				out.WriteByte(' ')
			}
		case c == '<':
			inTag = true
			for _, s := range []string{"script", "style"} {
				if bytes.HasPrefix(lower[i+1:], []byte(s)) {
					skip = s
				}
			}
		default:
			out.WriteByte(c)
		}
	}
	return cleanMessage(html.UnescapeString(out.String()))
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
