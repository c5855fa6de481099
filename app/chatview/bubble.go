package chatview

import (
	"errors"
	"fmt"
	"image/color"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
	"parley/conversation"
	"parley/internal/explain"
)

// Space inside a bubble and beside it.
var (
	bubblePadH  float32 = 12
	bubblePadV  float32 = 4 // around "Thinking…", a label with its own padding
	messagePadV float32 = 8 // around a message's text
	sidePad     float32 = 14
)

// Bubble draws one row of the chat view: a bubble (the person's on the right in the accent
// colour, the assistant's on the left with its text as Markdown), and under it the time and
// the row's actions (Copy and Speak for a reply; Retry and Edit for a failed message).
// The list makes its own; a window's tests find them among the window's objects, or have one
// drawn apart with View.Draw.
type Bubble struct {
	widget.BaseWidget
	c *View
	r Row

	id       int // the row's index in the chat view
	bg       *roundedBox
	text     *widget.RichText // a notice
	reply    *replyText       // a message
	thinking *fyne.Container
	activity *widget.Activity // runs only while the row shows "Thinking…": it redraws the window
	doing    *widget.Label    // "Thinking…", "Writing…" or "Stopping…"
	meta     *widget.Label
	actions  *fyne.Container
	copyBtn  *namedButton
	speakBtn *namedButton
	retryBtn *widget.Button
	editBtn  *widget.Button
	// reviseBtn (a message of the person's) puts it in the composer to edit and send again;
	// regenBtn (the last reply) sends its question again.
	reviseBtn *namedButton
	regenBtn  *namedButton
	stopBtn   *widget.Button // in thinking

	filled  bool   // set was called: r is what the row shows
	said    string // what a screen reader says of the row (accessible.go)
	flatGen int    // the chat view's flatGen when the row was set

	// geom caches the layout at geomWidth until the row shows something else.
	geom      geometry
	geomWidth float32
}

func newBubble(c *View) *Bubble {
	b := &Bubble{c: c}
	b.bg = newRoundedBox(theme.Color(theme.ColorNameInputBackground), bubbleRadius)
	b.text = widget.NewRichText()
	b.text.Wrapping = fyne.TextWrapWord
	b.reply = newReplyText(c)
	b.reply.band = func() (float32, float32, bool) {
		top, bottom, ok := c.band(b.id)
		y := b.reply.Position().Y
		return top - y, bottom - y, ok
	}
	b.activity = widget.NewActivity()
	// Not italic: an italic face would cost its own font, 1.5 MB of heap, for this one word.
	b.doing = widget.NewLabel(lang.L("Thinking…"))
	b.doing.Importance = widget.LowImportance
	b.stopBtn = widget.NewButtonWithIcon(lang.L("Stop"), theme.MediaStopIcon(), func() { c.host.StopWaiting() })
	b.stopBtn.Importance = widget.LowImportance
	b.thinking = container.NewHBox(b.activity, b.doing, b.stopBtn)
	b.meta = widget.NewLabel("")
	b.meta.Wrapping = fyne.TextWrapWord
	b.meta.SizeName = theme.SizeNameCaptionText
	b.copyBtn = newNamedButton(lang.L("Copy reply"), theme.ContentCopyIcon(), func() { c.host.CopyText(b.r.Text) })
	b.speakBtn = newNamedButton(lang.L("Read aloud"), theme.VolumeUpIcon(), func() { c.host.Speak(b.r.Text) })
	b.retryBtn = widget.NewButtonWithIcon(lang.L("Retry"), theme.ViewRefreshIcon(), func() { c.host.Retry(b.r.Turn.Key) })
	b.editBtn = widget.NewButtonWithIcon(lang.L("Edit"), theme.DocumentCreateIcon(), func() { c.host.EditTurn(b.r.Turn.Key) })
	b.retryBtn.Importance = widget.LowImportance
	b.editBtn.Importance = widget.LowImportance
	b.reviseBtn = newNamedButton(lang.L("Edit and send again"), theme.DocumentCreateIcon(), func() { c.host.EditMessage(b.r.Text) })
	b.regenBtn = newNamedButton(lang.L("Regenerate the reply"), theme.ViewRefreshIcon(), func() { c.host.Regenerate(b.r.question) })
	b.actions = container.NewHBox(b.copyBtn, b.speakBtn, b.regenBtn, b.reviseBtn, b.retryBtn, b.editBtn)
	b.ExtendBaseWidget(b)
	return b
}

// shows reports whether the row already shows r, so that a list refresh need not lay it out
// again (laying out text is the costly part of drawing).
func (b *Bubble) shows(r Row) bool {
	return b.filled && sameRow(b.r, r) && b.r.At.Equal(r.At) && b.r.Turn.Key == r.Turn.Key && b.r.question == r.question &&
		b.metaText() == b.meta.Text && b.flatGen == b.c.flatGen
}

// set shows r.
func (b *Bubble) set(r Row) {
	b.filled = true
	b.r = r
	b.geomWidth = 0
	user := r.Role == conversation.User
	b.thinking.Hidden = r.Kind != RowThinking
	// The spinner only while nothing is written: a reply growing shows that it is under way,
	// and the spinner would have the window drawn again 60 times a second meanwhile.
	if r.Kind == RowThinking && r.Text == "" {
		b.activity.Start()
		b.activity.Show()
	} else {
		b.activity.Stop()
		b.activity.Hide()
	}
	b.text.Hidden = r.Kind != RowNotice
	b.reply.Hidden = r.Kind == RowNotice || r.Kind == RowThinking && r.Text == ""
	if r.Kind == RowThinking {
		doing := lang.L("Thinking…")
		switch {
		case r.Turn.Stopping:
			doing = lang.L("Stopping…")
		case r.Text != "":
			doing = lang.L("Writing…")
		}
		if b.doing.Text != doing {
			b.doing.SetText(doing)
		}
		if r.Turn.Stopping {
			b.stopBtn.Disable()
		} else {
			b.stopBtn.Enable()
		}
	}
	b.bg.setHidden(r.Kind == RowNotice)
	b.reply.row = b.id
	switch {
	case r.Kind == RowNotice:
		b.text.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: r.Text,
			Style: widget.RichTextStyle{Inline: false, ColorName: theme.ColorNamePlaceHolder, Alignment: fyne.TextAlignCenter}}}
	case user:
		b.reply.setPlain(r.Text)
	case r.Kind == RowMessage:
		// Parsed without laying out: the row's Refresh below lays it out once.
		b.reply.setMarkdown(b.c.flatOf(r.Text))
		b.flatGen = b.c.flatGen
	case r.Kind == RowThinking && r.Text != "":
		b.reply.setMarkdown(b.c.partialFlat(r.Text))
	}
	if meta := b.metaText(); meta != b.meta.Text {
		b.meta.Text = meta
	}
	b.meta.Importance = widget.MediumImportance
	if r.Kind == RowTurn && (r.Turn.State == conversation.Failed || r.Turn.State == conversation.Lost) {
		b.meta.Importance = widget.DangerImportance
	}
	reply := r.Kind == RowMessage && !user
	failed := r.Kind == RowTurn && (r.Turn.State == conversation.Failed || r.Turn.State == conversation.Lost)
	b.copyBtn.Hidden, b.speakBtn.Hidden = !reply, !reply
	b.regenBtn.Hidden = !reply || r.question == ""
	b.reviseBtn.Hidden = !(r.Kind == RowMessage && user)
	b.retryBtn.Hidden, b.editBtn.Hidden = !failed, !failed
	if failed && (r.Turn.Answering || errors.Is(r.Turn.Err, client.ErrReplyUnreadable)) {
		// Charged already: sending it again would charge again. Edit puts it back in the
		// message box for a person who wants that, once its call has ended.
		b.retryBtn.Hidden = true
		b.editBtn.Hidden = r.Turn.Answering
	}
	label := lang.L("Retry")
	if r.Kind == RowTurn && r.Turn.State == conversation.Lost {
		label = lang.L("Send again")
	}
	if b.retryBtn.Text != label {
		b.retryBtn.SetText(label)
	}
	b.said = saidFor(r, b.meta.Text, b.reply.flat.Text)
	b.Refresh()
}

// paint takes the bubble's colour from the theme (again, when the theme changes).
func (b *Bubble) paint() {
	b.bg.setFill(bubbleFill(b.r.Role == conversation.User, b.r.Kind == RowTurn &&
		(b.r.Turn.State == conversation.Failed || b.r.Turn.State == conversation.Lost)))
}

// bubbleFill is a bubble's colour: the person's in the theme's accent, darkened as much as its
// text needs to read at 4.5:1 (Fyne's blue is a little light for white text); a failed
// message's faded towards the background, and darkened again for its text.
func bubbleFill(user, failed bool) color.Color {
	if !user {
		return theme.Color(theme.ColorNameInputBackground)
	}
	text, bg := theme.Color(theme.ColorNameForegroundOnPrimary), theme.Color(theme.ColorNameBackground)
	base := theme.Color(theme.ColorNamePrimary)
	alpha := uint8(0xff)
	if failed {
		alpha = 0x99
	}
	fill := over(withAlpha(base, alpha), bg)
	for range 24 {
		if ContrastRatio(text, fill) >= 4.5 {
			break
		}
		base = darker(base)
		fill = over(withAlpha(base, alpha), bg)
	}
	return fill
}

// over is c drawn over bg, opaque.
func over(c, bg color.Color) color.Color {
	f := color.NRGBAModel.Convert(c).(color.NRGBA)
	b := color.NRGBAModel.Convert(bg).(color.NRGBA)
	a := float64(f.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(float64(x)*a + float64(y)*(1-a) + 0.5) }
	return color.NRGBA{R: mix(f.R, b.R), G: mix(f.G, b.G), B: mix(f.B, b.B), A: 0xff}
}

// darker is c a little darker.
func darker(c color.Color) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return color.NRGBA{R: uint8(float64(n.R) * 0.9), G: uint8(float64(n.G) * 0.9), B: uint8(float64(n.B) * 0.9), A: n.A}
}

// metaText is the line under a bubble: the time, and for a failed message what went wrong.
func (b *Bubble) metaText() string {
	r := b.r
	at := ""
	if !r.At.IsZero() {
		at = r.At.Local().Format(lang.X("layout.time", "15:04"))
		if now := b.c.now(); yesterday(r.At, now) || now.Sub(r.At).Hours() > 20 {
			at = r.At.Local().Format(lang.X("layout.day-time", "2 Jan 15:04"))
		}
	}
	switch {
	case r.Kind == RowTurn && r.Turn.State == conversation.Failed:
		return failedMeta(r.Turn.Err, b.c.phrase(r.Turn.Err))
	case r.Kind == RowTurn && r.Turn.Answering && r.unsaved:
		return lang.L("Stopped waiting. The message was sent: if the service still answers, it charges for the reply, which then shows here, and the conversation in the list. It is not sent again unless you ask.")
	case r.Kind == RowTurn && r.Turn.Answering:
		return lang.L("Stopped waiting. The message was sent: if the service still answers, it charges for the reply, which then shows here. It is not sent again unless you ask.")
	case r.Kind == RowTurn && r.Turn.State == conversation.Lost && errors.Is(r.Turn.Err, conversation.ErrStopped):
		return lang.L("Stopped waiting, and the reply was lost: you may have been charged. If the service kept it, it shows when the conversation is opened again. It is not sent again unless you ask.")
	case r.Kind == RowTurn && r.Turn.State == conversation.Lost && errors.Is(r.Turn.Err, client.ErrReplyUnreadable):
		return b.c.phrase(r.Turn.Err)
	case r.Kind == RowTurn && r.Turn.State == conversation.Lost:
		return lang.L("Sent, but the reply was lost: you may have been charged. It will not be sent again unless you ask.")
	case r.Kind == RowTurn && r.Turn.State == conversation.Queued && r.behindFailed:
		return lang.L("Waits for the message above: send it again or edit it")
	case r.Kind == RowTurn && r.Turn.State == conversation.Queued:
		return lang.L("Waits for the reply above")
	case r.Kind == RowTurn && r.Turn.Partial != "":
		return at // sent: its reply is being written
	case r.Kind == RowTurn:
		return fmt.Sprintf(lang.L("Sending… %s"), at)
	case r.Kind == RowThinking, r.Kind == RowNotice:
		return ""
	}
	return at
}

// failedMeta is the line under a failed message: how far it went, then why (phrased). It
// reached the service, which refused it (4xx) or failed to answer (5xx: the model died
// mid-reply, say), or it never reached the service. A chat call is charged only when it
// succeeds: a 2xx, or the reference service's reply_stored, which are replies lost, never
// failed turns.
func failedMeta(err error, phrased string) string {
	var ce *client.Error
	switch {
	case explain.Error(err, explain.Scene{}).Kind == explain.UpstreamFailed:
		return phrased // "The model gave no reply: …", and the service says it refunded
	case explain.Error(err, explain.Scene{}).Kind == explain.StoppedUnwritten:
		return phrased // it says what happened, and that nothing was charged
	case !errors.As(err, &ce):
		return fmt.Sprintf(lang.L("Not sent. %s"), phrased)
	case ce.StatusCode >= 500:
		return fmt.Sprintf(lang.L("No reply, nothing charged. %s"), phrased)
	}
	return fmt.Sprintf(lang.L("Refused, nothing charged. %s"), phrased)
}

// yesterday reports whether t was the day before now (in now's zone) and an hour ago or more:
// when conversation.RelativeTime says "Yesterday".
func yesterday(t, now time.Time) bool {
	t = t.In(now.Location())
	if now.Sub(t) < time.Hour {
		return false
	}
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	day := time.Date(y1, m1, d1, 0, 0, 0, 0, now.Location())
	today := time.Date(y2, m2, d2, 0, 0, 0, 0, now.Location())
	return int(today.Sub(day).Hours()/24+0.5) == 1
}

// area is a rectangle of a row.
type area struct {
	Pos  fyne.Position
	Size fyne.Size
}

// geometry is where the parts of a row go at a given width.
type geometry struct {
	bubble, text, meta area
	// status is where "Writing…" and Stop go under a reply being written.
	status area
	height float32
}

// layoutFor computes the row's geometry for a view of the given width (cached until set).
func (b *Bubble) layoutFor(width float32) geometry {
	if width == b.geomWidth && width > 0 {
		return b.geom
	}
	b.geom, b.geomWidth = b.computeLayout(width), width
	return b.geom
}

// computeLayout lays the row out at width.
func (b *Bubble) computeLayout(width float32) geometry {
	var g geometry
	// In a wide view, a column in its middle.
	col := min(width, b.c.columnWidth())
	g = b.layoutColumn(col)
	if off := (width - col) / 2; off > 0 {
		for _, a := range []*area{&g.bubble, &g.text, &g.meta, &g.status} {
			a.Pos.X += off
		}
	}
	return g
}

// layoutColumn lays the row out in a column of the given width.
func (b *Bubble) layoutColumn(width float32) geometry {
	var g geometry
	maxText := bubbleWidth(width) - 2*bubblePadH
	if b.r.Role != conversation.User {
		// A reply may use the whole width: its prose keeps to a reading measure, its code
		// and tables need not.
		maxText = width - 2*sidePad - 2*bubblePadH
	}
	if maxText < 40 {
		maxText = 40
	}
	var content fyne.Size
	switch b.r.Kind {
	case RowThinking:
		content = b.thinking.MinSize()
		if b.r.Text != "" {
			rs := b.reply.layoutAt(maxText)
			b.reply.Refresh()
			g.status = area{Pos: fyne.NewPos(0, rs.Height), Size: content}
			content = fyne.NewSize(max(rs.Width, content.Width), rs.Height+content.Height)
		}
	case RowNotice:
		maxText = width - 2*sidePad
		content = textSize(b.text, maxText, maxText)
	default:
		content = b.reply.layoutAt(maxText)
		b.reply.Refresh()
	}
	bw := max(content.Width+2*bubblePadH, bubbleMinWidth)
	padV := messagePadV
	if b.r.Kind == RowThinking && b.r.Text == "" {
		padV = bubblePadV
	}
	bh := content.Height + 2*padV
	x := sidePad
	if b.r.Role == conversation.User {
		x = width - sidePad - bw
	}
	if b.r.Kind == RowNotice {
		x, bw = sidePad, width-2*sidePad
	}
	g.bubble = area{Pos: fyne.NewPos(x, rowGap/2), Size: fyne.NewSize(bw, bh)}
	g.text = area{Pos: fyne.NewPos(x+bubblePadH, rowGap/2+padV), Size: content}
	if b.r.Kind == RowThinking {
		if b.r.Text == "" {
			g.status = g.text
		} else {
			g.status.Pos = g.status.Pos.Add(g.text.Pos)
			g.text.Size.Height = g.status.Pos.Y - g.text.Pos.Y
		}
	}
	metaW := width - 2*sidePad
	mh := metaHeight(b.c.textMetrics())
	switch {
	case b.r.Kind == RowThinking || b.r.Kind == RowNotice:
		mh = 0
	case b.meta.Text != "":
		// A failed message's explanation may take more than a line.
		free := max(metaW-b.actions.MinSize().Width, 80)
		b.meta.Resize(fyne.NewSize(free, b.meta.MinSize().Height))
		mh = max(mh, b.meta.MinSize().Height)
	}
	g.meta = area{Pos: fyne.NewPos(sidePad, rowGap/2+bh), Size: fyne.NewSize(metaW, mh)}
	g.height = rowGap + bh + mh
	return g
}

// heightFor is the row's height at width.
func (b *Bubble) heightFor(width float32) float32 { return b.layoutFor(width).height }

// textSize lays t out at width w (at most maxW) and returns the size it takes.
func textSize(t *widget.RichText, w, maxW float32) fyne.Size {
	w = min(max(w, 20), maxW)
	t.Resize(fyne.NewSize(w, t.MinSize().Height))
	return fyne.NewSize(w, t.MinSize().Height)
}

func (b *Bubble) CreateRenderer() fyne.WidgetRenderer {
	return &bubbleRenderer{b: b}
}

type bubbleRenderer struct{ b *Bubble }

func (r *bubbleRenderer) Layout(size fyne.Size) {
	b := r.b
	g := b.layoutFor(size.Width)
	b.bg.setHidden(b.r.Kind == RowNotice)
	b.bg.place(g.bubble.Pos, g.bubble.Size)
	b.text.Move(g.text.Pos)
	b.text.Resize(g.text.Size)
	b.reply.Move(g.text.Pos)
	b.reply.Resize(g.text.Size)
	b.thinking.Move(g.status.Pos)
	b.thinking.Resize(g.status.Size)
	// The meta line: time (and error) on the bubble's side, actions beside it.
	am := b.actions.MinSize()
	y := g.meta.Pos.Y - theme.InnerPadding()/2
	free := max(g.meta.Size.Width-am.Width, 80)
	mw := min(fyne.MeasureText(b.meta.Text, theme.CaptionTextSize(), fyne.TextStyle{}).Width+2*theme.InnerPadding(), free)
	mh := g.meta.Size.Height
	if b.r.Role == conversation.User {
		right := g.bubble.Pos.X + g.bubble.Size.Width
		b.actions.Move(fyne.NewPos(right-am.Width, y))
		b.meta.Move(fyne.NewPos(right-am.Width-mw, y))
	} else {
		b.meta.Move(fyne.NewPos(g.bubble.Pos.X, y))
		b.actions.Move(fyne.NewPos(g.bubble.Pos.X+mw, y))
	}
	b.meta.Resize(fyne.NewSize(mw, mh))
	b.actions.Resize(am)
}

func (r *bubbleRenderer) MinSize() fyne.Size {
	return fyne.NewSize(2*sidePad+bubbleMinWidth, r.b.c.textMetrics().lineHeight+2*bubblePadV)
}

func (r *bubbleRenderer) Refresh() {
	r.b.paint()
	r.Layout(r.b.Size())
	for _, o := range r.Objects() {
		o.Refresh()
	}
}

func (r *bubbleRenderer) Objects() []fyne.CanvasObject {
	b := r.b
	return append(b.bg.objects(), b.text, b.reply, b.thinking, b.meta, b.actions)
}

func (r *bubbleRenderer) Destroy() {}

// withAlpha returns c with its alpha set to a (for a failed message's faded bubble).
func withAlpha(c color.Color, a uint8) color.Color {
	r, g, bl, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(bl >> 8), A: a}
}

// MouseIn, MouseMoved and MouseOut take the pointer from the list's row, so that a row of the
// chat is not highlighted under it as an item of a list would be: it is a message, not a choice.
func (b *Bubble) MouseIn(*desktop.MouseEvent)    {}
func (b *Bubble) MouseMoved(*desktop.MouseEvent) {}
func (b *Bubble) MouseOut()                      {}
