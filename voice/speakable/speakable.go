// Package speakable turns a reply written in Markdown into the text a voice should say: the words
// without the markup, links said by their text, web addresses by their site's name, tables and
// code by a short phrase. It parses with goldmark and its GitHub Flavored Markdown extension, the
// parser the window renders replies with, so what is shown and what is said agree.
package speakable

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"parley/audio/sentence"
	"parley/internal/i18n"
)

// CodePlaceholder is said instead of a code block or a long piece of inline code; it is the
// sentence splitter's, so the Speaker recognises it.
const CodePlaceholder = sentence.CodePlaceholder

// MarkupRunes are the characters Text never leaves in what it returns: a voice would read them
// out by name ("asterisk", "underscore", "vertical line").
const MarkupRunes = "*_`|~[]"

// Tuning of what is said.
const (
	// inlineCodeMax is the longest inline code span (in runes) that is read aloud.
	inlineCodeMax = 40
	// tableColumnsMax is how many of a table's column names are read before "and N more".
	tableColumnsMax = 6
)

// parser is goldmark with the GFM extension (tables, strikethrough, autolinks, task lists).
var parser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// Text returns the speakable form of a Markdown reply, one line per paragraph line, heading, list
// item or table, ready for sentence.Split. Emphasis, heading marks, list bullets, blockquote marks,
// horizontal rules and HTML are dropped; a link is said by its text, a web address by its site's
// name ("parley.example"); a table by its size and column names ("A table of 2 rows, with the
// columns Name and Price."); code blocks and inline code over 40 characters by CodePlaceholder,
// short inline code by its text. List numbers stay ("1. Eggs"): they read well.
func Text(markdown string) string {
	src := []byte(markdown)
	w := &writer{src: src}
	w.block(parser.Parse(text.NewReader(src)))
	w.flush()
	return strings.Join(w.lines, "\n")
}

// writer collects the speakable lines of one document.
type writer struct {
	src    []byte
	lines  []string
	cur    strings.Builder // the line being written
	prefix string          // put before the next line: an ordered list item's number
}

// block writes a block node and its children.
func (w *writer) block(n ast.Node) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock, *ast.Heading:
		w.inlines(n)
		w.flush()
	case *ast.ThematicBreak, *ast.HTMLBlock:
		// Nothing to say: a rule is a pause, and HTML is not prose.
	case *ast.CodeBlock, *ast.FencedCodeBlock:
		w.flush()
		w.placeholder()
	case *ast.List:
		number := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			w.flush()
			if n.IsOrdered() {
				w.prefix = fmt.Sprintf("%d. ", number)
				number++
			}
			w.children(item)
			w.prefix = ""
		}
	case *east.Table:
		w.flush()
		w.lines = append(w.lines, w.table(n))
	default: // the document, blockquotes, list items and blocks of extensions
		w.children(n)
	}
}

// children writes the block children of n.
func (w *writer) children(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c.Type() == ast.TypeInline {
			w.inline(&w.cur, c)
			continue
		}
		w.block(c)
	}
	w.flush()
}

// inlines writes the inline children of n to the current line.
func (w *writer) inlines(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		w.inline(&w.cur, c)
	}
}

// inline writes an inline node to b; a line break becomes "\n", which flush splits at.
func (w *writer) inline(b *strings.Builder, n ast.Node) {
	switch n := n.(type) {
	case *ast.Text:
		b.Write(unescape(n.Segment.Value(w.src)))
		if n.SoftLineBreak() || n.HardLineBreak() {
			b.WriteByte('\n')
		}
	case *ast.String:
		if n.IsCode() {
			b.Write(n.Value)
		} else {
			b.Write(unescape(n.Value))
		}
	case *ast.CodeSpan:
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				code.Write(c.Segment.Value(w.src))
			case *ast.String:
				code.Write(c.Value)
			}
		}
		s := strings.TrimSpace(code.String())
		if utf8.RuneCountInString(s) > inlineCodeMax {
			s = CodePlaceholder
		}
		b.WriteString(s)
	case *ast.AutoLink:
		if n.AutoLinkType == ast.AutoLinkEmail {
			b.Write(n.Label(w.src))
		} else {
			b.WriteString(siteName(string(n.URL(w.src))))
		}
	case *ast.Link:
		var label strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.inline(&label, c)
		}
		l := strings.TrimSpace(label.String())
		if dest := string(n.Destination); l == "" || l == dest || strings.TrimSuffix(l, "/") == strings.TrimSuffix(dest, "/") {
			l = siteName(dest)
		}
		b.WriteString(l)
	case *ast.RawHTML:
		// Tags are not said; the text between them is.
	case *east.TaskCheckBox:
		// "- [x] Done" says "Done".
	default: // emphasis, strikethrough, images (their alt text) and inline extensions
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			w.inline(b, c)
		}
	}
}

// unescape resolves backslash escapes and character references, as a renderer would.
func unescape(b []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b)))
}

// table says a table briefly: its number of rows and its column names.
func (w *writer) table(t *east.Table) string {
	var columns []string
	rows := 0
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if _, ok := r.(*east.TableHeader); !ok {
			rows++
			continue
		}
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			var b strings.Builder
			w.inline(&b, c)
			if name := clean(strings.ReplaceAll(b.String(), "\n", " ")); name != "" {
				columns = append(columns, name)
			}
		}
	}
	if len(columns) > tableColumnsMax {
		more := len(columns) - tableColumnsMax
		columns = append(columns[:tableColumnsMax], fmt.Sprintf(i18n.N("%d more", "%d more", more), more))
	}
	list := ""
	if n := len(columns); n > 1 {
		list = fmt.Sprintf(i18n.T("%s and %s"), strings.Join(columns[:n-1], ", "), columns[n-1])
	}
	switch {
	case rows == 0 && len(columns) == 0:
		return i18n.T("An empty table.")
	case rows == 0 && len(columns) == 1:
		return fmt.Sprintf(i18n.T("An empty table, with the column %s."), columns[0])
	case rows == 0:
		return fmt.Sprintf(i18n.T("An empty table, with the columns %s."), list)
	case len(columns) == 0:
		return fmt.Sprintf(i18n.N("A table of %d row.", "A table of %d rows.", rows), rows)
	case len(columns) == 1:
		return fmt.Sprintf(i18n.N("A table of %d row, with the column %s.", "A table of %d rows, with the column %s.", rows), rows, columns[0])
	}
	return fmt.Sprintf(i18n.N("A table of %d row, with the columns %s.", "A table of %d rows, with the columns %s.", rows), rows, list)
}

// placeholder says that code was left out, once for code blocks one after another.
func (w *writer) placeholder() {
	if n := len(w.lines); n == 0 || w.lines[n-1] != CodePlaceholder || w.prefix != "" {
		w.lines = append(w.lines, w.prefix+CodePlaceholder)
		w.prefix = ""
	}
}

// flush ends the current line: each of its pieces between line breaks becomes a line, cleaned.
func (w *writer) flush() {
	s := w.cur.String()
	w.cur.Reset()
	for line := range strings.SplitSeq(s, "\n") {
		if line = clean(line); line != "" {
			w.lines = append(w.lines, w.prefix+line)
			w.prefix = ""
		}
	}
}

var (
	// bareURL is a web address in plain text that the autolinker did not take.
	bareURL = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>]*`)
	// tag is an HTML tag written as text (escaped, or where HTML is not parsed).
	tag = regexp.MustCompile(`</?[A-Za-z][^<>]*>`)
	// spaces are runs of white space, said as one.
	spaces = regexp.MustCompile(`\s+`)
)

// clean makes one line speakable: web addresses as site names, no HTML tags, no characters of
// MarkupRunes, single spaces, and no mark at its start that reads like a bullet, a heading or a
// quote.
func clean(line string) string {
	if strings.Contains(line, "://") {
		line = bareURL.ReplaceAllStringFunc(line, siteName)
		line = strings.ReplaceAll(line, "://", " ") // what is left of an address with no site
	}
	if strings.IndexByte(line, '<') >= 0 {
		line = tag.ReplaceAllString(line, " ")
	}
	if strings.ContainsAny(line, MarkupRunes) {
		line = strings.Map(func(r rune) rune {
			if strings.ContainsRune(MarkupRunes, r) {
				return ' '
			}
			return r
		}, line)
	}
	line = strings.TrimSpace(line)
	if strings.Contains(line, "  ") || strings.ContainsAny(line, "\t\n\r\v\f\u0085\u00a0") {
		line = spaces.ReplaceAllString(line, " ")
	}
	for {
		trimmed := strings.TrimLeftFunc(strings.TrimLeft(line, "#>"), unicode.IsSpace)
		if (strings.HasPrefix(trimmed, "- ") || strings.HasPrefix(trimmed, "+ ")) || trimmed == "-" || trimmed == "+" {
			trimmed = strings.TrimSpace(trimmed[1:])
		}
		if trimmed == line {
			return line
		}
		line = trimmed
	}
}

// siteName is how a web address is said: its host without "www." ("parley.example"), or "" when
// it has none (a relative link, say).
func siteName(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" {
		u, err = url.Parse("http://" + addr) // "www.example.com/docs", as the autolinker finds it
		if err != nil || !strings.Contains(addr, ".") {
			return ""
		}
	}
	host := strings.ToLower(u.Hostname())
	host = strings.TrimPrefix(host, "www.")
	return plainHost(host)
}

// plainHost drops MarkupRunes from a host name (a parsed host may still hold "_" or "~").
func plainHost(host string) string {
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(MarkupRunes, r) || unicode.IsSpace(r) || r == '<' || r == '>' {
			return -1
		}
		return r
	}, host)
}
