package app

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
	"parley/conversation"
	"parley/internal/explain"
	"parley/internal/i18n"
)

// maxComposerRows is how tall the composer grows before it scrolls.
const maxComposerRows = 8

// referenceMessageLimit is the longest message the reference service takes (the built-in one
// and parley serve), in characters: Unicode code points of the message as sent, which is how it
// counts them (server/decode.go; docs/API.md, Limits). The spec shows no limit, and no answer
// (GET /v1/account included) says one.
const referenceMessageLimit = 32000

// composer is where the person writes: a multi-line entry (Enter sends, Shift+Enter starts a
// new line), Send, and the microphone for push-to-talk. While recording, it shows the level,
// the time and Cancel instead. Above the entry, a notice says what went wrong with
// push-to-talk or a spoken reply (no microphone, a silent one, no speakers…) and offers what
// helps; the text typed stays where it is.
type composer struct {
	host    composerHost
	entry   *composerEntry
	send    *button
	mic     *button
	stop    *button // stops speech, shown while a reply is spoken
	writing *fyne.Container

	recording *fyne.Container
	level     *canvas.Rectangle
	levelBack *canvas.Rectangle
	elapsed   *widget.Label
	recState  *widget.Label
	// levelValue is the input level shown, 0 to 1.
	levelValue float32
	// rows is how many lines the entry shows.
	rows int

	notice       *fyne.Container
	noticeText   *widget.Label
	noticeAction *button // hidden when it has no text

	// length says, under the box, how far the message is over the service's limit, while it is;
	// limit is that limit in characters (0: not known), and over whether the message is over it
	// (Send is disabled then).
	length *widget.Label
	limit  int
	over   bool

	box *fyne.Container
}

// composerHost is what the composer needs from the window.
type composerHost interface {
	send(text string) int64
	focusComposer()
	escape()
}

// takeControl is what the composer's voice buttons drive: push-to-talk and the speech;
// *talk.Controller is one.
type takeControl interface {
	Toggle()
	FinishRecording()
	CancelRecording()
	StopSpeaking()
}

func newComposer(host composerHost, ptt takeControl) *composer {
	c := &composer{host: host}
	c.entry = newComposerEntry(c)
	c.send = newIconButton(nil, lang.L("Send message"), theme.MailSendIcon(), c.submit)
	c.send.Importance = widget.HighImportance
	c.mic = newIconButton(nil, lang.L("Push to talk"), micIcon, ptt.Toggle)
	c.stop = newButton(nil, lang.L("Stop"), theme.MediaStopIcon(), ptt.StopSpeaking)
	c.stop.name = lang.L("Stop speaking")
	c.stop.Hide()
	c.noticeText = widget.NewLabel("")
	c.noticeText.Wrapping = fyne.TextWrapWord
	c.noticeText.Importance = widget.WarningImportance
	c.noticeAction = newButton(nil, "", nil, nil)
	dismiss := newIconButton(nil, lang.L("Dismiss the notice"), theme.CancelIcon(), func() { c.hideNotice() })
	dismiss.Importance = widget.LowImportance
	c.notice = border(nil, nil, widget.NewIcon(theme.WarningIcon()),
		container.NewCenter(container.NewHBox(c.noticeAction, dismiss)), c.noticeText)
	c.notice.Hide()
	c.length = widget.NewLabel("")
	c.length.Importance = widget.DangerImportance
	c.length.Hide()
	c.writing = border(c.notice, c.length, container.NewHBox(c.mic, c.stop), c.send, c.entry)

	c.levelBack = canvas.NewRectangle(theme.Color(theme.ColorNameInputBackground))
	c.levelBack.SetMinSize(fyne.NewSize(160, 10))
	c.levelBack.CornerRadius = 5
	c.level = canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	c.level.CornerRadius = 5
	meter := container.NewStack(c.levelBack, container.New(&levelLayout{c: c}, c.level))
	c.elapsed = widget.NewLabel("0:00")
	c.recState = widget.NewLabel(lang.L("Listening…"))
	done := widget.NewButtonWithIcon(lang.L("Done"), theme.ConfirmIcon(), ptt.FinishRecording)
	done.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon(lang.L("Cancel"), theme.CancelIcon(), ptt.CancelRecording)
	c.recording = border(nil, nil,
		container.NewHBox(widget.NewIcon(theme.MediaRecordIcon()), c.recState),
		container.NewHBox(c.elapsed, cancel, done),
		container.NewCenter(meter))
	c.recording.Hide()
	c.box = container.NewPadded(container.NewStack(c.writing, c.recording))
	return c
}

// showNotice shows text above the entry, with a button labelled label that does act (none when
// act is nil). A notice stays until it is dismissed (its ×, or Esc), replaced, or the person
// records or sends again.
func (c *composer) showNotice(text, label string, act func()) {
	c.noticeText.SetText(text)
	c.noticeAction.SetText(label)
	c.noticeAction.OnTapped = func() {
		c.hideNotice()
		act()
	}
	if act == nil {
		c.noticeAction.Hide()
	} else {
		c.noticeAction.Show()
	}
	c.notice.Show()
	c.box.Refresh()
}

// hideNotice removes the notice; it reports whether there was one.
func (c *composer) hideNotice() bool {
	if c.notice.Hidden {
		return false
	}
	c.notice.Hide()
	c.box.Refresh()
	c.host.focusComposer()
	return true
}

func (c *composer) object() fyne.CanvasObject { return c.box }

func (c *composer) text() string { return c.entry.Text }

// setText replaces the text, with the cursor at its end.
func (c *composer) setText(s string) {
	c.entry.setTextAtEnd(s)
	c.fit()
}

// restore puts text, messages the service refused, back in the box at once, in one change:
// what the box held (typed since they were sent) follows on a line of its own, with the cursor
// at its end, where the person was typing. Nothing is sent.
func (c *composer) restore(text string) {
	if strings.TrimSpace(c.entry.Text) != "" {
		text += "\n" + c.entry.Text
	}
	c.setText(text)
}

// messageLength is the length of text as the service counts it: the characters (Unicode code
// points) of the message sent, which is text trimmed (conversation.Session.Send).
func messageLength(text string) int { return utf8.RuneCountInString(strings.TrimSpace(text)) }

// setLimit makes limit (characters, 0: not known) the service's limit on a message.
func (c *composer) setLimit(limit int) {
	c.limit = limit
	c.checkLength()
}

// checkLength shows under the box how far the message is over the service's limit, and
// disables Send, while it is over. It runs on every key typed: counting 50,000 characters takes
// some microseconds, and the layout changes only when the message goes over or back.
func (c *composer) checkLength() {
	over := false
	if c.limit > 0 {
		if n := messageLength(c.entry.Text); n > c.limit {
			over = true
			line := fmt.Sprintf(i18n.N("%[1]s character: %[2]s over the service's limit of %[3]s",
				"%[1]s characters: %[2]s over the service's limit of %[3]s", n),
				explain.Number(int64(n)), explain.Number(int64(n-c.limit)), explain.Number(int64(c.limit)))
			if c.length.Text != line {
				c.length.SetText(line)
			}
		}
	}
	if over == c.over {
		return
	}
	c.over = over
	if over {
		c.length.Show()
		c.send.Disable()
	} else {
		c.length.Hide()
		c.send.Enable()
	}
	c.box.Refresh()
}

// submit sends what was typed; the entry empties and keeps the focus. A message over the
// service's limit is not sent: the notice says so.
func (c *composer) submit() {
	text := strings.TrimSpace(c.entry.Text)
	if text == "" {
		return
	}
	if c.over {
		over := messageLength(text) - c.limit
		c.showNotice(fmt.Sprintf(i18n.N("Not sent: the message is %s character over the service's limit. Shorten it, or send it in parts.",
			"Not sent: the message is %s characters over the service's limit. Shorten it, or send it in parts.", over),
			explain.Number(int64(over))), "", nil)
		return
	}
	c.entry.SetText("")
	c.fit()
	c.hideNotice()
	c.host.send(text)
	c.host.focusComposer()
}

// fit grows the entry with its text, lines as wrapped included, up to maxComposerRows lines;
// then it scrolls. It runs on every key typed: lines are measured only until the limit is
// reached, each at most once for a width, and the layout changes only when the count does.
func (c *composer) fit() {
	rows := c.entry.rows.count(c.entry.Text, c.entry.wrapWidth(), maxComposerRows)
	if rows == c.rows {
		return
	}
	c.rows = rows
	c.entry.SetMinRowsVisible(rows)
	c.box.Refresh()
}

// showStop shows or hides the button that stops a spoken reply.
func (c *composer) showStop(on bool) {
	if on {
		c.stop.Show()
	} else {
		c.stop.Hide()
	}
}

// showRecording switches between writing and recording.
func (c *composer) showRecording(on bool) {
	c.mic.name = lang.L("Push to talk") // what the microphone's button does now
	if on {
		c.mic.name = lang.L("Stop recording")
	}
	c.recording.Hidden = !on
	c.writing.Hidden = on
	c.level.FillColor = theme.Color(theme.ColorNamePrimary)
	c.box.Refresh()
}

// setLevel shows the input level, 0 to 1, and the time recorded.
func (c *composer) setLevel(level float64, elapsed time.Duration, state string) {
	c.levelValue = float32(min(max(level, 0), 1))
	c.elapsed.SetText(fmt.Sprintf("%d:%02d", int(elapsed.Minutes()), int(elapsed.Seconds())%60))
	if state != "" && c.recState.Text != state {
		c.recState.SetText(state)
	}
	c.level.Refresh()
	c.recording.Refresh()
}

// levelLayout sizes the level bar to the level.
type levelLayout struct{ c *composer }

func (l *levelLayout) MinSize([]fyne.CanvasObject) fyne.Size { return fyne.NewSize(160, 10) }

func (l *levelLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(size.Width*l.c.levelValue, size.Height))
}

// composerEntry is the multi-line entry: Enter sends and Shift+Enter adds a line; Escape
// stops a recording or speech; Tab moves on (Ctrl+Tab types a tab).
type composerEntry struct {
	textEntry
	c     *composer
	rows  rowCounter
	width float32 // the width fit last counted rows for
}

func newComposerEntry(c *composer) *composerEntry {
	e := &composerEntry{c: c}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	composerPlaceholders = placeholders{lang.L("Message Parley…  (Enter sends, Shift+Enter adds a line)"),
		lang.L("Message Parley…  (Shift+Enter: new line)"), lang.L("Message Parley…"), lang.L("Message…")}
	e.SetPlaceHolder(composerPlaceholders[0])
	e.OnChanged = func(string) {
		c.fit()
		c.checkLength()
	}
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(1)
	c.rows = 1
	return e
}

// AcceptsTab is false: Tab and Shift+Tab move the focus; Ctrl+Tab types a tab.
func (e *composerEntry) AcceptsTab() bool { return false }

// composerPlaceholders is what the empty message box says, as the width allows, in the
// window's language: newComposerEntry writes it.
var composerPlaceholders placeholders

// Resize counts the lines again when the width changes, and shows the longest placeholder
// that fits.
func (e *composerEntry) Resize(size fyne.Size) {
	e.Entry.Resize(size)
	composerPlaceholders.apply(&e.Entry, size.Width)
	if size.Width != e.width {
		e.width = size.Width
		e.c.fit()
	}
}

// wrapWidth is the width the entry wraps its text at (0 before it is laid out).
func (e *composerEntry) wrapWidth() float32 {
	return max(0, e.Size().Width-2*theme.InnerPadding())
}

// setTextAtEnd replaces the text with s, the cursor after its last character. (The entry's
// cursor counts wrapped rows, which only the entry knows: s is pasted into it, which puts the
// cursor after what was pasted; Ctrl+Z then empties the entry.)
func (e *composerEntry) setTextAtEnd(s string) {
	e.SetText("")
	e.Entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: textClipboard(s)})
}

// textClipboard is a clipboard that holds one text, for pasting it.
type textClipboard string

func (t textClipboard) Content() string   { return string(t) }
func (t textClipboard) SetContent(string) {}

// TypedKey sends on Enter and passes Escape to the window.
func (e *composerEntry) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if !e.held.shift {
			e.c.submit()
			return
		}
	case fyne.KeyEscape:
		e.c.host.escape()
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut lets Shift+Enter (reported as a shortcut by some drivers) add a line.
func (e *composerEntry) TypedShortcut(s fyne.Shortcut) {
	if cs, ok := s.(*desktop.CustomShortcut); ok && (cs.KeyName == fyne.KeyReturn || cs.KeyName == fyne.KeyEnter) && cs.Modifier == fyne.KeyModifierShift {
		e.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
		return
	}
	e.Entry.TypedShortcut(s)
}

// lengthInRefusal finds a length in characters in a service's refusal ("The message is longer
// than 32000 characters.").
var lengthInRefusal = regexp.MustCompile(`([0-9][0-9,]*) characters`)

// refusedAsTooLong reports whether err is the service refusing a message for its length: a 413
// (the request body over its cap), or a 400 or 422 whose message says "long" and names a length
// in characters; limit is the smallest length it names (0: none).
func refusedAsTooLong(err error) (limit int, ok bool) {
	var e *client.Error
	if !errors.As(err, &e) {
		return 0, false
	}
	switch e.StatusCode {
	case http.StatusRequestEntityTooLarge, http.StatusBadRequest, http.StatusUnprocessableEntity:
	default:
		return 0, false
	}
	for _, m := range lengthInRefusal.FindAllStringSubmatch(e.Message, -1) {
		if n, err := strconv.Atoi(strings.ReplaceAll(m[1], ",", "")); err == nil && n > 0 && (limit == 0 || n < limit) {
			limit = n
		}
	}
	if e.StatusCode != http.StatusRequestEntityTooLarge && (limit == 0 || !strings.Contains(strings.ToLower(e.Message), "long")) {
		return 0, false
	}
	return limit, true
}

// restoreRefused takes the messages of th that the service refused as too long back into the
// message box, with those queued behind them (sent after, they wait for them), at once and in
// one change; it reports whether there were any. Nothing is sent: what the box held follows on
// a line of its own, and a limit the refusal names becomes the composer's. For a conversation
// not on screen, they go to its draft.
func (m *mainWindow) restoreRefused(th *conversation.Thread, v conversation.ThreadView) bool {
	u := m.u
	limit, found := 0, false
	for _, t := range v.Turns {
		if t.State == conversation.Failed {
			limit, found = refusedAsTooLong(t.Err)
			break // the turns after a failed one are queued behind it
		}
	}
	if !found || u.talk.VoiceWaitsFor(th) {
		return false
	}
	text := strings.Join(m.sess.TakeUnsent(th), "\n")
	if text == "" {
		return false
	}
	if th != m.current {
		if d := m.drafts[th]; strings.TrimSpace(d) != "" {
			text += "\n" + d
		}
		m.drafts[th] = text
		if limit > 0 {
			m.flash(fmt.Sprintf(i18n.N("Not sent: the message is longer than the service's limit of %s character. It is back in its conversation's message box.",
				"Not sent: the message is longer than the service's limit of %s characters. It is back in its conversation's message box.", limit),
				explain.Number(int64(limit))))
		} else {
			m.flash(lang.L("Not sent: the service refused the message as too long. It is back in its conversation's message box."))
		}
		return true
	}
	if limit > 0 {
		m.composer.setLimit(limit)
	}
	m.composer.restore(text)
	n := messageLength(text)
	notice := fmt.Sprintf(i18n.N("Not sent: the service refused the message as too long (%s character). It is back here: shorten it, or send it in parts.",
		"Not sent: the service refused the message as too long (%s characters). It is back here: shorten it, or send it in parts.", n),
		explain.Number(int64(n)))
	if limit > 0 {
		// One count chooses the plural: the message's length, the last number read.
		notice = fmt.Sprintf(i18n.N("Not sent: the message is longer than the service's limit of %[1]s characters (%[2]s character). It is back here: shorten it, or send it in parts.",
			"Not sent: the message is longer than the service's limit of %[1]s characters (%[2]s characters). It is back here: shorten it, or send it in parts.", n),
			explain.Number(int64(limit)), explain.Number(int64(n)))
	}
	m.composer.showNotice(notice, "", nil)
	m.focusComposer()
	return true
}
