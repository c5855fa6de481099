// Package chatview is Parley's chat view: the messages of the conversation on screen as
// bubbles in a virtualized list, the person's as typed and the assistant's rendered from
// Markdown (headings, lists, quotes, tables, highlighted code), with text selection, links,
// and the buttons of each row (Copy, Speak, Retry, Edit, Stop).
//
// The view renders a conversation.ThreadView it is given; it owns no state of the
// conversation. What its rows do (copy, open a link, speak, send again…) it asks of its Host,
// the window, and how an error is said to the person it asks of Config.Phrase. A View is
// confined to the window's goroutine: every method is called there, and so is every Host
// method.
package chatview

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/conversation"
	"parley/markdown"
)

// RowKind is what one row of the chat view shows.
type RowKind int

// The kinds of row.
const (
	RowMessage  RowKind = iota // a message the service confirmed
	RowTurn                    // the person's message waiting for its reply, or failed
	RowThinking                // the assistant's reply being written
	RowNotice                  // a line about the conversation (loading, an error)
)

// Row is one row of the chat view.
type Row struct {
	Kind RowKind
	Role conversation.Role // who wrote it
	Text string            // a message's text (Markdown for a reply), or a notice's line
	At   time.Time         // when it was written; zero when unknown
	Turn conversation.Turn // a RowTurn's
	// behindFailed: a queued turn waits behind one that failed or was stopped (not behind a
	// reply being written).
	behindFailed bool
	// unsaved: the conversation does not exist on the service yet (its first reply is awaited).
	unsaved bool
	err     error // a RowNotice's
	// question is, on the conversation's last reply when nothing waits after it, the message
	// of the person it answers: what Regenerate sends again.
	question string
}

// bubble geometry.
const (
	bubbleMaxFraction = 0.78 // of the view's width
	bubbleMinWidth    = 48
	bubbleRadius      = 12
	rowGap            = 10 // vertical space between rows
)

// View shows the messages of the conversation on screen in a virtualized list. Row heights
// start as estimates and are corrected as rows are shown, so a long conversation opens at once.
type View struct {
	host    Host
	phrase  func(error) string
	do      func(func()) // runs a correction after the list's update
	now     func() time.Time
	list    *messageList
	rows    []Row
	heights []float32 // the height the list has for each row
	exact   []bool    // heights[i] was measured, not estimated
	// pending counts the measured heights waiting to be given to the list (correct): until
	// then those rows' heights are still estimates.
	pending int
	width   float32 // the width the heights are for
	// toBottom makes the next render show the newest message whatever the scroll position
	// (a conversation opened, a message sent); otherwise a render follows the newest message
	// only when the person has not scrolled up to read.
	toBottom bool
	// target is the message to show at the top once the conversation has it (a search found
	// it there), -1 none.
	target int
	// fresh: the last row is a reply that began while the conversation was on screen. Taller
	// than the view, it is shown from its top (followEnd), not from its end. awaiting: the
	// person sent a message whose reply has not shown yet (it may show in the next render
	// already, with no render of the message waiting before it).
	fresh, awaiting bool
	// jump is "Jump to latest", shown while the view is not at its end; checkAt is set while a
	// check of that is due (moved).
	jump    *widget.Button
	corner  *fyne.Container // holds jump, at the bottom in the middle
	checkAt bool
	empty   *fyne.Container
	box     *fyne.Container
	measure *Bubble // a row used only to measure
	// bubbles are the rows the list made (it shows some of them).
	bubbles []*Bubble
	metrics textMetrics
	// sel is the selected text: a range of one row's plain text; owner is the widget that
	// shows it.
	sel   selection
	owner *replyText
	// flats keeps replies parsed recently, so that scrolling back does not parse them again.
	flats   map[string]markdown.Flat
	parsing map[string]bool // long replies being parsed in the background
	flatGen int             // counts the parses done in the background
	// partial is the reply being written, parsed (partialFlat).
	partial struct {
		text string
		flat markdown.Flat
		ok   bool
	}
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

// Host is what the chat view's rows need from the window: the actions of their buttons and
// links.
type Host interface {
	// CopyText puts text on the clipboard (a reply's Copy, a code block's Copy).
	CopyText(text string)
	// OpenLink opens a link of a reply in the system's browser or mail program.
	OpenLink(url string)
	// HoverLink shows where a link leads ("" when the pointer left it).
	HoverLink(url, title string)
	// Selecting tells the window that text of the chat view is being selected: the keyboard
	// goes to it (Ctrl+C copies it) rather than to the composer.
	Selecting()
	// Speak says a reply aloud.
	Speak(text string)
	// StopWaiting stops waiting for the reply being written (the thinking row's Stop).
	StopWaiting()
	// Retry sends a failed message again; EditTurn takes it back into the composer.
	Retry(key int64)
	EditTurn(key int64)
	// EditMessage puts the text of a message of the person's in the composer, for a new turn
	// once edited; Regenerate asks the person whether to send question again as a new turn
	// (each is charged like any message).
	EditMessage(text string)
	Regenerate(question string)
}

// Config makes a View.
type Config struct {
	// Host does what the rows' buttons and links ask.
	Host Host
	// Phrase says an error as a sentence the person can act on: why a message failed, why the
	// conversation could not be read (nil: the error's own text).
	Phrase func(error) string
	// Do runs a function on the window's goroutine, later: a row's measured height after the
	// list's update under way, a long reply parsed on another goroutine (nil: fyne.Do).
	Do func(func())
	// Now is the clock the times under the messages are told by (nil: time.Now).
	Now func() time.Time
}

// New makes a chat view that shows no conversation yet: a hint to type or speak.
func New(cfg Config) *View {
	c := &View{host: cfg.Host, phrase: cfg.Phrase, do: cfg.Do, now: cfg.Now, toBottom: true, target: -1, sel: selection{row: -1}, flats: map[string]markdown.Flat{}, parsing: map[string]bool{}}
	if c.phrase == nil {
		c.phrase = func(err error) string { return err.Error() }
	}
	if c.do == nil {
		c.do = fyne.Do
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.list = c.newList()
	c.measure = newBubble(c)
	title := widget.NewLabelWithStyle(lang.L("What's on your mind?"), fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameSubHeadingText
	hint := widget.NewLabelWithStyle(lang.L("Type a message and press Enter, or press Ctrl+M and speak."), fyne.TextAlignCenter, fyne.TextStyle{})
	hint.SizeName = theme.SizeNameCaptionText
	c.empty = container.NewCenter(container.NewVBox(title, hint))
	c.jump = widget.NewButtonWithIcon(lang.L("Jump to latest"), theme.MoveDownIcon(), c.JumpToLatest)
	c.jump.Importance = widget.HighImportance
	c.jump.Hide()
	c.corner = container.NewPadded(container.NewVBox(layout.NewSpacer(), container.NewHBox(layout.NewSpacer(), c.jump, layout.NewSpacer())))
	c.box = container.NewStack(c.list, c.empty, c.corner)
	return c
}

// Object is the view's widgets, to put in the window.
func (c *View) Object() fyne.CanvasObject { return c.box }

// newList makes the virtualized list of rows.
func (c *View) newList() *messageList {
	l := &messageList{c: c}
	c.bubbles = nil // the rows of the list before are not shown any more
	l.Length = func() int { return len(c.rows) }
	l.CreateItem = func() fyne.CanvasObject {
		b := newBubble(c)
		c.bubbles = append(c.bubbles, b)
		return b
	}
	l.UpdateItem = func(id widget.ListItemID, o fyne.CanvasObject) { c.update(id, o.(*Bubble)) }
	l.HideSeparators = true
	l.OnSelected = func(widget.ListItemID) { l.UnselectAll() }
	l.ExtendBaseWidget(l)
	return l
}

// swapThreshold is how many rows may change height before the list is replaced rather than
// updated: a list on screen redraws itself for every height it is given, a new one does not.
const swapThreshold = 64

// ShowThread shows another conversation, v, at its newest message.
func (c *View) ShowThread(v conversation.ThreadView) { c.ShowThreadAt(v, -1) }

// ShowThreadAt shows another conversation, v, with its message number message (0 the first) at
// the top, once v has it (its history may still be read); a negative message is ShowThread.
func (c *View) ShowThreadAt(v conversation.ThreadView, message int) {
	c.toBottom = message < 0
	c.target = message
	c.fresh, c.awaiting = false, false
	c.rows = nil
	c.sel = selection{row: -1}
	c.Render(v)
}

// ScrollToMessage shows the conversation on screen with its message number message at the top.
func (c *View) ScrollToMessage(message int) {
	if message >= 0 && message < len(c.rows) {
		c.list.ScrollToOffset(c.rowTop(message))
	}
}

// StickToBottom makes the next render show the newest message (after the person sent one).
func (c *View) StickToBottom() {
	c.toBottom = true
	c.fresh, c.awaiting = false, true
	c.list.ScrollToBottom()
	c.moved()
}

// JumpToLatest shows the end of the conversation ("Jump to latest", the End key).
func (c *View) JumpToLatest() {
	c.fresh = false
	c.list.ScrollToBottom()
	c.moved()
}

// followEnd shows the newest: the end of the conversation, or the top of a new reply taller than
// the view, so that it is read from its start (the person scrolls on, or jumps to the end).
//
// Whether the reply is taller than the view is decided on measured heights only: on an
// estimate, a reply shown from its top could be taken, once measured, for one shown to its end,
// and scrolled to it; or a reply estimated taller than the view shown from its top when it fits.
// Until the heights are measured the end is shown, and the measurement (update, correct) calls
// followEnd again.
func (c *View) followEnd() {
	last := len(c.rows) - 1
	if c.fresh && last >= 0 && last < len(c.heights) && c.exact[last] && c.pending == 0 &&
		c.heights[last] > c.list.Size().Height {
		c.list.ScrollToOffset(c.rowTop(last))
		c.fresh = false // shown from its top once: the person reads on, or jumps to the end
	} else {
		c.list.ScrollToBottom()
	}
	c.moved()
}

// moved has "Jump to latest" shown or hidden once the list has moved (a check per event at
// most: every row of the view is moved as it scrolls).
func (c *View) moved() {
	if c.checkAt {
		return
	}
	c.checkAt = true
	c.do(func() {
		c.checkAt = false
		away := len(c.rows) > 0 && !c.atBottom(c.list.GetScrollOffset())
		if away != c.jump.Visible() {
			c.jump.Hidden = !away
			c.corner.Refresh() // laid out again with the button, or without
		}
	})
}

// Settled reports whether every row shown so far has been measured and given its height, and
// "Jump to latest" shows or hides as the view stands: nothing is waiting to move the view.
func (c *View) Settled() bool { return c.pending == 0 && !c.checkAt }

// Away reports whether "Jump to latest" shows: the view is not at the conversation's end.
func (c *View) Away() bool { return c.jump.Visible() }

// Render shows v, the conversation on screen, again: after a change of it.
func (c *View) Render(v conversation.ThreadView) {
	follow := c.toBottom || c.atBottom(c.list.GetScrollOffset())
	c.toBottom = false
	old := c.rows
	c.rows = c.rowsOf(v)
	if freshReply(old, c.rows) || c.awaiting && endsWithReply(c.rows) {
		c.fresh, c.awaiting = true, false
	}
	c.empty.Hidden = len(c.rows) > 0
	c.resetHeights(old)
	c.list.Refresh()
	switch {
	case c.target >= 0 && c.target < len(v.Messages):
		c.list.ScrollToOffset(c.rowTop(c.target))
		c.target = -1
	case c.target >= 0 && v.Loading:
		// The message is shown once the history is read.
	case c.target >= 0:
		c.target = -1 // the conversation no longer has it
		c.list.ScrollToBottom()
	case follow:
		c.followEnd()
	}
	c.moved()
	c.empty.Refresh()
}

// Restyle lays every row out again after the theme or the text size changed: what was measured
// in the old sizes is measured again as it shows (the heights of rows off screen stay as
// estimates until then; the list is not replaced, which would keep the old one's objects in
// Fyne's caches for a minute).
func (c *View) Restyle() {
	end := c.atBottom(c.list.GetScrollOffset())
	c.metrics = textMetrics{}
	for _, b := range c.bubbles {
		b.reply.lay, b.geomWidth, b.filled = nil, 0, false
	}
	c.measure.reply.lay, c.measure.geomWidth, c.measure.filled = nil, 0, false
	c.partial.ok = false
	for i := range c.exact {
		c.exact[i] = false
	}
	c.list.Refresh()
	if end {
		// The rows on screen are measured as the list lays them out, and their heights given
		// after (c.do): the end is shown after them. The end as followEnd shows it: a fresh
		// reply taller than the view from its top, once its height is known (a theme applied
		// while a reply arrives must not take the reader to its end).
		c.followEnd()
		c.do(c.followEnd)
	}
	c.moved()
}

// freshReply reports whether rows end with a reply begun since old: old ended with the person's
// message waiting, or with its reply not written yet.
func freshReply(old, rows []Row) bool {
	if len(old) == 0 || len(rows) == 0 {
		return false
	}
	was := old[len(old)-1]
	return (was.Kind == RowTurn || was.Kind == RowThinking && was.Text == "") && endsWithReply(rows)
}

// endsWithReply reports whether the last row is a reply, written or being written.
func endsWithReply(rows []Row) bool {
	if len(rows) == 0 {
		return false
	}
	now := rows[len(rows)-1]
	return now.Role == conversation.Assistant && (now.Kind == RowMessage || now.Kind == RowThinking && now.Text != "")
}

// rowsOf lists the rows of a conversation: its messages, its turns, "thinking" after the turn
// being answered, and a line while it loads or when loading failed.
func (c *View) rowsOf(v conversation.ThreadView) []Row {
	rows := make([]Row, 0, len(v.Messages)+len(v.Turns)+1)
	for _, m := range v.Messages {
		rows = append(rows, Row{Kind: RowMessage, Role: m.Role, Text: m.Text, At: m.At})
	}
	if n := len(rows); n >= 2 && len(v.Turns) == 0 && rows[n-1].Role == conversation.Assistant && rows[n-2].Role == conversation.User {
		rows[n-1].question = rows[n-2].Text
	}
	blocked := false
	for _, t := range v.Turns {
		rows = append(rows, Row{Kind: RowTurn, Role: conversation.User, Text: t.Text, At: t.At, Turn: t,
			behindFailed: blocked && t.State == conversation.Queued, unsaved: v.ID.IsZero()})
		blocked = blocked || t.State == conversation.Failed || t.State == conversation.Lost
		if t.State == conversation.Sending {
			// The reply as written so far, when the service streams it: what shows without
			// flicker of it.
			rows = append(rows, Row{Kind: RowThinking, Role: conversation.Assistant, Text: markdown.Settled(t.Partial), Turn: t})
		}
	}
	switch {
	case v.Loading && len(v.Messages) == 0:
		rows = append(rows, Row{Kind: RowNotice, Text: lang.L("Loading the conversation…")})
	case v.LoadErr != nil:
		rows = append(rows, Row{Kind: RowNotice, Text: fmt.Sprintf(lang.L("The conversation could not be read. %s"), c.phrase(v.LoadErr)), err: v.LoadErr})
	case v.Deleted:
		rows = append(rows, Row{Kind: RowNotice, Text: lang.L("This conversation was deleted.")})
	}
	return rows
}

// resetHeights keeps the heights of rows that did not change and estimates the others. When
// many change (a conversation opened, the window resized), the list is replaced by a new one
// that is given all its heights before it is shown.
func (c *View) resetHeights(old []Row) {
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
		switch {
		case keep && i < len(old) && i < len(c.exact) && sameRow(old[i], r):
			heights[i], exact[i] = c.heights[i], c.exact[i]
		case r.Kind == RowThinking && r.Text != "":
			// A reply growing as it is written is measured, not estimated: an estimate
			// corrected at each piece would make it jump. The row that shows it measures it,
			// so that it is laid out once.
			b := c.bubbleOf(i)
			if b == nil {
				b = c.measure
			}
			b.set(r)
			heights[i], exact[i] = b.heightFor(width), true
		default:
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

// bubbleOf is the list's row that shows row id now, nil when none does.
func (c *View) bubbleOf(id int) *Bubble {
	for _, b := range c.bubbles {
		if b.id == id && b.filled && b.Visible() && b.r.Kind == RowThinking {
			return b
		}
	}
	return nil
}

// sameRow reports whether a row's look is unchanged: a turn's reason too, since a message sent
// again can fail again for another reason without the window drawing it as sent in between.
func sameRow(a, b Row) bool {
	return a.Kind == b.Kind && a.Role == b.Role && a.Text == b.Text && a.Turn.State == b.Turn.State && a.behindFailed == b.behindFailed &&
		a.Turn.Answering == b.Turn.Answering && a.Turn.Stopping == b.Turn.Stopping && (a.Turn.Partial == "") == (b.Turn.Partial == "") && errText(a.Turn.Err) == errText(b.Turn.Err)
}

// errText is err's text, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// update fills a shown row and, the first time, measures it and corrects its height.
func (c *View) update(id widget.ListItemID, r *Bubble) {
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
		// A new reply is given its height even when the estimate was right: correct then
		// shows it from its top if it is taller than the view (followEnd), which waited for it.
		if abs32(h-c.heights[id]) > 0.5 || c.fresh && id == len(c.rows)-1 {
			c.pending++
			c.do(func() { c.correct(id, h) })
		}
	}
}

// correct gives row id its measured height h without moving what the person is reading: the
// view stays at the bottom if it was there, and a row above the view shifts the offset by as
// much as it grew.
func (c *View) correct(id int, h float32) {
	c.pending--
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
		c.followEnd()
	case top < off:
		c.list.ScrollToOffset(off + delta)
	}
}

// atBottom reports whether the list shows its last row, given its scroll offset.
func (c *View) atBottom(offset float32) bool {
	total := float32(0)
	if n := len(c.heights); n > 0 {
		total = c.rowTop(n) - theme.Padding() // the list puts a padding between rows
	}
	return offset+c.list.Size().Height >= total-24
}

// estimate guesses a row's height from its text's length, without laying it out.
func (c *View) estimate(r Row, width float32) float32 {
	m := c.textMetrics()
	width = min(width, c.columnWidth())
	inner := bubbleWidth(width) - 2*bubblePadH
	if r.Role != conversation.User {
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
	for _, para := range strings.Split(r.Text, "\n") {
		n := len([]rune(para))
		lines += max(1, (n+perLine-1)/perLine)
	}
	if r.Kind == RowThinking {
		lines++ // "Writing…" under the reply
		if r.Text == "" {
			lines = 1
		}
	}
	return float32(lines)*m.lineHeight + 2*messagePadV + metaHeight(m) + rowGap
}

// textMetrics are measured once: the average character width and the line height of messages.
type textMetrics struct {
	charWidth, lineHeight, captionHeight float32
	size                                 float32 // the text size they were measured at
}

func (c *View) textMetrics() textMetrics {
	size := theme.TextSize()
	if c.metrics.lineHeight > 0 && c.metrics.size == size {
		return c.metrics // measured again when the text size changes, whoever asks first
	}
	sample := "The quick brown fox jumps over the lazy dog, then asks: what is 42? "
	s := fyne.MeasureText(sample, size, fyne.TextStyle{})
	c.metrics = textMetrics{
		charWidth:     s.Width / float32(len(sample)),
		lineHeight:    lineHeight(size, fyne.TextStyle{}) + lineGap,
		captionHeight: fyne.MeasureText("9:41", theme.CaptionTextSize(), fyne.TextStyle{}).Height,
		size:          size,
	}
	return c.metrics
}

// columnWidth is the widest the rows are laid out: in a wider view they are a column in its
// middle, for reading, with the prose of replies at its reading measure and room beside the
// person's messages.
func (c *View) columnWidth() float32 {
	return measureChars*c.textMetrics().charWidth + 2*(sidePad+bubblePadH) + columnExtra
}

// ColumnWidth is the width of the reading column, for what goes under it (the composer).
func (c *View) ColumnWidth() float32 { return c.columnWidth() }

// columnExtra is the room of the reading column beyond a reply's measure.
const columnExtra = 160

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
func (c *View) flatOf(text string) markdown.Flat {
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

// partialFlat is a reply being written, parsed: the last one is kept, since the row that shows
// it and the one that measures it both ask. One longer than parseNowMax is shown plain until it
// is whole (it changes too often to be parsed away from the window).
func (c *View) partialFlat(text string) markdown.Flat {
	if c.partial.text == text && c.partial.ok {
		return c.partial.flat
	}
	f := plainFlat(text)
	if len(text) <= parseNowMax {
		f = markdown.Flatten(markdown.Parse(text))
	}
	c.partial.text, c.partial.flat, c.partial.ok = text, f, true
	return f
}

// parsed shows a long reply whose parse is done.
func (c *View) parsed(text string, f markdown.Flat) {
	delete(c.parsing, text)
	c.keepFlat(text, f)
	c.flatGen++
	for i, r := range c.rows {
		if r.Text == text && r.Kind == RowMessage {
			c.exact[i] = false
			c.list.RefreshItem(i)
		}
	}
}

func (c *View) keepFlat(text string, f markdown.Flat) {
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
func (c *View) selectIn(t *replyText, a, b int) {
	if t.row < 0 || t.row >= len(c.rows) {
		return
	}
	old := c.owner
	c.sel = selection{row: t.row, text: c.rows[t.row].Text, a: a, b: b}
	c.owner = t
	if old != nil && old != t {
		old.Refresh()
	}
	t.Refresh()
	c.host.Selecting()
}

// selection is the range selected in t, if its row holds the selection.
func (c *View) selection(t *replyText) (int, int) {
	if !c.holdsSelection(t) {
		return 0, 0
	}
	n := len(t.flat.Text)
	return min(max(c.sel.a, 0), n), min(max(c.sel.b, 0), n)
}

// holdsSelection reports whether t shows the row that has the selection (a list reuses its
// row widgets for other rows as it scrolls).
func (c *View) holdsSelection(t *replyText) bool {
	return t != nil && c.sel.row == t.row && t.row >= 0 && t.row < len(c.rows) && c.rows[t.row].Text == c.sel.text
}

// SelectedText is the text selected in the chat view, as plain text ("" when none is).
func (c *View) SelectedText() string {
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

// SelectAll selects the whole of the row that holds the selection; it reports whether one did.
func (c *View) SelectAll() bool {
	if !c.holdsSelection(c.owner) {
		return false
	}
	c.selectIn(c.owner, 0, len(c.owner.flat.Text))
	return true
}

func (c *View) openLink(url string)         { c.host.OpenLink(url) }
func (c *View) hoverLink(url, title string) { c.host.HoverLink(url, title) }
func (c *View) copyText(text string)        { c.host.CopyText(text) }

// scrollChat scrolls the chat by dy (a wheel turned over a code block or a table).
func (c *View) scrollChat(dy float32) {
	c.list.ScrollToOffset(max(c.list.GetScrollOffset()-dy, 0))
}

// band is the part of row id on screen, in the row's coordinates; ok is false before the view
// has a size.
func (c *View) band(id int) (top, bottom float32, ok bool) {
	h := c.list.Size().Height
	if h <= 0 || id >= len(c.heights) {
		return 0, 0, false
	}
	top = c.list.GetScrollOffset() - c.rowTop(id)
	return top, top + h, true
}

// rowTop is where row id starts in the list (the list puts a padding between rows).
func (c *View) rowTop(id int) float32 {
	if c.tops == nil || len(c.tops) != len(c.heights)+1 {
		c.tops = make([]float32, len(c.heights)+1)
		pad := theme.Padding()
		for i, h := range c.heights {
			c.tops[i+1] = c.tops[i] + h + pad
		}
	}
	return c.tops[id]
}

// ExtendSelection moves the end of the selection for Shift and an arrow, Home or End; it
// reports whether there was a selection to extend.
func (c *View) ExtendSelection(key fyne.KeyName) bool {
	t := c.owner
	if !c.holdsSelection(t) || t.lay == nil {
		return false
	}
	a, b := c.selection(t)
	c.selectIn(t, a, t.lay.moveCaret(t.flat.Text, b, key))
	return true
}
