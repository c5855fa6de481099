package lexers

import (
	"io/fs"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// TestGet_EveryLexerLoadsAndTokenises checks that each embedded lexer loads, and that those
// that call others (HTML's CSS and JavaScript, Docker's Bash) find them.
func TestGet_EveryLexerLoadsAndTokenises(t *testing.T) {
	paths, _ := fs.Glob(lexerFiles, "xml/*.xml")
	names := lexerRegistry().Names(false)
	if len(names) != len(paths)+1 {
		t.Errorf("%d lexers registered from %d files and Go: %q", len(names), len(paths), names)
	}
	for lang, code := range map[string]string{
		"html":       "<style>p { color: red }</style><script>let x = 1;</script><p>hi</p>",
		"dockerfile": "FROM debian\nRUN apt-get update && echo \"$HOME\"\n",
		"makefile":   "all:\n\t@echo $(CC) done\n",
		"go":         "package main\n\nvar s = `raw`\n",
		"py":         "def f(): pass\n",
		"main.rs":    "fn main() {}\n",
		"ts":         "const x: number = 1;\n",
		"sh":         "ls -la | wc -l\n",
		"yml":        "a: [1, 2]\n",
		"c++":        "int main() { return 0; }\n",
	} {
		l := Get(lang)
		if l == nil {
			t.Errorf("no lexer for %q", lang)
			continue
		}
		it, err := l.Tokenise(nil, code)
		if err != nil {
			t.Errorf("%s: %v", lang, err)
			continue
		}
		n := 0
		for tok := it(); tok != chroma.EOF; tok = it() {
			n++
		}
		if n < 3 {
			t.Errorf("%s: %d tokens for %q", lang, n, code)
		}
	}
}
