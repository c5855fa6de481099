package markdown

import (
	"strings"
	"testing"
)

func TestSettled(t *testing.T) {
	tests := []struct{ partial, want string }{
		{"Hello", "Hello"},
		{"Hello wor", "Hello wor"},
		{"See [the docs", "See "},
		{"See [the docs](https://exa", "See "},
		{"See [the docs](https://example.com) now", "See [the docs](https://example.com) now"},
		{"a [b] c", "a [b] c"},
		{"Run `go te", "Run "},
		{"Run `go test` now", "Run `go test` now"},
		{"This is **very", "This is "},
		{"Intro\n| A | B |", "Intro\n"},
		{"Intro\n| A | B |\n", "Intro\n"},
		{"Intro\n| A | B |\n|---|--", "Intro\n"},
		{"Intro\n| A | B |\n|---|---|\n", "Intro\n| A | B |\n|---|---|\n"},
		{"Intro\n| A | B |\n|---|---|\n| 1 | 2", "Intro\n| A | B |\n|---|---|\n"},
		{"Code:\n```go\nfunc main() {\n\tfmt.Pri", "Code:\n```go\nfunc main() {\n"},
		{"Code:\n```go\nx\n```\nAfter wo", "Code:\n```go\nx\n```\nAfter wo"},
		{"Code:\n``", "Code:\n"},
		{"~~~\n# not a heading\n", "~~~\n# not a heading\n"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Settled(tt.partial); got != tt.want {
			t.Errorf("Settled(%q) = %q, want %q", tt.partial, got, tt.want)
		}
	}
}

func TestSettledBlocks(t *testing.T) {
	tests := []struct{ partial, want string }{
		{"Intro\n| A | B |\n|---|---|\n| 1 | 2 |\n", "Intro\n"},
		{"Intro\n| A | B |\n|---|---|\n| 1 | 2 |\n\nAfter", "Intro\n| A | B |\n|---|---|\n| 1 | 2 |\n\nAfter"},
		{"Code:\n```go\nx\n", "Code:\n"},
		{"Code:\n```go\nx\n```\n", "Code:\n```go\nx\n```\n"},
		{"Say [this", "Say "},
	}
	for _, tt := range tests {
		if got := SettledBlocks(tt.partial); got != tt.want {
			t.Errorf("SettledBlocks(%q) = %q, want %q", tt.partial, got, tt.want)
		}
	}
}

// TestSettled_OnlyGrows: for every prefix of replies with tables, code, links and emphasis, what
// is settled is a prefix of the text and of what is settled once more has come.
func TestSettled_OnlyGrows(t *testing.T) {
	for _, doc := range []string{settledDoc, strings.ReplaceAll(settledDoc, "\n", "\r\n")} {
		prev := ""
		for i := range len(doc) + 1 {
			p := doc[:i]
			s := Settled(p)
			if !strings.HasPrefix(p, s) {
				t.Fatalf("Settled(%q) = %q, not a prefix", p, s)
			}
			if !strings.HasPrefix(s, prev) && len(s) < len(prev) {
				t.Fatalf("at %d: %q after %q: it shrank", i, s, prev)
			}
			prev = s
		}
		if Settled(doc) != doc {
			t.Errorf("the whole reply is not all settled: %q", Settled(doc))
		}
	}
}

const settledDoc = "Here is **the plan**, with [a link](https://example.com/a_b) and `code`.\n\n" +
	"| Step | Time |\n|:--|--:|\n| Boil | 5 min |\n| Pour | 1 min |\n\n" +
	"```python\nprint('hi')\n```\n\n- one\n- two *and more*\n\nDone.\n"

// FuzzSettled: what is settled is always a prefix of the text written.
func FuzzSettled(f *testing.F) {
	f.Add(settledDoc)
	f.Add("| a |\n|--|\n| b")
	f.Add("```\n[x](y")
	f.Fuzz(func(t *testing.T, s string) {
		if got := Settled(s); !strings.HasPrefix(s, got) {
			t.Fatalf("Settled(%q) = %q", s, got)
		}
		if got := SettledBlocks(s); !strings.HasPrefix(s, got) {
			t.Fatalf("SettledBlocks(%q) = %q", s, got)
		}
	})
}
