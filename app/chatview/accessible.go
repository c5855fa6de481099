package chatview

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"parley/conversation"
	"parley/internal/i18n"
)

// What a screen reader says of the chat view (fyne.Accessible, read by Fyne's platform bridges
// when built with -tags accessibility). A label stays the same while a row shows the same
// thing: a bubble's is made when the row is set, never from the Markdown while it is read.

// messageList is the list of the chat view's rows: it says how many messages it shows.
type messageList struct {
	widget.List
	c *View
}

// AccessibilityLabel counts the messages shown, those waiting for their reply or failed too.
func (l *messageList) AccessibilityLabel() string {
	n := 0
	for _, r := range l.c.rows {
		if r.Kind == RowMessage || r.Kind == RowTurn {
			n++
		}
	}
	return fmt.Sprintf(lang.L("Messages: %s"), i18n.Number(n))
}

// CreateRenderer is the list's own, told when it is drawn: the view looks then whether it is
// at its end (Fyne's list says nothing of its scrolling).
func (l *messageList) CreateRenderer() fyne.WidgetRenderer {
	return &watchedRenderer{WidgetRenderer: l.List.CreateRenderer(), drawn: l.c.moved}
}

// watchedRenderer is a renderer that calls drawn each time its objects are asked for to be
// drawn.
type watchedRenderer struct {
	fyne.WidgetRenderer
	drawn func()
}

func (r *watchedRenderer) Objects() []fyne.CanvasObject {
	r.drawn()
	return r.WidgetRenderer.Objects()
}

// AccessibilityRole is text: Fyne has no list role.
func (l *messageList) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// namedButton is a row's button that shows only an icon, and that a screen reader calls by its
// name (Fyne's own would say the icon's file name).
type namedButton struct {
	widget.Button
	name string
}

func newNamedButton(name string, icon fyne.Resource, tapped func()) *namedButton {
	b := &namedButton{name: name}
	b.Icon, b.OnTapped, b.Importance = icon, tapped, widget.LowImportance
	b.ExtendBaseWidget(b)
	return b
}

// AccessibilityLabel is the button's name.
func (b *namedButton) AccessibilityLabel() string { return b.name }

// AccessibilityLabel is who wrote the row's message, the line under it (the time, or what went
// wrong) and its text as plain text; a reply being written, or a notice, says so.
func (b *Bubble) AccessibilityLabel() string { return b.said }

// AccessibilityRole is text.
func (b *Bubble) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// saidFor is the label of a bubble that shows r, with meta under it and text (plain) in it.
func saidFor(r Row, meta, text string) string {
	switch r.Kind {
	case RowThinking:
		return lang.L("Parley is writing…")
	case RowNotice:
		return r.Text
	}
	user := r.Role == conversation.User
	switch {
	case user && meta != "":
		return fmt.Sprintf(lang.L("You, %s: %s"), meta, text)
	case user:
		return fmt.Sprintf(lang.L("You: %s"), text)
	case meta != "":
		return fmt.Sprintf(lang.L("Parley, %s: %s"), meta, text)
	}
	return fmt.Sprintf(lang.L("Parley: %s"), text)
}
