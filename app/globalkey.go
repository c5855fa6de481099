package app

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/lang"

	"parley/desktop/hotkey"
	"parley/voice/speakable"
)

// globalKey is the hold-to-talk key that works while any program has the focus: it registers
// the key chosen in Preferences, and turns its presses into push-to-talk takes whose question
// is sent in the conversation on screen and whose reply is spoken.
type globalKey struct {
	u *UI
	l HotkeyListener
	// combo is the key registered or tried (zero: off); state says in a sentence how that went,
	// for Preferences; ok reports that it works.
	combo hotkey.Combo
	state string
	ok    bool
	// gen counts registrations: what an earlier one reports late is dropped.
	gen    int
	paused bool
	// unavailable says why this desktop offers no global keys, once registering said so.
	unavailable string
	// onState, when set, is told each new state (Preferences, while open).
	onState func()
}

func newGlobalKey(u *UI) *globalKey { return &globalKey{u: u} }

// start registers the key the preferences name.
func (g *globalKey) start() {
	c, on := g.u.prefs.hotkey()
	g.set(c, on)
}

// set makes c the hold-to-talk key (on false: none).
func (g *globalKey) set(c hotkey.Combo, on bool) {
	g.release()
	g.gen++
	g.ok = false
	switch {
	case !on:
		g.combo = hotkey.Combo{}
		g.setState(lang.L("Off: no key talks to Parley from other programs."))
		return
	case g.u.deps.Hotkey == nil:
		g.combo = c
		g.setState(lang.L("Not available on this system."))
		return
	}
	g.combo = c
	g.setState(fmt.Sprintf(lang.L("Setting up %s…"), c))
	gen, register := g.gen, g.u.deps.Hotkey
	go func() {
		// A portal may ask the person first: registering never holds the window.
		l, err := register(c)
		g.u.do(func() {
			if gen != g.gen {
				if l != nil {
					l.Close()
				}
				return
			}
			g.registered(c, l, err)
		})
	}()
}

// registered takes the result of registering c.
func (g *globalKey) registered(c hotkey.Combo, l HotkeyListener, err error) {
	var un *hotkey.UnavailableError
	switch {
	case err == nil:
		g.l, g.ok = l, true
		keys := c.String()
		if t, ok := l.(interface{ Trigger() string }); ok && t.Trigger() != "" {
			keys = t.Trigger() // the desktop chose the keys, or the person changed them there
		}
		g.setState(fmt.Sprintf(lang.L("Hold %s anywhere to talk to Parley; release it to send."), keys))
		go g.listen(l, g.gen)
	case errors.Is(err, hotkey.ErrTaken):
		g.setState(fmt.Sprintf(lang.L("Another program uses %s: press other keys here."), c))
	case errors.As(err, &un):
		g.unavailable = fmt.Sprintf(lang.L("Not available here: %s."), un.Reason)
		g.setState(g.unavailable)
	default:
		g.setState(fmt.Sprintf(lang.L("%s could not be set up: %v. Try other keys here, or start Parley again."), c, err))
	}
}

// listen hands the key's presses to the window until the listener stops.
func (g *globalKey) listen(l HotkeyListener, gen int) {
	for ev := range l.Events() {
		g.u.do(func() {
			if gen == g.gen && !g.paused {
				g.event(ev)
			}
		})
	}
	l.Close() // the connection it used goes too
	g.u.do(func() {
		if gen == g.gen && g.l == l {
			g.u.talk.HoldEnd() // a take under way ends as if the key came up
			g.l, g.ok = nil, false
			g.setState(fmt.Sprintf(lang.L("%s stopped working: the connection to the desktop (%s) ended. Start Parley again to have it back."), g.combo, l.Via()))
		}
	})
}

// event starts a take when the key goes down and sends it when it comes up.
func (g *globalKey) event(ev hotkey.Event) {
	u := g.u
	if !ev.Down {
		u.talk.HoldEnd()
		return
	}
	switch {
	case u.main == nil:
		u.tellAway(lang.L("Parley is not set up yet"), lang.L("Open Parley and choose a service: then the key talks to it."), nil)
	case u.talk.State().Muted:
		u.tellAway(lang.L("The microphone is muted"), lang.L("Unmute it from Parley's tray icon, then hold the key again."), nil)
		u.flash(lang.L("The microphone is muted: unmute it to talk."))
	case u.voiceModeActive():
		u.flash(lang.L("Voice mode is listening already: just speak."))
	default:
		u.talk.HoldStart()
	}
}

// setState says how the key stands.
func (g *globalKey) setState(s string) {
	g.state = s
	if g.onState != nil {
		g.onState()
	}
}

// pause gives the key back while Preferences records a new one (else pressing the key in use
// would start a take instead of reaching the field); resume takes it again.
func (g *globalKey) pause() {
	if g.paused {
		return
	}
	g.paused = true
	if g.u.deps.HotkeyAsks {
		// Through the portal, giving the key back and taking it again could ask the person
		// each time the field is passed; its presses are ignored meanwhile instead (the
		// desktop keeps them from the field anyway).
		return
	}
	g.release()
	g.gen++
}

func (g *globalKey) resume() {
	if !g.paused {
		return
	}
	g.paused = false
	if !g.u.deps.HotkeyAsks {
		g.start()
	}
}

// release closes the listener.
func (g *globalKey) release() {
	if g.l != nil {
		g.l.Close()
		g.l = nil
	}
	g.u.talk.HoldEnd() // a take under way ends as if the key came up
}

// stop releases the key for good (the app quits).
func (g *globalKey) stop() {
	g.gen++
	g.release()
}

// check tries c for Preferences, without keeping it: what it says, and whether c is free.
// c is the key in use: it is ours, so free.
func (g *globalKey) check(c hotkey.Combo, done func(state string, free bool)) {
	if g.u.deps.Hotkey == nil {
		done(lang.L("Not available on this system."), false)
		return
	}
	if g.u.deps.HotkeyAsks {
		if g.unavailable != "" {
			done(g.unavailable, false) // no keys at all here
			return
		}
		// Trying the keys would ask the person (the desktop portal's dialog) for each one.
		done(fmt.Sprintf(lang.L("The desktop will be asked for %s when you save."), c), true)
		return
	}
	register := g.u.deps.Hotkey
	go func() {
		l, err := register(c)
		if l != nil {
			l.Close()
		}
		var un *hotkey.UnavailableError
		state, free := "", false
		switch {
		case err == nil:
			state, free = fmt.Sprintf(lang.L("%s is free: it works while any program has the focus."), c), true
		case errors.Is(err, hotkey.ErrTaken):
			state = fmt.Sprintf(lang.L("Another program uses %s: press other keys."), c)
		case errors.As(err, &un):
			state = fmt.Sprintf(lang.L("Not available here: %s."), un.Reason)
		default:
			state = fmt.Sprintf(lang.L("%s cannot be used (%v)."), c, err)
		}
		g.u.do(func() { done(state, free) })
	}()
}

// maxNoteRunes is the most of a reply a notification shows: a desktop shows a few lines.
const maxNoteRunes = 300

// noteText is text for a desktop notification, which shows plain text: a reply's Markdown as
// it is said aloud (no "##", "**" or table pipes; links by their text), its paragraphs kept,
// and cut after maxNoteRunes at a word, with an ellipsis.
func noteText(markdown string) string {
	text := strings.TrimSpace(speakable.Text(markdown))
	if text == "" {
		text = strings.TrimSpace(markdown)
	}
	r := []rune(text)
	if len(r) <= maxNoteRunes {
		return text
	}
	cut := string(r[:maxNoteRunes])
	if i := strings.LastIndexAny(cut, " \n"); i > maxNoteRunes/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:\n") + "…"
}
