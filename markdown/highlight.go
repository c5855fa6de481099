package markdown

import (
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"

	"parley/markdown/internal/lexers"
)

// Class is what a piece of code is, for its colour.
type Class uint8

// The classes of code a window colours.
const (
	Plain   Class = iota
	Keyword       // if, func, return, import
	String        // string and character literals
	Number        // numbers and constants such as true and nil
	Comment
	Name // function, type, class and builtin names
)

// Token is a piece of code in one class.
type Token struct {
	Text  string
	Class Class
}

// highlightMax is the longest code that is highlighted (bytes): beyond it, code is plain, so that
// a pasted log never stalls the window (chroma takes 0.6 s on 64 KB of "a+" in Go).
const highlightMax = 16 << 10

// Highlight splits code into classed tokens with chroma's lexer for lang ("go", "python", "js",
// "sh"…; a file name such as "main.go" works too). Code in an unknown or empty language is one
// plain token. The tokens' texts always join to exactly code.
func Highlight(lang, code string) []Token {
	key := highlightKey{lang, code}
	highlighted.mu.Lock()
	toks, ok := highlighted.m[key]
	highlighted.mu.Unlock()
	if ok {
		return slices.Clone(toks)
	}
	toks = highlight(lang, code)
	highlighted.mu.Lock()
	defer highlighted.mu.Unlock()
	if highlighted.m == nil {
		highlighted.m = map[highlightKey][]Token{}
	}
	if _, ok := highlighted.m[key]; !ok {
		if len(highlighted.order) >= highlightsKept {
			delete(highlighted.m, highlighted.order[0])
			highlighted.order = highlighted.order[1:]
		}
		highlighted.m[key] = toks
		highlighted.order = append(highlighted.order, key)
	}
	return slices.Clone(toks)
}

// highlightsKept is how many highlighted pieces of code are kept: a reply being written is laid
// out again as it grows, and its code blocks that are whole are not highlighted again.
const highlightsKept = 64

type highlightKey struct{ lang, code string }

// highlighted keeps code highlighted lately.
var highlighted struct {
	mu    sync.Mutex
	m     map[highlightKey][]Token
	order []highlightKey
}

// highlight is Highlight without the cache.
func highlight(lang, code string) (out []Token) {
	plain := []Token{{Text: code}}
	lang = strings.TrimSpace(lang)
	if code == "" || lang == "" || len(code) > highlightMax {
		return plain
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		return plain
	}
	defer func() {
		// A lexer that fails on odd input (chroma panics in a few) leaves the code plain.
		if recover() != nil {
			out = plain
		}
	}()
	it, err := chroma.Coalesce(lexer).Tokenise(&chroma.TokeniseOptions{State: "root", EnsureLF: false}, code)
	if err != nil {
		return plain
	}
	var joined strings.Builder
	var starts []int // where each token starts in joined
	for t := it(); t != chroma.EOF; t = it() {
		if t.Value == "" {
			continue
		}
		c := class(t.Type)
		if k := len(out) - 1; k < 0 || out[k].Class != c {
			// Each token's text is cut from the joined text at the end: no copy per piece.
			out = append(out, Token{Class: c})
			starts = append(starts, joined.Len())
		}
		joined.WriteString(t.Value)
	}
	all := joined.String()
	for k := range out {
		end := len(all)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		out[k].Text = all[starts[k]:end]
	}
	if j := joined.String(); j == code+"\n" {
		// Lexers that need a final line break add one.
		k := len(out) - 1
		out[k].Text = strings.TrimSuffix(out[k].Text, "\n")
		if out[k].Text == "" {
			out = out[:k]
		}
	} else if j != code {
		// A lexer that changed the text (line endings, a final newline) is not trusted.
		return plain
	}
	return out
}

// class maps chroma's token types to the few a window colours.
func class(t chroma.TokenType) Class {
	switch {
	case t == chroma.KeywordType:
		return Name
	case t == chroma.KeywordConstant:
		return Number
	case t.InCategory(chroma.Keyword):
		return Keyword
	case t.InCategory(chroma.Comment):
		return Comment
	case t.InSubCategory(chroma.LiteralString):
		return String
	case t.InSubCategory(chroma.LiteralNumber):
		return Number
	case t == chroma.NameFunction, t == chroma.NameClass, t == chroma.NameBuiltin, t == chroma.NameFunctionMagic, t == chroma.NameBuiltinPseudo:
		return Name
	}
	return Plain
}
