// Package hotkey listens for a key combination pressed anywhere on the desktop, while any
// program has the focus: a passive grab on the X11 root window (Linux and the BSDs under X11),
// the XDG desktop portal's GlobalShortcuts (Wayland, where the desktop offers it), and
// RegisterHotKey (Windows). It reports the key going down and coming back up, for hold-to-talk.
// macOS is not supported yet. It imports no Fyne.
package hotkey

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"parley/internal/i18n"
)

// Modifier is a set of modifier keys.
type Modifier uint8

const (
	Ctrl Modifier = 1 << iota
	Alt
	Shift
	Super
)

// modifierNames are the modifiers in the order a combination is written.
var modifierNames = []struct {
	m     Modifier
	name  string
	alias []string
}{
	{Ctrl, "Ctrl", []string{"control", "ctl"}},
	{Alt, "Alt", []string{"option", "meta"}},
	{Shift, "Shift", nil},
	{Super, "Super", []string{"win", "windows", "cmd", "command", "logo"}},
}

// Combo is a key pressed with modifiers, such as Ctrl+Alt+Space.
type Combo struct {
	Mods Modifier
	Key  string // a name of Keys
}

// Default is the hold-to-talk key unless the person chose another.
var Default = Combo{Ctrl | Alt, "Space"}

// Keys are the keys a combination may end with, named as Fyne names them.
var Keys = func() []string {
	k := []string{"Space", "Return", "Tab", "Escape", "BackSpace", "Insert", "Delete", "Home", "End",
		"Prior", "Next", "Left", "Up", "Right", "Down",
		"-", "=", "[", "]", "\\", ";", "'", ",", ".", "/", "`"}
	for c := 'A'; c <= 'Z'; c++ {
		k = append(k, string(c))
	}
	for c := '0'; c <= '9'; c++ {
		k = append(k, string(c))
	}
	for i := 1; i <= 12; i++ {
		k = append(k, fmt.Sprintf("F%d", i))
	}
	return k
}()

// keyAliases are other names people write for keys.
var keyAliases = map[string]string{
	"enter": "Return", "esc": "Escape", "backspace": "BackSpace", "del": "Delete", "ins": "Insert",
	"pageup": "Prior", "pagedown": "Next", "pgup": "Prior", "pgdn": "Next", "minus": "-",
	"equal": "=", "comma": ",", "period": ".", "slash": "/", "semicolon": ";", "backslash": "\\",
	"apostrophe": "'", "grave": "`", "bracketleft": "[", "bracketright": "]",
}

// String writes the combination as Parse reads it: "Ctrl+Alt+Space".
func (c Combo) String() string {
	var parts []string
	for _, m := range modifierNames {
		if c.Mods&m.m != 0 {
			parts = append(parts, m.name)
		}
	}
	return strings.Join(append(parts, c.Key), "+")
}

// Valid reports whether c is a combination this package can listen for: a key of Keys with at
// least one modifier other than Shift (a bare key, or Shift and a key, would take that key from
// every program).
func (c Combo) Valid() error {
	if !slices.Contains(Keys, c.Key) {
		return fmt.Errorf(i18n.T("%q cannot be a shortcut's key"), c.Key)
	}
	if c.Mods&^Shift == 0 {
		return fmt.Errorf(i18n.T("%s needs Ctrl, Alt or Super: without one it would take the key from every program"), c)
	}
	return nil
}

// Parse reads a combination such as "Ctrl+Alt+Space" (case does not matter; "Control", "Win",
// "Enter" and other common names are understood).
func Parse(s string) (Combo, error) {
	if len(s) > 100 {
		return Combo{}, errors.New("a shortcut is at most 100 characters")
	}
	var c Combo
	parts := strings.Split(strings.TrimSpace(s), "+")
	// "Ctrl++" is Ctrl and the plus key: not a key of ours, but say so plainly.
	for i, p := range parts {
		p = strings.TrimSpace(p)
		last := i == len(parts)-1
		if m, ok := parseModifier(p); ok && !last {
			if c.Mods&m != 0 {
				return Combo{}, fmt.Errorf("%q names %s twice", s, p)
			}
			c.Mods |= m
			continue
		}
		if !last {
			return Combo{}, fmt.Errorf("%q: %q is not a modifier (Ctrl, Alt, Shift or Super)", s, p)
		}
		k, ok := parseKey(p)
		if !ok {
			return Combo{}, fmt.Errorf("%q: %q is not a key a shortcut can use", s, p)
		}
		c.Key = k
	}
	if err := c.Valid(); err != nil {
		return Combo{}, err
	}
	return c, nil
}

func parseModifier(p string) (Modifier, bool) {
	l := strings.ToLower(p)
	for _, m := range modifierNames {
		if l == strings.ToLower(m.name) || slices.Contains(m.alias, l) {
			return m.m, true
		}
	}
	return 0, false
}

func parseKey(p string) (string, bool) {
	if a, ok := keyAliases[strings.ToLower(p)]; ok {
		return a, true
	}
	for _, k := range Keys {
		if strings.EqualFold(k, p) {
			return k, true
		}
	}
	return "", false
}

// Event is the combination going down or coming back up.
type Event struct {
	Down bool
	At   time.Time // when the listener saw it
}

// ErrTaken is returned by Register when another program holds the combination.
var ErrTaken = errors.New("another program uses this shortcut")

// UnavailableError is returned by Register where global shortcuts cannot work; Reason says why
// in a sentence for the person.
type UnavailableError struct{ Reason string }

func (e *UnavailableError) Error() string {
	return fmt.Sprintf(i18n.T("global shortcuts are not available: %s"), e.Reason)
}

// Listener delivers a registered combination's events until closed.
type Listener struct {
	events  chan Event
	stop    func() error
	via     string
	trigger string
}

// Events delivers the combination's events; it is closed when the listener stops (Close, or
// the connection to the display or the portal ended). A press is always followed by a
// release before it closes.
func (l *Listener) Events() <-chan Event { return l.events }

// Via names how the shortcut is listened for ("X11", "the desktop portal", "Windows").
func (l *Listener) Via() string { return l.via }

// Trigger is what the desktop says presses the shortcut, when it chose the keys (the portal's
// desktop may bind other keys than those asked for, or let the person change them); "" when
// the keys are those registered.
func (l *Listener) Trigger() string { return l.trigger }

// Close stops listening and gives the combination back.
func (l *Listener) Close() error { return l.stop() }

// RegisteringAsks reports whether Register may ask the person (the desktop portal shows a
// dialog), so that keys should not be registered only to try them.
func RegisteringAsks() bool { return registeringAsks() }

// Register listens for c anywhere on the desktop. It returns ErrTaken when another program
// holds c, and an *UnavailableError where this desktop offers no global shortcuts.
func Register(c Combo) (*Listener, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	return register(c)
}
