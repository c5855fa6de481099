package markdown_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/markdown"
)

var update = flag.Bool("update", false, "write the golden files again from what Flatten returns")

// TestFlatten_Golden checks each reply in testdata/golden/*.md against the blocks it renders
// to, in its .golden file: every part with its kind, nesting, marker and styled spans, then the
// plain text a person copies.
func TestFlatten_Golden(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		t.Run(strings.TrimSuffix(filepath.Base(in), ".md"), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			got := dump(markdown.Flatten(markdown.Parse(string(src))))
			golden := strings.TrimSuffix(in, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if got != string(want) {
				t.Errorf("%s renders to\n%s\nwant\n%s", in, got, want)
			}
		})
	}
}

// dump writes a flattened reply in a form a reviewer can read.
func dump(f markdown.Flat) string {
	var b strings.Builder
	kinds := map[markdown.PartKind]string{markdown.TextPart: "text", markdown.CodePart: "code", markdown.TablePart: "table", markdown.RulePart: "rule"}
	for _, p := range f.Parts {
		fmt.Fprintf(&b, "%s", kinds[p.Kind])
		if p.Heading > 0 {
			fmt.Fprintf(&b, " h%d", p.Heading)
		}
		if p.Depth > 0 {
			fmt.Fprintf(&b, " depth=%d", p.Depth)
		}
		if p.Quote > 0 {
			fmt.Fprintf(&b, " quote=%d", p.Quote)
		}
		if p.Gap {
			b.WriteString(" gap")
		}
		if p.Lang != "" {
			fmt.Fprintf(&b, " lang=%s", p.Lang)
		}
		if p.Marker != nil {
			fmt.Fprintf(&b, " marker=%q", text(p.Marker.Spans))
		}
		b.WriteString("\n")
		switch p.Kind {
		case markdown.TextPart, markdown.CodePart:
			spans(&b, "  ", p.Text.Spans)
		case markdown.TablePart:
			fmt.Fprintf(&b, "  align=%v\n", p.Align)
			for i, row := range p.Cells {
				for j, c := range row {
					fmt.Fprintf(&b, "  [%d,%d]\n", i, j)
					spans(&b, "    ", c.Spans)
				}
			}
		}
	}
	fmt.Fprintf(&b, "--- plain text\n%s\n", f.Text)
	return b.String()
}

func spans(b *strings.Builder, indent string, ss []markdown.Span) {
	for _, s := range ss {
		var st []string
		for _, f := range []struct {
			s    markdown.Style
			name string
		}{{markdown.Strong, "strong"}, {markdown.Emphasis, "em"}, {markdown.Strike, "strike"}, {markdown.Code, "code"}, {markdown.Link, "link"}} {
			if s.Style&f.s != 0 {
				st = append(st, f.name)
			}
		}
		fmt.Fprintf(b, "%s%q", indent, s.Text)
		if len(st) > 0 {
			fmt.Fprintf(b, " %s", strings.Join(st, "+"))
		}
		if s.URL != "" {
			fmt.Fprintf(b, " -> %s", s.URL)
		}
		if s.Title != "" {
			fmt.Fprintf(b, " title=%q", s.Title)
		}
		b.WriteString("\n")
	}
}

func text(ss []markdown.Span) string {
	var b strings.Builder
	for _, s := range ss {
		b.WriteString(s.Text)
	}
	return b.String()
}
