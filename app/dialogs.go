package app

import (
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"parley/client"
)

// defaultCallTimeout bounds the small calls the window makes on its own (voices, account).
const defaultCallTimeout = 15 * time.Second

// scSubmit is Ctrl+Enter, which saves a dialog.
var scSubmit = &desktop.CustomShortcut{KeyName: fyne.KeyReturn, Modifier: fyne.KeyModifierShortcutDefault}

// showDialog shows d so that Ctrl+Enter runs submit (when not nil) and Escape closes it, and
// gives the composer the keyboard back when it closes.
func (u *UI) showDialog(d dialog.Dialog, submit func()) {
	c := u.win.Canvas()
	if submit != nil {
		c.AddShortcut(scSubmit, func(fyne.Shortcut) { submit() })
	}
	prev := u.closeDialog
	u.closeDialog = d.Hide
	d.SetOnClosed(func() {
		if submit != nil {
			c.RemoveShortcut(scSubmit)
		}
		u.closeDialog = prev
		u.focusComposer()
	})
	d.Show()
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
func (u *UI) newFromPreset(p Preset) {
	_, voice := u.defaultSettings()
	u.show(u.sess.NewThread(p.Config(), voice))
}

// copyText puts text on the clipboard.
func (u *UI) copyText(text string) {
	u.app.Clipboard().SetContent(text)
	u.status.flash("Copied.")
}

// editTurn takes a failed message back into the composer.
func (u *UI) editTurn(key int64) {
	text := u.sess.Dismiss(u.current, key)
	if text == "" {
		return
	}
	if cur := u.composer.text(); cur != "" {
		text = cur + "\n" + text
	}
	u.composer.setText(text)
	u.focusComposer()
}

// shortcutRows lists every keyboard shortcut, for the help dialog.
var shortcutRows = [][2]string{
	{"Enter", "Send the message"},
	{"Shift+Enter", "New line in the message"},
	{"Ctrl+N", "New conversation"},
	{"Ctrl+F", "Search conversations"},
	{"Ctrl+,", "Conversation settings"},
	{"Ctrl+M", "Push to talk: start or stop recording"},
	{"Ctrl+Shift+M", "Voice mode: talk hands-free, or end it"},
	{"Esc", "Stop recording or speech; close a dialog; stop waiting for a reply"},
	{"Ctrl+C, Ctrl+A", "Copy the text selected in a message; select the whole message"},
	{"Shift+arrows", "Extend the selection in a message (Shift+Home, Shift+End too)"},
	{"Up, Down, Enter", "Move in the conversation list and open one"},
	{"Ctrl+Enter", "Save a dialog"},
	{"Ctrl+W, Ctrl+Q", "Close Parley"},
}

// showShortcuts lists the keyboard shortcuts.
func (u *UI) showShortcuts() {
	grid := container.NewGridWithColumns(2)
	for _, r := range shortcutRows {
		grid.Add(widget.NewLabelWithStyle(r[0], fyne.TextAlignTrailing, fyne.TextStyle{Bold: true}))
		grid.Add(widget.NewLabel(r[1]))
	}
	d := dialog.NewCustom("Keyboard shortcuts", "Close", grid, u.win)
	u.showDialog(d, nil)
}

// showAbout names the version.
func (u *UI) showAbout() {
	text := widget.NewLabel("Parley, a voice assistant for the Chat and Voice Service.\n" + u.deps.Version)
	text.Wrapping = fyne.TextWrapWord
	icon := widget.NewIcon(Icon)
	content := container.NewBorder(nil, nil, container.NewGridWrap(fyne.NewSize(64, 64), icon), nil, text)
	d := dialog.NewCustom("About Parley", "Close", content, u.win)
	d.Resize(fyne.NewSize(460, 0))
	u.showDialog(d, nil)
}
