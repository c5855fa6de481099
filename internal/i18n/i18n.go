// Package i18n lets the packages that the window shares with the CLI (explain, conversation)
// write each sentence once. The window installs its translations with Use; the CLI installs
// none and stays English, as gh, git and curl do, so these functions give back the English they
// are handed. It imports no Fyne: the translations themselves live in package app/locale.
//
// Every sentence is a constant string literal at the call, so that the test of the bundles can
// collect it: T("The service at %s did not answer."), N("%s point", "%s points", n).
package i18n

import (
	"strconv"
	"sync"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Translator is what a language gives: the translation of a sentence, and of the plural form of
// one (keyed by its English "other" form) for a count.
type Translator struct {
	Tag    language.Tag
	One    func(english string) string
	Plural func(other string, n int) string
}

var (
	mu      sync.RWMutex
	current *Translator // nil: English, as written
	printer = message.NewPrinter(language.English)
)

// Use installs the window's language; nil goes back to English as written.
func Use(t *Translator) {
	mu.Lock()
	defer mu.Unlock()
	current = t
	if t == nil {
		printer = message.NewPrinter(language.English)
		return
	}
	printer = message.NewPrinter(t.Tag)
}

// Tag is the language in use: English unless the window installed another.
func Tag() language.Tag {
	mu.RLock()
	defer mu.RUnlock()
	if current == nil {
		return language.English
	}
	return current.Tag
}

// T translates a sentence (a format for fmt when it holds verbs).
func T(english string) string {
	mu.RLock()
	t := current
	mu.RUnlock()
	if t == nil || t.One == nil {
		return english
	}
	return t.One(english)
}

// N translates a sentence with a count in it: one is the English for 1, other for any other
// count. The result is a format whose verb takes the count, best given as Number(n).
func N(one, other string, n int) string {
	mu.RLock()
	t := current
	mu.RUnlock()
	if t == nil || t.Plural == nil {
		if n == 1 {
			return one
		}
		return other
	}
	return t.Plural(other, n)
}

// Decimal writes x with prec digits after the decimal mark, as the language in use does: 1.5 in
// English, 1,5 in German.
func Decimal(x float64, prec int) string {
	mu.RLock()
	p := printer
	mu.RUnlock()
	if p == nil {
		return strconv.FormatFloat(x, 'f', prec, 64)
	}
	return p.Sprintf("%.*f", prec, x)
}

// Number writes a whole number as the language in use does: 1,234 in English, 1.234 in German.
func Number(n int) string {
	mu.RLock()
	p := printer
	mu.RUnlock()
	if p == nil {
		return strconv.Itoa(n)
	}
	return p.Sprintf("%d", n)
}
