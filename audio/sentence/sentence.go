// Package sentence splits a reply's text into chunks for chunked text-to-speech: one sentence,
// list item or line per chunk, code replaced by a short spoken placeholder, the first chunk kept
// short so the first audio comes fast, and no chunk longer than the service's text limit.
package sentence

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultMaxLen is the longest chunk, in characters (runes), sent to the speech service by
// default: the service's text limit.
const DefaultMaxLen = 4096

// CodePlaceholder is spoken instead of a fenced code block or a long piece of inline code.
const CodePlaceholder = "(code omitted)"

// Tuning of the split; see Split.
const (
	// firstCutOver is the length (in runes) above which the first sentence is cut: about 2 s of
	// speech. Synthesis time grows with the text (flite: 40 ms for 32 runes, 65 ms for 47), and
	// the first chunk's is what a person waits for; the rest is made while it plays.
	firstCutOver = 36
	// firstMax is the longest first chunk a cut makes: about 3 s of speech, synthesised in a
	// fraction of a second.
	firstMax = 60
	// firstMin is the shortest first chunk, and the shortest rest, such a cut may leave.
	firstMin = 12
	// firstForceCut is the length (in runes) of a first sentence with no clause boundary or
	// conjunction in its first firstMax runes that is nonetheless cut at a space: waiting for the
	// whole of it would delay the first audio more than the odd pause costs.
	firstForceCut = 150
	// inlineCodeMax is the longest inline code span that is read aloud rather than replaced.
	inlineCodeMax = 40
)

// Split cuts text into chunks to be spoken one after another. Sentences end at . ! ? … and the
// CJK marks 。！？, not at abbreviations (Dr., U.S., e.g.), decimals, URLs or list numbers; closing
// quotes stay with their sentence. Every line and list item is its own chunk. Fenced code blocks
// become CodePlaceholder, inline code is kept only when short, and Markdown heading marks, "*"
// bullets and bold marks are dropped. A first sentence longer than 36 runes is cut at its first
// clause boundary (or before a conjunction, or failing both, when very long, at a space) so the
// first audio comes fast. No chunk is longer than maxLen runes (bytes of invalid UTF-8 count one
// each): longer sentences are cut at clause boundaries, then spaces, then anywhere between runes.
// maxLen <= 0 means DefaultMaxLen. Chunks are trimmed and never empty.
func Split(text string, maxLen int) []string {
	if maxLen <= 0 {
		maxLen = DefaultMaxLen
	}
	var chunks []string
	for _, line := range speakableLines(text) {
		for _, s := range sentences(line) {
			if len(chunks) == 0 {
				if head, tail, ok := cutFirst(s); ok {
					chunks = appendLimited(chunks, head, maxLen)
					s = tail
				}
			}
			chunks = appendLimited(chunks, s, maxLen)
		}
	}
	return chunks
}

// speakableLines normalises line ends, replaces fenced code blocks with CodePlaceholder and inline
// code with its text or the placeholder, and returns the non-blank lines.
func speakableLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	var lines []string
	fence := ""
	for line := range strings.SplitSeq(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOf(trimmed); f != "" {
			fence = f
			lines = append(lines, CodePlaceholder)
			continue
		}
		if trimmed = strings.TrimSpace(inlineCode(stripMarkup(trimmed))); trimmed != "" {
			lines = append(lines, trimmed)
		}
	}
	return lines
}

// stripMarkup removes Markdown that a voice would read out as symbols: heading marks, "*" and "+"
// bullets, and "**" around bold text. "-" bullets and list numbers stay: they read well.
func stripMarkup(line string) string {
	if h := strings.TrimLeft(line, "#"); len(h) < len(line) && len(line)-len(h) <= 6 && (h == "" || h[0] == ' ') {
		line = h
	}
	if strings.HasPrefix(line, "* ") || strings.HasPrefix(line, "+ ") {
		line = line[2:]
	}
	return strings.ReplaceAll(line, "**", "")
}

// fenceOf returns the fence (``` or ~~~, three or more) that opens a code block on this line, or "".
func fenceOf(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// inlineCode replaces each `span` by its text when short and by CodePlaceholder otherwise.
// An unmatched backtick stays as it is.
func inlineCode(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	var b strings.Builder
	for {
		open := strings.IndexByte(line, '`')
		if open < 0 {
			break
		}
		end := strings.IndexByte(line[open+1:], '`')
		if end < 0 {
			break
		}
		code := line[open+1 : open+1+end]
		b.WriteString(line[:open])
		if strings.TrimSpace(code) == "" {
			// `` or ` `: nothing to say.
		} else if len(code) <= inlineCodeMax {
			b.WriteString(code)
		} else {
			b.WriteString(CodePlaceholder)
		}
		line = line[open+1+end+1:]
	}
	b.WriteString(line)
	return b.String()
}

// sentences splits one line into trimmed, non-empty sentences.
func sentences(line string) []string {
	var out []string
	start := 0
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRuneInString(line[i:])
		end := i + size
		switch {
		case isCJKTerminal(r):
			end = skipTerminals(line, end)
			end = skipClosers(line, end)
		case r == '.' || r == '!' || r == '?' || r == '…':
			end = skipTerminals(line, end)
			end = skipClosers(line, end)
			if end < len(line) {
				next, _ := utf8.DecodeRuneInString(line[end:])
				if !unicode.IsSpace(next) {
					i = end
					continue
				}
			}
			if !endsSentence(line, start, i, end) {
				i = end
				continue
			}
		default:
			i = end
			continue
		}
		if s := strings.TrimSpace(line[start:end]); s != "" {
			out = append(out, s)
		}
		start, i = end, end
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

func isCJKTerminal(r rune) bool {
	switch r {
	case '。', '！', '？', '｡':
		return true
	}
	return false
}

// skipTerminals returns the index after a run of terminal punctuation starting at i.
func skipTerminals(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != '.' && r != '!' && r != '?' && r != '…' && !isCJKTerminal(r) {
			break
		}
		i += size
	}
	return i
}

// skipClosers returns the index after closing quotes and brackets starting at i.
func skipClosers(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !strings.ContainsRune("\"')]}»”’」』）】", r) {
			break
		}
		i += size
	}
	return i
}

// neverEnd are abbreviations (lower case, without the final dot) after which a sentence does not end.
var neverEnd = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "mt": true, "vs": true, "e.g": true, "i.e": true, "cf": true, "approx": true,
	"no": true, "nos": true, "fig": true, "figs": true, "vol": true, "ch": true, "sec": true,
	"u.s": true, "u.k": true, "u.n": true, "e.u": true, "u.s.a": true, "ph.d": true,
	"gen": true, "col": true, "capt": true, "lt": true, "sgt": true, "rev": true, "hon": true,
	"jan": true, "feb": true, "mar": true, "apr": true, "jun": true, "jul": true, "aug": true,
	"sep": true, "sept": true, "oct": true, "nov": true, "dec": true, "ca": true, "est": true,
}

// endsSentence decides whether the terminal punctuation at line[punct:after] (followed by space
// or the end of the line) ends the sentence that began at start.
func endsSentence(line string, start, punct, after int) bool {
	if line[punct] != '.' {
		if strings.HasPrefix(line[punct:], "…") {
			return nextStartsSentence(line, after)
		}
		return true // ! or ?
	}
	if strings.HasPrefix(line[punct:], "..") {
		return nextStartsSentence(line, after) // an ellipsis ends a sentence only before a capital
	}
	// The word before the mark; words longer than any abbreviation are not looked at in full, so
	// a long run of dots stays linear.
	from := max(start, punct-16)
	word := line[from:punct]
	if k := strings.LastIndexFunc(word, unicode.IsSpace); k >= 0 {
		word = word[k+1:]
	} else if from > start {
		word = "" // longer than 16 bytes: no abbreviation, initial or list number
	}
	word = strings.TrimLeft(word, "\"'([{«“‘")
	lower := strings.ToLower(word)
	switch {
	case neverEnd[lower]:
		return false
	case isInitial(word):
		return false // an initial: J. Smith
	case isNumber(word) && strings.TrimSpace(line[:punct]) == word:
		return false // a list number at the start of the line: 1. Eggs
	case strings.Contains(word, ".") && isDotted(word):
		return false // a.m., p.m., i.e. and other dotted abbreviations
	}
	return nextStartsSentence(line, after)
}

// isInitial reports whether word is a single capital letter, as in "J. Smith".
func isInitial(word string) bool {
	r, size := utf8.DecodeRuneInString(word)
	return size == len(word) && unicode.IsUpper(r)
}

// nextStartsSentence reports whether the text after i begins the way a new sentence does: not
// with a lower-case letter.
func nextStartsSentence(line string, i int) bool {
	rest := strings.TrimLeftFunc(line[i:], unicode.IsSpace)
	if rest == "" {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return !unicode.IsLower(r)
}

func isNumber(s string) bool {
	if s == "" || len(s) > 3 {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDotted reports whether s looks like a.b or a.b.c: single letters joined by dots.
func isDotted(s string) bool {
	for part := range strings.SplitSeq(s, ".") {
		if utf8.RuneCountInString(part) != 1 {
			return false
		}
		r, _ := utf8.DecodeRuneInString(part)
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// cutFirst cuts a long first sentence so the first chunk to be synthesised is short: after its
// first clause boundary between firstMin and firstMax runes (for a sentence over firstCutOver
// runes), else, for one over firstMax, before the last conjunction in that range, else (for one
// over firstForceCut runes) at the last space in it. It reports false when s is short or has no
// suitable place.
func cutFirst(s string) (head, tail string, ok bool) {
	total := utf8.RuneCountInString(s)
	if total <= firstCutOver {
		return "", "", false
	}
	beforeConj, atSpace := 0, 0
	runes := 0
	for i := 0; i < len(s) && runes <= firstMax; {
		_, size := utf8.DecodeRuneInString(s[i:])
		if runes >= firstMin && total-runes >= firstMin {
			if n := clauseEnd(s, i); n > 0 && utf8.RuneCountInString(s[:n]) <= firstMax {
				return strings.TrimSpace(s[:n]), strings.TrimSpace(s[n:]), true
			}
			if s[i] == ' ' {
				atSpace = i
				if startsConjunction(s[i+1:]) {
					beforeConj = i
				}
			}
		}
		i += size
		runes++
	}
	if total <= firstMax {
		return "", "", false // a short sentence is cut only where a clause ends
	}
	cut := beforeConj
	if cut == 0 && total > firstForceCut {
		cut = atSpace
	}
	if cut == 0 {
		return "", "", false
	}
	return strings.TrimSpace(s[:cut]), strings.TrimSpace(s[cut:]), true
}

// conjunctions are words before which a long first sentence may be cut with a natural pause.
var conjunctions = []string{"and", "but", "or", "so", "because", "which", "while", "when", "where", "if", "then", "who", "although", "though", "unless", "until"}

// startsConjunction reports whether s begins with one of the conjunctions as a whole word.
func startsConjunction(s string) bool {
	for _, c := range conjunctions {
		if len(s) > len(c) && s[len(c)] == ' ' && strings.EqualFold(s[:len(c)], c) {
			return true
		}
	}
	return false
}

// clauseEnd reports, for a clause mark at s[i] followed by a space, the index just after the mark,
// or 0 when s[i] does not end a clause.
func clauseEnd(s string, i int) int {
	switch {
	case s[i] == ',' || s[i] == ';' || s[i] == ':':
		if i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\t') {
			return i + 1
		}
	case strings.HasPrefix(s[i:], " — ") || strings.HasPrefix(s[i:], " – ") || strings.HasPrefix(s[i:], " - "):
		return i + 1
	case strings.HasPrefix(s[i:], "，") || strings.HasPrefix(s[i:], "、") || strings.HasPrefix(s[i:], "；"):
		return i + len("，")
	}
	return 0
}

// appendLimited appends s to chunks, cut into pieces of at most maxLen runes: at the last clause
// boundary that fits, else the last space, else the last rune boundary.
func appendLimited(chunks []string, s string, maxLen int) []string {
	for {
		s = strings.TrimSpace(s)
		if s == "" {
			return chunks
		}
		limit := runeOffset(s, maxLen) // s[:limit] holds maxLen runes
		if limit == len(s) {
			return append(chunks, s)
		}
		cut := 0
		for i := limit - 1; i > 0 && cut == 0; i-- {
			if n := clauseEnd(s, i); n > 0 && n <= limit {
				cut = n
			}
		}
		if cut == 0 {
			if i := strings.LastIndexFunc(s[:limit+1], unicode.IsSpace); i > 0 {
				cut = i
			}
		}
		if cut == 0 {
			cut = limit
		}
		if head := strings.TrimSpace(s[:cut]); head != "" {
			chunks = append(chunks, head)
		}
		s = s[cut:]
	}
}

// runeOffset returns the byte offset in s after its first n runes, or len(s) when it has fewer.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
