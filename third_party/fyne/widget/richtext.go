package widget

import (
	"image/color"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/internal/cache"
	paint "fyne.io/fyne/v2/internal/painter"
	"fyne.io/fyne/v2/internal/widget"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
)

const passwordChar = "•"

var _ fyne.Widget = (*RichText)(nil)

// RichText represents the base element for a rich text-based widget.
//
// Since: 2.1
type RichText struct {
	BaseWidget
	Segments []RichTextSegment
	Wrapping fyne.TextWrap
	Scroll   fyne.ScrollDirection

	// The truncation mode of the text
	//
	// Since: 2.4
	Truncation fyne.TextTruncation

	inset     fyne.Size     // this varies due to how the widget works (entry with scroller vs others with padding)
	rowBounds []rowBoundary // cache for boundaries
	scr       *widget.Scroll
	prop      *canvas.Rectangle // used to apply text minsize to the scroller `scr`, if present - TODO improve #2464

	visualCache    map[RichTextSegment]visualCacheEntry
	visualCacheGen int64
	minCache       fyne.Size
	wrapped        wrapInput // Parley: what rowBounds were made from

	// Parley: the runes of the text last asked for (runesOf).
	runeText string
	runeList []rune
}

// runesOf is text's runes, which the caller must not change. Parley: an Entry's cursor and
// selection take rows of its text, which made all its runes for every row: selecting a
// 50,000-character draft (800 rows) took 1.4 s. The runes of the text last asked for are kept.
func (t *RichText) runesOf(text string) []rune {
	if t.runeList == nil || text != t.runeText {
		t.runeText, t.runeList = text, []rune(text)
	}
	return t.runeList
}

// wrapInput is what the rows of a RichText of one text segment (an Entry's, a Label's) depend
// on. Parley: an Entry wrapped its whole text three times for each key typed (its updateText,
// its renderer's Refresh and the RichText's own Refresh), about 8 ms each time for a
// 50,000-character draft. Now the second and third find the same input and keep the rows, and
// the first keeps the rows before the change (keptRows) and wraps only from there on.
type wrapInput struct {
	seg            *TextSegment
	text           string
	style          RichTextStyle
	size, em       float32 // the text size, and the width of "M" (a change of font)
	wrap           fyne.TextWrap
	trunc          fyne.TextTruncation
	width          float32
	fit            fyne.Size // for truncation only: the height does not change rows otherwise
	inset          fyne.Size
	padding, space float32
}

type visualCacheEntry struct {
	gen int64
	obj []fyne.CanvasObject
}

// NewRichText returns a new RichText widget that renders the given text and segments.
// If no segments are specified it will be converted to a single segment using the default text settings.
//
// Since: 2.1
func NewRichText(segments ...RichTextSegment) *RichText {
	t := &RichText{Segments: segments}
	t.Scroll = widget.ScrollNone
	return t
}

// NewRichTextWithText returns a new RichText widget that renders the given text.
// The string will be converted to a single text segment using the default text settings.
//
// Since: 2.1
func NewRichTextWithText(text string) *RichText {
	return NewRichText(&TextSegment{
		Style: RichTextStyleInline,
		Text:  text,
	})
}

// CreateRenderer is a private method to Fyne which links this widget to its renderer
func (t *RichText) CreateRenderer() fyne.WidgetRenderer {
	t.prop = canvas.NewRectangle(color.Transparent)
	if t.scr == nil && t.Scroll != widget.ScrollNone {
		t.scr = widget.NewScroll(&fyne.Container{Layout: layout.NewStackLayout(), Objects: []fyne.CanvasObject{
			t.prop, &fyne.Container{},
		}})
	}

	t.ExtendBaseWidget(t)
	r := &textRenderer{obj: t}

	t.updateRowBounds() // set up the initial text layout etc
	r.Refresh()
	return r
}

// MinSize calculates the minimum size of a rich text widget.
// This is based on the contained text with a standard amount of padding added.
func (t *RichText) MinSize() fyne.Size {
	// We return the minCache here which might be outdated if internal segments were changed.
	// Users must call Refresh() to force an update after any changes to t.
	t.ExtendBaseWidget(t)

	if t.minCache.IsZero() {
		min := t.BaseWidget.MinSize()
		t.minCache = min
	}
	return t.minCache
}

// Refresh triggers a redraw of the rich text.
func (t *RichText) Refresh() {
	t.minCache = fyne.Size{}
	t.updateRowBounds()

	for _, s := range t.Segments {
		if txt, ok := s.(*TextSegment); ok {
			txt.parent = t
		}
	}

	t.BaseWidget.Refresh()
}

// Resize sets a new size for the rich text.
// This should only be called if it is not in a container with a layout manager.
func (t *RichText) Resize(size fyne.Size) {
	if size == t.Size() {
		return
	}

	t.size = size

	skipResize := !t.minCache.IsZero() && size.Width >= t.minCache.Width && size.Height >= t.minCache.Height && t.Wrapping == fyne.TextWrapOff && t.Truncation == fyne.TextTruncateOff

	if skipResize {
		if len(t.Segments) < 2 { // we can simplify :)
			cache.Renderer(t).Layout(size)
			return
		}
	}

	t.Refresh()
}

// String returns the text widget buffer as string
func (t *RichText) String() string {
	ret := strings.Builder{}
	for _, seg := range t.Segments {
		ret.WriteString(seg.Textual())
	}
	return ret.String()
}

// charMinSize returns the average char size to use for internal computation
func (t *RichText) charMinSize(concealed bool, style fyne.TextStyle, textSize float32) fyne.Size {
	defaultChar := "M"
	if concealed {
		defaultChar = passwordChar
	}

	return fyne.MeasureText(defaultChar, textSize, style)
}

// deleteFromTo removes the text between the specified positions
func (t *RichText) deleteFromTo(lowBound int, highBound int) []rune {
	if lowBound >= highBound {
		return []rune{}
	}

	start := 0
	ret := make([]rune, 0, highBound-lowBound)
	deleting := false
	var segs []RichTextSegment
	for i, seg := range t.Segments {
		if _, ok := seg.(*TextSegment); !ok {
			if !deleting {
				segs = append(segs, seg)
			}
			continue
		}
		r := ([]rune)(seg.(*TextSegment).Text)
		end := start + len(r)
		if end < lowBound {
			segs = append(segs, seg)
			start = end
			continue
		}

		startOff := int(math.Max(float64(lowBound-start), 0))
		endOff := int(math.Min(float64(end), float64(highBound))) - start
		ret = append(ret, r[startOff:endOff]...)
		r2 := append(r[:startOff], r[endOff:]...)
		seg.(*TextSegment).Text = string(r2)
		segs = append(segs, seg)

		// prepare next iteration
		start = end
		if start >= highBound {
			segs = append(segs, t.Segments[i+1:]...)
			break
		} else if start >= lowBound {
			deleting = true
		}
	}
	t.Segments = segs
	t.Refresh()
	return ret
}

// cachedSegmentVisual returns a cached segment visual representation.
// The offset value is > 0 if the segment had been split and so we need multiple objects.
func (t *RichText) cachedSegmentVisual(seg RichTextSegment, offset int) fyne.CanvasObject {
	if t.visualCache == nil {
		t.visualCache = make(map[RichTextSegment]visualCacheEntry)
	}

	if vis, ok := t.visualCache[seg]; ok && offset < len(vis.obj) {
		return vis.obj[offset]
	}

	vis := seg.Visual()
	if offset < len(t.visualCache[seg].obj) {
		t.visualCache[seg].obj[offset] = vis
	} else {
		entry := t.visualCache[seg]
		entry.obj = append(entry.obj, vis)
		t.visualCache[seg] = entry
	}
	return vis
}

func (t *RichText) cleanVisualCache() {
	if len(t.visualCache) <= len(t.Segments) {
		return
	}

	// mark cache entries that are still valid
	t.visualCacheGen++
	for _, seg := range t.Segments {
		if cache, ok := t.visualCache[seg]; ok {
			cache.gen = t.visualCacheGen
			t.visualCache[seg] = cache
		}
	}

	// delete entries that are not marked as valid
	var deletingSegs []RichTextSegment
	for seg1, cache := range t.visualCache {
		if cache.gen != t.visualCacheGen {
			deletingSegs = append(deletingSegs, seg1)
		}
	}
	for _, seg := range deletingSegs {
		delete(t.visualCache, seg)
	}
}

// insertAt inserts the text at the specified position
func (t *RichText) insertAt(pos int, runes []rune) {
	index := 0
	start := 0
	var into *TextSegment
	for i, seg := range t.Segments {
		if _, ok := seg.(*TextSegment); !ok {
			continue
		}
		end := start + len([]rune(seg.(*TextSegment).Text))
		into = seg.(*TextSegment)
		index = i
		if end > pos {
			break
		}

		start = end
	}

	if into == nil {
		return
	}
	r := ([]rune)(into.Text)
	if pos > len(r) { // safety in case position is out of bounds for the segment
		pos = len(r)
	}
	r2 := make([]rune, len(r)+len(runes))
	copy(r2, r[:pos])
	copy(r2[pos:], runes)
	copy(r2[pos+len(runes):], r[pos:])
	into.Text = string(r2)
	t.Segments[index] = into
}

// Len returns the text widget buffer length
func (t *RichText) len() int {
	ret := 0
	for _, seg := range t.Segments {
		ret += utf8.RuneCountInString(seg.Textual())
	}
	return ret
}

// lineSizeToColumn returns the rendered size for the line specified by row up to the col position
func (t *RichText) lineSizeToColumn(col, row int, textSize, innerPad float32) fyne.Size {
	if row < 0 {
		row = 0
	}
	if col < 0 {
		col = 0
	}
	bound := t.rowBoundary(row)
	total := fyne.NewSize(0, 0)
	counted := 0
	last := false
	if bound == nil {
		return t.charMinSize(false, fyne.TextStyle{}, textSize)
	}
	for i, seg := range bound.segments {
		var size fyne.Size
		if text, ok := seg.(*TextSegment); ok {
			start := 0
			if i == 0 {
				start = bound.begin
			}
			measureText := t.runesOf(text.Text)[start:]
			if col < counted+len(measureText) {
				measureText = measureText[0 : col-counted]
				last = true
			}
			if concealed(seg) {
				measureText = []rune(strings.Repeat(passwordChar, len(measureText)))
			}
			counted += len(measureText)

			size, _ = fyne.CurrentApp().Driver().RenderedTextSize(string(measureText), text.size(), text.Style.TextStyle, nil)
		} else {
			size = t.cachedSegmentVisual(seg, 0).MinSize()
		}

		total.Width += size.Width
		total.Height = fyne.Max(total.Height, size.Height)
		if last {
			break
		}
	}
	return total.Add(fyne.NewSize(innerPad-t.inset.Width, 0))
}

// Row returns the characters in the row specified.
// The row parameter should be between 0 and t.Rows()-1.
func (t *RichText) row(row int) []rune {
	if row < 0 || row >= t.rows() {
		return nil
	}
	bound := t.rowBounds[row]
	var ret []rune
	for i, seg := range bound.segments {
		if text, ok := seg.(*TextSegment); ok {
			if i == 0 {
				if len(bound.segments) == 1 {
					ret = append(ret, t.runesOf(text.Text)[bound.begin:bound.end]...)
				} else {
					ret = append(ret, t.runesOf(text.Text)[bound.begin:]...)
				}
			} else if i == len(bound.segments)-1 && len(bound.segments) > 1 && bound.end != 0 {
				ret = append(ret, t.runesOf(text.Text)[:bound.end]...)
			}
		}
	}
	return ret
}

// RowBoundary returns the boundary of the row specified.
// The row parameter should be between 0 and t.Rows()-1.
func (t *RichText) rowBoundary(row int) *rowBoundary {
	if row < 0 || row >= t.rows() {
		return nil
	}
	return &t.rowBounds[row]
}

// RowLength returns the number of visible characters in the row specified.
// The row parameter should be between 0 and t.Rows()-1.
func (t *RichText) rowLength(row int) int {
	return len(t.row(row))
}

// rows returns the number of text rows in this text entry.
// The entry may be longer than required to show this amount of content.
func (t *RichText) rows() int {
	if t.rowBounds == nil { // if the widget API is used before it is shown
		t.updateRowBounds()
	}
	return len(t.rowBounds)
}

// updateRowBounds updates the row bounds used to render properly the text widget.
// updateRowBounds should be invoked every time a segment Text, widget Wrapping or size changes.
func (t *RichText) updateRowBounds() {
	th := t.Theme()
	innerPadding := th.Size(theme.SizeNameInnerPadding)
	fitSize := t.Size()
	if t.scr != nil {
		fitSize = t.scr.Content.MinSize()
	}
	fitSize.Height -= (innerPadding + t.inset.Height) * 2

	var bounds []rowBoundary
	maxWidth := t.Size().Width - 2*innerPadding + 2*t.inset.Width
	wrapWidth := maxWidth

	// Parley: one text segment wrapped as last time keeps its rows; when only its text changed,
	// the rows before the change are kept.
	var input wrapInput
	if len(t.Segments) == 1 {
		if seg, ok := t.Segments[0].(*TextSegment); ok {
			size := seg.size()
			input = wrapInput{seg: seg, text: seg.Text, style: seg.Style, size: size,
				em: fyne.MeasureText("M", size, seg.Style.TextStyle).Width, wrap: t.Wrapping,
				trunc: t.Truncation, width: t.Size().Width, inset: t.inset,
				padding: innerPadding, space: th.Size(theme.SizeNameLineSpacing)}
			if t.Truncation != fyne.TextTruncateOff {
				input.fit = fitSize
			}
			kept, from := 0, 0
			if t.rowBounds != nil {
				if input == t.wrapped {
					return
				}
				kept, from = t.keptRows(input)
			}
			t.wrapped = input
			if kept > 0 {
				rest, _ := lineBoundsFrom(t, seg, wrapWidth, fyne.NewSize(maxWidth, fitSize.Height), func(text []rune) fyne.Size {
					return fyne.MeasureText(string(text), size, seg.Style.TextStyle)
				}, from, kept)
				t.rowBounds = append(append(make([]rowBoundary, 0, kept+len(rest)), t.rowBounds[:kept]...), rest...)
				return
			}
		}
	}
	t.wrapped = input

	var currentBound *rowBoundary
	currentBoundDepth := 0
	rowContinuationIndent := float32(-1)
	var iterateSegments func(segList []RichTextSegment, depth int)
	iterateSegments = func(segList []RichTextSegment, depth int) {
		for _, seg := range segList {
			if parent, ok := seg.(RichTextBlock); ok {
				segs := parent.Segments()
				iterateSegments(segs, depth+1)
				if len(segs) > 0 && !segs[len(segs)-1].Inline() {
					wrapWidth = maxWidth
					currentBound = nil
					currentBoundDepth = depth
					rowContinuationIndent = -1
				}
				continue
			}
			_, isText := seg.(*TextSegment)
			_, isHyperlink := seg.(*HyperlinkSegment)
			if !isText && !isHyperlink {
				if currentBound == nil {
					bound := rowBoundary{segments: []RichTextSegment{seg}}
					bounds = append(bounds, bound)
					currentBound = &bound
					currentBoundDepth = depth
				} else {
					bounds[len(bounds)-1].segments = append(bounds[len(bounds)-1].segments, seg)
				}

				itemMin := t.cachedSegmentVisual(seg, 0).MinSize()
				if seg.Inline() {
					wrapWidth -= itemMin.Width
				} else {
					wrapWidth = maxWidth
					currentBound = nil
					currentBoundDepth = depth
					rowContinuationIndent = -1
					fitSize.Height -= itemMin.Height + th.Size(theme.SizeNameLineSpacing)
				}
				continue
			}
			var textStyle fyne.TextStyle
			var textSize float32
			leftPad := float32(0)
			if textSeg, ok := seg.(*TextSegment); ok {
				textStyle = textSeg.Style.TextStyle
				textSize = textSeg.size()
				if textSeg.Style.QuotingDepth > 0 {
					leftPad = innerPadding * 2 * float32(textSeg.Style.QuotingDepth)
				}
			} else if linkSeg, ok := seg.(*HyperlinkSegment); ok {
				textStyle = linkSeg.TextStyle
				textSize = theme.SizeForWidget(theme.SizeNameText, t)
				if linkSeg.quotingLevel > 0 {
					leftPad = innerPadding * 2 * float32(linkSeg.quotingLevel)
				}
			}
			retBounds, height := lineBounds(t, seg, wrapWidth-leftPad, fyne.NewSize(maxWidth, fitSize.Height), func(text []rune) fyne.Size {
				return fyne.MeasureText(string(text), textSize, textStyle)
			})
			boundWasNil := currentBound == nil
			if currentBound != nil {
				if len(retBounds) > 0 {
					bounds[len(bounds)-1].end = retBounds[0].end // invalidate row ending as we have more content
					bounds[len(bounds)-1].segments = append(bounds[len(bounds)-1].segments, seg)
					if depth > currentBoundDepth {
						if rowContinuationIndent == -1 {
							rowContinuationIndent = maxWidth - wrapWidth
						}
						if rowContinuationIndent > 0 {
							runes := []rune(seg.Textual())
							for i := range retBounds[1:] {
								b := &retBounds[1+i]
								if b.begin > 0 && b.begin <= len(runes) && runes[b.begin-1] == '\n' {
									continue
								}
								b.indent = rowContinuationIndent
							}
						}
					}
					bounds = append(bounds, retBounds[1:]...)

					fitSize.Height -= height
				}
			} else {
				bounds = append(bounds, retBounds...)

				fitSize.Height -= height
			}
			currentBound = &bounds[len(bounds)-1]
			if boundWasNil {
				currentBoundDepth = depth
				rowContinuationIndent = -1
			}
			if seg.Inline() {
				last := bounds[len(bounds)-1]
				begin := 0
				if len(last.segments) == 1 {
					begin = last.begin
				}
				runes := []rune(seg.Textual())
				// check ranges - as we resize it can be wrong?
				if begin > len(runes) {
					begin = len(runes)
				}
				end := last.end
				if end > len(runes) {
					end = len(runes)
				}
				text := string(runes[begin:end])
				measured := fyne.MeasureText(text, textSize, textStyle)
				lastWidth := measured.Width
				if len(retBounds) == 1 {
					wrapWidth -= lastWidth
				} else {
					wrapWidth = maxWidth - lastWidth
				}
			} else {
				currentBound = nil
				currentBoundDepth = depth
				rowContinuationIndent = -1
				wrapWidth = maxWidth
			}
		}
	}

	iterateSegments(t.Segments, 0)
	t.rowBounds = bounds
}

// keptRows is how many rows made for t.wrapped stay as they are for input, whose text only is
// different, and the rune where wrapping starts again. Parley: a row's end depends on its text
// and on the next row's, up to the first character that did not fit, which is before the next
// row's end; so the rows are kept up to the one whose next row ends before the first character
// changed. A key typed at the end of a long text wraps its last two rows again, not the whole.
// Only for word and character wrapping, without truncation, and with the same width for every
// row (not a block quote).
func (t *RichText) keptRows(input wrapInput) (kept, from int) {
	was := t.wrapped
	was.text = input.text
	if was != input || input.trunc != fyne.TextTruncateOff || input.style.QuotingDepth > 0 ||
		(input.wrap != fyne.TextWrapWord && input.wrap != fyne.TextWrapBreak) ||
		input.width-2*input.padding+2*input.inset.Width <= 0 { // no room: lines are rows, all made again
		return 0, 0
	}
	old, text := t.wrapped.text, input.text
	i := 0
	for i < len(old) && i < len(text) && old[i] == text[i] {
		i++
	}
	for i > 0 && i < len(old) && !utf8.RuneStart(old[i]) {
		i--
	}
	changed := utf8.RuneCountInString(old[:i])
	rows := t.rowBounds
	before := sort.Search(len(rows), func(r int) bool { return rows[r].end >= changed })
	if before < 2 {
		return 0, 0
	}
	return before - 1, rows[before-1].begin
}

// RichTextBlock is an extension of a text segment that contains other segments
//
// Since: 2.1
type RichTextBlock interface {
	Segments() []RichTextSegment
}

// Renderer
type textRenderer struct {
	widget.BaseRenderer
	obj *RichText
}

// codeInlineText returns the text inside an inline-code container, identified by
// its codeInlineLayout, or a bare *canvas.Text as-is. It returns false for any
// other object.
func codeInlineText(obj fyne.CanvasObject) (*canvas.Text, bool) {
	switch o := obj.(type) {
	case *canvas.Text:
		return o, true
	case *fyne.Container:
		if _, ok := o.Layout.(*codeInlineLayout); ok {
			return o.Objects[1].(*canvas.Text), true
		}
	}
	return nil, false
}

func (r *textRenderer) Layout(size fyne.Size) {
	th := r.obj.Theme()
	bounds := r.obj.rowBounds
	objs := r.Objects()
	if r.obj.scr != nil {
		r.obj.scr.Resize(size)
		objs = r.obj.scr.Content.(*fyne.Container).Objects[1].(*fyne.Container).Objects
	}

	// Accessing theme here is slow, so we cache the value
	innerPadding := th.Size(theme.SizeNameInnerPadding)
	lineSpacing := th.Size(theme.SizeNameLineSpacing)

	xInset := innerPadding - r.obj.inset.Width
	left := xInset
	yPos := innerPadding - r.obj.inset.Height
	lineWidth := size.Width - left*2
	var rowItems []fyne.CanvasObject
	rowAlign := fyne.TextAlignLeading
	i := 0
	for row, bound := range bounds {
		leftPad, align := rowPaddingAndAlign(bound, lineSpacing, rowAlign)
		rowAlign = align

		for segI := range bound.segments {
			if i == len(objs) {
				break // Refresh may not have created all objects for all rows yet...
			}
			inline := segI < len(bound.segments)-1
			obj := objs[i]
			i++
			_, isText := codeInlineText(obj) // code-inline containers are text-like, not blocks
			if !isText && !inline {
				if len(rowItems) != 0 {
					width, _ := r.layoutRow(rowItems, rowAlign, left+leftPad, yPos, lineWidth-leftPad)
					left += width
					rowItems = nil
				}
				height := obj.MinSize().Height

				obj.Move(fyne.NewPos(left+leftPad, yPos))
				obj.Resize(fyne.NewSize(lineWidth-leftPad, height))
				yPos += height
				left = xInset
				continue
			}
			rowItems = append(rowItems, obj)
			if inline {
				continue
			}

			_, y := r.layoutRow(rowItems, rowAlign, left+leftPad, yPos, lineWidth-leftPad)
			yPos += y
			rowItems = nil
		}

		lastSeg := bound.segments[len(bound.segments)-1]
		if !lastSeg.Inline() && row < len(bounds)-1 && bounds[row+1].segments[0] != lastSeg { // ignore wrapped lines etc
			yPos += lineSpacing
		}
	}
}

// MinSize calculates the minimum size of a rich text widget.
// This is based on the contained text with a standard amount of padding added.
func (r *textRenderer) MinSize() fyne.Size {
	th := r.obj.Theme()
	textSize := th.Size(theme.SizeNameText)
	innerPad := th.Size(theme.SizeNameInnerPadding)

	bounds := r.obj.rowBounds
	wrap := r.obj.Wrapping
	trunc := r.obj.Truncation
	scroll := r.obj.Scroll
	objs := r.Objects()
	if r.obj.scr != nil {
		objs = r.obj.scr.Content.(*fyne.Container).Objects[1].(*fyne.Container).Objects
	}

	charMinSize := r.obj.charMinSize(false, fyne.TextStyle{}, textSize)
	min := r.calculateMin(bounds, wrap, objs, charMinSize, th)
	if r.obj.scr != nil {
		r.obj.prop.SetMinSize(min)
	}

	if trunc != fyne.TextTruncateOff && r.obj.Scroll == widget.ScrollNone {
		minBounds := charMinSize
		if wrap == fyne.TextWrapOff {
			minBounds.Height = min.Height
		} else {
			minBounds = minBounds.Add(fyne.NewSquareSize(innerPad * 2).Subtract(r.obj.inset).Subtract(r.obj.inset))
		}
		if trunc == fyne.TextTruncateClip {
			return minBounds
		}
		if trunc == fyne.TextTruncateEllipsis {
			ellipsisSize := fyne.MeasureText("…", th.Size(theme.SizeNameText), fyne.TextStyle{})
			return minBounds.AddWidthHeight(ellipsisSize.Width, 0)
		}
	}

	switch scroll {
	case widget.ScrollBoth:
		return fyne.NewSize(32, 32)
	case widget.ScrollHorizontalOnly:
		return fyne.NewSize(32, min.Height)
	case widget.ScrollVerticalOnly:
		return fyne.NewSize(min.Width, 32)
	default:
		return min
	}
}

func (r *textRenderer) calculateMin(bounds []rowBoundary, wrap fyne.TextWrap, objs []fyne.CanvasObject,
	charMinSize fyne.Size, th fyne.Theme,
) fyne.Size {
	height := float32(0)
	width := float32(0)
	rowHeight := float32(0)
	rowWidth := float32(0)
	trunc := r.obj.Truncation
	innerPad := th.Size(theme.SizeNameInnerPadding)

	// Accessing the theme here is slow, so we cache the value
	lineSpacing := th.Size(theme.SizeNameLineSpacing)

	i := 0
	for row, bound := range bounds {
		for range bound.segments {
			if i == len(objs) {
				break // Refresh may not have created all objects for all rows yet...
			}
			obj := objs[i]
			i++

			min := obj.MinSize()
			if img, ok := obj.(*richImage); ok {
				if newMin := img.MinSize(); newMin != img.oldMin {
					img.oldMin = newMin

					min := r.calculateMin(bounds, wrap, objs, charMinSize, th)
					if r.obj.scr != nil {
						r.obj.prop.SetMinSize(min)
					}
					r.Refresh() // TODO resolve this in a similar way to #2991
				}
			}
			rowHeight = fyne.Max(rowHeight, min.Height)
			rowWidth += min.Width
		}

		if wrap == fyne.TextWrapOff && trunc == fyne.TextTruncateOff {
			width = fyne.Max(width, rowWidth)
		}
		height += rowHeight
		rowHeight = 0
		rowWidth = 0

		lastSeg := bound.segments[len(bound.segments)-1]
		if !lastSeg.Inline() && row < len(bounds)-1 && bounds[row+1].segments[0] != lastSeg { // ignore wrapped lines etc
			height += lineSpacing
		}
	}

	if height == 0 {
		height = charMinSize.Height
	}
	return fyne.NewSize(width, height).
		Add(fyne.NewSquareSize(innerPad * 2).Subtract(r.obj.inset).Subtract(r.obj.inset))
}

func (r *textRenderer) Refresh() {
	bounds := r.obj.rowBounds
	scroll := r.obj.Scroll

	var objs []fyne.CanvasObject
	// Parley: a segment's runes are made once, not once for each of its rows: an Entry holds
	// its text in one segment, and a 50,000-character draft (about 800 rows) spent 100 ms of
	// each key here, making 40 million runes (BenchmarkComposer_KeyAt50KB).
	var runesOf RichTextSegment
	var segRunes []rune
	for _, bound := range bounds {
		for i, seg := range bound.segments {
			_, isText := seg.(*TextSegment)
			hlSeg, isHyperlink := seg.(*HyperlinkSegment)
			if !isText && !isHyperlink {
				obj := r.obj.cachedSegmentVisual(seg, 0)
				seg.Update(obj)
				objs = append(objs, obj)
				continue
			}

			reuse := 0
			if i == 0 {
				reuse = bound.firstSegmentReuse
			}
			obj := r.obj.cachedSegmentVisual(seg, reuse)
			seg.Update(obj)
			var txt string
			if seg != runesOf {
				runesOf, segRunes = seg, []rune(seg.Textual())
			}
			runes := segRunes

			if i == 0 {
				if len(bound.segments) == 1 {
					txt = string(runes[bound.begin:bound.end])
				} else {
					txt = string(runes[bound.begin:])
				}
			} else if i == len(bound.segments)-1 && len(bound.segments) > 1 {
				txt = string(runes[:bound.end])
			} else {
				txt = string(runes)
			}
			if bound.ellipsis && i == len(bound.segments)-1 {
				txt = txt + "…"
			}

			if concealed(seg) {
				txt = strings.Repeat(passwordChar, len(runes))
			}

			if isText {
				to, _ := codeInlineText(obj)
				to.Text = txt
			} else if isHyperlink {
				hl := obj.(*fyne.Container).Objects[0].(*Hyperlink)
				hl.Text = txt
				r.associateSiblings(hl, hlSeg, reuse)
				hl.Refresh()
			}
			objs = append(objs, obj)
		}
	}

	if r.obj.scr != nil {
		if isEmptyScroll(r.obj.scr) {
			r.obj.scr.Content = &fyne.Container{Layout: layout.NewStackLayout(), Objects: []fyne.CanvasObject{
				r.obj.prop, &fyne.Container{Objects: objs},
			}}
			r.obj.scr.Direction = scroll
			r.SetObjects([]fyne.CanvasObject{r.obj.scr})
		}
		r.obj.scr.Refresh()
	} else {
		r.SetObjects(objs)
	}

	r.Layout(r.obj.Size())
	canvas.Refresh(r.obj.super())

	r.obj.cleanVisualCache()
}

func (r *textRenderer) associateSiblings(hl *Hyperlink, hlSeg *HyperlinkSegment, reuse int) {
	hl.siblings = hl.siblings[:0]
	for prev := 0; prev < reuse; prev++ {
		prevHL := r.obj.cachedSegmentVisual(hlSeg, prev).(*fyne.Container).Objects[0].(*Hyperlink)
		prevHL.siblings = append(prevHL.siblings, hl)
		hl.siblings = append(hl.siblings, prevHL)
	}
}

func (r *textRenderer) layoutRow(texts []fyne.CanvasObject, align fyne.TextAlign, xPos, yPos, lineWidth float32) (float32, float32) {
	initialX := xPos
	if len(texts) == 1 {
		min := texts[0].MinSize()
		if text, ok := codeInlineText(texts[0]); ok {
			texts[0].Resize(min)
			xPad := float32(0)
			switch text.Alignment {
			case fyne.TextAlignLeading:
			case fyne.TextAlignTrailing:
				xPad = lineWidth - min.Width
			case fyne.TextAlignCenter:
				xPad = (lineWidth - min.Width) / 2
			}
			texts[0].Move(fyne.NewPos(xPos+xPad, yPos))
		} else {
			texts[0].Resize(fyne.NewSize(lineWidth, min.Height))
			texts[0].Move(fyne.NewPos(xPos, yPos))
		}
		return min.Width, min.Height
	}
	height := float32(0)
	tallestBaseline := float32(0)
	realign := false
	baselines := make([]float32, len(texts))

	driver := fyne.CurrentApp().Driver()
	for i, text := range texts {
		var size fyne.Size
		if txt, ok := codeInlineText(text); ok { // bare text or an inline-code container
			s, base := driver.RenderedTextSize(txt.Text, txt.TextSize, txt.TextStyle, txt.FontSource)
			if base > tallestBaseline {
				if tallestBaseline > 0 {
					realign = true
				}
				tallestBaseline = base
			}
			size = s
			baselines[i] = base
		} else if c, ok := text.(*fyne.Container); ok {
			wid := c.Objects[0]
			if link, ok := wid.(*Hyperlink); ok {
				sizeName := link.SizeName
				if sizeName == "" {
					sizeName = theme.SizeNameText
				}
				textSize := theme.SizeForWidget(sizeName, r.obj)
				s, base := driver.RenderedTextSize(link.Text, textSize, link.TextStyle, nil)
				if base > tallestBaseline {
					if tallestBaseline > 0 {
						realign = true
					}
					tallestBaseline = base
				}
				size = s
				baselines[i] = base
			}
		}
		if size.IsZero() {
			size = text.MinSize()
		}
		text.Resize(size)
		text.Move(fyne.NewPos(xPos, yPos))

		xPos += size.Width
		if height == 0 {
			height = size.Height
		} else if height != size.Height {
			height = fyne.Max(height, size.Height)
			realign = true
		}
	}

	if realign {
		for i, text := range texts {
			delta := tallestBaseline - baselines[i]
			text.Move(fyne.NewPos(text.Position().X, yPos+delta))
		}
	}

	innerPadding := r.obj.Theme().Size(theme.SizeNameInnerPadding)
	spare := lineWidth - xPos
	switch align {
	case fyne.TextAlignTrailing:
		spare += innerPadding
		first := texts[0]
		first.Resize(fyne.NewSize(first.Size().Width+spare, height))
		setAlign(first, fyne.TextAlignTrailing)

		for _, text := range texts[1:] {
			text.Move(text.Position().Add(fyne.NewPos(spare, 0)))
		}
	case fyne.TextAlignCenter:
		spare += innerPadding
		pad := spare / 2
		first := texts[0]
		first.Resize(fyne.NewSize(first.Size().Width+pad, height))
		setAlign(first, fyne.TextAlignTrailing)
		last := texts[len(texts)-1]
		last.Resize(fyne.NewSize(last.Size().Width+pad, height))
		setAlign(last, fyne.TextAlignLeading)

		for _, text := range texts[1:] {
			text.Move(text.Position().Add(fyne.NewPos(pad, 0)))
		}
	default:
		last := texts[len(texts)-1]
		last.Resize(fyne.NewSize(last.Size().Width+spare, height))
		setAlign(last, fyne.TextAlignLeading)
	}

	return xPos - initialX, height
}

func isEmptyScroll(o *widget.Scroll) bool {
	if c, ok := o.Content.(*fyne.Container); ok {
		if len(c.Objects) == 2 {
			if inner, ok := c.Objects[1].(*fyne.Container); ok {
				return inner.Objects == nil
			}
		}
	}
	return false
}

// howManyRunesFit accepts a rune slice, an available width, an average
// character width, and a function that calculates the (pixel) size of a given
// rune slice.
// howManyRunesFit returns how many runes fit into the available width.
func howManyRunesFit(runes []rune, availableWidth float32, charWidth float32, measurer func([]rune) fyne.Size) int {
	if availableWidth <= 0 {
		return 0
	}
	length := len(runes)
	fits := 0
	tooLong := length + 1
	estimation := int(availableWidth / charWidth)
	if estimation > length {
		estimation = length
	}
	for tooLong-fits > 1 {
		subWidth := measurer(runes[:estimation]).Width
		if subWidth <= availableWidth {
			fits = estimation
		} else {
			tooLong = estimation
		}
		estimation = int(float32(estimation) * availableWidth / subWidth)
		if estimation >= tooLong {
			estimation = tooLong - 1
		}
		if estimation <= fits {
			estimation = fits + 1
		}
	}
	return fits
}

// concealed returns true if the segment represents a password, meaning the text should be obscured.
func concealed(seg RichTextSegment) bool {
	if text, ok := seg.(*TextSegment); ok {
		return text.Style.concealed
	}

	return false
}

func ellipsisPriorBound(bounds []rowBoundary, trunc fyne.TextTruncation, width float32, charWidth float32, measurer func([]rune) fyne.Size) []rowBoundary {
	if trunc != fyne.TextTruncateEllipsis || len(bounds) == 0 {
		return bounds
	}

	prior := bounds[len(bounds)-1]
	seg := prior.segments[0].(*TextSegment)
	ellipsisSize := fyne.MeasureText("…", seg.size(), seg.Style.TextStyle)

	fitCount := howManyRunesFit([]rune(seg.Text)[prior.begin:prior.end], width-ellipsisSize.Width, charWidth, measurer)
	prior.end = prior.begin + fitCount

	prior.ellipsis = true
	bounds[len(bounds)-1] = prior
	return bounds
}

// findSpaceIndex accepts a slice of runes and a start position index
// findSpaceIndex returns the index of the last space in the text, or -1 if there are no spaces
func findSpaceIndex(text []rune, curIndex int) int {
	for ; curIndex >= 0; curIndex-- {
		if unicode.IsSpace(text[curIndex]) {
			break
		}
	}
	return curIndex
}

func float32ToFixed266(f float32) fixed.Int26_6 {
	return fixed.Int26_6(float64(f) * (1 << 6))
}

// lineBounds accepts a slice of Segments, a wrapping mode, a maximum size available to display and a function to
// measure text size.
// It will return a slice containing the boundary metadata of each line with the given wrapping applied and the
// total height required to render the boundaries at the given width/height constraints
func lineBounds(t *RichText, seg RichTextSegment, firstWidth float32, max fyne.Size, measurer func([]rune) fyne.Size) ([]rowBoundary, float32) {
	return lineBoundsFrom(t, seg, firstWidth, max, measurer, 0, 0)
}

// lineBoundsFrom is lineBounds from the rune from on, a row's beginning, which is row number
// reuse (Parley: keptRows). Only word and character wrapping start later than 0.
func lineBoundsFrom(t *RichText, seg RichTextSegment, firstWidth float32, max fyne.Size, measurer func([]rune) fyne.Size, from, reuse int) ([]rowBoundary, float32) {
	wrap := t.Wrapping
	trunc := t.Truncation
	lines := splitLines(seg)

	if wrap == fyne.TextWrap(fyne.TextTruncateClip) {
		if trunc == fyne.TextTruncateOff {
			trunc = fyne.TextTruncateClip
		}
		wrap = fyne.TextWrapOff
	}

	if max.Width <= 0 || wrap == fyne.TextWrapOff && trunc == fyne.TextTruncateOff {
		return lines, 0 // don't bother returning a calculated height, our MinSize is going to cover it
	}

	measureWidth := float32(math.Min(float64(firstWidth), float64(max.Width)))

	switch wrap {
	case fyne.TextWrapBreak:
		return wrapBreakLines(seg, trunc, measureWidth, max, measurer, linesFrom(lines, from), reuse)
	case fyne.TextWrapWord:
		return wrapWordLines(seg, trunc, measureWidth, max, measurer, linesFrom(lines, from), reuse)
	default:
		return truncateLines(t, seg, trunc, measureWidth, measurer, lines)
	}
}

// linesFrom is lines less what is before the rune from (Parley: see lineBoundsFrom).
func linesFrom(lines []rowBoundary, from int) []rowBoundary {
	if from == 0 {
		return lines
	}
	var out []rowBoundary
	for _, l := range lines {
		if l.begin < from {
			if l.end <= from {
				continue // wholly before from (an empty line at from is kept)
			}
			l.begin = from
		}
		out = append(out, l)
	}
	return out
}

func wrapBreakLines(seg RichTextSegment, trunc fyne.TextTruncation, measureWidth float32, max fyne.Size, measurer func([]rune) fyne.Size, lines []rowBoundary, reuse int) ([]rowBoundary, float32) {
	text := []rune(seg.Textual())
	charSize := measurer([]rune("z"))
	charWidth := charSize.Width
	lineHeight := charSize.Height
	yPos := float32(0)
	var bounds []rowBoundary
	for _, l := range lines {
		low := l.begin
		high := l.end
		if low == high {
			l.firstSegmentReuse = reuse
			reuse++
			bounds = append(bounds, l)
			continue
		}
		for low < high {
			if yPos+lineHeight > max.Height && trunc != fyne.TextTruncateOff {
				return ellipsisPriorBound(bounds, trunc, measureWidth, charWidth, measurer), yPos
			}

			fitCount := howManyRunesFit(text[low:high], measureWidth, charWidth, measurer)
			switch fitCount {
			case high - low: // all characters fit on this line
				bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, high, false, 0})
				reuse++
				low = high
				high = l.end
				measureWidth = max.Width
				yPos += lineHeight
			case 0: // even a character won't fit
				bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, low + 1, false, 0})
				reuse++
				low++
				yPos += lineHeight
			default:
				high = low + fitCount
			}
		}
	}
	return bounds, yPos
}

func wrapWordLines(seg RichTextSegment, trunc fyne.TextTruncation, measureWidth float32, max fyne.Size, measurer func([]rune) fyne.Size, lines []rowBoundary, reuse int) ([]rowBoundary, float32) {
	text := []rune(seg.Textual())
	charSize := measurer([]rune("z"))
	charWidth := charSize.Width
	lineHeight := charSize.Height
	yPos := float32(0)
	var bounds []rowBoundary
	for _, l := range lines {
		low := l.begin
		high := l.end
		if low == high {
			l.firstSegmentReuse = reuse
			reuse++
			bounds = append(bounds, l)
			continue
		}
		for low < high {
			if yPos+lineHeight > max.Height && trunc != fyne.TextTruncateOff {
				return ellipsisPriorBound(bounds, trunc, measureWidth, charWidth, measurer), yPos
			}

			sub := text[low:high]
			fitCount := howManyRunesFit(sub, measureWidth, charWidth, measurer)
			if fitCount == high-low { // all characters fit on this line
				bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, high, false, 0})
				reuse++
				low = high
				high = l.end
				if low < high && unicode.IsSpace(text[low]) {
					low++
				}
				measureWidth = max.Width

				yPos += lineHeight
				continue
			}
			if fitCount == 0 { // even a character won't fit
				if measureWidth < max.Width {
					bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, low, false, 0})
					reuse++
					measureWidth = max.Width
					yPos += lineHeight
					continue
				}
				include := 1
				ellipsis := false
				if trunc == fyne.TextTruncateEllipsis {
					include = 0
					ellipsis = true
				}
				bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, low + include, ellipsis, 0})
				low++
				high = low + 1
				reuse++

				yPos += lineHeight
				if high > l.end {
					return bounds, yPos
				}
				continue
			}
			spaceIndex := findSpaceIndex(sub, fitCount)
			if spaceIndex >= 0 {
				if spaceIndex == 0 {
					spaceIndex = 1
				}
				high = low + spaceIndex
				continue
			}
			oldHigh := high
			high = low + fitCount
			if low == 0 && measureWidth < max.Width { // add a newline as there is more space on next
				bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, low, false, 0})
				reuse++
				high = oldHigh
				measureWidth = max.Width

				yPos += lineHeight
			}
		}
	}
	return bounds, yPos
}

func truncateLines(t *RichText, seg RichTextSegment, trunc fyne.TextTruncation, measureWidth float32, measurer func([]rune) fyne.Size, lines []rowBoundary) ([]rowBoundary, float32) {
	text := []rune(seg.Textual())
	yPos := float32(0)
	var bounds []rowBoundary
	charSize := measurer([]rune("z"))
	charWidth := charSize.Width
	reuse := 0
	for _, l := range lines {
		low := l.begin
		high := l.end
		if low == high {
			l.firstSegmentReuse = reuse
			reuse++
			bounds = append(bounds, l)
			continue
		}
		switch trunc {
		case fyne.TextTruncateEllipsis:
			txt := []rune(seg.Textual())[low:high]
			var textObj *canvas.Text
			switch s := seg.(type) {
			case *TextSegment:
				textObj, _ = codeInlineText(seg.Visual())
			case *HyperlinkSegment:
				textObj = canvas.NewText(string(txt), color.Black)
				textObj.TextStyle = s.TextStyle
				sizeName := s.SizeName
				if sizeName == "" {
					sizeName = theme.SizeNameText
				}
				textObj.TextSize = theme.SizeForWidget(sizeName, t)
			}
			end, full := truncateLimit(string(txt), textObj, int(measureWidth), []rune{'…'})
			high = low + end
			bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, high, !full, 0})
			reuse++
		case fyne.TextTruncateClip:
			fitCount := howManyRunesFit(text[low:high], measureWidth, charWidth, measurer)
			high = low + fitCount
			bounds = append(bounds, rowBoundary{[]RichTextSegment{seg}, reuse, low, high, false, 0})
			reuse++
		case fyne.TextTruncateOff:
			// don’t do anything
		}
	}
	return bounds, yPos
}

func setAlign(obj fyne.CanvasObject, align fyne.TextAlign) {
	if text, ok := obj.(*canvas.Text); ok {
		text.Alignment = align
		return
	}
	if c, ok := obj.(*fyne.Container); ok {
		wid := c.Objects[0]
		if link, ok := wid.(*Hyperlink); ok {
			link.Alignment = align
			link.Refresh()
		}
	}
}

// rowPaddingAndAlign returns the left padding and text alignment for a row.
func rowPaddingAndAlign(bound rowBoundary, lineSpacing float32, currentAlign fyne.TextAlign) (float32, fyne.TextAlign) {
	leftPad := bound.indent
	align := currentAlign
	if len(bound.segments) > 0 {
		if text, ok := bound.segments[0].(*TextSegment); ok {
			align = text.Style.Alignment
			if text.Style.QuotingDepth > 0 {
				leftPad = lineSpacing * 4 * float32(text.Style.QuotingDepth)
			}
		} else if link, ok := bound.segments[0].(*HyperlinkSegment); ok {
			align = link.Alignment
			if link.quotingLevel > 0 {
				leftPad = lineSpacing * 4 * float32(link.quotingLevel)
			}
		} else if block, ok := bound.segments[0].(*CodeBlockSegment); ok {
			align = fyne.TextAlignLeading
			if block.quotingLevel > 0 {
				leftPad = lineSpacing * 4 * float32(block.quotingLevel)
			}
		}
	}
	return leftPad, align
}

// splitLines accepts a text segment and returns a slice of boundary metadata denoting the
// start and end indices of each line delimited by the newline character.
func splitLines(seg RichTextSegment) []rowBoundary {
	var low, high int
	var lines []rowBoundary
	text := []rune(seg.Textual())
	length := len(text)
	for i := 0; i < length; i++ {
		if text[i] == '\n' {
			high = i
			lines = append(lines, rowBoundary{[]RichTextSegment{seg}, len(lines), low, high, false, 0})
			low = i + 1
		}
	}
	return append(lines, rowBoundary{[]RichTextSegment{seg}, len(lines), low, length, false, 0})
}

func truncateLimit(s string, text *canvas.Text, limit int, ellipsis []rune) (int, bool) {
	face := paint.CachedFontFace(text.TextStyle, text.FontSource, text)

	runes := []rune(s)
	in := shaping.Input{
		Text:      ellipsis,
		RunStart:  0,
		RunEnd:    len(ellipsis),
		Direction: di.DirectionLTR,
		Face:      face.Fonts.ResolveFace(ellipsis[0]),
		Size:      float32ToFixed266(text.TextSize),
	}
	shaper := &shaping.HarfbuzzShaper{}
	segmenter := &shaping.Segmenter{}

	conf := shaping.WrapConfig{}
	conf = conf.WithTruncator(shaper, in)
	conf.BreakPolicy = shaping.WhenNecessary
	conf.TruncateAfterLines = 1
	l := shaping.LineWrapper{}

	in.Text = runes
	in.RunEnd = len(runes)
	ins := segmenter.Split(in, face.Fonts)
	outs := make([]shaping.Output, len(ins))
	for i, in := range ins {
		outs[i] = shaper.Shape(in)
	}

	l.Prepare(conf, runes, shaping.NewSliceIterator(outs))
	wrapped, done := l.WrapNextLine(limit)

	count := len(runes)
	if wrapped.Truncated != 0 {
		count -= wrapped.Truncated
		count += len(ellipsis)
	}

	full := done && count == len(runes)
	if !full && len(ellipsis) > 0 {
		count--
	}
	return count, full
}

type rowBoundary struct {
	segments          []RichTextSegment
	firstSegmentReuse int
	begin, end        int
	ellipsis          bool
	indent            float32
}
