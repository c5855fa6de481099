package app

import (
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// rowCounter counts the rows a text takes in a word-wrapped Entry, as the Entry wraps it (the
// same steps as Fyne's RichText, which does not say how many rows it made), up to a limit.
// It remembers each line's count for the width, so that typing measures only the line typed in.
type rowCounter struct {
	width float32
	lines map[string]int // rows of a line at width, capped at the limit asked for
	limit int
	// measure is the width of a text (nil: the theme's text, as an Entry shows it).
	measure func([]rune) float32
	// full is the beginning of a long line found to take limit rows at width: a line that
	// begins with it takes them too (typing at the end of a long paragraph measures nothing).
	full string
}

// maxRememberedLines bounds what a rowCounter remembers, and maxRememberedLine the length of a
// line it remembers (in bytes): a longer line is measured each time, only until it has the rows
// asked for, so that a key typed in a 50,000-character paragraph neither converts it whole nor
// keeps a copy of it for each key.
const (
	maxRememberedLines = 256
	maxRememberedLine  = 1024
)

// count is how many rows text takes at width, at most limit (and at least 1). At width 0
// (nothing laid out yet) each line is a row.
func (rc *rowCounter) count(text string, width float32, limit int) int {
	if width != rc.width || limit != rc.limit || len(rc.lines) > maxRememberedLines {
		rc.width, rc.limit, rc.lines, rc.full = width, limit, map[string]int{}, ""
	}
	rows := 0
	for rest := text; ; {
		line, tail, more := strings.Cut(rest, "\n")
		n, ok := rc.lines[line]
		switch {
		case ok:
		case len(line) > maxRememberedLine:
			n = rc.longLineRows(line, limit)
		default:
			n = rc.lineRows([]rune(line), limit)
			rc.lines[line] = n
		}
		rows += n
		if rows >= limit {
			return limit
		}
		if !more {
			return max(rows, 1)
		}
		rest = tail
	}
}

// longLineRows is lineRows of a long line, measured from its start only until it has limit
// rows: its first 1,024 characters, then twice as many, and so on (a line's beginning never
// takes more rows than the whole line).
func (rc *rowCounter) longLineRows(line string, limit int) int {
	if rc.full != "" && strings.HasPrefix(line, rc.full) {
		return limit
	}
	for n := 1024; ; n *= 2 {
		prefix, whole := runePrefix(line, n)
		rows := rc.lineRows(prefix, limit)
		if rows >= limit {
			rc.full = string(prefix)
		}
		if rows >= limit || whole {
			return rows
		}
	}
}

// runePrefix is the first n characters of s, and whether that is all of s.
func runePrefix(s string, n int) ([]rune, bool) {
	for i := range s {
		if n == 0 {
			return []rune(s[:i]), false
		}
		n--
	}
	return []rune(s), true
}

// lineRows is how many rows one line (no newline) takes, at most limit: Fyne's word wrapping
// (widget/richtext.go, lineBounds with fyne.TextWrapWord) step by step.
func (rc *rowCounter) lineRows(text []rune, limit int) int {
	if len(text) == 0 || rc.width <= 0 {
		return 1
	}
	measure := rc.measure
	if measure == nil {
		measure = func(r []rune) float32 {
			return fyne.MeasureText(string(r), theme.TextSize(), fyne.TextStyle{}).Width
		}
	}
	fits := func(low, high int) bool { return measure(text[low:high]) <= rc.width }
	rows := 0
	low, high := 0, len(text)
	for low < high && rows < limit {
		// Measure at most a window that is sure to be wider than a row.
		for n := 64; low+n < high; n *= 2 {
			if !fits(low, low+n) {
				high = low + n
				break
			}
		}
		if fits(low, high) {
			rows++
			low, high = high, len(text)
			if low < high && unicode.IsSpace(text[low]) {
				low++
			}
			continue
		}
		fallback := longestFit(fits, low, high-1) - low
		if fallback < 1 { // not even one character fits: it takes a row of its own
			rows++
			low++
			high = len(text)
			continue
		}
		space := fallback
		for space >= 0 && !unicode.IsSpace(text[low+space]) {
			space--
		}
		if space < 0 {
			space = fallback // one word longer than the row: it is broken
		}
		high = low + max(space, 1)
	}
	return max(rows, 1)
}

// longestFit is the largest high in [low, maxHigh] with fits(low, high), as Fyne's binarySearch
// finds it.
func longestFit(fits func(low, high int) bool, low, maxHigh int) int {
	if low >= maxHigh {
		return low
	}
	if fits(low, maxHigh) {
		return maxHigh
	}
	high := low
	for delta := maxHigh - low; delta > 0; {
		delta /= 2
		if fits(low, high+delta) {
			high += delta
		}
	}
	for high < maxHigh && fits(low, high+1) {
		high++
	}
	return high
}
