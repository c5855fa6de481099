package app

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/internal/explain"
	"parley/internal/loopback"
)

// flashFor is how long a message stays in the status bar.
const flashFor = 8 * time.Second

// statusBar is the line at the bottom: the service and whether it is the local one, the points
// of the last call and the balance, and the voice state; it also shows short messages.
type statusBar struct {
	conn    *connection
	usage   pointsSource
	do      func(func()) // runs the end of a flash
	service *widget.Label
	points  *widget.Label
	voice   *widget.Label
	message *widget.Label
	// action is the button a message may offer (Undo), shown with it.
	action   *widget.Button
	onAction func()
	flashID  int
	box      *fyne.Container
	row      *fyne.Container // the line under the separator
	// flashText is the message of the last flash until it expires; link is where the link
	// under the pointer leads (shown instead while it is there).
	flashText string
	link      string
}

// pointsSource reports the points of the last call and the balance; *conversation.Session is one.
type pointsSource interface {
	Usage() (charged, balance *int64)
}

func newStatusBar(conn *connection, usage pointsSource, do func(func())) *statusBar {
	s := &statusBar{conn: conn, usage: usage, do: do}
	caption := func() *widget.Label {
		l := widget.NewLabel("")
		l.SizeName = theme.SizeNameCaptionText
		l.Truncation = fyne.TextTruncateEllipsis
		return l
	}
	s.service, s.points, s.voice, s.message = caption(), caption(), caption(), caption()
	s.service.Truncation, s.points.Truncation, s.voice.Truncation = fyne.TextTruncateOff, fyne.TextTruncateOff, fyne.TextTruncateOff
	s.message.Importance = widget.WarningImportance
	s.action = widget.NewButton(lang.L("Undo"), func() {
		if fn := s.onAction; fn != nil {
			s.withdraw(s.flashID)
			fn()
		}
	})
	s.action.Importance = widget.HighImportance
	s.action.Hide()
	s.row = border(nil, nil, container.NewHBox(s.service, s.points), container.NewHBox(s.action, s.voice), s.message)
	s.box = container.NewVBox(widget.NewSeparator(), s.row)
	return s
}

// layout places the line's parts again after a text changed: the message gets what the
// service, the points and the voice state leave, and is cut with an ellipsis to fit. (Left to
// Fyne's next frame, a part that grew could be drawn over the message until then.)
func (s *statusBar) layout() { s.row.Refresh() }

func (s *statusBar) object() fyne.CanvasObject { return s.box }

// refresh shows the service and the points.
func (s *statusBar) refresh() {
	c := s.conn
	if c == nil {
		return
	}
	where := c.host()
	switch {
	case c.local && c.engine.Short != "":
		where = fmt.Sprintf(lang.L("Built-in service · %s"), c.engine.Short)
	case c.local:
		where = lang.L("Built-in service")
	case loopback.URL(c.baseURL):
		where = fmt.Sprintf(lang.L("%s (this computer)"), where)
	}
	if c.sessionKey {
		where = fmt.Sprintf(lang.L("%s · key for this session only"), where)
	}
	text := ""
	// The built-in service's account is its own and unlimited (a million points, made anew at
	// each start): its points would say nothing.
	if s.usage != nil && !c.local {
		charged, balance := s.usage.Usage()
		if charged != nil {
			text = fmt.Sprintf(lang.L("Last message: %s"), points(*charged))
		}
		if balance != nil {
			if text != "" {
				text += " · "
			}
			text += fmt.Sprintf(lang.L("Balance: %s"), points(*balance))
		}
	}
	if where == s.service.Text && text == s.points.Text {
		return
	}
	s.service.SetText(where)
	s.points.SetText(text)
	s.layout()
}

// setVoice shows the voice state ("Recording 0:03", "Speaking").
func (s *statusBar) setVoice(state string) {
	if state == s.voice.Text {
		return
	}
	s.voice.SetText(state)
	s.layout()
}

// flash shows a message for a while.
func (s *statusBar) flash(msg string) { s.show(msg, flashFor) }

// offer shows a message with a button that does what it offers (Undo), for d; withdraw takes it
// back by the number offer returns.
func (s *statusBar) offer(msg, label string, do func(), d time.Duration) int {
	s.show(msg, d)
	s.onAction = do
	s.action.SetText(label)
	s.action.Show()
	s.layout()
	return s.flashID
}

// withdraw takes back offer number id (done, or no longer possible), with its message, if it
// still shows.
func (s *statusBar) withdraw(id int) {
	if s.onAction == nil || s.flashID != id {
		return
	}
	s.onAction = nil
	s.action.Hide()
	s.flashText = ""
	s.showMessage()
	s.layout()
}

// show shows msg for d; a message shown later replaces it, and what it offered.
func (s *statusBar) show(msg string, d time.Duration) {
	s.flashID++
	id := s.flashID
	s.flashText = msg
	if s.onAction != nil {
		s.onAction = nil
		s.action.Hide()
		s.layout()
	}
	s.showMessage()
	time.AfterFunc(d, func() {
		s.do(func() {
			if s.flashID == id {
				s.flashText = ""
				s.onAction = nil
				s.action.Hide()
				s.showMessage()
				s.layout()
			}
		})
	})
}

// showLink shows where a link leads while the pointer is over it, as a browser does, in the
// place of the message; "" gives the place back to the message, if it has not expired.
func (s *statusBar) showLink(where string) {
	s.link = where
	s.showMessage()
}

// showMessage shows the link under the pointer, else the current message.
func (s *statusBar) showMessage() {
	text, imp := s.flashText, widget.WarningImportance
	if s.link != "" {
		text, imp = s.link, widget.MediumImportance
	}
	if s.message.Text == text && s.message.Importance == imp {
		return
	}
	s.message.Importance = imp
	s.message.SetText(text)
	s.layout()
}

// points is "1 point" or "n points".
func points(n int64) string { return explain.Points(n) }
