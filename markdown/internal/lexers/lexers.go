//lint:file-ignore ST1001 the Go lexer's rules are chroma's own, written in its vocabulary

// Package lexers holds the chroma lexers of the languages replies show most, registered the
// first time one is asked for.
package lexers

import (
	"embed"
	"io/fs"
	"strings"
	"sync"

	. "github.com/alecthomas/chroma/v2"
)

// The lexers of the languages replies show most, from chroma v2.27.0 (xml/COPYING, MIT):
// its XML lexers, and its Go lexer below. chroma's own lexers package registers all 279 of its
// lexers when a program starts, which costs every Parley command 7 MB of memory; these are
// registered the first time a code block is highlighted.
//
//go:embed xml/*.xml
var lexerFiles embed.FS

var (
	registryOnce sync.Once
	registry     *LexerRegistry
)

// lexerRegistry is the registry of the lexers above, made on first use.
func lexerRegistry() *LexerRegistry {
	registryOnce.Do(func() {
		reg := NewLexerRegistry()
		paths, _ := fs.Glob(lexerFiles, "xml/*.xml")
		for _, p := range paths {
			if l, err := NewXMLLexer(lexerFiles, p); err == nil {
				reg.Register(l)
			}
		}
		reg.Register(goLexer())
		registry = reg
	})
	return registry
}

// Get is the lexer of a fence's language ("go", "py", "main.go"), nil when none is known.
func Get(lang string) Lexer {
	reg := lexerRegistry()
	if l := reg.Get(lang); l != nil {
		return l
	}
	return reg.Get(strings.ToLower(lang))
}

// goLexer is chroma's Go lexer (lexers/go.go), without its highlighting of templates inside raw
// strings.
func goLexer() Lexer {
	return MustNewLexer(&Config{
		Name:      "Go",
		Aliases:   []string{"go", "golang"},
		Filenames: []string{"*.go"},
		MimeTypes: []string{"text/x-gosrc"},
	}, goRules)
}

func goRules() Rules {
	return Rules{
		"root": {
			rule(`\n`, TextWhitespace),
			rule(`\s+`, TextWhitespace),
			rule(`//[^\s\n\r][^\n\r]*`, CommentPreproc),
			rule(`//[^\n\r]*`, CommentSingle),
			rule(`/(\\\n)?[*](.|\n)*?[*](\\\n)?/`, CommentMultiline),
			rule(`(import|package)\b`, KeywordNamespace),
			rule(`(var|func|struct|map|chan|type|interface|const)\b`, KeywordDeclaration),
			rule(Words(``, `\b`, `break`, `default`, `select`, `case`, `defer`, `go`, `else`, `goto`, `switch`, `fallthrough`, `if`, `range`, `continue`, `for`, `return`), Keyword),
			rule(`(true|false|iota|nil)\b`, KeywordConstant),
			rule(Words(``, `\b(\()`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `print`, `println`, `panic`, `recover`, `close`, `complex`, `real`, `imag`, `len`, `cap`, `append`, `copy`, `delete`, `new`, `make`, `clear`, `min`, `max`), ByGroups(NameBuiltin, Punctuation)),
			rule(Words(``, `\b`, `uint`, `uint8`, `uint16`, `uint32`, `uint64`, `int`, `int8`, `int16`, `int32`, `int64`, `float`, `float32`, `float64`, `complex64`, `complex128`, `byte`, `rune`, `string`, `bool`, `error`, `uintptr`, `any`), KeywordType),
			rule(`\d+i`, LiteralNumber),
			rule(`\d+\.\d*([Ee][-+]\d+)?i`, LiteralNumber),
			rule(`\.\d+([Ee][-+]\d+)?i`, LiteralNumber),
			rule(`\d+[Ee][-+]\d+i`, LiteralNumber),
			rule(`\d+(\.\d+[eE][+\-]?\d+|\.\d*|[eE][+\-]?\d+)`, LiteralNumberFloat),
			rule(`\.\d+([eE][+\-]?\d+)?`, LiteralNumberFloat),
			rule(`0[0-7]+`, LiteralNumberOct),
			rule(`0[xX][0-9a-fA-F_]+`, LiteralNumberHex),
			rule(`0b[01_]+`, LiteralNumberBin),
			rule(`(0|[1-9][0-9_]*)`, LiteralNumberInteger),
			rule(`'(\\['"\\abfnrtv]|\\x[0-9a-fA-F]{2}|\\[0-7]{1,3}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[^\\])'`, LiteralStringChar),
			rule("`[^`]*`", LiteralString),
			rule(`"(\\\\|\\"|[^"])*"`, LiteralString),
			rule(`(<<=|>>=|<<|>>|<=|>=|&\^=|&\^|\+=|-=|\*=|/=|%=|&=|\|=|&&|\|\||<-|\+\+|--|==|!=|:=|\.\.\.|[+\-*/%&])`, Operator),
			rule(`([a-zA-Z_]\w*)(\s*)(\()`, ByGroups(NameFunction, UsingSelf("root"), Punctuation)),
			rule(`[|^<>=!()\[\]{}.,;:~]`, Punctuation),
			rule(`[^\W\d]\w*`, NameOther),
		},
	}
}

// rule is a rule with no mutator.
func rule(pattern string, typ Emitter) Rule { return Rule{Pattern: pattern, Type: typ} }
