// Package keyecho removes from an upstream service's error text what it echoed of the API key
// Parley sent it: the key, any piece of it of MinPiece characters or more, in any letter case,
// and the same in its base64, hex and URL-escaped forms. Services echo keys cut short ("sk-pr…
// 89ab"), lower-cased, or inside an encoded header they quote back.
package keyecho

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
)

// MinPiece is the shortest run of a key's characters that is blanked on its own: shorter runs
// are as likely to be ordinary text as part of the key.
const MinPiece = 8

// Blank returns text with every run of MinPiece or more characters that is also a run of key,
// or of one of its encodings, replaced by mark, letter case ignored. A key shorter than
// MinPiece is replaced where it occurs whole. An empty key changes nothing.
func Blank(text, key, mark string) string {
	if key == "" || text == "" {
		return text
	}
	if len(key) < MinPiece {
		return replaceFold(text, key, mark)
	}
	forms := encodings(key)
	grams := map[string]bool{}
	for _, f := range forms {
		for i := 0; i+MinPiece <= len(f); i++ {
			grams[f[i:i+MinPiece]] = true
		}
	}
	low := lowerASCII(text)
	var b strings.Builder
	last := 0 // text[last:i] is yet to be written
	for i := 0; i+MinPiece <= len(low); {
		if !grams[low[i:i+MinPiece]] {
			i++
			continue
		}
		j := i + MinPiece
		for j < len(low) && inAny(forms, low[i:j+1]) {
			j++
		}
		b.WriteString(text[last:i])
		b.WriteString(mark)
		last, i = j, j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// encodings are the forms of key a service may echo, lower-cased: the key, its base64 (standard
// and URL alphabets, at each of the three alignments it can have inside a longer encoded text),
// its hex, and its URL escapes.
func encodings(key string) []string {
	forms := []string{key, hex.EncodeToString([]byte(key)), url.QueryEscape(key), url.PathEscape(key)}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		forms = append(forms, strings.TrimRight(enc.EncodeToString([]byte(key)), "="))
		for k := 1; k <= 2; k++ {
			// After k bytes of something else the key's bytes from the third on are encoded
			// alone from the fourth character.
			forms = append(forms, strings.TrimRight(enc.EncodeToString([]byte(strings.Repeat("\x00", k) + key))[4:], "="))
		}
	}
	for i, f := range forms {
		forms[i] = lowerASCII(f)
	}
	return forms
}

// inAny reports whether s is a substring of one of forms.
func inAny(forms []string, s string) bool {
	for _, f := range forms {
		if strings.Contains(f, s) {
			return true
		}
	}
	return false
}

// replaceFold replaces every occurrence of key in text, letter case ignored, with mark.
func replaceFold(text, key, mark string) string {
	low, k := lowerASCII(text), lowerASCII(key)
	var b strings.Builder
	last := 0
	for i := 0; ; {
		n := strings.Index(low[i:], k)
		if n < 0 {
			break
		}
		b.WriteString(text[last : i+n])
		b.WriteString(mark)
		i += n + len(k)
		last = i
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// lowerASCII lower-cases the ASCII letters of s only, so that byte offsets in the result are
// those of s.
func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
