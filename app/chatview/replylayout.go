package chatview

import (
	"image/color"
	"math"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/markdown"
)

// piece is a run of text drawn by one canvas.Text, and where it is in the plain text.
type piece struct {
	layer      *layer
	x, y, w, h float32 // in its layer
	text       string
	start      int
	span       markdown.Span
	style      textStyle
	ts         fyne.TextStyle
	size       float32
}

// line is one line of laid-out text: its pieces and its range of the plain text.
type line struct {
	layer      *layer
	x, y, w, h float32 // the area it may use
	start, end int
	pieces     []*piece
}

// layer is a set of drawn objects in one coordinate space: the reply, or the inside of a code
// block's or table's horizontal scroller.
type layer struct {
	back   []fyne.CanvasObject // backgrounds and grid lines
	sel    []*canvas.Rectangle // the selection, drawn over backgrounds and under text
	front  []fyne.CanvasObject // text, underlines, strike-through lines
	top    []fyne.CanvasObject // scrollers and buttons (the reply's layer only)
	nsel   int
	scroll *hscroll // the scroller it is the inside of; nil for the reply's own
	// shownSel is how many selection rectangles the drawn objects hold.
	shownSel int
}

func (l *layer) objects() []fyne.CanvasObject {
	out := make([]fyne.CanvasObject, 0, len(l.back)+len(l.sel)+len(l.front)+len(l.top))
	out = append(out, l.back...)
	for _, r := range l.sel {
		out = append(out, r)
	}
	out = append(out, l.front...)
	return append(out, l.top...)
}

// replyLayout is a reply laid out for one width.
type replyLayout struct {
	usedScrollers, usedButtons int // taken from the text's pools
	usedTexts, usedRects       int
	metrics                    map[textStyleKey]styleMetrics
	inCode                     bool // the text being laid out is a code block's
	t                          *replyText
	maxW                       float32
	size                       fyne.Size
	root                       *layer
	lines                      []*line
	scrollers                  []*hscroll
	fg                         color.Color
}

// textStyle is how a run of text is drawn.
type textStyle struct {
	ts    fyne.TextStyle
	size  float32
	color color.Color
}

func layoutReply(t *replyText, maxW float32) *replyLayout {
	l := &replyLayout{t: t, maxW: maxW, root: &layer{}}
	l.fg = theme.Color(theme.ColorNameForeground)
	if t.user {
		l.fg = theme.Color(theme.ColorNameForegroundOnPrimary)
	}
	body := theme.TextSize()
	charW := fyne.MeasureText("The quick brown fox jumps over the lazy dog", body, fyne.TextStyle{}).Width / 43
	measure := min(maxW, charW*measureChars)
	if t.user {
		measure = maxW
	}
	// The natural width: the widest part unwrapped, within its limit. A code block's width and a
	// table's columns are kept for laying them out below.
	natural := float32(0)
	codeW := map[int]float32{}
	tableCols := map[int][]float32{}
	for i := range t.flat.Parts {
		p := &t.flat.Parts[i]
		indent := l.indent(p, charW)
		switch p.Kind {
		case markdown.TextPart:
			natural = max(natural, min(indent+l.unwrappedWidth(p), measure))
		case markdown.CodePart:
			codeW[i] = codeWidth(p)
			natural = max(natural, min(indent+codeW[i]+2*codePad, maxW))
		case markdown.TablePart:
			tableCols[i] = l.columnWidths(p, charW)
			natural = max(natural, min(indent+sum(tableCols[i]), maxW))
		}
	}
	width := max(min(natural, maxW), 1)
	textW := min(width, measure)

	y := float32(0)
	for i := range t.flat.Parts {
		p := &t.flat.Parts[i]
		if i > 0 {
			if p.Gap {
				y += lineHeight(body, fyne.TextStyle{}) * paragraphGapRate
			} else {
				y += 2
			}
		}
		x := l.indent(p, charW)
		top := y
		if p.Marker != nil {
			mw := l.spansWidth(p.Marker.Spans, l.baseStyle(p))
			l.flowSpans(l.root, p.Marker.Spans, p.Marker.Start, x-mw, y, 0, markdown.AlignNone, l.baseStyle(p))
		}
		switch p.Kind {
		case markdown.TextPart:
			y += l.flowSpans(l.root, p.Text.Spans, p.Text.Start, x, y, max(textW-x, 20), markdown.AlignNone, l.baseStyle(p))
		case markdown.CodePart:
			y += l.code(p, codeW[i], x, y, width-x)
		case markdown.TablePart:
			y += l.table(p, tableCols[i], x, y, width-x)
		case markdown.RulePart:
			h := lineHeight(body, fyne.TextStyle{})
			rule := l.rect(theme.Color(theme.ColorNameSeparator))
			rule.Move(fyne.NewPos(x, y+h/2))
			rule.Resize(fyne.NewSize(width-x, 1))
			l.root.back = append(l.root.back, rule)
			y += h
		}
		for q := 0; q < p.Quote; q++ {
			bar := l.rect(withAlpha(l.fg, 0x40))
			bar.Move(fyne.NewPos(float32(q)*quoteIndent, top))
			bar.Resize(fyne.NewSize(3, y-top))
			l.root.back = append(l.root.back, bar)
		}
	}
	l.size = fyne.NewSize(width, y)
	for _, txt := range t.texts[l.usedTexts:] {
		txt.Text = "" // the texts not drawn keep no piece (and so all) of an earlier reply
	}
	return l
}

// indent is how far right a part starts: its quotes and lists.
func (l *replyLayout) indent(p *markdown.Part, charW float32) float32 {
	return float32(p.Quote)*quoteIndent + float32(p.Depth)*listIndentChars*charW
}

// baseStyle is a part's text style before its spans' own.
func (l *replyLayout) baseStyle(p *markdown.Part) textStyle {
	st := textStyle{size: theme.TextSize(), color: l.fg}
	switch p.Heading {
	case 0:
	case 1:
		st.size, st.ts.Bold = theme.Size(theme.SizeNameHeadingText), true
	case 2:
		st.size, st.ts.Bold = theme.Size(theme.SizeNameSubHeadingText), true
	default:
		st.ts.Bold = true
	}
	if p.Quote > 0 && !l.t.user {
		st.color = withAlpha(l.fg, 0xc0)
	}
	return st
}

// spanStyle is the style of a span within a part of style base.
func spanStyle(base textStyle, s markdown.Span) textStyle {
	st := base
	st.ts.Bold = st.ts.Bold || s.Style&markdown.Strong != 0
	st.ts.Italic = s.Style&markdown.Emphasis != 0
	if s.Style&markdown.Code != 0 {
		// Monospace alone: themes need not have a bold monospace face.
		st.ts = fyne.TextStyle{Monospace: true}
	}
	if s.Style&markdown.Link != 0 {
		st.color = linkColor()
	}
	return st
}

func lineHeight(size float32, ts fyne.TextStyle) float32 {
	return fyne.MeasureText("Hg", size, ts).Height
}

func (l *replyLayout) unwrappedWidth(p *markdown.Part) float32 {
	base := l.baseStyle(p)
	var w, lineW float32
	for _, s := range p.Text.Spans {
		st := spanStyle(base, s)
		parts := strings.Split(s.Text, "\n")
		for i, seg := range parts {
			if i > 0 {
				w, lineW = max(w, lineW), 0
			}
			if len(seg) > 2000 {
				return 1e6
			}
			lineW += fyne.MeasureText(seg, st.size, st.ts).Width
		}
	}
	return max(w, lineW) + 2
}

func (l *replyLayout) spansWidth(spans []markdown.Span, base textStyle) float32 {
	var w float32
	for _, s := range spans {
		st := spanStyle(base, s)
		w += fyne.MeasureText(s.Text, st.size, st.ts).Width
	}
	return w
}

// pieceMax is the longest text one drawn piece holds (bytes): a longer run, a line of code of
// 200 KB, is drawn in several, so that no texture is wider than a painter allows.
const pieceMax = 1024

// token is a word with the spaces after it, or a line break.
type token struct {
	text  string
	start int // in the plain text
	span  int
	br    bool
}

// flow lays spans out from (x, y) in lines of at most w (0: no wrapping), aligned in that width,
// in layer ly; it returns the height used.
func (l *replyLayout) flow(ly *layer, spans []markdown.Span, styles []textStyle, start int, x, y, w float32, al markdown.Align, lh float32) float32 {
	var toks []token
	off := start
	spanStart := make([]int, len(spans)) // where each span starts in the plain text
	for si, s := range spans {
		spanStart[si] = off
		rest := s.Text
		for rest != "" {
			if rest[0] == '\n' {
				toks = append(toks, token{text: "\n", start: off, span: si, br: true})
				rest, off = rest[1:], off+1
				continue
			}
			end := strings.IndexAny(rest, " \t\n")
			if end < 0 {
				end = len(rest)
			} else {
				for end < len(rest) && (rest[end] == ' ' || rest[end] == '\t') {
					end++
				}
			}
			toks = append(toks, token{text: rest[:end], start: off, span: si})
			rest, off = rest[end:], off+end
		}
	}
	first := len(l.lines)
	cur := &line{layer: ly, x: x, y: y, w: w, start: start, end: start}
	height := float32(0)
	var lineX float32
	finish := func(end int) {
		cur.end = end
		h := lh
		for _, p := range cur.pieces {
			h = max(h, p.h)
		}
		cur.h = h
		for _, p := range cur.pieces {
			// A smaller face (inline code) sits on the line's baseline, near its bottom.
			p.y = cur.y + (h-p.h)*0.8
		}
		l.alignLine(cur, lineX, al)
		l.lines = append(l.lines, cur)
		height += h + lineGap
		cur = &line{layer: ly, x: x, y: y + height, w: w, start: end, end: end}
		lineX = 0
	}
	inCode := l.inCode
	// add puts text (a word and its spaces, of width tw) at the end of the line. The words of a
	// run are measured one by one and their widths added: a space between them stops kerning.
	add := func(text string, tw float32, tokStart, si int) {
		st := styles[si]
		if n := len(cur.pieces); n > 0 && cur.pieces[n-1].span == spans[si] && cur.pieces[n-1].start+len(cur.pieces[n-1].text) == tokStart && len(cur.pieces[n-1].text)+len(text) <= pieceMax {
			// The piece grows over its span's own text: a slice, not a copy.
			p := cur.pieces[n-1]
			from := p.start - spanStart[si]
			p.text = spans[si].Text[from : from+len(p.text)+len(text)]
			p.w += tw
			lineX = p.x - x + p.w
			return
		}
		m := l.metricsOf(st)
		p := &piece{layer: ly, x: x + lineX, y: cur.y, w: tw, h: m.lineH, text: text, start: tokStart, span: spans[si], ts: st.ts, size: st.size, style: st}
		cur.pieces = append(cur.pieces, p)
		lineX += tw
	}
	for _, tk := range toks {
		if tk.br {
			finish(tk.start)
			cur.start, cur.end = tk.start+1, tk.start+1
			continue
		}
		st := styles[tk.span]
		var tw, fit float32
		if w > 0 && len(tk.text) > cutWindow(w) {
			tw, fit = w+1, w+1 // a word longer than any line: cut below, a window at a time
		} else {
			tw, fit = l.wordWidth(tk.text, st)
		}
		if w > 0 {
			if lineX > 0 && lineX+fit > w {
				finish(tk.start)
			}
			// A word wider than the line is cut where it must be.
			text, s := tk.text, tk.start
			for lineX == 0 && fit > w {
				n := fitPrefix(text, w, st)
				pw, _ := l.wordWidth(text[:n], st)
				add(text[:n], pw, s, tk.span)
				finish(s + n)
				text, s = text[n:], s+n
				if len(text) > cutWindow(w) {
					tw, fit = w+1, w+1 // certainly wider than the line: cut again
				} else {
					tw, fit = l.wordWidth(text, st)
				}
			}
			if text != "" {
				add(text, tw, s, tk.span)
			}
			continue
		}
		add(tk.text, tw, tk.start, tk.span)
	}

	finish(off)
	for _, ln := range l.lines[first:] {
		for _, p := range ln.pieces {
			l.drawPiece(p, p.style, inCode)
		}
	}
	return max(height-lineGap, lh)
}

// cutWindow is how many bytes of a word are looked at to cut it to a width w: more than a line
// of the narrowest characters holds, so that a word of 64 KB is not measured whole for every
// line it is cut into.
func cutWindow(w float32) int { return int(w)*2 + 64 }

// fitPrefix is how many bytes of s fit in w (at least one character).
func fitPrefix(s string, w float32, st textStyle) int {
	s = s[:min(len(s), cutWindow(w))]
	lo, hi := 0, len(s)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		for mid > 0 && mid < len(s) && !utf8.RuneStart(s[mid]) {
			mid--
		}
		if mid <= lo {
			break
		}
		if fyne.MeasureText(s[:mid], st.size, st.ts).Width <= w {
			lo = mid
		} else {
			hi = mid - 1
			for hi > 0 && hi < len(s) && !utf8.RuneStart(s[hi]) {
				hi--
			}
		}
	}
	if lo == 0 {
		_, n := utf8.DecodeRuneInString(s)
		return n
	}
	return lo
}

// alignLine moves a line's pieces for a right or centred column.
func (l *replyLayout) alignLine(ln *line, used float32, al markdown.Align) {
	if ln.w <= 0 {
		return
	}
	var dx float32
	switch al {
	case markdown.AlignRight:
		dx = ln.w - used
	case markdown.AlignCenter:
		dx = (ln.w - used) / 2
	}
	if dx <= 0 {
		return
	}
	for _, p := range ln.pieces {
		p.x += dx
	}
}

// drawPiece makes a piece's text, and its code background or link underline.
func (l *replyLayout) drawPiece(p *piece, st textStyle, inCode bool) {
	ly := p.layer
	if p.span.Style&markdown.Code != 0 && !inCode {
		bg := l.rect(withAlpha(l.fg, 0x1c))
		bg.CornerRadius = 3
		bg.Move(fyne.NewPos(p.x-1, p.y))
		bg.Resize(fyne.NewSize(p.w+2, p.h))
		ly.back = append(ly.back, bg)
	}
	txt := l.text(p.text, st.color)
	txt.TextStyle, txt.TextSize = p.ts, p.size
	txt.Move(fyne.NewPos(p.x, p.y))
	txt.Resize(fyne.NewSize(p.w, p.h))
	ly.front = append(ly.front, txt)
	if p.span.Style&(markdown.Link|markdown.Strike) != 0 {
		w := p.w
		if trimmed := strings.TrimRight(p.text, " \t"); trimmed != p.text {
			w = fyne.MeasureText(trimmed, p.size, p.ts).Width
		}
		y := p.y + p.h - 3
		if p.span.Style&markdown.Strike != 0 {
			y = p.y + p.h/2
		}
		u := l.rect(st.color)
		u.Move(fyne.NewPos(p.x, y))
		u.Resize(fyne.NewSize(w, 1))
		ly.front = append(ly.front, u)
	}
}

// flowSpans lays out spans in a part's style.
func (l *replyLayout) flowSpans(ly *layer, spans []markdown.Span, start int, x, y, w float32, al markdown.Align, base textStyle) float32 {
	styles := make([]textStyle, len(spans))
	for i, s := range spans {
		styles[i] = spanStyle(base, s)
	}
	return l.flow(ly, spans, styles, start, x, y, w, al, lineHeight(base.size, base.ts))
}

// codeWidth is a code block's unwrapped width.
func codeWidth(p *markdown.Part) float32 {
	var w float32
	for _, ln := range strings.Split(p.Text.Spans[0].Text, "\n") {
		w = max(w, fyne.MeasureText(strings.ReplaceAll(ln, "\t", "    "), theme.TextSize(), fyne.TextStyle{Monospace: true}).Width)
	}
	return w
}

func sum(fs []float32) float32 {
	var s float32
	for _, f := range fs {
		s += f
	}
	return s
}

// code lays a code block, codeW wide unwrapped, out at (x, y) in width w: a header with its
// language and a Copy button, and the code, highlighted and not wrapped, in a horizontal
// scroller.
func (l *replyLayout) code(p *markdown.Part, codeW, x, y, w float32) float32 {
	code := p.Text.Spans[0].Text
	copyBtn := l.copyButton(func() { l.t.host.copyText(code) })
	bs := copyBtn.MinSize()
	headH := bs.Height
	bg := l.roundedBox(withAlpha(l.fg, 0x12), 6)
	head := l.rect(withAlpha(l.fg, 0x10))
	head.CornerRadius = 6
	l.root.back = append(append(l.root.back, bg.objects()...), head)
	if p.Lang != "" {
		label := l.text(p.Lang, theme.Color(theme.ColorNamePlaceHolder))
		label.TextSize = theme.CaptionTextSize()
		ls := label.MinSize()
		label.Resize(ls)
		label.Move(fyne.NewPos(x+codePad, y+(headH-ls.Height)/2))
		l.root.front = append(l.root.front, label)
	}
	copyBtn.Resize(bs)
	copyBtn.Move(fyne.NewPos(x+w-bs.Width, y))
	l.root.top = append(l.root.top, copyBtn)

	mono := textStyle{ts: fyne.TextStyle{Monospace: true}, size: theme.TextSize(), color: l.fg}
	var spans []markdown.Span
	var styles []textStyle
	for _, tok := range markdown.Highlight(p.Lang, code) {
		spans = append(spans, markdown.Span{Text: tok.Text, Style: markdown.Code})
		st := mono
		st.color = classColor(tok.Class, l.fg)
		styles = append(styles, st)
	}
	s := l.scroller()
	l.inCode = true
	h := l.flow(s.ly, spans, styles, p.Text.Start, codePad, codePad, 0, markdown.AlignNone, lineHeight(mono.size, mono.ts))
	l.inCode = false
	h += 2 * codePad
	s.contentW = codeW + 2*codePad
	if s.contentW > w {
		h += scrollbarHeight
	}
	s.Move(fyne.NewPos(x, y+headH))
	s.Resize(fyne.NewSize(w, h))
	l.addScroller(s)
	bg.place(fyne.NewPos(x, y), fyne.NewSize(w, headH+h))
	head.Move(fyne.NewPos(x, y))
	head.Resize(fyne.NewSize(w, headH))
	return headH + h
}

// classColor is the colour of a class of code: the theme's accents (a lighter blue and red) on
// a dark background; on a light one, darker shades of them, since Fyne's own (a bright green,
// an orange) are too light to read there (TestClassColor_Contrast).
func classColor(c markdown.Class, fg color.Color) color.Color {
	if lightBackground() {
		if col, ok := lightCode[c]; ok {
			return col
		}
		return fg
	}
	switch c {
	case markdown.Keyword:
		return darkKeyword
	case markdown.Name:
		return darkName
	case markdown.String:
		return theme.Color(theme.ColorNameSuccess)
	case markdown.Number:
		return theme.Color(theme.ColorNameWarning)
	case markdown.Comment:
		return theme.Color(theme.ColorNamePlaceHolder)
	}
	return fg
}

// darkKeyword and darkName are lighter shades of Fyne's blue and red, which are too dark to
// read on a dark code block.
var (
	darkKeyword = color.NRGBA{R: 0x7c, G: 0xac, B: 0xff, A: 0xff}
	darkName    = color.NRGBA{R: 0xff, G: 0x7b, B: 0x72, A: 0xff}
)

// linkColor is the colour of a reply's links: the keywords' blue, which reads on the bubble.
func linkColor() color.Color {
	if lightBackground() {
		return lightCode[markdown.Keyword]
	}
	return darkKeyword
}

// lightCode are the colours of code on a light background.
var lightCode = map[markdown.Class]color.Color{
	markdown.Keyword: color.NRGBA{R: 0x0b, G: 0x4f, B: 0xc4, A: 0xff}, // blue
	markdown.String:  color.NRGBA{R: 0x11, G: 0x6a, B: 0x2b, A: 0xff}, // green
	markdown.Number:  color.NRGBA{R: 0x95, G: 0x48, B: 0x00, A: 0xff}, // brown orange
	markdown.Comment: color.NRGBA{R: 0x5c, G: 0x63, B: 0x6b, A: 0xff}, // grey
	markdown.Name:    color.NRGBA{R: 0xb3, G: 0x1d, B: 0x28, A: 0xff}, // red
}

// lightBackground reports whether the theme's background is light.
func lightBackground() bool { return luminance(theme.Color(theme.ColorNameBackground)) > 0.5 }

// ContrastRatio is the WCAG 2 contrast ratio of two opaque colours (1 to 21): the chat view's
// colours are chosen by it, and the window's tests check others (the focus ring) with it.
func ContrastRatio(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// luminance is a colour's relative luminance (WCAG 2), 0 black to 1 white.
func luminance(c color.Color) float64 {
	n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
	r, g, b := uint32(n.R), uint32(n.G), uint32(n.B)
	lin := func(v uint32) float64 {
		x := float64(v) / 0xffff
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(r) + 0.7152*lin(g) + 0.0722*lin(b)
}

// columnWidths are a table's column widths, each as wide as its widest cell up to a limit
// (beyond it, cells wrap).
func (l *replyLayout) columnWidths(p *markdown.Part, charW float32) []float32 {
	if len(p.Cells) == 0 {
		return nil
	}
	limit := cellMaxChars*charW + 2*cellPad
	cols := make([]float32, len(p.Cells[0]))
	base := textStyle{size: theme.TextSize(), color: l.fg}
	for _, row := range p.Cells {
		for j, c := range row {
			if j >= len(cols) {
				break
			}
			var w float32
			for _, s := range c.Spans {
				st := spanStyle(base, s)
				for _, seg := range strings.Split(s.Text, "\n") {
					w = max(w, fyne.MeasureText(seg, st.size, st.ts).Width)
				}
			}
			cols[j] = max(cols[j], min(w+2*cellPad+2, limit), 3*charW)
		}
	}
	return cols
}

// table lays a table with columns of widths cols out at (x, y) in width w, in a horizontal
// scroller when it is wider.
func (l *replyLayout) table(p *markdown.Part, cols []float32, x, y, w float32) float32 {
	s := l.scroller()
	s.contentW = sum(cols) + 1
	line := theme.Color(theme.ColorNameSeparator)
	base := textStyle{size: theme.TextSize(), color: l.fg}
	ry := float32(0)
	for i, row := range p.Cells {
		rh := float32(0)
		cx := float32(0)
		for j, c := range row {
			if j >= len(cols) {
				break
			}
			al := markdown.AlignNone
			if j < len(p.Align) {
				al = p.Align[j]
			}
			h := l.flowSpans(s.ly, c.Spans, c.Start, cx+cellPad, ry+cellPad, cols[j]-2*cellPad, al, base)
			rh = max(rh, h)
			cx += cols[j]
		}
		rh += 2 * cellPad
		if i == 0 {
			head := l.rect(withAlpha(l.fg, 0x10))
			head.Move(fyne.NewPos(0, 0))
			head.Resize(fyne.NewSize(s.contentW, rh))
			s.ly.back = append(s.ly.back, head)
		}
		ry += rh
		rule := l.rect(line)
		rule.Move(fyne.NewPos(0, ry))
		rule.Resize(fyne.NewSize(s.contentW, 1))
		s.ly.back = append(s.ly.back, rule)
		ry++
	}
	cx := float32(0)
	for _, cw := range append([]float32{0}, cols...) {
		cx += cw
		v := l.rect(line)
		v.Move(fyne.NewPos(min(cx, s.contentW-1), 0))
		v.Resize(fyne.NewSize(1, ry))
		s.ly.back = append(s.ly.back, v)
	}
	top := l.rect(line)
	top.Resize(fyne.NewSize(s.contentW, 1))
	s.ly.back = append(s.ly.back, top)
	h := ry + 1
	if s.contentW > w {
		h += scrollbarHeight + 2
	}
	s.Move(fyne.NewPos(x, y))
	s.Resize(fyne.NewSize(min(w, s.contentW), h))
	l.addScroller(s)
	return h
}

func (l *replyLayout) addScroller(s *hscroll) {
	s.content.setObjects(s.ly.objects())
	s.content.Resize(fyne.NewSize(s.contentW, s.Size().Height))
	l.scrollers = append(l.scrollers, s)
	l.root.top = append(l.root.top, s)
}

// origin is where a layer's (0, 0) is in the reply.
func (ly *layer) origin() fyne.Position {
	if ly.scroll == nil {
		return fyne.Position{}
	}
	return fyne.NewPos(ly.scroll.Position().X-ly.scroll.off, ly.scroll.Position().Y)
}

// pieceAt is the piece of text under pos (in the reply), if any.
func (l *replyLayout) pieceAt(pos fyne.Position) *piece {
	for _, ln := range l.lines {
		o := ln.layer.origin()
		for _, p := range ln.pieces {
			x, y := o.X+p.x, o.Y+p.y
			if pos.X >= x && pos.X < x+p.w && pos.Y >= y && pos.Y < y+p.h {
				if s := ln.layer.scroll; s != nil && (pos.X < s.Position().X || pos.X >= s.Position().X+s.Size().Width) {
					continue // scrolled out of sight
				}
				return p
			}
		}
	}
	return nil
}

// barAt is the scroller whose scroll bar is under pos, if any.
func (l *replyLayout) barAt(pos fyne.Position) *hscroll {
	for _, s := range l.scrollers {
		p, sz := s.Position(), s.Size()
		if s.contentW > sz.Width && pos.X >= p.X && pos.X < p.X+sz.Width && pos.Y >= p.Y+sz.Height-scrollbarHeight-4 && pos.Y < p.Y+sz.Height {
			return s
		}
	}
	return nil
}

// offsetAt is the byte of the plain text nearest to pos (in the reply): within the line under
// it, or the nearest line's start or end.
func (l *replyLayout) offsetAt(pos fyne.Position) int {
	var best *line
	bestD := float32(1e9)
	for _, ln := range l.lines {
		o := ln.layer.origin()
		y0, y1 := o.Y+ln.y, o.Y+ln.y+ln.h+lineGap
		x0, x1 := o.X+ln.x, o.X+ln.x+max(ln.w, lineWidth(ln))
		var dy, dx float32
		if pos.Y < y0 {
			dy = y0 - pos.Y
		} else if pos.Y >= y1 {
			dy = pos.Y - y1 + 1
		}
		if pos.X < x0 {
			dx = x0 - pos.X
		} else if pos.X > x1 {
			dx = pos.X - x1
		}
		if d := dy*1000 + dx; d < bestD {
			best, bestD = ln, d
		}
	}
	if best == nil {
		return 0
	}
	o := best.layer.origin()
	x := pos.X - o.X
	if len(best.pieces) == 0 || x <= best.pieces[0].x {
		if pos.Y < o.Y+best.y {
			return best.start
		}
		if pos.Y >= o.Y+best.y+best.h+lineGap && best != l.lines[len(l.lines)-1] {
			return best.end
		}
		return best.start
	}
	for _, p := range best.pieces {
		if x < p.x+p.w {
			return p.start + charAt(p, x-p.x)
		}
	}
	return best.end
}

func lineWidth(ln *line) float32 {
	if len(ln.pieces) == 0 {
		return 0
	}
	last := ln.pieces[len(ln.pieces)-1]
	return last.x + last.w - ln.x
}

// charAt is the byte offset in p's text nearest to x (a binary search over its prefixes: a
// piece may be a long line of code).
func charAt(p *piece, x float32) int {
	width := func(i int) float32 { return fyne.MeasureText(p.text[:i], p.size, p.ts).Width }
	lo, hi := 0, len(p.text) // width(lo) <= x, and x < width(hi) or hi is the end
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		for mid > lo && !utf8.RuneStart(p.text[mid]) {
			mid--
		}
		if mid == lo {
			break
		}
		if width(mid) <= x {
			lo = mid
		} else {
			hi = mid
		}
	}
	// lo and the next rune's start bracket x: take the nearer.
	_, n := utf8.DecodeRuneInString(p.text[lo:])
	next := min(lo+n, len(p.text))
	if next > lo && x-width(lo) > width(next)-x {
		return next
	}
	return lo
}

// paintSelection shows the range [a, b) selected.
func (l *replyLayout) paintSelection(a, b int) {
	if a > b {
		a, b = b, a
	}
	layers := append([]*layer{l.root}, scrollLayers(l.scrollers)...)
	for _, ly := range layers {
		ly.nsel = 0
	}
	col := theme.Color(theme.ColorNameSelection)
	if l.t.user {
		col = withAlpha(theme.Color(theme.ColorNameForegroundOnPrimary), 0x55)
	}
	if a != b {
		for _, ln := range l.lines {
			if ln.end < a || ln.start >= b {
				continue
			}
			for _, p := range ln.pieces {
				pa, pb := max(a-p.start, 0), min(b-p.start, len(p.text))
				if pa >= pb {
					continue
				}
				x0 := fyne.MeasureText(p.text[:pa], p.size, p.ts).Width
				x1 := fyne.MeasureText(p.text[:pb], p.size, p.ts).Width
				ln.layer.selRect(fyne.NewPos(p.x+x0, p.y), fyne.NewSize(x1-x0, p.h), col)
			}
		}
	}
	for _, ly := range layers {
		grew := len(ly.sel) != ly.shownSel
		for i, r := range ly.sel {
			r.Hidden = i >= ly.nsel
		}
		if !grew {
			continue
		}
		ly.shownSel = len(ly.sel)
		if ly.scroll != nil {
			ly.scroll.content.setObjects(ly.objects())
		} else {
			l.t.view.setObjects(ly.objects())
		}
	}
}

// selRect shows one more rectangle of the selection.
func (ly *layer) selRect(pos fyne.Position, size fyne.Size, col color.Color) {
	if ly.nsel == len(ly.sel) {
		ly.sel = append(ly.sel, canvas.NewRectangle(col))
	}
	r := ly.sel[ly.nsel]
	r.FillColor = col
	r.Move(pos)
	r.Resize(size)
	r.Refresh()
	ly.nsel++
}

func scrollLayers(ss []*hscroll) []*layer {
	out := make([]*layer, len(ss))
	for i, s := range ss {
		out[i] = s.ly
	}
	return out
}

// textStyleKey is a text style as far as measuring goes.
type textStyleKey struct {
	ts   fyne.TextStyle
	size float32
}

// styleMetrics are measured once per style of a layout.
type styleMetrics struct {
	lineH, spaceW, tabW float32
}

func (l *replyLayout) metricsOf(st textStyle) styleMetrics {
	k := textStyleKey{st.ts, st.size}
	if m, ok := l.metrics[k]; ok {
		return m
	}
	if l.metrics == nil {
		l.metrics = map[textStyleKey]styleMetrics{}
	}
	m := styleMetrics{
		lineH:  lineHeight(st.size, st.ts),
		spaceW: fyne.MeasureText(" ", st.size, st.ts).Width,
		tabW:   fyne.MeasureText("\t", st.size, st.ts).Width,
	}
	l.metrics[k] = m
	return m
}

// wordWidth is the width of a word with its spaces, and without them (what must fit).
func (l *replyLayout) wordWidth(text string, st textStyle) (float32, float32) {
	word := strings.TrimRight(text, " \t")
	w := fyne.MeasureText(word, st.size, st.ts).Width
	m := l.metricsOf(st)
	all := w
	for _, c := range text[len(word):] {
		if c == '\t' {
			all += m.tabW
		} else {
			all += m.spaceW
		}
	}
	return all, w
}

// posOf is where byte i of the plain text is drawn (the middle of its line's height), and its
// line; ok is false when no line holds it.
func (l *replyLayout) posOf(i int) (fyne.Position, *line, bool) {
	for _, ln := range l.lines {
		if i < ln.start || i > ln.end {
			continue
		}
		o := ln.layer.origin()
		x := ln.x
		for _, p := range ln.pieces {
			if i >= p.start && i <= p.start+len(p.text) {
				x = p.x + fyne.MeasureText(p.text[:i-p.start], p.size, p.ts).Width
				break
			}
			x = p.x + p.w
		}
		return fyne.NewPos(o.X+x, o.Y+ln.y+ln.h/2), ln, true
	}
	return fyne.Position{}, nil, false
}

// moveCaret is where the caret at byte i goes for a key: a character left or right, a line up
// or down, the start or end of its line.
func (l *replyLayout) moveCaret(text string, i int, key fyne.KeyName) int {
	i = min(max(i, 0), len(text))
	switch key {
	case fyne.KeyLeft:
		if i > 0 {
			_, n := utf8.DecodeLastRuneInString(text[:i])
			return i - n
		}
	case fyne.KeyRight:
		if i < len(text) {
			_, n := utf8.DecodeRuneInString(text[i:])
			return i + n
		}
	case fyne.KeyUp, fyne.KeyDown:
		pos, ln, ok := l.posOf(i)
		if !ok {
			return i
		}
		dy := ln.h + lineGap
		if key == fyne.KeyUp {
			dy = -dy
		}
		if (key == fyne.KeyUp && ln == l.lines[0]) || (key == fyne.KeyDown && ln == l.lines[len(l.lines)-1]) {
			if key == fyne.KeyUp {
				return 0
			}
			return len(text)
		}
		return l.offsetAt(pos.AddXY(0, dy))
	case fyne.KeyHome, fyne.KeyEnd:
		if _, ln, ok := l.posOf(i); ok {
			if key == fyne.KeyHome {
				return ln.start
			}
			return ln.end
		}
	}
	return i
}

// fromPool is the next of a text's objects kept from an earlier layout, made when there are
// not enough: *used counts those this layout took.
func fromPool[T any](pool *[]T, used *int, newT func() T) T {
	if *used == len(*pool) {
		*pool = append(*pool, newT())
	}
	v := (*pool)[*used]
	*used++
	return v
}

// scroller is a horizontal scroller for a code block or a table, the text's own from an earlier
// layout when it has one: a widget made for every layout would stay in Fyne's cache of
// renderers, with all it draws, for a minute after it was last drawn.
func (l *replyLayout) scroller() *hscroll {
	s := fromPool(&l.t.scrollers, &l.usedScrollers, func() *hscroll { return newHScroll(l.t) })
	s.reset()
	return s
}

// text is a text to draw, from the text's pool as scroller's scrollers are: a reply shown as it
// is written is laid out again at every piece, and each object drawn stays in Fyne's cache of
// canvases for a minute after it was last drawn (with a new object each time, 20 long replies
// left 15 MB there). Reused, the objects are as many as the largest layout drew.
func (l *replyLayout) text(s string, c color.Color) *canvas.Text {
	txt := fromPool(&l.t.texts, &l.usedTexts, func() *canvas.Text { return &canvas.Text{} })
	*txt = canvas.Text{Text: s, Color: c, TextSize: theme.TextSize()}
	return txt
}

// rect is a rectangle filled with c, from the text's pool like text.
func (l *replyLayout) rect(c color.Color) *canvas.Rectangle {
	r := fromPool(&l.t.rects, &l.usedRects, func() *canvas.Rectangle { return &canvas.Rectangle{} })
	*r = canvas.Rectangle{FillColor: c}
	return r
}

// roundedBox is newRoundedBox with rectangles from the text's pool.
func (l *replyLayout) roundedBox(fill color.Color, radius float32) *roundedBox {
	return initRoundedBox(&roundedBox{radius: radius, top: l.rect(fill), middle: l.rect(fill), bottom: l.rect(fill)})
}

// copyButton is a code block's Copy button, from the text's pool like scroller.
func (l *replyLayout) copyButton(tapped func()) *widget.Button {
	b := fromPool(&l.t.copyButtons, &l.usedButtons, func() *widget.Button {
		b := widget.NewButtonWithIcon(lang.L("Copy"), theme.ContentCopyIcon(), nil)
		b.Importance = widget.LowImportance
		return b
	})
	b.OnTapped = tapped
	return b
}
