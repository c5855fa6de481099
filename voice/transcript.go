package voice

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// questionWords start a sentence that asks: a transcript beginning with one ends with "?".
var questionWords = map[string]bool{
	"what": true, "what's": true, "whats": true, "how": true, "how's": true, "who": true, "who's": true,
	"whom": true, "whose": true, "when": true, "where": true, "where's": true, "why": true, "which": true,
	"can": true, "could": true, "would": true, "should": true, "shall": true, "will": true, "may": true,
	"might": true, "must": true, "is": true, "isn't": true, "are": true, "aren't": true, "am": true,
	"was": true, "wasn't": true, "were": true, "weren't": true, "do": true, "don't": true, "does": true,
	"doesn't": true, "did": true, "didn't": true, "have": true, "haven't": true, "has": true, "hasn't": true,
	"had": true, "can't": true, "won't": true, "wouldn't": true, "couldn't": true, "shouldn't": true,
}

// AsSentence makes a transcript that a recogniser gave as bare lower-case words (PocketSphinx
// gives "what time is it in tokyo") read as a sentence: a capital at its start, "I" and its
// contractions as capitals, and a closing mark, "?" when it begins as a question does, else
// ".". A transcript with any capital letter or any punctuation (Whisper's, a person's) is
// returned as it is, spaces trimmed: its recogniser wrote it as it meant it.
func AsSentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || !bare(s) {
		return s
	}
	words := strings.Fields(s)
	for i, w := range words {
		if w == "i" || strings.HasPrefix(w, "i'") {
			words[i] = "I" + w[1:]
		}
	}
	first := words[0]
	r, n := utf8.DecodeRuneInString(first)
	words[0] = string(unicode.ToUpper(r)) + first[n:]
	mark := "."
	if questionWords[first] {
		mark = "?"
	}
	return strings.Join(words, " ") + mark
}

// bare reports whether s has letters, none of them capitals, and no punctuation but the
// apostrophes and hyphens inside words.
func bare(s string) bool {
	letters := false
	for _, r := range s {
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			return false
		case unicode.IsLetter(r):
			letters = true
		case r == '\'' || r == '-' || unicode.IsSpace(r) || unicode.IsDigit(r):
		case unicode.IsPunct(r) || unicode.IsSymbol(r):
			return false
		}
	}
	return letters
}
