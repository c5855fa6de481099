package speakable_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"parley/audio/sentence"
	"parley/voice/speakable"
)

func TestText(t *testing.T) {
	code := speakable.CodePlaceholder
	tests := []struct {
		name, markdown, want string
	}{
		// The examples of issue 17, as a model wrote them.
		{"emphasis", "This is *italic*, **bold**, _also italic_ and ~~struck~~.", "This is italic, bold, also italic and struck."},
		{"link", "See the [link to example](https://example.com) for more.", "See the link to example for more."},
		{"list bullets", "- first item\n- second item\n* third\n+ fourth", "first item\nsecond item\nthird\nfourth"},
		{"blockquote", "> A blockquote line.\n> > Nested.", "A blockquote line.\nNested."},
		{"table", "| Name | Price | Stock |\n|------|------:|-------|\n| Tea | 3 | yes |\n| Cake | 4 | no |",
			"A table of 2 rows, with the columns Name, Price and Stock."},
		{"horizontal rule", "Above.\n\n---\n\nBelow.\n\n***\n\n___", "Above.\nBelow."},
		{"autolink", "Docs: <https://parley.example/docs>", "Docs: parley.example"},
		// More.
		{"plain text unchanged", "Paris is the capital of France. It lies on the Seine.", "Paris is the capital of France. It lies on the Seine."},
		{"headings", "# Title\n## Sub *title*\nSetext\n===", "Title\nSub title\nSetext"},
		{"bare url", "Go to https://www.example.org/a/b?c=1 today.", "Go to example.org today."},
		{"www autolink", "Or www.example.com/docs.", "Or example.com."},
		{"url in link text", "[https://example.com/x](https://example.com/x)", "example.com"},
		{"empty link text", "Here: [](https://docs.example:8080/a).", "Here: docs.example."},
		{"email", "Write to <help@parley.example>.", "Write to help@parley.example."},
		{"image says its alt text", "![A red bicycle](bike.png)", "A red bicycle"},
		{"ordered list keeps its numbers", "Steps:\n\n1. Preheat the oven.\n2. Bake it.", "Steps:\n1. Preheat the oven.\n2. Bake it."},
		{"ordered list from 3", "3. Third\n4. Fourth", "3. Third\n4. Fourth"},
		{"nested list", "- one\n  - one a\n- two", "one\none a\ntwo"},
		{"task list", "- [x] Buy milk\n- [ ] Call home", "Buy milk\nCall home"},
		{"fenced code", "Run this:\n```go\nfmt.Println(\"hi\")\n```\nDone.", "Run this:\n" + code + "\nDone."},
		{"code blocks in a row said once", "```\na\n```\n~~~\nb\n~~~\n\n    indented", code},
		{"short inline code kept", "Run `ls -la` now.", "Run ls -la now."},
		{"long inline code", "Run `" + strings.Repeat("x", 60) + "` now.", "Run " + code + " now."},
		{"html", "<div>\n<p>Block</p>\n</div>\n\nSome <b>bold</b> and <br/> text.", "Some bold and text."},
		{"escaped tag", `Type \<b\> for bold.`, "Type for bold."},
		{"escapes and entities", `\*not emphasis\* &amp; &copy; &#169;`, "not emphasis & © ©"},
		{"underscores", "snake_case and __init__", "snake case and init"},
		{"hard and soft breaks", "Line one\nline two  \nline three", "Line one\nline two\nline three"},
		{"table of one row, many columns", "|a|b|c|d|e|f|g|h|\n|-|-|-|-|-|-|-|-|\n|1|2|3|4|5|6|7|8|",
			"A table of 1 row, with the columns a, b, c, d, e, f and 2 more."},
		{"table without rows", "| Only |\n|---|", "An empty table, with the column Only."},
		{"table cells with markup", "| **Name** | [Site](https://x.example) |\n|---|---|\n| a | b |", "A table of 1 row, with the columns Name and Site."},
		{"table in prose", "Prices:\n\n| A | B |\n|---|---|\n| 1 | 2 |\n\nThat is all.", "Prices:\nA table of 1 row, with the columns A and B.\nThat is all."},
		{"pipes in prose", "Choose a | b.", "Choose a b."},
		{"comparisons stay", "If x > 3 and y < 2, stop.", "If x > 3 and y < 2, stop."},
		{"hash stays inside a line", "C# is #1.", "C# is #1."},
		{"cjk", "你好。**今天**天气很好！", "你好。今天天气很好！"},
		{"empty", "", ""},
		{"markup only", "---\n\n```\ncode\n```", code},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := speakable.Text(tt.markdown); got != tt.want {
				t.Errorf("Text(%q)\n got %q\nwant %q", tt.markdown, got, tt.want)
			}
		})
	}
}

// TestText_ThenSplit checks what the Speaker asks to be spoken for a reply in Markdown.
func TestText_ThenSplit(t *testing.T) {
	reply := "## Tea\n\nTea is *brewed* from leaves. See [the guide](https://tea.example/guide).\n\n" +
		"- Green\n- Black\n\n> Steep it well.\n\n| Kind | Minutes |\n|---|---:|\n| Green | 2 |\n| Black | 4 |\n\n---\n\nMore at <https://parley.example/docs>."
	want := []string{"Tea", "Tea is brewed from leaves.", "See the guide.", "Green", "Black", "Steep it well.",
		"A table of 2 rows, with the columns Kind and Minutes.", "More at parley.example."}
	got := sentence.Split(speakable.Text(reply), sentence.DefaultMaxLen)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("chunks\n got %q\nwant %q", got, want)
	}
}

var (
	htmlTag  = regexp.MustCompile(`</?[A-Za-z][^<>\n]*>`) // within a line: each line is spoken alone
	lineMark = regexp.MustCompile(`(?m)^(#|>|- |\+ |-$|\+$)`)
)

func FuzzText(f *testing.F) {
	for _, s := range []string{
		"*italic* **bold** _x_ ~~y~~ `code`",
		"[link to example](https://example.com) <https://parley.example/docs> www.example.com",
		"- first item\n1. one\n> A blockquote line.\n---\n# H\n",
		"| a | b |\n|------|------:|\n| 1 | 2 |",
		"```\ncode\n```\n    indented\n<div>x</div>\n\\<b\\>",
		"- [x] done\n\n[ref]: https://example.com\n\n[ref]",
		"你好。**今天**天气很好！",
		"\\\\ \\* &amp; &#0; &#x110000; <a@b.c>",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, markdown string) {
		out := speakable.Text(markdown)
		if i := strings.IndexAny(out, speakable.MarkupRunes); i >= 0 {
			t.Fatalf("markup %q left in %q", out[i], out)
		}
		if m := htmlTag.FindString(out); m != "" {
			t.Fatalf("HTML tag %q left in %q", m, out)
		}
		if m := lineMark.FindString(out); m != "" {
			t.Fatalf("a line starts with the mark %q: %q", m, out)
		}
		if strings.Contains(out, "://") {
			t.Fatalf("a web address is read out: %q", out)
		}
		if max := 5*len(markdown) + 64; len(out) > max {
			t.Fatalf("%d bytes out of %d in: %q", len(out), len(markdown), out)
		}
		if utf8.ValidString(markdown) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 out of valid: %q", out)
		}
	})
}

// BenchmarkText is the time a reply's speakable text takes, before its first sentence can be
// asked for: a reply of 2 KB and one of 49 KB.
func BenchmarkText(b *testing.B) {
	part := "## Tea\n\nTea is *brewed* from leaves, see [the guide](https://tea.example/guide). It is old.\n\n" +
		"- Green\n- Black\n\n| Kind | Minutes |\n|---|---:|\n| Green | 2 |\n\n```\ncode\n```\n\n> Steep it well.\n\n"
	for _, size := range []int{2 << 10, 49 << 10} {
		reply := strings.Repeat(part, size/len(part)+1)[:size]
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(reply)))
			for b.Loop() {
				speakable.Text(reply)
			}
		})
	}
}
