package app

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
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
		f.SetText(lang.L("Off"))
	}
}

// AcceptsTab is false: Tab moves the focus on.
func (f *keyField) AcceptsTab() bool { return false }

func (f *keyField) FocusGained() {
	f.mark.on = true
	f.Entry.FocusGained()
	f.keys.focused(f)
	f.mods = 0
	f.SetText(lang.L("Press the new keys… (Backspace: off)"))
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
		f.SetText(lang.L("Off"))
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

// appShortcut says, in a sentence, what Parley's own window does with combo, a combination as
// it is written ("" for nothing).
func appShortcut(combo string) string {
	var f string
	switch combo {
	case "Ctrl+N":
		f = lang.L("Parley uses %s for New conversation: in Parley's window it would talk instead.")
	case "Ctrl+F":
		f = lang.L("Parley uses %s for Search conversations: in Parley's window it would talk instead.")
	case "Ctrl+,":
		f = lang.L("Parley uses %s for Settings: in Parley's window it would talk instead.")
	case "Ctrl+M":
		f = lang.L("Parley uses %s for Push to talk: in Parley's window it would talk instead.")
	case "Ctrl+Shift+M":
		f = lang.L("Parley uses %s for Voice mode: in Parley's window it would talk instead.")
	case "Ctrl+D":
		f = lang.L("Parley uses %s for Mute the microphone: in Parley's window it would talk instead.")
	case "Ctrl+W":
		f = lang.L("Parley uses %s for Close window: in Parley's window it would talk instead.")
	case "Ctrl+Q":
		f = lang.L("Parley uses %s for Quit: in Parley's window it would talk instead.")
	case "Ctrl+Return":
		f = lang.L("Parley uses %s for Send: in Parley's window it would talk instead.")
	case "Ctrl+A":
		f = lang.L("Parley uses %s for Select all: in Parley's window it would talk instead.")
	case "Ctrl+C":
		f = lang.L("Parley uses %s for Copy: in Parley's window it would talk instead.")
	case "Ctrl+V":
		f = lang.L("Parley uses %s for Paste: in Parley's window it would talk instead.")
	case "Ctrl+X":
		f = lang.L("Parley uses %s for Cut: in Parley's window it would talk instead.")
	case "Ctrl+Z":
		f = lang.L("Parley uses %s for Undo: in Parley's window it would talk instead.")
	default:
		return ""
	}
	return fmt.Sprintf(f, combo)
}

// desktopShortcut says, in a sentence, what desktops commonly keep combo for ("" for nothing).
func desktopShortcut(combo string) string {
	var f string
	switch combo {
	case "Alt+Tab", "Ctrl+Alt+Tab", "Super+Tab":
		f = lang.L("Desktops often use %s to switch windows.")
	case "Alt+F4":
		f = lang.L("Desktops often use %s to close the window.")
	case "Alt+Space":
		f = lang.L("Desktops often use %s to open the window menu.")
	case "Super+L", "Ctrl+Alt+L":
		f = lang.L("Desktops often use %s to lock the screen.")
	case "Ctrl+Alt+Delete":
		f = lang.L("Desktops often use %s to log out.")
	case "Ctrl+Alt+T":
		f = lang.L("Desktops often use %s to open a terminal.")
	case "Ctrl+Alt+Left", "Ctrl+Alt+Right", "Ctrl+Alt+Up", "Ctrl+Alt+Down":
		f = lang.L("Desktops often use %s to switch workspaces.")
	case "Super+Space":
		f = lang.L("Desktops often use %s to switch the keyboard layout.")
	case "Ctrl+Alt+BackSpace":
		f = lang.L("Desktops often use %s to stop the display server.")
	case "Super+D":
		f = lang.L("Desktops often use %s to show the desktop.")
	case "Super+E":
		f = lang.L("Desktops often use %s to open the file manager.")
	default:
		return ""
	}
	return fmt.Sprintf(f, combo)
}

// keyConflicts says what c collides with that Parley knows of, in a sentence ("" for nothing).
func keyConflicts(c hotkey.Combo) string {
	if err := c.Valid(); err != nil {
		// c.Valid's reasons, in the window's words.
		switch {
		case !slices.Contains(hotkey.Keys, c.Key):
			return fmt.Sprintf(lang.L("%q cannot be a shortcut's key."), c.Key)
		case c.Mods&^hotkey.Shift == 0:
			return fmt.Sprintf(lang.L("%s needs Ctrl, Alt or Super: without one it would take the key from every program."), c)
		}
		return strings.ToUpper(err.Error()[:1]) + err.Error()[1:] + "."
	}
	var found []string
	if s := appShortcut(c.String()); s != "" {
		found = append(found, s)
	}
	if s := desktopShortcut(c.String()); s != "" {
		found = append(found, s)
	}
	return strings.Join(found, " ")
}
