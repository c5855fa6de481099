// Package markdown reads a reply written in GitHub-flavoured Markdown into blocks that a window
// can draw and a person can select and copy: paragraphs of styled spans, headings, fenced code
// with its language, tables with their column alignment, lists (nested, ordered from their start
// number, task lists), quotes and rules. It parses with goldmark and its GFM extension, as
// package speakable does, so that what is shown and what is said agree.
//
// Text is kept exactly as written: a bracket, an asterisk that is not emphasis, "$", "<" and
// "&" stay as typed, and no space is added or lost between spans. Only the markup goes: emphasis
// marks, backslashes of escapes, fences, pipes and list markers (shown again as "•" or the
// item's number). Broken Markdown still keeps every word: an unclosed fence runs to the end, a
// table row with more cells than its header widens the table, and link definitions, which a
// Markdown page would hide, are listed at the end.
package markdown

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Style is how a span of text looks; the flags combine.
type Style uint8

// The styles of a span.
const (
	Strong Style = 1 << iota
	Emphasis
	Strike
	Code // inline code: monospace on a subtle background
	Link // the span leads to Span.URL
)

// Span is a run of text in one style.
type Span struct {
	Text  string
	Style Style
	URL   string // Link: where it leads
	Title string // Link: its title, if the author gave one
}

// Kind is what a block is.
type Kind uint8

// The kinds of block.
const (
	Paragraph Kind = iota
	Heading
	CodeBlock
	Table
	List
	Quote
	Rule
)

// Align is a table column's alignment, from its separator row (":---", ":---:", "---:").
type Align uint8

// The alignments of a column.
const (
	AlignNone Align = iota
	AlignLeft
	AlignCenter
	AlignRight
)

// Task is the box of a task-list item.
type Task uint8

// The states of a task-list item.
const (
	NoTask Task = iota
	Open        // "- [ ]"
	Done        // "- [x]"
)

// Block is one block of a reply. Which fields are set depends on Kind.
type Block struct {
	Kind  Kind
	Level int    // Heading: 1 to 6
	Spans []Span // Paragraph, Heading: the text; a line break is a "\n" in a span

	Lang string // CodeBlock: the language of a fence ("go"), "" when none was given
	Info string // CodeBlock: the fence's whole info string
	Code string // CodeBlock: the code, exactly, without the final line break

	Align  []Align    // Table: one per column
	Header [][]Span   // Table: one cell per column
	Rows   [][][]Span // Table: rows of cells, each row as wide as Header

	Ordered bool   // List
	Tight   bool   // List: no blank line between its items
	Start   int    // List: the first item's number, when Ordered
	Marker  byte   // List: '.' or ')' when Ordered
	Items   []Item // List
	Blocks  []Block
	// Blocks holds a Quote's blocks.
}

// Item is one item of a list.
type Item struct {
	Task   Task
	Blocks []Block
}

// Document is a parsed reply.
type Document struct {
	Blocks []Block
}

// gfm is goldmark with GitHub's extensions: tables, strikethrough, autolinks and task lists.
var gfm = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// Parse reads a reply. It never fails: text that is not Markdown is a paragraph.
func Parse(src string) Document {
	b := []byte(src)
	if !strings.HasSuffix(src, "\n") {
		// goldmark loses a fence's info string on a last line without a line break.
		b = append(b, '\n')
	}
	b = tameTables(b)
	pc := parser.NewContext()
	root := gfm.Parse(text.NewReader(b), parser.WithContext(pc))
	r := &reader{src: b}
	d := Document{Blocks: r.blocks(root)}
	if defs := r.definitions(pc.References()); defs != nil {
		d.Blocks = append(d.Blocks, *defs)
	}
	return d
}

// tameTables keeps goldmark from making a table that is too large to draw as a grid (over
// tableColumnsMax columns or tableCellsMax cells, counted before parsing: goldmark gives every
// row as many cells as the header, so a header of 2,000 columns over 2,000 short lines is 4
// million cells and seconds of work). The delimiter row of such a table gets an escaped first
// "-", which makes it text: the table is shown as its lines, every character in them.
func tameTables(src []byte) []byte {
	lines := bytes.SplitAfter(src, []byte("\n"))
	changed := false
	for i, ln := range lines {
		cols := delimiterColumns(ln)
		if cols == 0 {
			continue
		}
		rows := 1
		for j := i + 1; j < len(lines) && len(bytes.TrimSpace(lines[j])) > 0; j++ {
			rows++
		}
		if cols <= tableColumnsMax && cols*rows <= tableCellsMax {
			continue
		}
		k := bytes.IndexByte(ln, '-')
		lines[i] = append(append(append([]byte{}, ln[:k]...), '\\'), ln[k:]...)
		changed = true
	}
	if !changed {
		return src
	}
	return bytes.Join(lines, nil)
}

// delimiterColumns is the number of columns of a table's delimiter row ("|---|:--:|"), 0 when
// the line is not one.
func delimiterColumns(ln []byte) int {
	t := bytes.TrimSpace(ln)
	if len(t) == 0 || bytes.IndexByte(t, '-') < 0 || bytes.IndexByte(t, '|') < 0 {
		return 0
	}
	for _, c := range t {
		if c != '|' && c != '-' && c != ':' && c != ' ' && c != '\t' {
			return 0
		}
	}
	t = bytes.TrimSuffix(bytes.TrimPrefix(t, []byte("|")), []byte("|"))
	return bytes.Count(t, []byte("|")) + 1
}

// reader turns goldmark's tree into blocks.
type reader struct {
	src []byte
}

// blocks reads the block children of n.
func (r *reader) blocks(n ast.Node) []Block {
	var out []Block
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if b, ok := r.block(c); ok {
			out = append(out, b)
		}
	}
	return out
}

// block reads one block node.
func (r *reader) block(n ast.Node) (Block, bool) {
	switch n := n.(type) {
	case *ast.Paragraph, *ast.TextBlock:
		spans := r.spans(n)
		// A paragraph that held only link definitions is left empty by goldmark.
		return Block{Kind: Paragraph, Spans: spans}, len(spans) > 0
	case *ast.Heading:
		return Block{Kind: Heading, Level: n.Level, Spans: r.spans(n)}, true
	case *ast.ThematicBreak:
		return Block{Kind: Rule}, true
	case *ast.FencedCodeBlock:
		b := Block{Kind: CodeBlock, Code: r.lines(n)}
		if n.Info != nil {
			b.Info = string(n.Info.Segment.Value(r.src))
			b.Lang = string(n.Language(r.src))
		}
		return b, true
	case *ast.CodeBlock:
		return Block{Kind: CodeBlock, Code: r.lines(n)}, true
	case *ast.HTMLBlock:
		code := r.lines(n)
		if n.HasClosure() {
			code += "\n" + strings.TrimRight(string(n.ClosureLine.Value(r.src)), "\n")
		}
		return Block{Kind: Paragraph, Spans: []Span{{Text: code}}}, true
	case *ast.Blockquote:
		return Block{Kind: Quote, Blocks: r.blocks(n)}, true
	case *ast.List:
		b := Block{Kind: List, Ordered: n.IsOrdered(), Tight: n.IsTight, Start: n.Start, Marker: n.Marker}
		for it := n.FirstChild(); it != nil; it = it.NextSibling() {
			b.Items = append(b.Items, r.item(it))
		}
		return b, true
	case *east.Table:
		return r.table(n), true
	case *ast.LinkReferenceDefinition:
		// goldmark 1.8 keeps link definitions in the tree; they are listed at the end
		// (definitions), not where they were written.
		return Block{}, false
	}
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		return Block{Kind: Paragraph, Spans: []Span{{Text: r.lines(n)}}}, true
	}
	if n.HasChildren() {
		return Block{Kind: Quote, Blocks: r.blocks(n)}, true
	}
	return Block{}, false
}

// item reads a list item and its task box, if it has one.
func (r *reader) item(n ast.Node) Item {
	var it Item
	if first := n.FirstChild(); first != nil {
		if box, ok := first.FirstChild().(*east.TaskCheckBox); ok {
			it.Task = Open
			if box.IsChecked {
				it.Task = Done
			}
		}
	}
	it.Blocks = r.blocks(n)
	if it.Task != NoTask && len(it.Blocks) > 0 && len(it.Blocks[0].Spans) > 0 {
		// The box's space belongs to the markup.
		it.Blocks[0].Spans[0].Text = strings.TrimPrefix(it.Blocks[0].Spans[0].Text, " ")
		if it.Blocks[0].Spans[0].Text == "" {
			it.Blocks[0].Spans = it.Blocks[0].Spans[1:]
		}
	}
	return it
}

// lines is the text of a block's lines, without the final line break.
func (r *reader) lines(n ast.Node) string {
	var b bytes.Buffer
	ls := n.Lines()
	for i := 0; i < ls.Len(); i++ {
		seg := ls.At(i)
		b.Write(seg.Value(r.src))
	}
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), "\n"), "\r")
}

// table reads a table. A row with more cells than the header (goldmark drops them) widens it.
func (r *reader) table(t *east.Table) Block {
	b := Block{Kind: Table}
	for _, a := range t.Alignments {
		b.Align = append(b.Align, align(a))
	}
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells [][]Span
		var last ast.Node
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.spans(c))
			if c.Lines().Len() > 0 {
				last = c
			}
		}
		if _, header := row.(*east.TableHeader); header {
			b.Header = cells
			continue
		}
		if last != nil {
			cells = append(cells, r.extraCells(last.Lines().At(0).Stop)...)
		}
		b.Rows = append(b.Rows, cells)
	}
	width := len(b.Header)
	for _, row := range b.Rows {
		width = max(width, min(len(row), tableColumnsMax))
	}
	for i, row := range b.Rows {
		if len(row) > width {
			// Cells beyond what a grid shows join the last one, separated as they were.
			last := append([]Span(nil), row[width-1]...)
			for _, c := range row[width:] {
				last = append(append(last, Span{Text: " | "}), c...)
			}
			b.Rows[i] = append(row[:width-1:width-1], last)
		}
	}
	for len(b.Header) < width {
		b.Header = append(b.Header, nil)
		b.Align = append(b.Align, AlignNone)
	}
	for i := range b.Rows {
		for len(b.Rows[i]) < width {
			b.Rows[i] = append(b.Rows[i], nil)
		}
	}
	return b
}

// extraCells reads the cells a row has after the header's last column: the text from the end of
// the last cell goldmark kept (at stop) to the end of its line.
func (r *reader) extraCells(stop int) [][]Span {
	end := bytes.IndexByte(r.src[stop:], '\n')
	if end < 0 {
		end = len(r.src) - stop
	}
	rest := bytes.TrimSpace(r.src[stop : stop+end])
	rest = bytes.TrimPrefix(rest, []byte("|"))
	rest = bytes.TrimSuffix(rest, []byte("|"))
	if len(bytes.TrimSpace(rest)) == 0 {
		return nil
	}
	var cells [][]Span
	for _, cell := range splitCells(rest) {
		cells = append(cells, inlineSpans(strings.TrimSpace(cell)))
	}
	return cells
}

// splitCells splits a row's text at the pipes that are not escaped.
func splitCells(b []byte) []string {
	var cells []string
	start := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, string(b[start:i]))
			start = i + 1
		}
	}
	return append(cells, string(b[start:]))
}

// inlineSpans reads text as the inside of one paragraph: its spans. Block markup in it (a "#" at the
// start, a list marker) is kept as text.
func inlineSpans(s string) []Span {
	if s == "" {
		return nil
	}
	d := Parse(s)
	if len(d.Blocks) == 1 && d.Blocks[0].Kind == Paragraph {
		return d.Blocks[0].Spans
	}
	return []Span{{Text: s}}
}

func align(a east.Alignment) Align {
	switch a {
	case east.AlignLeft:
		return AlignLeft
	case east.AlignCenter:
		return AlignCenter
	case east.AlignRight:
		return AlignRight
	}
	return AlignNone
}

// definitions lists the link definitions ("[1]: https://…") at the end, as a page would not: in a
// reply they are its sources.
func (r *reader) definitions(refs []parser.Reference) *Block {
	if len(refs) == 0 {
		return nil
	}
	b := &Block{Kind: Paragraph}
	l := &spanList{}
	for i, ref := range refs {
		if i > 0 {
			appendSpan(l, Span{Text: "\n"})
		}
		appendSpan(l, Span{Text: "[" + string(ref.Label()) + "]: "})
		dest := string(ref.Destination())
		appendSpan(l, Span{Text: dest, Style: Link, URL: dest, Title: string(ref.Title())})
	}
	b.Spans = l.done()
	return b
}

// spans reads the inline children of n.
func (r *reader) spans(n ast.Node) []Span {
	list := &spanList{}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		r.inline(list, c, Span{})
	}
	out := list.done()
	// A paragraph's last line break is not part of its text.
	if k := len(out) - 1; k >= 0 {
		out[k].Text = strings.TrimRight(out[k].Text, "\n")
		if out[k].Text == "" {
			out = out[:k]
		}
	}
	return out
}

// inline appends the spans of an inline node, in the style st of its parents.
func (r *reader) inline(out *spanList, n ast.Node, st Span) *spanList {
	switch n := n.(type) {
	case *ast.Text:
		v := n.Segment.Value(r.src)
		if !n.IsRaw() {
			v = unescape(v)
		}
		st.Text = string(v)
		if n.SoftLineBreak() || n.HardLineBreak() {
			st.Text += "\n"
		}
		return appendSpan(out, st)
	case *ast.String:
		v := n.Value
		if !n.IsCode() && !n.IsRaw() {
			v = unescape(v)
		}
		st.Text = string(v)
		return appendSpan(out, st)
	case *ast.CodeSpan:
		st.Style |= Code
		var code strings.Builder
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				code.Write(c.Segment.Value(r.src))
			case *ast.String:
				code.Write(c.Value)
			}
		}
		st.Text = code.String()
		return appendSpan(out, st)
	case *ast.Emphasis:
		if n.Level >= 2 {
			st.Style |= Strong
		} else {
			st.Style |= Emphasis
		}
	case *east.Strikethrough:
		st.Style |= Strike
	case *ast.Link:
		st.Style |= Link
		st.URL, st.Title = string(n.Destination), string(n.Title)
		if !n.HasChildren() {
			// "[](https://…)" has no text to click: its address is the text.
			st.Text = st.URL
			return appendSpan(out, st)
		}
		if r.shortcutReference(n) {
			// "[1]" with a definition of 1 is a citation: it keeps its brackets.
			out = appendSpan(out, Span{Text: "[", Style: st.Style, URL: st.URL, Title: st.Title})
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				out = r.inline(out, c, st)
			}
			return appendSpan(out, Span{Text: "]", Style: st.Style, URL: st.URL, Title: st.Title})
		}
	case *ast.Image:
		// Images are not fetched: the alt text leads to the picture.
		st.Style |= Link
		st.URL, st.Title = string(n.Destination), string(n.Title)
		if !n.HasChildren() {
			st.Text = string(n.Destination)
			return appendSpan(out, st)
		}
	case *ast.AutoLink:
		st.Style |= Link
		st.URL = string(n.URL(r.src))
		st.Text = string(n.Label(r.src))
		if n.AutoLinkType == ast.AutoLinkEmail && !strings.HasPrefix(strings.ToLower(st.URL), "mailto:") {
			st.URL = "mailto:" + st.URL
		}
		return appendSpan(out, st)
	case *ast.RawHTML:
		var b strings.Builder
		for i := 0; i < n.Segments.Len(); i++ {
			seg := n.Segments.At(i)
			b.Write(seg.Value(r.src))
		}
		st.Text = b.String()
		return appendSpan(out, st)
	case *east.TaskCheckBox:
		return out
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		out = r.inline(out, c, st)
	}
	return out
}

// shortcutReference reports whether a link was written "[label]" or "[label][]": its text is its
// reference, and what a reader sees is the label in brackets.
func (r *reader) shortcutReference(n *ast.Link) bool {
	last := n.LastChild()
	t, ok := last.(*ast.Text)
	if !ok {
		return false
	}
	end := t.Segment.Stop
	if end >= len(r.src) || r.src[end] != ']' {
		return false
	}
	rest := r.src[end+1:]
	return !bytes.HasPrefix(rest, []byte("(")) && (!bytes.HasPrefix(rest, []byte("[")) || bytes.HasPrefix(rest, []byte("[]")))
}

// spanList collects spans, merging each with the last when they look the same, so that text
// split by the parser ("[", "1", "]") is one run again. The last span's text grows in a
// builder: 64 KB of "[" are 64K pieces of text.
type spanList struct {
	spans []Span
	buf   strings.Builder // the last span's text, while open
	open  bool
}

// appendSpan adds s to l and returns l.
func appendSpan(l *spanList, s Span) *spanList {
	if s.Text == "" {
		return l
	}
	if k := len(l.spans) - 1; l.open && l.spans[k].Style == s.Style && l.spans[k].URL == s.URL && l.spans[k].Title == s.Title {
		l.buf.WriteString(s.Text)
		return l
	}
	l.close()
	l.spans = append(l.spans, s)
	l.buf.Reset()
	l.buf.WriteString(s.Text)
	l.open = true
	return l
}

func (l *spanList) close() {
	if l.open {
		l.spans[len(l.spans)-1].Text = l.buf.String()
		l.open = false
	}
}

// done is the spans collected.
func (l *spanList) done() []Span {
	l.close()
	return l.spans
}

// unescape resolves backslash escapes and character references, as a Markdown renderer does.
func unescape(b []byte) []byte {
	return util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b)))
}
