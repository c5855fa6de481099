package markdown

import (
	"strconv"
	"strings"
)

// PartKind is what a part of a flattened reply is drawn as.
type PartKind uint8

// The kinds of part.
const (
	TextPart  PartKind = iota // a paragraph, a heading or a list item's paragraph: wrapped text
	CodePart                  // a code block: not wrapped
	TablePart                 // a table
	RulePart                  // a horizontal rule
)

// Run is a piece of text drawn as one unit, and where it is in the reply's plain text: a
// selection is a range of that text, and each run shows its share of it.
type Run struct {
	Spans      []Span
	Start, End int // byte offsets in Flat.Text
}

// Part is one thing drawn on its own lines: the blocks of a reply flattened, with their nesting
// as indentation.
type Part struct {
	Kind    PartKind
	Heading int  // TextPart: the heading's level, 0 for body text
	Depth   int  // how many lists it is inside
	Quote   int  // how many quotes it is inside
	Gap     bool // a paragraph's space before it, rather than a line's
	// Marker is a list item's bullet, number or task box with the space after it ("• ", "3. ",
	// "☐ "), drawn before the item's first part; nil when the part has none.
	Marker *Run
	Text   Run // TextPart, CodePart (one span: the code)
	Lang   string
	Align  []Align
	Cells  [][]Run // TablePart: the header row, then the others
}

// Flat is a reply ready to draw: its parts, and its plain text as a person copies it.
type Flat struct {
	Parts []Part
	// Text reads as the screen does: list markers and numbers, one line per line, a blank line
	// between paragraphs, table cells separated by tabs and rows by line breaks, code exactly.
	Text string
}

// Task boxes, as drawn and copied.
const (
	BoxOpen = "☐"
	BoxDone = "☑"
	Bullet  = "•"
)

// Flatten lays a document's blocks out as parts, and writes its plain text.
func Flatten(d Document) Flat {
	f := &flattener{}
	for _, b := range d.Blocks {
		f.block(b, 0, 0, true, nil)
	}
	return Flat{Parts: f.parts, Text: f.b.String()}
}

type flattener struct {
	parts []Part
	b     strings.Builder
}

// sep starts a part on a new line, after a blank line when gap, indented two spaces for each
// list it is in beyond the first. A rule writes nothing: it is the blank line around it.
func (f *flattener) sep(gap bool, depth int) {
	if f.b.Len() == 0 {
		return
	}
	f.b.WriteString("\n")
	if gap {
		f.b.WriteString("\n")
	}
	f.b.WriteString(strings.Repeat("  ", max(depth-1, 0)))
}

func orDot(m byte) byte {
	if m == 0 {
		return '.'
	}
	return m
}

// run writes spans to the text and returns their run.
func (f *flattener) run(spans []Span) Run {
	r := Run{Spans: spans, Start: f.b.Len()}
	for _, s := range spans {
		f.b.WriteString(s.Text)
	}
	r.End = f.b.Len()
	return r
}

func (f *flattener) block(b Block, depth, quote int, gap bool, marker []Span) {
	p := Part{Depth: depth, Quote: quote, Gap: gap}
	switch b.Kind {
	case List:
		n := b.Start
		for i, it := range b.Items {
			var m string
			switch {
			case it.Task == Open:
				m = BoxOpen
			case it.Task == Done:
				m = BoxDone
			case b.Ordered:
				m = strconv.Itoa(n) + string(rune(orDot(b.Marker)))
				n++
			default:
				m = Bullet
			}
			itemGap := gap
			if i > 0 {
				itemGap = !b.Tight
			}
			if marker != nil && i == 0 {
				// A list that starts an item ("- - a") puts both markers on its line.
				f.blocksGap(it.Blocks, depth+1, quote, b.Tight, gap, append(append([]Span(nil), marker...), Span{Text: m + " "}))
				marker = nil
				continue
			}
			f.blocksGap(it.Blocks, depth+1, quote, b.Tight, itemGap, []Span{{Text: m + " "}})
		}
		return
	case Quote:
		f.blocksGap(b.Blocks, depth, quote+1, false, gap, marker)
		return
	}
	if b.Kind != Rule {
		f.sep(gap, depth)
	}
	if marker != nil {
		r := f.run(marker)
		p.Marker = &r
	}
	switch b.Kind {
	case Paragraph, Heading:
		p.Kind = TextPart
		p.Heading = b.Level
		p.Text = f.run(b.Spans)
	case CodeBlock:
		p.Kind = CodePart
		p.Lang = b.Lang
		p.Text = f.run([]Span{{Text: b.Code, Style: Code}})
	case Table:
		if huge(b) {
			// Drawn as a grid, it would take the window seconds: its rows as lines of code.
			p.Kind = CodePart
			p.Text = f.run([]Span{{Text: tableLines(b), Style: Code}})
			break
		}
		p.Kind = TablePart
		p.Align = b.Align
		for i, row := range append([][][]Span{b.Header}, b.Rows...) {
			if i > 0 {
				f.b.WriteString("\n")
			}
			cells := make([]Run, len(row))
			for j, c := range row {
				if j > 0 {
					f.b.WriteString("\t")
				}
				if i == 0 {
					c = bold(c)
				}
				cells[j] = f.run(c)
			}
			p.Cells = append(p.Cells, cells)
		}
	case Rule:
		p.Kind = RulePart
	}
	f.parts = append(f.parts, p)
}

// blocksGap flattens blocks whose first one comes after gap.
func (f *flattener) blocksGap(bs []Block, depth, quote int, tight, gap bool, marker []Span) {
	if len(bs) == 0 {
		f.block(Block{Kind: Paragraph}, depth, quote, gap, marker)
		return
	}
	for i, b := range bs {
		g := !tight
		var m []Span
		if i == 0 {
			g, m = gap, marker
		}
		f.block(b, depth, quote, g, m)
	}
}

// bold makes a header cell's spans strong.
func bold(spans []Span) []Span {
	out := make([]Span, len(spans))
	for i, s := range spans {
		s.Style |= Strong
		out[i] = s
	}
	return out
}

// Bounds of a table drawn as a grid; a larger one is shown as lines of text.
const (
	tableColumnsMax = 64
	tableCellsMax   = 10000
)

// huge reports whether a table is beyond what is drawn as a grid.
func huge(b Block) bool {
	return len(b.Header) > tableColumnsMax || len(b.Header)*(len(b.Rows)+1) > tableCellsMax
}

// tableLines is a table as lines of text: its cells separated by " | ".
func tableLines(b Block) string {
	var sb strings.Builder
	for i, row := range append([][][]Span{b.Header}, b.Rows...) {
		if i > 0 {
			sb.WriteString("\n")
		}
		for j, c := range row {
			if j > 0 {
				sb.WriteString(" | ")
			}
			for _, s := range c {
				sb.WriteString(s.Text)
			}
		}
	}
	return sb.String()
}
