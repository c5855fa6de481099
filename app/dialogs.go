package app

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
)

// defaultCallTimeout bounds the small calls the window makes on its own (voices, account).
const defaultCallTimeout = 15 * time.Second

// scSubmit is Ctrl+Enter, which saves a dialog.
var scSubmit = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault}

// openDialog is a dialog on screen: what Enter and Escape do in it, and what had the keyboard
// before it opened.
type openDialog struct {
	// owner is the dialog's own value (a *settingsDialog, a *preferencesDialog…), or nil.
	owner   any
	keys    *dialogKeys
	prev    fyne.Focusable
	under   *openDialog       // the dialog it opened over, or nil
	content fyne.CanvasObject // the window's content when it opened
}

// showDialog shows d with first holding the keyboard (nil: nothing). Enter and Ctrl+Enter run
// keys.submit, Escape runs keys.cancel (d.Hide when nil), wherever the focus is in the dialog;
// keys never reach the window behind it. When it closes, the keyboard goes back to what had it.
func (u *UI) showDialog(d dialog.Dialog, keys *dialogKeys, first fyne.Focusable) {
	u.showDialogOf(nil, d, keys, first)
}

// showDialogOf is showDialog for a dialog whose value is owner: dialogOf finds it while it is
// open.
func (u *UI) showDialogOf(owner any, d dialog.Dialog, keys *dialogKeys, first fyne.Focusable) {
	c := u.win.Canvas()
	if keys == nil {
		keys = &dialogKeys{}
	}
	if keys.cancel == nil {
		keys.cancel = d.Hide
	}
	od := &openDialog{owner: owner, keys: keys, prev: c.Focused(), under: u.topDialog(), content: c.Content()}
	if keys.submit != nil {
		c.AddShortcut(scSubmit, func(fyne.Shortcut) {
			if top := u.topDialog(); top != nil && top.keys.submit != nil {
				top.keys.submit()
			}
		})
	}
	u.dialogs = append(u.dialogs, od)
	u.closeDialog = u.cancelTopDialog
	d.SetOnClosed(func() {
		for i, o := range u.dialogs {
			if o == od {
				u.dialogs = append(u.dialogs[:i:i], u.dialogs[i+1:]...)
				break
			}
		}
		if u.topDialog() == nil {
			u.closeDialog = nil
			c.RemoveShortcut(scSubmit)
		}
		restore := func() {
			if u.topDialog() != od.under {
				return // another dialog opened meanwhile, and has the keyboard
			}
			if od.prev != nil && c.Content() == od.content && shown(od.prev) {
				c.Focus(od.prev)
			} else if od.under == nil {
				u.focusComposer()
			}
		}
		if !keys.bySpace {
			restore()
			return
		}
		// Space on a button closed it: the same key types a space after this, which must not
		// land where the keyboard goes back to; so that happens after it.
		c.Unfocus()
		u.dialogClosing = true
		u.do(func() {
			u.dialogClosing = false
			restore()
		})
	})
	d.Show()
	u.makeRoomFor(c.Overlays().Top())
	if first != nil {
		c.Focus(first)
	}
}

// makeRoomFor grows the window to hold the dialog top whole when it is narrower or shorter
// than the dialog needs (a long language in a small window): a dialog is never cut at the
// window's edge. The window keeps its new size after the dialog closes, as after a resize by
// hand.
func (u *UI) makeRoomFor(top fyne.CanvasObject) {
	if top == nil {
		return
	}
	have, need := u.win.Canvas().Size(), top.MinSize()
	pad := 2 * theme.Padding()
	if have.Width >= need.Width+pad && have.Height >= need.Height+pad {
		return
	}
	u.win.Resize(fyne.NewSize(max(have.Width, need.Width+pad), max(have.Height, need.Height+pad)))
}

// dialogOf returns the open dialog of type T nearest the top (ok false: none is open).
func dialogOf[T any](u *UI) (d T, ok bool) {
	for i := len(u.dialogs) - 1; i >= 0; i-- {
		if d, ok := u.dialogs[i].owner.(T); ok {
			return d, true
		}
	}
	return d, false
}

// topDialog is the dialog on top, or nil.
func (u *UI) topDialog() *openDialog {
	if len(u.dialogs) == 0 {
		return nil
	}
	return u.dialogs[len(u.dialogs)-1]
}

// cancelTopDialog does what Escape does in the dialog on top.
func (u *UI) cancelTopDialog() {
	if top := u.topDialog(); top != nil {
		top.keys.cancel()
	}
}

// shown reports whether o is a visible object (the window's content is the same as when it
// had the keyboard, so it is still in it).
func shown(o fyne.Focusable) bool {
	obj, ok := o.(fyne.CanvasObject)
	return ok && obj.Visible()
}

// unlessDialog runs fn only when no dialog is open: the menu's shortcuts must not act on the
// window behind a dialog.
func (u *UI) unlessDialog(fn func()) func() {
	return func() {
		if u.topDialog() == nil {
			fn()
		}
	}
}

// defaultSettings are the settings a new conversation starts with: the default preset's.
func (u *UI) defaultSettings() (client.Config, string) {
	voice := u.prefs.defaultVoice()
	if p, ok := (presetBook{u.prefs}).find(u.prefs.defaultPreset()); ok {
		return p.Config(), voice
	}
	return client.Config{}, voice
}

// newFromPreset opens a new conversation with a preset's settings.
func (m *mainWindow) newFromPreset(p Preset) {
	u := m.u
	_, voice := u.defaultSettings()
	m.show(m.sess.NewThread(p.Config(), voice))
}

// copyText puts text on the clipboard.
func (u *UI) copyText(text string) {
	u.app.Clipboard().SetContent(text)
	u.flash(lang.L("Copied."))
}

// editTurn takes a failed message back into the composer.
func (m *mainWindow) editTurn(key int64) {
	text := m.sess.Dismiss(m.current, key)
	if text == "" {
		return
	}
	if cur := m.composer.text(); cur != "" {
		text = cur + "\n" + text
	}
	m.composer.setText(text)
	m.focusComposer()
}

// shortcutRows lists every keyboard shortcut, for the help dialog: the keys (their names are
// not translated) and what they do.
func shortcutRows() [][2]string {
	return [][2]string{
		{"Enter", lang.L("Send the message")},
		{"Shift+Enter", lang.L("New line in the message")},
		{"Ctrl+N", lang.L("New conversation")},
		{"Ctrl+F", lang.L("Search conversations")},
		{"Ctrl+,", lang.L("Conversation settings")},
		{"Ctrl+Shift+R, Ctrl+Shift+P", lang.L("Rename the conversation; pin it to the top of the list, or unpin it")},
		{"Ctrl+Shift+E", lang.L("Edit your last message, to send it again (charged like any message)")},
		{"Ctrl+Shift+G", lang.L("Regenerate the last reply: its question is sent again (asked first; charged)")},
		{"Ctrl+B", lang.L("Show or hide the conversation list")},
		{"Ctrl+J", lang.L("Jump to the latest message")},
		{"Ctrl+=, Ctrl+-", lang.L("Larger or smaller text (Preferences has the theme too)")},
		{"Ctrl+M", lang.L("Push to talk: start or stop recording")},
		{"Ctrl+Shift+M", lang.L("Voice mode: talk hands-free, or end it")},
		{"Ctrl+D", lang.L("Voice mode: mute or unmute the microphone (muted, it is closed)")},
		{"Esc", lang.L("Stop recording or speech; close a dialog; stop waiting for a reply")},
		{"Ctrl+C, Ctrl+A", lang.L("Copy the text selected in a message; select the whole message")},
		{lang.L("Shift+arrows"), lang.L("Extend the selection in a message (Shift+Home, Shift+End too)")},
		{"Tab, Shift+Tab", lang.L("Move to the next or previous field or button (Ctrl+Tab types a tab)")},
		{"Up, Down, Home, End, Page Up, Page Down", lang.L("Move in the conversation list (typing there searches)")},
		{"Enter, F2, Delete", lang.L("Open the conversation selected in the list; rename it; delete it (Undo in the status bar)")},
		{lang.L("Ctrl+Z in the list"), lang.L("Bring back the conversation just deleted")},
		{lang.L("Down in the search"), lang.L("Go to the conversations found")},
		{"Enter, Esc", lang.L("In a dialog: do what it is for (Shift+Enter: a new line), or cancel")},
		{"Alt", lang.L("Open the menus (the arrows move in them)")},
		{"Ctrl+W, Ctrl+Q", lang.L("Close Parley")},
	}
}

// showShortcuts lists the keyboard shortcuts. In a window too short for the list, the list
// scrolls: by the wheel, and by the arrows, Page Up, Page Down, Home and End (the Close button
// has the keyboard).
func (u *UI) showShortcuts() {
	rows := container.New(layout.NewFormLayout())
	var says []*widget.Label
	for _, r := range shortcutRows() {
		rows.Add(widget.NewLabelWithStyle(r[0], fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
		say := widget.NewLabel(r[1])
		says = append(says, say)
		rows.Add(say)
	}
	padded := container.New(layout.NewCustomPaddedLayout(0, 0, 0, theme.ScrollBarSize()), rows) // off the scroll bar
	// As wide as the longest line, or the window (in large text): then the lines wrap.
	width := min(padded.MinSize().Width, u.win.Canvas().Size().Width-shortcutsSides)
	for _, say := range says {
		say.Wrapping = fyne.TextWrapWord
		say.Refresh()
	}
	padded.Resize(fyne.NewSize(width, padded.MinSize().Height))
	sc := container.NewVScroll(padded)
	h := min(padded.MinSize().Height, u.win.Canvas().Size().Height-shortcutsRoom)
	sc.SetMinSize(fyne.NewSize(width, max(h, 120)))
	var d *dialog.CustomDialog
	keys := &dialogKeys{}
	keys.submit = func() { d.Hide() }
	keys.cancel = keys.submit
	closeBtn := &pagingButton{sc: sc}
	closeBtn.keys, closeBtn.Text, closeBtn.OnTapped = keys, lang.L("Close"), keys.submit
	closeBtn.ExtendBaseWidget(closeBtn)
	d = dialog.NewCustomWithoutButtons(lang.L("Keyboard shortcuts"), container.NewVBox(sc, container.NewCenter(closeBtn)), u.win)
	u.showDialog(d, keys, closeBtn)
}

// shortcutsRoom is the height of the shortcuts dialog around its list: the title, the Close
// button and the margins, with the window's edges.
const shortcutsRoom = 170

// shortcutsSides is the width of the shortcuts dialog's margins, with the window's edges.
const shortcutsSides = 80

// pagingButton is a dialog's button that also scrolls the dialog's list with the arrows, Page
// Up, Page Down, Home and End: it has the keyboard while the person reads the list.
type pagingButton struct {
	button
	sc *container.Scroll
}

func (b *pagingButton) TypedKey(ev *fyne.KeyEvent) {
	if !scrollByKey(b.sc, ev.Name) {
		b.button.TypedKey(ev)
	}
}

// scrollByKey scrolls sc as the key says, and reports whether it was a key that scrolls.
func scrollByKey(sc *container.Scroll, key fyne.KeyName) bool {
	line := theme.TextSize() * 2
	page := max(sc.Size().Height-line, line)
	bottom := max(sc.Content.MinSize().Height-sc.Size().Height, 0)
	y := sc.Offset.Y
	switch key {
	case fyne.KeyDown:
		y += line
	case fyne.KeyUp:
		y -= line
	case fyne.KeyPageDown:
		y += page
	case fyne.KeyPageUp:
		y -= page
	case fyne.KeyHome:
		y = 0
	case fyne.KeyEnd:
		y = bottom
	default:
		return false
	}
	sc.ScrollToOffset(fyne.NewPos(sc.Offset.X, max(0, min(y, bottom))))
	return true
}

// showAbout names the version.
func (u *UI) showAbout() {
	text := widget.NewLabel(lang.L("Parley, a voice assistant for the Chat and Voice Service.") + "\n" + u.deps.Version)
	text.Wrapping = fyne.TextWrapWord
	icon := widget.NewIcon(Icon)
	content := border(nil, nil, container.NewGridWrap(fyne.NewSize(64, 64), icon), nil, text)
	u.showInfo(lang.L("About Parley"), content, 460)
}

// confirm asks a question in a dialog: Enter answers with the button that has the keyboard,
// Escape or Cancel no. The default is yes (the button named yes), except for what cannot be
// undone (danger: a deletion, a file replaced), where Cancel has the keyboard and Tab reaches
// yes, so that an Enter meant for something else, or held down, destroys nothing. done runs
// once.
func (u *UI) confirm(title, msg, yes string, danger bool, done func(ok bool)) {
	keys := &dialogKeys{}
	var d *dialog.CustomDialog
	answered := false
	answer := func(ok bool) {
		if answered {
			return
		}
		answered = true
		d.Hide()
		done(ok)
	}
	keys.submit, keys.cancel = func() { answer(true) }, func() { answer(false) }
	text := widget.NewLabel(msg)
	text.Wrapping = fyne.TextWrapWord
	no := newButton(keys, lang.L("Cancel"), theme.CancelIcon(), keys.cancel)
	ok := newButton(keys, yes, theme.ConfirmIcon(), keys.submit)
	ok.Importance = widget.HighImportance
	if danger {
		ok.Icon, ok.Importance = theme.DeleteIcon(), widget.DangerImportance
	}
	d = dialog.NewCustomWithoutButtons(title, container.NewVBox(text,
		container.NewHBox(layout.NewSpacer(), no, ok)), u.win)
	d.Resize(fyne.NewSize(460, 0))
	if danger {
		keys.submit = keys.cancel // Enter with nothing focused
		u.showDialog(d, keys, no)
		return
	}
	u.showDialog(d, keys, ok)
}

// askName asks for a name in a dialog, starting from initial, and runs apply with it when the
// person confirms (Enter, or the button named yes). A failure of apply is shown in the dialog,
// which stays open to correct the name; Escape or Cancel closes it.
func (u *UI) askName(title, yes, initial string, apply func(name string) error) {
	keys := &dialogKeys{}
	name, problem := textAndProblem(keys, initial)
	name.SetPlaceHolder(lang.L("Name"))
	var d *dialog.CustomDialog
	keys.submit = func() {
		if err := apply(name.Text); err != nil {
			problem.SetText(err.Error())
			problem.Show()
			return
		}
		d.Hide()
	}
	keys.cancel = func() { d.Hide() }
	no := newButton(keys, lang.L("Cancel"), theme.CancelIcon(), keys.cancel)
	ok := newButton(keys, yes, theme.ConfirmIcon(), keys.submit)
	ok.Importance = widget.HighImportance
	d = dialog.NewCustomWithoutButtons(title, container.NewVBox(
		newForm(widget.NewFormItem(lang.L("Name"), name)), problem,
		container.NewHBox(layout.NewSpacer(), no, ok)), u.win)
	d.Resize(fyne.NewSize(420, 0))
	u.showDialog(d, keys, name)
}

// showInfo shows content in a dialog with a Close button, which has the keyboard: Enter or
// Escape closes it. width 0 leaves the dialog its own width.
func (u *UI) showInfo(title string, content fyne.CanvasObject, width float32) {
	var d *dialog.CustomDialog
	keys := &dialogKeys{}
	keys.submit = func() { d.Hide() }
	keys.cancel = keys.submit
	closeBtn := newButton(keys, lang.L("Close"), nil, keys.submit)
	d = dialog.NewCustomWithoutButtons(title, container.NewVBox(content, container.NewCenter(closeBtn)), u.win)
	if width > 0 {
		d.Resize(fyne.NewSize(width, 0))
	}
	u.showDialog(d, keys, closeBtn)
}

// textAndProblem is a dialog's one-line field holding text, the cursor at its end, and the
// hidden line under it that says what is wrong with it.
func textAndProblem(keys *dialogKeys, text string) (*field, *widget.Label) {
	f := newField(keys, false)
	f.SetText(text)
	f.CursorColumn = len([]rune(text))
	problem := widget.NewLabel("")
	problem.Wrapping = fyne.TextWrapWord
	problem.Importance = widget.DangerImportance
	problem.Hide()
	return f, problem
}
