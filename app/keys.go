package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"runtime"
)

// Keyboard use of the dialogs. Fyne hands a key to the focused widget and nowhere else, and its
// check boxes, sliders and selects ignore Enter and Escape; so every field of a dialog is one of
// the types below, which do the dialog's default action on Enter and cancel on Escape. Tab and
// Shift+Tab always move the focus, also out of multi-line fields (Ctrl+Tab types a tab there).

// dialogKeys is what Enter and Escape do in a dialog. It is made before the dialog's fields,
// and may be filled in after them.
type dialogKeys struct {
	submit func()
	cancel func()
	// bySpace: Space on a button is what closes the dialog, and the same key types a space
	// next, which must not land where the keyboard goes back to.
	bySpace bool
	// onFocus, when set, is told which field got the keyboard (a dialog that scrolls brings it
	// into view: Fyne's scroll does not follow the focus).
	onFocus func(fyne.CanvasObject)
}

// focused tells onFocus that o got the keyboard.
func (k *dialogKeys) focused(o fyne.CanvasObject) {
	if k != nil && k.onFocus != nil {
		k.onFocus(o)
	}
}

// key does what k says for Enter and Escape, and reports whether ev was one of them.
func (k *dialogKeys) key(ev *fyne.KeyEvent) bool {
	if k == nil {
		return false
	}
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		if k.submit != nil {
			k.submit()
		}
		return true
	case fyne.KeyEscape:
		if k.cancel != nil {
			k.cancel()
		}
		return true
	}
	return false
}

// field is a text field. One line: Enter submits. Several lines: Enter submits too, and
// Shift+Enter starts a new line, as in the message box. Escape cancels; Ctrl+Enter submits
// either way.
type field struct {
	textEntry
	named
	keys   *dialogKeys
	places placeholders
}

func newField(keys *dialogKeys, multiLine bool) *field {
	f := &field{keys: keys}
	f.MultiLine = multiLine
	if multiLine {
		f.Wrapping = fyne.TextWrapWord
	}
	f.ExtendBaseWidget(f)
	return f
}

// newPasswordField is a one-line field whose text is hidden, with a button that shows it.
func newPasswordField(keys *dialogKeys) *field {
	f := newField(keys, false)
	f.Password = true
	var reveal *button
	reveal = newIconButton(keys, lang.L("Show the text"), theme.VisibilityOffIcon(), func() {
		f.Password = !f.Password
		if f.Password {
			reveal.name = lang.L("Show the text")
			reveal.SetIcon(theme.VisibilityOffIcon())
		} else {
			reveal.name = lang.L("Hide the text")
			reveal.SetIcon(theme.VisibilityIcon())
		}
		f.Refresh()
	})
	reveal.Importance = widget.LowImportance
	f.ActionItem = reveal
	return f
}

// AcceptsTab is false: Tab moves the focus on.
func (f *field) AcceptsTab() bool { return false }

// setPlaceholders gives the field its placeholder in several lengths, longest first.
func (f *field) setPlaceholders(p ...string) {
	f.places = p
	f.SetPlaceHolder(p[0])
	f.places.apply(&f.Entry, f.Size().Width)
}

// Resize shows the longest placeholder that fits.
func (f *field) Resize(size fyne.Size) {
	f.Entry.Resize(size)
	f.places.apply(&f.Entry, size.Width)
}

// TypedKey submits on Enter (Shift+Enter adds a line to a multi-line field) and cancels on
// Escape.
func (f *field) TypedKey(ev *fyne.KeyEvent) {
	if (ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter) && f.MultiLine && f.held.shift {
		f.Entry.TypedKey(ev)
		return
	}
	if f.keys.key(ev) {
		return
	}
	f.Entry.TypedKey(ev)
}

// TypedShortcut submits on Ctrl+Enter, and lets Shift+Enter (reported as a shortcut by some
// drivers) add a line.
func (f *field) TypedShortcut(s fyne.Shortcut) {
	if cs, ok := s.(*desktop.CustomShortcut); ok && (cs.KeyName == fyne.KeyReturn || cs.KeyName == fyne.KeyEnter) {
		switch {
		case cs.Modifier == fyne.KeyModifierShift && f.MultiLine:
			f.Entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
			return
		case cs.Modifier&fyne.KeyModifierShortcutDefault != 0:
			if f.keys != nil && f.keys.submit != nil {
				f.keys.submit()
			}
			return
		}
	}
	f.Entry.TypedShortcut(s)
}

// textEntry is an Entry that knows the keys held down (heldKeys), the base of Parley's text
// fields: the message box, the search and the dialogs' fields.
type textEntry struct {
	widget.Entry
	held heldKeys
	mark focusMark // its ring (focus.go)
}

// KeyDown, KeyUp and FocusLost track Shift (for Shift+Enter) and Space.
func (e *textEntry) KeyDown(ev *fyne.KeyEvent) { e.held.down(ev); e.Entry.KeyDown(ev) }
func (e *textEntry) KeyUp(ev *fyne.KeyEvent)   { e.held.up(ev); e.Entry.KeyUp(ev) }
func (e *textEntry) FocusLost()                { e.held.reset(); e.mark.on = false; e.Entry.FocusLost() }
func (e *textEntry) FocusGained()              { e.mark.on = true; e.Entry.FocusGained() }

// FocusGained tells the dialog the field has the keyboard.
func (f *field) FocusGained() { f.textEntry.FocusGained(); f.keys.focused(f) }

func (b *button) FocusGained()      { b.Button.FocusGained(); b.keys.focused(b) }
func (c *check) FocusGained()       { c.mark.on = true; c.Check.FocusGained(); c.keys.focused(c) }
func (s *slider) FocusGained()      { s.mark.on = true; s.Slider.FocusGained(); s.keys.focused(s) }
func (s *selector) FocusGained()    { s.mark.on = true; s.Select.FocusGained(); s.keys.focused(s) }
func (c *choiceField) FocusGained() { c.mark.on = true; c.SelectEntry.FocusGained(); c.keys.focused(c) }

// TypedRune types r, but not the space of a Space pressed on a button that gave this field
// the keyboard.
func (e *textEntry) TypedRune(r rune) {
	if !e.held.stray(r) {
		e.Entry.TypedRune(r)
	}
}

// heldKeys is what a text field knows of the keys held down: Shift (for Shift+Enter), and
// Space, to tell a space typed in the field from the one a Space key types after it pressed a
// button that moved the keyboard to the field (the driver sends the key to the button, then
// the character to whatever has the keyboard by then). A field sees Space go down before its
// own spaces.
type heldKeys struct{ shift, space bool }

func (h *heldKeys) down(ev *fyne.KeyEvent) { h.set(ev, true) }
func (h *heldKeys) up(ev *fyne.KeyEvent)   { h.set(ev, false) }

func (h *heldKeys) set(ev *fyne.KeyEvent, held bool) {
	switch {
	case isShift(ev.Name):
		h.shift = held
	case ev.Name == fyne.KeySpace:
		h.space = held
	}
}

// reset forgets the keys: their release may go to another widget.
func (h *heldKeys) reset() { *h = heldKeys{} }

// stray reports whether r is a space whose key went down elsewhere. Only a desktop driver
// reports keys going down; elsewhere (mobile, tests) every space is kept.
func (h *heldKeys) stray(r rune) bool {
	if r != ' ' || h.space {
		return false
	}
	_, desk := fyne.CurrentApp().Driver().(desktop.Driver)
	return desk
}

// isShift reports whether name is a Shift key.
func isShift(name fyne.KeyName) bool {
	return name == desktop.KeyShiftLeft || name == desktop.KeyShiftRight
}

// button is a button that Enter presses as well as Space (as in most desktops); Escape cancels
// the dialog it is in (keys nil: it is in none). A screen reader says its name, or its text
// when it has no name (accessible.go).
type button struct {
	widget.Button
	keys *dialogKeys
	name string
}

func newButton(keys *dialogKeys, label string, icon fyne.Resource, tapped func()) *button {
	b := &button{keys: keys}
	b.Text, b.Icon, b.OnTapped = label, icon, tapped
	b.ExtendBaseWidget(b)
	return b
}

// newIconButton is a button that shows only icon, and is called name by a screen reader.
func newIconButton(keys *dialogKeys, name string, icon fyne.Resource, tapped func()) *button {
	b := newButton(keys, "", icon, tapped)
	b.name = name
	return b
}

// TypedKey presses the button on Enter, and cancels its dialog on Escape.
func (b *button) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		b.Tapped(nil)
	case fyne.KeyEscape:
		b.keys.key(ev)
	case fyne.KeySpace:
		if b.keys != nil {
			b.keys.bySpace = true
			defer func() { b.keys.bySpace = false }()
		}
		b.Button.TypedKey(ev)
	default:
		b.Button.TypedKey(ev)
	}
}

// check is a check box of a dialog: Space ticks it, Enter submits the dialog, Escape cancels.
type check struct {
	widget.Check
	named
	keys *dialogKeys
	mark focusMark // its ring (focus.go)
}

func newCheck(keys *dialogKeys, label string, changed func(bool)) *check {
	c := &check{keys: keys}
	c.Text, c.OnChanged = label, changed
	c.ExtendBaseWidget(c)
	return c
}

func (c *check) TypedKey(ev *fyne.KeyEvent) {
	if !c.keys.key(ev) {
		c.Check.TypedKey(ev)
	}
}

// slider is a slider of a dialog: the arrows move it, Enter submits the dialog, Escape cancels.
type slider struct {
	widget.Slider
	named
	keys *dialogKeys
	mark focusMark // its ring (focus.go)
	// shown is the label beside it that shows its value, which a screen reader says too (nil:
	// it says the value with the digits of the step).
	shown *widget.Label
}

func newSlider(keys *dialogKeys, min, max float64) *slider {
	s := &slider{keys: keys}
	s.Min, s.Max, s.Step = min, max, 1
	s.Orientation = widget.Horizontal
	s.ExtendBaseWidget(s)
	return s
}

func (s *slider) TypedKey(ev *fyne.KeyEvent) {
	if !s.keys.key(ev) {
		s.Slider.TypedKey(ev)
	}
}

// selector is a drop-down of a dialog: Space or the arrows open it, Enter submits the dialog,
// Escape cancels.
type selector struct {
	widget.Select
	named
	keys *dialogKeys
	mark focusMark // its ring (focus.go)
}

func newSelector(keys *dialogKeys, options []string, changed func(string)) *selector {
	s := &selector{keys: keys}
	s.Options, s.OnChanged = options, changed
	s.PlaceHolder = lang.L("(Select one)")
	s.ExtendBaseWidget(s)
	return s
}

func (s *selector) TypedKey(ev *fyne.KeyEvent) {
	if !s.keys.key(ev) {
		s.Select.TypedKey(ev)
	}
}

// choiceField is a field with a list of suggestions (the voices): Enter submits the dialog,
// Escape cancels, Tab moves on.
type choiceField struct {
	widget.SelectEntry
	named
	keys *dialogKeys
	mark focusMark // its ring (focus.go)
}

func newChoiceField(keys *dialogKeys) *choiceField {
	c := &choiceField{keys: keys}
	c.ExtendBaseWidget(c)
	c.Wrapping = fyne.TextWrap(fyne.TextTruncateClip) // as widget.NewSelectEntry has it
	c.SetOptions(nil)
	return c
}

// SetOptions sets the suggestions; the button that lists them is a dialog button (Escape
// cancels there too).
func (c *choiceField) SetOptions(options []string) {
	c.SelectEntry.SetOptions(options)
	if b, ok := c.ActionItem.(*widget.Button); ok {
		nb := newIconButton(c.keys, lang.L("Choices"), b.Icon, b.OnTapped)
		nb.Importance = widget.LowImportance
		c.ActionItem = nb
		c.Refresh()
	}
}

// TypedShortcut submits the dialog on Ctrl+Enter.
func (c *choiceField) TypedShortcut(s fyne.Shortcut) {
	if cs, ok := s.(*desktop.CustomShortcut); ok && (cs.KeyName == fyne.KeyReturn || cs.KeyName == fyne.KeyEnter) &&
		cs.Modifier&fyne.KeyModifierShortcutDefault != 0 {
		if c.keys != nil && c.keys.submit != nil {
			c.keys.submit()
		}
		return
	}
	c.SelectEntry.TypedShortcut(s)
}

func (c *choiceField) AcceptsTab() bool { return false }

func (c *choiceField) TypedKey(ev *fyne.KeyEvent) {
	if !c.keys.key(ev) {
		c.SelectEntry.TypedKey(ev)
	}
}

// border is container.NewBorder with its objects in reading order (top, left, centre, right,
// bottom), which is the order Tab moves the focus in: NewBorder puts the centre first.
func border(top, bottom, left, right fyne.CanvasObject, center ...fyne.CanvasObject) *fyne.Container {
	var objs []fyne.CanvasObject
	for _, o := range append(append([]fyne.CanvasObject{top, left}, center...), right, bottom) {
		if o != nil {
			objs = append(objs, o)
		}
	}
	return container.New(layout.NewBorderLayout(top, bottom, left, right), objs...)
}

// placeholders is an entry's placeholder in several lengths, longest first: the entry shows the
// longest that fits its width, so that none is cut off in a narrow window.
type placeholders []string

// fit is the longest of p that fits an entry of width whose action button (nil: none) takes
// part of it.
func (p placeholders) fit(width float32, action fyne.CanvasObject) string {
	avail := width - 2*theme.InnerPadding()
	if action != nil {
		avail -= action.MinSize().Width
	}
	for _, t := range p {
		if fyne.MeasureText(t, theme.TextSize(), fyne.TextStyle{}).Width <= avail {
			return t
		}
	}
	return p[len(p)-1]
}

// apply sets e's placeholder to the longest of p that fits its width.
func (p placeholders) apply(e *widget.Entry, width float32) {
	if len(p) == 0 || width <= 0 {
		return
	}
	if t := p.fit(width, e.ActionItem); t != e.PlaceHolder {
		e.SetPlaceHolder(t)
	}
}

// dialogScroll holds a dialog's fields in a vertical scroll no taller than the window leaves
// room for, and scrolls to each field that gets the keyboard (keys.onFocus).
func dialogScroll(win fyne.Window, keys *dialogKeys, content fyne.CanvasObject, room float32) *container.Scroll {
	sc := container.NewVScroll(content)
	h := min(content.MinSize().Height, win.Canvas().Size().Height-room)
	sc.SetMinSize(fyne.NewSize(content.MinSize().Width, max(h, 120)))
	keys.onFocus = func(o fyne.CanvasObject) { scrollIntoView(sc, o) }
	return sc
}

// scrollIntoView scrolls sc, the least, so that o (inside it) shows whole.
func scrollIntoView(sc *container.Scroll, o fyne.CanvasObject) {
	d := fyne.CurrentApp().Driver()
	top := d.AbsolutePositionForObject(o).Y - d.AbsolutePositionForObject(sc.Content).Y
	bottom := top + o.Size().Height
	pad := theme.Padding()
	switch {
	case top-pad < sc.Offset.Y:
		sc.Offset.Y = max(top-pad, 0)
	case bottom+pad > sc.Offset.Y+sc.Size().Height:
		sc.Offset.Y = bottom + pad - sc.Size().Height
	default:
		return
	}
	sc.Refresh()
}

// helpTitle is the Help menu's title: on macOS the English word, by which Fyne gives the menu
// macOS's Help place, last with its search field (it knows the menu by that word only);
// elsewhere in the window's language.
func helpTitle() string {
	if runtime.GOOS == "darwin" {
		return "Help"
	}
	return lang.L("Help")
}
