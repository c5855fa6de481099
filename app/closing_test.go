package app

import (
	"slices"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"

	"parley/desktop/hotkey"
)

// closingLog records what the app does as its window closes, in order.
type closingLog struct {
	mu     sync.Mutex
	events []string
}

func (l *closingLog) add(e string) {
	l.mu.Lock()
	l.events = append(l.events, e)
	l.mu.Unlock()
}

func (l *closingLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.events)
}

// loggedListener is a hold-to-talk key whose release is logged: letting a key go can wait on
// the desktop (the portal, the X server).
type loggedListener struct {
	HotkeyListener
	log *closingLog
}

func (l loggedListener) Close() error {
	l.log.add("hotkey released")
	return l.HotkeyListener.Close()
}

// Quitting tells main at once, before the app lets go of anything that can keep it waiting
// (the hold-to-talk key, the microphone, the session, the preferences file): from then on a
// second start of Parley must not be handed over to this one, which would say "shown" and then
// vanish, leaving the person with no window.
func TestQuit_OnClosingComesFirst(t *testing.T) {
	log := &closingLog{}
	keys := newFakeKeys()
	h := startWith(t, newFakeService(), test.NewTempApp(t), func(d *Deps) {
		d.Hotkey = func(c hotkey.Combo) (HotkeyListener, error) {
			l, err := keys.register(c)
			if err != nil {
				return nil, err
			}
			return loggedListener{l, log}, nil
		}
		d.OnClosing = func() { log.add("closing") }
	})
	h.waitFor(func() bool { return h.u.gkey.ok })
	h.u.quit()
	got := log.list()
	if len(got) < 2 || got[0] != "closing" || got[1] != "hotkey released" {
		t.Errorf("as the window closed: %q, want OnClosing first, then the hold-to-talk key let go", got)
	}
}
