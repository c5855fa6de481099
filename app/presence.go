package app

import (
	"fyne.io/fyne/v2"

	"parley/conversation"
)

// The window's presence on the desktop: hidden in the tray or shown, a second start handed
// over, and what the person away from the window is told.

// closeRequested handles the window's close button: with "Keep running in the tray" on and a
// tray to come back from, the window hides and the hold-to-talk key keeps working; else Parley
// quits.
func (u *UI) closeRequested() {
	if u.prefs.keepInTray() && u.tray != nil && u.tray.hostPresent() {
		u.hide()
		return
	}
	u.win.Close()
}

// hide hides the window; the tray icon and the hold-to-talk key stay.
func (u *UI) hide() {
	if u.hidden {
		return
	}
	u.savePlacement()
	u.hidden = true
	u.win.Hide()
	u.tray.refresh()
}

// Present shows the window, raised and focused: the tray's Show, a click on a notification,
// or a second start of Parley handed over to this one.
func (u *UI) Present() {
	if u.hidden {
		u.hidden = false
		u.win.Show()
		u.restorePosition()
	}
	u.win.RequestFocus()
	u.tray.refresh()
}

// toggleShown shows the window, or hides it in the tray.
func (u *UI) toggleShown() {
	if u.hidden {
		u.Present()
		return
	}
	u.hide()
}

// sendHeld sends what was said with the hold-to-talk key in the conversation on screen, or a
// new one when there is none, without raising the window; it returns the conversation and the
// turn's key.
func (m *mainWindow) sendHeld(text string) (*conversation.Thread, int64) {
	if m.current == nil {
		m.newConversation()
	}
	th := m.current
	return th, m.send(text)
}

// tellAway shows a desktop notification when the window is hidden (the person is elsewhere);
// clicking it shows the window with th, when th is not nil.
func (u *UI) tellAway(title, body string, th *conversation.Thread) {
	if !u.hidden || u.deps.Notify == nil {
		return
	}
	var click func()
	if m := u.main; th != nil && m != nil {
		click = func() {
			u.do(func() {
				u.Present()
				if u.main == m && m.current != th { // th is of this window's service
					m.show(th)
				}
			})
		}
	}
	// On a goroutine of their own, one after the other: a notification service that is slow to
	// answer must not hold the window, nor show them out of order.
	if u.notes == nil {
		u.notes = make(chan awayNote, 16)
		go showNotes(u.deps.Notify, u.notes)
	}
	select {
	case u.notes <- awayNote{noteText(title), noteText(body), click}:
	default:
		fyne.LogError("a notification was dropped: the notification service is not keeping up", nil)
	}
}

// awayNote is a notification waiting to be shown.
type awayNote struct {
	title, body string
	click       func()
}

// showNotes shows the notifications sent on notes, in order, until it is closed.
func showNotes(notify func(title, body string, onClick func()) error, notes <-chan awayNote) {
	for n := range notes {
		if err := notify(n.title, n.body, n.click); err != nil {
			fyne.LogError("showing a notification", err)
		}
	}
}

// voiceStateChanged has the tray's icon follow what the microphone and the speakers do.
func (u *UI) voiceStateChanged() { u.tray.refreshIcon() }
