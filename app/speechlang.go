package app

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2/lang"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"parley/app/locale"
)

// speechLanguageCodes are the languages a conversation's questions may be said to be spoken in:
// those Whisper hears best (its word error rate under 10 % on FLEURS), written as BCP 47 tags.
var speechLanguageCodes = []string{
	"ar", "cs", "da", "de", "el", "en", "es", "fi", "fr", "hi", "hu", "it", "ja", "ko", "nb", "nl",
	"pl", "pt", "ro", "ru", "sv", "tr", "uk", "zh",
}

// speechLanguage is one of them as the settings dialog offers it.
type speechLanguage struct {
	code string
	name string // "Deutsch (German)": its speakers' name, and the window's language's when other
}

// speechLanguages lists them, each by its speakers' name, in the window's alphabetical order.
func speechLanguages() []speechLanguage {
	window := locale.Current().Tag()
	names := display.Tags(window)
	out := make([]speechLanguage, 0, len(speechLanguageCodes))
	for _, code := range speechLanguageCodes {
		tag := language.Make(code)
		self, here := upperFirst(display.Self.Name(tag)), names.Name(tag)
		name := self
		if here != "" && !strings.EqualFold(here, self) {
			name = fmt.Sprintf("%s (%s)", self, here)
		}
		out = append(out, speechLanguage{code: code, name: name})
	}
	c := collate.New(window)
	slices.SortFunc(out, func(a, b speechLanguage) int { return c.CompareString(a.name, b.name) })
	return out
}

// speechLanguageOptions are the choices of a speech language: first says what "" means (told
// by the recogniser, or as in Preferences), then the languages; codes are their codes in the
// same order ("" for the first).
func speechLanguageOptions(first string) (options, codes []string) {
	options, codes = []string{first}, []string{""}
	for _, l := range speechLanguages() {
		options, codes = append(options, l.name), append(codes, l.code)
	}
	return options, codes
}

func autoSpeechLanguage() string { return lang.L("Told by the recogniser") }

// speechLanguageName is the name speechLanguages gives tag ("" told by the recogniser), its tag
// itself when it is not one of them.
func speechLanguageName(tag string) string {
	if tag == "" {
		return autoSpeechLanguage()
	}
	for _, l := range speechLanguages() {
		if l.code == tag {
			return l.name
		}
	}
	return tag
}

// upperFirst is s with its first letter a capital, as a name at the head of a list item is
// written ("français": "Français").
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
