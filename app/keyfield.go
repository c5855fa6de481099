package app

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"parley/desktop/hotkey"
)

// keyField is Preferences' "press the new keys" field for the hold-to-talk key: focused, it
// takes the next combination pressed (Backspace turns the key off); Tab, Enter and Escape keep
// their meaning in the dialog. It says in check what the combination collides with.
type keyField struct {
	widget.Entry
	named
	keys *dialogKeys

	combo hotkey.Combo
	on    bool
	mods  hotkey.Modifier // held now
	mark  focusMark       // its ring (focus.go)
	// onFocus is told when the field gains (true) or loses the keyboard; onPressed when a
	// combination is pressed (on false: Backspace turned the key off).
	onFocus   func(bool)
	onPressed func(c hotkey.Combo, on bool)
}

func newKeyField(keys *dialogKeys, c hotkey.Combo, on bool) *keyField {
	f := &keyField{keys: keys, combo: c, on: on}
	f.ExtendBaseWidget(f)
	f.show()
	return f
}

// show writes the combination chosen in the field.
func (f *keyField) show() {
	if f.on {
		f.SetText(f.combo.String())
	} else {
		f.SetText("Off")
	}
}

// AcceptsTab is false: Tab moves the focus on.
func (f *keyField) AcceptsTab() bool { return false }

func (f *keyField) FocusGained() {
	f.mark.on = true
	f.Entry.FocusGained()
	f.keys.focused(f)
	f.mods = 0
	f.SetText("Press the new keys… (Backspace: off)")
	if f.onFocus != nil {
		f.onFocus(true)
	}
}

func (f *keyField) FocusLost() {
	f.mark.on = false
	f.Entry.FocusLost()
	f.mods = 0
	f.show()
	if f.onFocus != nil {
		f.onFocus(false)
	}
}

// modifierOf is the modifier a key is, if it is one.
func modifierOf(k fyne.KeyName) hotkey.Modifier {
	switch k {
	case desktop.KeyControlLeft, desktop.KeyControlRight:
		return hotkey.Ctrl
	case desktop.KeyAltLeft, desktop.KeyAltRight:
		return hotkey.Alt
	case desktop.KeyShiftLeft, desktop.KeyShiftRight:
		return hotkey.Shift
	case desktop.KeySuperLeft, desktop.KeySuperRight:
		return hotkey.Super
	}
	return 0
}

// KeyDown takes a combination: modifiers held, then a key.
func (f *keyField) KeyDown(ev *fyne.KeyEvent) {
	if m := modifierOf(ev.Name); m != 0 {
		f.mods |= m
		f.SetText(hotkey.Combo{Mods: f.mods}.String() + "…")
		return
	}
	switch {
	case f.mods&^hotkey.Shift == 0 && (ev.Name == fyne.KeyTab || ev.Name == fyne.KeyEscape || ev.Name == fyne.KeyReturn || ev.Name == fyne.KeyEnter):
		return // the dialog's keys (TypedKey passes them on)
	case f.mods == 0 && (ev.Name == fyne.KeyBackspace || ev.Name == fyne.KeyDelete):
		f.on = false
		f.SetText("Off")
		if f.onPressed != nil {
			f.onPressed(hotkey.Combo{}, false)
		}
		return
	}
	c := hotkey.Combo{Mods: f.mods, Key: string(ev.Name)}
	f.SetText(c.String())
	if c.Valid() == nil {
		f.combo, f.on = c, true
	}
	if f.onPressed != nil {
		f.onPressed(c, true)
	}
}

func (f *keyField) KeyUp(ev *fyne.KeyEvent) {
	if m := modifierOf(ev.Name); m != 0 {
		f.mods &^= m
	}
}

// TypedRune types nothing: the field shows keys, not text.
func (f *keyField) TypedRune(rune) {}

// TypedKey passes Enter and Escape to the dialog.
func (f *keyField) TypedKey(ev *fyne.KeyEvent) { f.keys.key(ev) }

// TypedShortcut swallows the combinations the field takes (and paste).
func (f *keyField) TypedShortcut(fyne.Shortcut) {}

// TappedSecondary shows no Paste menu.
func (f *keyField) TappedSecondary(*fyne.PointEvent) {}

// appShortcuts are the keys Parley's own window uses, by the combination they are written as.
var appShortcuts = map[string]string{
	"Ctrl+N": "New conversation", "Ctrl+F": "Search conversations", "Ctrl+,": "Settings",
	"Ctrl+M": "Push to talk", "Ctrl+Shift+M": "Voice mode", "Ctrl+D": "Mute the microphone",
	"Ctrl+W": "Close window", "Ctrl+Q": "Quit", "Ctrl+Return": "Send",
	"Ctrl+A": "Select all", "Ctrl+C": "Copy", "Ctrl+V": "Paste", "Ctrl+X": "Cut", "Ctrl+Z": "Undo",
}

// desktopShortcuts are combinations that desktops commonly keep for themselves.
var desktopShortcuts = map[string]string{
	"Alt+Tab": "switch windows", "Alt+F4": "close the window", "Alt+Space": "open the window menu",
	"Super+L": "lock the screen", "Ctrl+Alt+Delete": "log out", "Ctrl+Alt+L": "lock the screen",
	"Ctrl+Alt+T": "open a terminal", "Ctrl+Alt+Left": "switch workspaces", "Ctrl+Alt+Right": "switch workspaces",
	"Ctrl+Alt+Up": "switch workspaces", "Ctrl+Alt+Down": "switch workspaces", "Super+Space": "switch the keyboard layout",
	"Ctrl+Alt+BackSpace": "stop the display server", "Ctrl+Alt+Tab": "switch windows", "Super+D": "show the desktop",
	"Super+E": "open the file manager", "Super+Tab": "switch windows",
}

// keyConflicts says what c collides with that Parley knows of, in a sentence ("" for nothing).
func keyConflicts(c hotkey.Combo) string {
	if err := c.Valid(); err != nil {
		return strings.ToUpper(err.Error()[:1]) + err.Error()[1:] + "."
	}
	var found []string
	if what, ok := appShortcuts[c.String()]; ok {
		found = append(found, fmt.Sprintf("Parley uses %s for %s: in Parley's window it would talk instead.", c, what))
	}
	if what, ok := desktopShortcuts[c.String()]; ok {
		found = append(found, fmt.Sprintf("Desktops often use %s to %s.", c, what))
	}
	return strings.Join(found, " ")
}
