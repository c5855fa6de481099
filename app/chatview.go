package app

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/conversation"
	"parley/markdown"
)

// rowKind is what one row of the chat view shows.
type rowKind int

const (
	rowMessage  rowKind = iota // a message the service confirmed
	rowTurn                    // the person's message waiting for its reply, or failed
	rowThinking                // the assistant's reply being written
	rowNotice                  // a line about the conversation (loading, an error)
)

// row is one row of the chat view.
type row struct {
	kind rowKind
	role conversation.Role
	text string
	at   time.Time
	turn conversation.Turn // rowTurn
	// behindFailed: a queued turn waits behind one that failed or was stopped (not behind a
	// reply being written).
	behindFailed bool
	// unsaved: the conversation does not exist on the service yet (its first reply is awaited).
	unsaved bool
	err     error // rowNotice
}

// bubble geometry.
const (
	bubbleMaxFraction = 0.78 // of the view's width
	bubbleMinWidth    = 48
	bubbleRadius      = 12
	rowGap            = 10 // vertical space between rows
)

// chatView shows the messages of the conversation on screen in a virtualized list. Row heights
// start as estimates and are corrected as rows are shown, so a long conversation opens at once.
type chatView struct {
	host    chatHost
	do      func(func()) // runs a correction after the list's update
	now     func() time.Time
	list    *widget.List
	rows    []row
	heights []float32 // the height the list has for each row
	exact   []bool    // heights[i] was measured, not estimated
	width   float32   // the width the heights are for
	// toBottom makes the next render show the newest message whatever the scroll position
	// (a conversation opened, a message sent); otherwise a render follows the newest message
	// only when the person has not scrolled up to read.
	toBottom bool
	empty    *fyne.Container
	box      *fyne.Container
	measure  *bubbleRow // a row used only to measure
	metrics  textMetrics
	// sel is the selected text: a range of one row's plain text; owner is the widget that
	// shows it.
	sel   selection
	owner *replyText
	// flats keeps replies parsed recently, so that scrolling back does not parse them again.
	flats   map[string]markdown.Flat
	parsing map[string]bool // long replies being parsed in the background
	flatGen int             // counts the parses done in the background
	// tops are the rows' tops in the list (made again when heights change).
	tops      []float32
	flatOrder []string
}

// selection is a range of the plain text of one row of the chat view.
type selection struct {
	row  int
	text string // the row's text when it was selected: the row may show another later
	a, b int
}

// chatHost is what the chat view's rows need from the window: the actions of their buttons and
// links.
type chatHost interface {
	copyText(text string)
	// openLink opens a link of a reply in the system's browser or mail program.
	openLink(url string)
	// hoverLink shows where a link leads ("" when the pointer left it).
	hoverLink(url, title string)
	// selecting tells the window that text of the chat view is being selected: the keyboard
	// goes to it (Ctrl+C copies it) rather than to the composer.
	selecting()
	// speak says a reply aloud.
	speak(text string)
	// stopWaiting stops waiting for the reply being written (the thinking row's Stop).
	stopWaiting()
	// retry sends a failed message again; editTurn takes it back into the composer.
	retry(key int64)
	editTurn(key int64)
}

func newChatView(host chatHost, do func(func()), now func() time.Time) *chatView {
	c := &chatView{host: host, do: do, now: now, toBottom: true, sel: selection{row: -1}, flats: map[string]markdown.Flat{}, parsing: map[string]bool{}}
	c.list = c.newList()
	c.measure = newBubbleRow(c)
	title := widget.NewLabelWithStyle("What's on your mind?", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	hint := widget.NewLabelWithStyle("Type a message and press Enter, or press Ctrl+M and speak.", fyne.TextAlignCenter, fyne.TextStyle{})
	hint.SizeName = theme.SizeNameCaptionText
	c.empty = container.NewCenter(container.NewVBox(title, hint))
	c.box = container.NewStack(c.list, c.empty)
	return c
}

func (c *chatView) object() fyne.CanvasObject { return c.box }

// newList makes the virtualized list of rows.
func (c *chatView) newList() *widget.List {
	l := widget.NewList(
		func() int { return len(c.rows) },
		func() fyne.CanvasObject { return newBubbleRow(c) },
		func(id widget.ListItemID, o fyne.CanvasObject) { c.update(id, o.(*bubbleRow)) },
	)
	l.HideSeparators = true
	l.OnSelected = func(widget.ListItemID) { l.UnselectAll() }
	return l
}

// swapThreshold is how many rows may change height before the list is replaced rather than
// updated: a list on screen redraws itself for every height it is given, a new one does not.
const swapThreshold = 64

// showThread shows another conversation, v, at its newest message.
func (c *chatView) showThread(v conversation.ThreadView) {
	c.toBottom = true
	c.rows = nil
	c.sel = selection{row: -1}
	c.renderView(v)
}

// stickToBottom makes the next render show the newest message (after the person sent one).
func (c *chatView) stickToBottom() {
	c.toBottom = true
	c.list.ScrollToBottom()
}

// renderView shows v, the conversation on screen.
func (c *chatView) renderView(v conversation.ThreadView) {
	follow := c.toBottom || c.atBottom(c.list.GetScrollOffset())
	c.toBottom = false
	old := c.rows
	c.rows = rowsOf(v)
	c.empty.Hidden = len(c.rows) > 0
	c.resetHeights(old)
	c.list.Refresh()
	if follow {
		c.list.ScrollToBottom()
	}
	c.empty.Refresh()
}

// rowsOf lists the rows of a conversation: its messages, its turns, "thinking" after the turn
// being answered, and a line while it loads or when loading failed.
func rowsOf(v conversation.ThreadView) []row {
	rows := make([]row, 0, len(v.Messages)+len(v.Turns)+1)
	for _, m := range v.Messages {
		rows = append(rows, row{kind: rowMessage, role: m.Role, text: m.Text, at: m.At})
	}
	blocked := false
	for _, t := range v.Turns {
		rows = append(rows, row{kind: rowTurn, role: conversation.User, text: t.Text, at: t.At, turn: t,
			behindFailed: blocked && t.State == conversation.Queued, unsaved: v.ID.IsZero()})
		blocked = blocked || t.State == conversation.Failed || t.State == conversation.Lost
		if t.State == conversation.Sending {
			rows = append(rows, row{kind: rowThinking, role: conversation.Assistant})
		}
	}
	switch {
	case v.Loading && len(v.Messages) == 0:
		rows = append(rows, row{kind: rowNotice, text: "Loading the conversation…"})
	case v.LoadErr != nil:
		rows = append(rows, row{kind: rowNotice, text: "The conversation could not be read. " + phrase(v.LoadErr).text, err: v.LoadErr})
	case v.Deleted:
		rows = append(rows, row{kind: rowNotice, text: "This conversation was deleted."})
	}
	return rows
}

// resetHeights keeps the heights of rows that did not change and estimates the others. When
// many change (a conversation opened, the window resized), the list is replaced by a new one
// that is given all its heights before it is shown.
func (c *chatView) resetHeights(old []row) {
	width := c.box.Size().Width
	if width <= 0 {
		width = 700
	}
	keep := width == c.width
	c.width = width
	heights := make([]float32, len(c.rows))
	exact := make([]bool, len(c.rows))
	changed := 0
	for i, r := range c.rows {
		if keep && i < len(old) && i < len(c.exact) && sameRow(old[i], r) {
			heights[i], exact[i] = c.heights[i], c.exact[i]
		} else {
			heights[i] = c.estimate(r, width)
		}
		if i >= len(c.heights) || heights[i] != c.heights[i] {
			changed++
		}
	}
	prev := c.heights
	c.heights, c.exact, c.tops = heights, exact, nil
	if changed > swapThreshold {
		c.list = c.newList()
		for i, h := range heights {
			c.list.SetItemHeight(i, h) // no redraw: the list is not on screen yet
		}
		c.box.Objects[0] = c.list
		c.box.Refresh()
		return
	}
	for i, h := range heights {
		if i >= len(prev) || h != prev[i] {
			c.list.SetItemHeight(i, h)
		}
	}
}

// sameRow reports whether a row's look is unchanged: a turn's reason too, since a message sent
// again can fail again for another reason without the window drawing it as sent in between.
func sameRow(a, b row) bool {
	return a.kind == b.kind && a.role == b.role && a.text == b.text && a.turn.State == b.turn.State && a.behindFailed == b.behindFailed &&
		a.turn.Answering == b.turn.Answering && errText(a.turn.Err) == errText(b.turn.Err)
}

// errText is err's text, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// update fills a shown row and, the first time, measures it and corrects its height.
func (c *chatView) update(id widget.ListItemID, r *bubbleRow) {
	if id >= len(c.rows) {
		return
	}
	if r.id != id {
		r.id, r.reply.row = id, id
		r.reply.Refresh() // the selection may be another row's
	}
	if !r.shows(c.rows[id]) {
		r.set(c.rows[id])
	}
	if w := c.box.Size().Width; c.width != w && w > 0 {
		// The view was resized: every height is an estimate again.
		c.resetHeights(c.rows)
	}
	if !c.exact[id] {
		c.exact[id] = true
		h := r.heightFor(c.width)
		if abs32(h-c.heights[id]) > 0.5 {
			c.do(func() { c.correct(id, h) })
		}
	}
}

// correct gives row id its measured height h without moving what the person is reading: the
// view stays at the bottom if it was there, and a row above the view shifts the offset by as
// much as it grew.
func (c *chatView) correct(id int, h float32) {
	if id >= len(c.heights) {
		return
	}
	off := c.list.GetScrollOffset()
	wasBottom := c.atBottom(off)
	var top float32
	for _, hh := range c.heights[:id] {
		top += hh
	}
	delta := h - c.heights[id]
	c.heights[id], c.tops = h, nil
	c.list.SetItemHeight(id, h)
	switch {
	case wasBottom:
		c.list.ScrollToBottom()
	case top < off:
		c.list.ScrollToOffset(off + delta)
	}
}

// atBottom reports whether the list shows its last row, given its scroll offset.
func (c *chatView) atBottom(offset float32) bool {
	var total float32
	for _, h := range c.heights {
		total += h
	}
	return offset+c.list.Size().Height >= total-24
}

// estimate guesses a row's height from its text's length, without laying it out.
func (c *chatView) estimate(r row, width float32) float32 {
	m := c.textMetrics()
	inner := bubbleWidth(width) - 2*bubblePadH
	if r.role != conversation.User {
		inner = min(width-2*sidePad-2*bubblePadH, measureChars*m.charWidth)
	}
	if inner < 40 {
		inner = 40
	}
	perLine := int(inner / m.charWidth)
	if perLine < 1 {
		perLine = 1
	}
	lines := 0
	for _, para := range strings.Split(r.text, "\n") {
		n := len([]rune(para))
		lines += max(1, (n+perLine-1)/perLine)
	}
	if r.kind == rowThinking {
		lines = 1
	}
	return float32(lines)*m.lineHeight + 2*messagePadV + metaHeight(m) + rowGap
}

// textMetrics are measured once: the average character width and the line height of messages.
type textMetrics struct {
	charWidth, lineHeight, captionHeight float32
}

func (c *chatView) textMetrics() textMetrics {
	if c.metrics.lineHeight > 0 {
		return c.metrics
	}
	sample := "The quick brown fox jumps over the lazy dog, then asks: what is 42? "
	size := theme.TextSize()
	s := fyne.MeasureText(sample, size, fyne.TextStyle{})
	c.metrics = textMetrics{
		charWidth:     s.Width / float32(len(sample)),
		lineHeight:    lineHeight(size, fyne.TextStyle{}) + lineGap,
		captionHeight: fyne.MeasureText("9:41", theme.CaptionTextSize(), fyne.TextStyle{}).Height,
	}
	return c.metrics
}

func metaHeight(m textMetrics) float32 { return m.captionHeight + 2*theme.InnerPadding() }

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}

// bubbleWidth is the widest a bubble may be in a view of width w.
func bubbleWidth(w float32) float32 { return w * bubbleMaxFraction }

// flatsKept is how many parsed replies the chat view keeps.
const flatsKept = 64

// Sizes of reply that are parsed at once, in the background, or not at all. goldmark takes time
// that grows faster than the text on some inputs (150 KB of "*a " takes 2 s): a reply over
// parseNowMax is shown as plain text while it is parsed away from the window, and one over
// parseMax stays plain text (every character shown, no Markdown).
const (
	parseNowMax = 16 << 10
	parseMax    = 256 << 10
)

// flatOf is a reply parsed and flattened, from the cache when it was lately; a long reply is
// plain text until its parse, started here, is done.
func (c *chatView) flatOf(text string) markdown.Flat {
	if f, ok := c.flats[text]; ok {
		return f
	}
	switch {
	case len(text) > parseMax:
		f := plainFlat(text)
		c.keepFlat(text, f)
		return f
	case len(text) > parseNowMax:
		if !c.parsing[text] {
			c.parsing[text] = true
			go func() {
				f := markdown.Flatten(markdown.Parse(text))
				c.do(func() { c.parsed(text, f) })
			}()
		}
		return plainFlat(text)
	}
	f := markdown.Flatten(markdown.Parse(text))
	c.keepFlat(text, f)
	return f
}

// parsed shows a long reply whose parse is done.
func (c *chatView) parsed(text string, f markdown.Flat) {
	delete(c.parsing, text)
	c.keepFlat(text, f)
	c.flatGen++
	for i, r := range c.rows {
		if r.text == text && r.kind == rowMessage {
			c.exact[i] = false
			c.list.RefreshItem(i)
		}
	}
}

func (c *chatView) keepFlat(text string, f markdown.Flat) {
	if len(c.flatOrder) >= flatsKept {
		delete(c.flats, c.flatOrder[0])
		c.flatOrder = c.flatOrder[1:]
	}
	c.flats[text] = f
	c.flatOrder = append(c.flatOrder, text)
}

// plainFlat is text shown as it is, with no Markdown.
func plainFlat(s string) markdown.Flat {
	return markdown.Flat{Text: s, Parts: []markdown.Part{{Kind: markdown.TextPart, Text: markdown.Run{Spans: []markdown.Span{{Text: s}}, End: len(s)}}}}
}

// selectIn selects bytes a to b of the plain text of t's row (a may be after b).
func (c *chatView) selectIn(t *replyText, a, b int) {
	if t.row < 0 || t.row >= len(c.rows) {
		return
	}
	old := c.owner
	c.sel = selection{row: t.row, text: c.rows[t.row].text, a: a, b: b}
	c.owner = t
	if old != nil && old != t {
		old.Refresh()
	}
	t.Refresh()
	c.host.selecting()
}

// selection is the range selected in t, if its row holds the selection.
func (c *chatView) selection(t *replyText) (int, int) {
	if !c.holdsSelection(t) {
		return 0, 0
	}
	n := len(t.flat.Text)
	return min(max(c.sel.a, 0), n), min(max(c.sel.b, 0), n)
}

// holdsSelection reports whether t shows the row that has the selection (a list reuses its
// row widgets for other rows as it scrolls).
func (c *chatView) holdsSelection(t *replyText) bool {
	return t != nil && c.sel.row == t.row && t.row >= 0 && t.row < len(c.rows) && c.rows[t.row].text == c.sel.text
}

// selectedText is the text selected in the chat view, as plain text ("" when none is).
func (c *chatView) selectedText() string {
	if c.owner == nil {
		return ""
	}
	a, b := c.selection(c.owner)
	if a > b {
		a, b = b, a
	}
	text := c.owner.flat.Text
	if a == b || b > len(text) {
		return ""
	}
	return text[a:b]
}

// selectAll selects the whole of the row that holds the selection; it reports whether one did.
func (c *chatView) selectAll() bool {
	if !c.holdsSelection(c.owner) {
		return false
	}
	c.selectIn(c.owner, 0, len(c.owner.flat.Text))
	return true
}

func (c *chatView) openLink(url string)         { c.host.openLink(url) }
func (c *chatView) hoverLink(url, title string) { c.host.hoverLink(url, title) }
func (c *chatView) copyText(text string)        { c.host.copyText(text) }

// scrollChat scrolls the chat by dy (a wheel turned over a code block or a table).
func (c *chatView) scrollChat(dy float32) {
	c.list.ScrollToOffset(max(c.list.GetScrollOffset()-dy, 0))
}

// band is the part of row id on screen, in the row's coordinates; ok is false before the view
// has a size.
func (c *chatView) band(id int) (top, bottom float32, ok bool) {
	h := c.list.Size().Height
	if h <= 0 || id >= len(c.heights) {
		return 0, 0, false
	}
	top = c.list.GetScrollOffset() - c.rowTop(id)
	return top, top + h, true
}

// rowTop is where row id starts in the list (the list puts a padding between rows).
func (c *chatView) rowTop(id int) float32 {
	if c.tops == nil || len(c.tops) != len(c.heights)+1 {
		c.tops = make([]float32, len(c.heights)+1)
		pad := theme.Padding()
		for i, h := range c.heights {
			c.tops[i+1] = c.tops[i] + h + pad
		}
	}
	return c.tops[id]
}

// extendSelection moves the end of the selection for Shift and an arrow, Home or End; it
// reports whether there was a selection to extend.
func (c *chatView) extendSelection(key fyne.KeyName) bool {
	t := c.owner
	if !c.holdsSelection(t) || t.lay == nil {
		return false
	}
	a, b := c.selection(t)
	c.selectIn(t, a, t.lay.moveCaret(t.flat.Text, b, key))
	return true
}
