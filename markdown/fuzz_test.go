package markdown_test

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/yuin/goldmark/util"

	"parley/markdown"
)

// FuzzParse checks that any text renders without a panic, that every word of it is shown (or
// is where a link leads, or a code fence's info), and that each run's range of the plain text
// holds exactly its spans' text, in order.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "plain", "| a | b |\n|---|--:|\n| 1 | 2 | 3 |", "```go\nx := 1\n", "- [ ] a\n  - [x] b\n",
		"[1] and [x](y \"t\") <https://a.b> www.c.d e@f.gh", "> q\n> > r\n\n---\n# h", "a\\\nb  \nc",
		"<div>\n*x*\n</div>", "![i](j)", "[a]: b\n[a]", "1) x\n2) y", "&amp; &#65; &bogus;", "*a **b** c*",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		d := markdown.Parse(src)
		flat := markdown.Flatten(d)
		checkRuns(t, flat)
		shown := flat.Text + "\n" + accounted(d)
		// List numbers after the first are the list's to count, as in every Markdown renderer.
		in := listNumber.ReplaceAllString(src, "")
		for _, w := range words(string(util.ResolveEntityNames(util.ResolveNumericReferences([]byte(in))))) {
			if !strings.Contains(shown, w) {
				t.Fatalf("the word %q of %q is not shown; shown: %q", w, src, shown)
			}
		}
	})
}

// checkRuns fails unless every run covers its own spans' text in the plain text, in order.
func checkRuns(t *testing.T, f markdown.Flat) {
	t.Helper()
	last := 0
	check := func(r markdown.Run) {
		t.Helper()
		if r.Start < last || r.End < r.Start || r.End > len(f.Text) {
			t.Fatalf("run [%d,%d) out of order (after %d) in %q", r.Start, r.End, last, f.Text)
		}
		var b strings.Builder
		for _, s := range r.Spans {
			b.WriteString(s.Text)
		}
		if got := f.Text[r.Start:r.End]; got != b.String() {
			t.Fatalf("run [%d,%d) holds %q in the plain text, its spans %q", r.Start, r.End, got, b.String())
		}
		last = r.End
	}
	for _, p := range f.Parts {
		if p.Marker != nil {
			check(*p.Marker)
		}
		switch p.Kind {
		case markdown.TextPart, markdown.CodePart:
			check(p.Text)
		case markdown.TablePart:
			for _, row := range p.Cells {
				for _, c := range row {
					check(c)
				}
			}
		}
	}
}

// accounted is everything a reply shows or keeps: its text, where its links lead, their
// titles, and its code fences' info strings.
func accounted(d markdown.Document) string {
	var b strings.Builder
	spans := func(ss []markdown.Span) {
		for _, s := range ss {
			b.WriteString(s.Text + "\n" + s.URL + "\n" + s.Title + "\n")
		}
	}
	var blocks func([]markdown.Block)
	blocks = func(bs []markdown.Block) {
		for _, bl := range bs {
			spans(bl.Spans)
			b.WriteString(bl.Info + "\n" + bl.Code + "\n")
			for _, c := range bl.Header {
				spans(c)
			}
			for _, r := range bl.Rows {
				for _, c := range r {
					spans(c)
				}
			}
			for _, it := range bl.Items {
				if it.Task == markdown.Done {
					b.WriteString("x\nX\n") // the box's mark is shown as a tick
				}
				blocks(it.Blocks)
			}
			blocks(bl.Blocks)
		}
	}
	blocks(d.Blocks)
	return b.String()
}

// listNumber is an ordered list item's number, at the start of a line (inside quotes, lists or
// not).
var listNumber = regexp.MustCompile(`(?m)^[ \t>*+\-\d.)]*\d{1,9}[.)]`)

// words are the runs of letters and digits of s.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// TestFlatten_HugeTablesAreText: tables too large to draw as a grid (2,000 columns; 64
// columns over 200 lines) are shown as their lines, every cell in them, and quickly; a row with
// 3,000 cells under a header of 2 keeps them all in its last cell.
func TestFlatten_HugeTablesAreText(t *testing.T) {
	wide := "|" + strings.Repeat(" c |", 2000) + "\n|" + strings.Repeat("---|", 2000) + "\n|" + strings.Repeat(" x |", 2000) + "\n"
	long := "|" + strings.Repeat(" c |", 64) + "\n|" + strings.Repeat("---|", 64) + "\n" + strings.Repeat("| x |\n", 200)
	for name, src := range map[string]string{"wide": wide, "long": long} {
		f := markdown.Flatten(markdown.Parse(src))
		for _, p := range f.Parts {
			if p.Kind == markdown.TablePart {
				t.Errorf("%s: drawn as a grid of %d rows", name, len(p.Cells))
			}
		}
		if want := strings.Count(src, "x"); strings.Count(f.Text, "x") != want {
			t.Errorf("%s: %d of its %d cells are shown", name, strings.Count(f.Text, "x"), want)
		}
	}
	row := "| a | b |\n|---|---|\n|" + strings.Repeat(" y |", 3000) + "\n"
	f := markdown.Flatten(markdown.Parse(row))
	if len(f.Parts) != 1 || f.Parts[0].Kind != markdown.TablePart || len(f.Parts[0].Cells[0]) > 64 {
		t.Fatalf("a row of 3,000 cells under a header of 2 gives %d parts", len(f.Parts))
	}
	if got := strings.Count(f.Text, "y"); got != 3000 {
		t.Errorf("%d of the row's 3,000 cells are shown", got)
	}
}
