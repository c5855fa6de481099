package app

import (
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"
)

// What a screen reader says of Parley's widgets: each implements fyne.Accessible, which Fyne
// 2.8's platform bridges read (built with -tags accessibility). The API has a label and four
// roles, and no value, state, edit, list or check box: so a field's label carries its name and
// its value, and what has no better role is text. A label stays the same while nothing the
// person did changes it: the bridge compares every label after each frame and announces the
// window again when one changed, so none follows a reply being written or the recording's time.

// named is the name a screen reader says for a field of a dialog: given where it is made, or
// taken from its form row by newForm.
type named struct{ name string }

// nameAs names the widget after its form row, unless it has a name.
func (n *named) nameAs(name string) {
	if n.name == "" {
		n.name = name
	}
}

// newForm is widget.NewForm whose fields are named after their rows.
func newForm(items ...*widget.FormItem) *widget.Form {
	nameRows(items...)
	return widget.NewForm(items...)
}

// nameRows names the fields of each row (in its containers too) after the row.
func nameRows(items ...*widget.FormItem) {
	var name func(o fyne.CanvasObject, row string)
	name = func(o fyne.CanvasObject, row string) {
		switch x := o.(type) {
		case interface{ nameAs(string) }:
			x.nameAs(row)
		case *fyne.Container:
			for _, c := range x.Objects {
				name(c, row)
			}
		}
	}
	for _, it := range items {
		if it.Text != "" {
			name(it.Widget, it.Text)
		}
	}
}

// said is a widget's name and its value as a screen reader says them.
func said(name, value string) string {
	switch {
	case name == "":
		return value
	case value == "":
		return name
	}
	return fmt.Sprintf(lang.X("accessible.name-value", "%[1]s: %[2]s"), name, value)
}

// briefRunes is the most of a field's text its label says.
const briefRunes = 80

// brief is text as a label says it: its first line, at most briefRunes characters.
func brief(text string) string {
	line, _, more := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > briefRunes {
		line, more = string(r[:briefRunes]), true
	}
	if more {
		line += "…"
	}
	return line
}

// AccessibilityLabel is the button's name, or its text when it has none (Fyne's own says the
// file name of an icon-only button's icon, and fails on a button with neither).
func (b *button) AccessibilityLabel() string {
	if b.name != "" {
		return b.name
	}
	return b.Text
}

// AccessibilityLabel is the field's name (its row's, or its placeholder) and what it holds; a
// hidden text is said to be there, not said.
func (f *field) AccessibilityLabel() string {
	name := f.name
	if name == "" && len(f.places) > 0 {
		name = f.places[0]
	}
	if name == "" {
		name = f.PlaceHolder
	}
	value := lang.L("empty")
	switch {
	case f.Text != "" && f.Password:
		value = lang.L("hidden")
	case strings.TrimSpace(f.Text) != "":
		value = brief(f.Text)
	}
	return said(name, value)
}

// AccessibilityRole is text, as for every field: Fyne has no edit role.
func (f *field) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// AccessibilityLabel is the field's name and the keys it shows.
func (f *keyField) AccessibilityLabel() string { return said(f.name, f.Text) }

// AccessibilityRole is text.
func (f *keyField) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// AccessibilityLabel is the field's name and its text, or its placeholder when empty.
func (c *choiceField) AccessibilityLabel() string {
	value := brief(c.Text)
	if value == "" {
		value = c.PlaceHolder
	}
	if value == "" {
		value = lang.L("empty")
	}
	return said(c.name, value)
}

// AccessibilityRole is text.
func (c *choiceField) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// nameAs names the field, and its button that lists the choices, after its row.
func (c *choiceField) nameAs(name string) {
	c.named.nameAs(name)
	if b, ok := c.ActionItem.(*button); ok {
		b.name = fmt.Sprintf(lang.L("%s: choices"), c.name)
	}
}

// AccessibilityLabel is the row's name, the check box's text and whether it is ticked.
func (c *check) AccessibilityLabel() string {
	name := c.name
	if name == c.Text {
		name = ""
	}
	if c.Checked {
		return fmt.Sprintf(lang.L("%s, on"), said(name, c.Text))
	}
	return fmt.Sprintf(lang.L("%s, off"), said(name, c.Text))
}

// AccessibilityRole is a button: pressing it ticks it (Fyne has no check-box role).
func (c *check) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleButton }

// AccessibilityLabel is the slider's name and its value: as the label beside it shows it, or
// with the digits of its step.
func (s *slider) AccessibilityLabel() string {
	value := strconv.FormatFloat(stepped(s.Value, s.Step), 'f', decimals(s.Step), 64)
	if s.shown != nil {
		value = s.shown.Text
	}
	return said(s.name, value)
}

// AccessibilityRole is text: Fyne has no slider role.
func (s *slider) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// AccessibilityLabel is the drop-down's name and the option selected, or its placeholder.
func (s *selector) AccessibilityLabel() string {
	value := s.Selected
	if value == "" {
		value = s.PlaceHolder
	}
	return said(s.name, value)
}

// AccessibilityRole is a button: pressing it opens the options.
func (s *selector) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleButton }

// AccessibilityLabel names the message box, and says whether it is empty or over the service's
// limit; not its text, which changes with every key.
func (e *composerEntry) AccessibilityLabel() string {
	switch {
	case e.Text == "":
		return lang.L("Message box, empty")
	case e.c.over:
		return lang.L("Message box, over the service's limit")
	}
	return lang.L("Message box")
}

// AccessibilityRole is text.
func (e *composerEntry) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// AccessibilityLabel names the search and says what is searched for.
func (f *searchField) AccessibilityLabel() string {
	return said(f.places[0], brief(f.Text))
}

// AccessibilityRole is text.
func (f *searchField) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// AccessibilityLabel says how many conversations the list shows.
func (l *conversationList) AccessibilityLabel() string {
	return fmt.Sprintf(lang.L("Conversations: %d"), len(l.s.items))
}

// AccessibilityRole is text: Fyne has no list role.
func (l *conversationList) AccessibilityRole() fyne.AccessibleRole { return fyne.AccessibleRoleText }

// AccessibilityLabel is the conversation's title and when it last changed.
func (r *conversationRow) AccessibilityLabel() string {
	if r.when.Text == "" {
		return r.title.Text
	}
	return fmt.Sprintf(lang.X("accessible.title-when", "%[1]s, %[2]s"), r.title.Text, r.when.Text)
}

// AccessibilityRole is a button: pressing the row opens the conversation.
func (r *conversationRow) AccessibilityRole() fyne.AccessibleRole {
	return fyne.AccessibleRoleButton
}
