package markdown_test

import (
	"strings"
	"testing"

	"parley/markdown"
)

// TestHighlight_Classes checks the colours a person would notice: keywords, strings, comments
// and numbers of common languages are told apart, and an unknown language stays plain.
func TestHighlight_Classes(t *testing.T) {
	for _, tc := range []struct {
		lang, code string
		want       map[string]markdown.Class
	}{
		{"go", "func main() {\n\t// say hi\n\tfmt.Println(\"hi\", 42)\n}", map[string]markdown.Class{"func": markdown.Keyword, "// say hi": markdown.Comment, `"hi"`: markdown.String, "42": markdown.Number}},
		{"python", "def f(x):\n    return 'a' # c\n", map[string]markdown.Class{"def": markdown.Keyword, "return": markdown.Keyword, "'a'": markdown.String, "# c": markdown.Comment}},
		{"js", "const n = 3; // x", map[string]markdown.Class{"const": markdown.Keyword, "3": markdown.Number, "// x": markdown.Comment}},
		{"bash", "echo \"$HOME\" # home", map[string]markdown.Class{"# home": markdown.Comment}},
		{"nosuchlanguage", "func x", map[string]markdown.Class{"func x": markdown.Plain}},
		{"", "func x", map[string]markdown.Class{"func x": markdown.Plain}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			toks := markdown.Highlight(tc.lang, tc.code)
			var joined strings.Builder
			got := map[string]markdown.Class{}
			for _, tok := range toks {
				joined.WriteString(tok.Text)
				for w := range tc.want {
					if strings.Contains(tok.Text, w) {
						got[w] = tok.Class
					}
				}
			}
			if joined.String() != tc.code {
				t.Fatalf("tokens join to %q, not the code %q", joined.String(), tc.code)
			}
			for w, c := range tc.want {
				if got[w] != c {
					t.Errorf("%q is class %d, want %d (tokens %q)", w, got[w], c, toks)
				}
			}
		})
	}
}

// FuzzHighlight checks that highlighting never changes code, whatever it is.
func FuzzHighlight(f *testing.F) {
	f.Add("go", "func f() {}\r\n")
	f.Add("python", "'''unclosed")
	f.Add("c", "/* x")
	f.Fuzz(func(t *testing.T, lang, code string) {
		var b strings.Builder
		for _, tok := range markdown.Highlight(lang, code) {
			b.WriteString(tok.Text)
		}
		if b.String() != code {
			t.Fatalf("highlighting %q as %q gave %q", code, lang, b.String())
		}
	})
}
