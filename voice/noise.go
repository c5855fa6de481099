package voice

import (
	"regexp"
	"strings"
	"unicode"
)

// annotation matches what speech recognizers write for what is not speech: "[noise]",
// "(cough)", "<unk>", "{breath}", "*laughs*".
var annotation = regexp.MustCompile(`\[[^\]]*\]|\([^)]*\)|<[^>]*>|\{[^}]*\}|\*[^*]*\*|\+\+[^+]*\+\+`)

// fillers are words that make no question on their own.
var fillers = map[string]bool{"um": true, "umm": true, "uh": true, "uhh": true, "hmm": true, "hm": true, "mm": true, "mhm": true, "er": true, "erm": true, "ah": true}

// IsNoise reports whether a transcript holds nothing worth sending: it is empty or only
// punctuation, only the annotations recognizers write for what is not speech ("[noise]",
// "(cough)", "<unk>", "*laughs*", "[BLANK_AUDIO]"), or only fillers such as "um" and "hmm".
func IsNoise(text string) bool {
	rest := annotation.ReplaceAllString(text, " ")
	words := strings.FieldsFunc(strings.ToLower(rest), func(c rune) bool { return !isWordRune(c) })
	for _, w := range words {
		if !fillers[w] {
			return false
		}
	}
	return true
}

// isWordRune reports whether c can be part of a word: a letter or a digit in any script.
func isWordRune(c rune) bool {
	return unicode.IsLetter(c) || unicode.IsDigit(c) || unicode.Is(unicode.Mn, c)
}
