package app

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2/lang"

	"parley/client"
	"parley/conversation"
	"parley/internal/i18n"
)

// undoFor is how long a deleted conversation can be brought back: it leaves the list at once,
// and the service is asked to delete it only then. Quitting Parley, or switching to another
// service, within that time deletes it as asked (the person did ask; Undo is a grace, not a
// question), before the built-in service stops.
var undoFor = 8 * time.Second

// pendingDelete is a conversation deleted that Undo can still bring back.
type pendingDelete struct {
	entry   conversation.Entry
	timer   *time.Timer
	current bool // it was on screen
	offer   int  // its Undo in the status bar
}

// deleteConversation takes e out of the list at once and offers Undo for undoFor; then the
// service deletes it.
func (m *mainWindow) deleteConversation(e conversation.Entry) {
	if e.ID.IsZero() || m.pendingDeletes[e.ID.String()] != nil {
		return
	}
	pd := &pendingDelete{entry: e, current: m.currentEntry().ID == e.ID}
	m.sess.Hide(e.ID)
	if pd.current {
		m.newConversation()
	}
	id := e.ID
	pd.timer = time.AfterFunc(undoFor, func() {
		m.u.do(func() { m.commitDelete(id) })
	})
	m.pendingDeletes[id.String()] = pd
	pd.offer = m.status.offer(fmt.Sprintf(lang.L("Deleted “%s”."), e.DisplayTitle()), lang.L("Undo"), func() { m.undoDelete(id) }, undoFor)
}

// undoLastDelete brings back the conversation deleted last, if its Undo still runs.
func (m *mainWindow) undoLastDelete() {
	var last *pendingDelete
	for _, pd := range m.pendingDeletes {
		if last == nil || pd.offer > last.offer {
			last = pd
		}
	}
	if last != nil {
		m.undoDelete(last.entry.ID)
	}
}

// undoDelete brings back a conversation deleted less than undoFor ago.
func (m *mainWindow) undoDelete(id client.ConversationID) {
	pd := m.pendingDeletes[id.String()]
	if pd == nil || !pd.timer.Stop() {
		return
	}
	delete(m.pendingDeletes, id.String())
	m.status.withdraw(pd.offer)
	m.sess.Unhide(id)
	m.status.flash(fmt.Sprintf(lang.L("“%s” is back."), pd.entry.DisplayTitle()))
	if pd.current && m.current != nil && m.isBlank(m.current) {
		m.open(id)
	}
}

// commitDelete asks the service to delete a conversation whose Undo ran out (or whose window is
// closing). The call goes on if the window closes meanwhile; Wait and the built-in service's
// stop wait for it.
func (m *mainWindow) commitDelete(id client.ConversationID) {
	u := m.u
	pd := m.pendingDeletes[id.String()]
	if pd == nil {
		return
	}
	pd.timer.Stop()
	delete(m.pendingDeletes, id.String())
	m.status.withdraw(pd.offer)
	u.deletes.Add(1)
	u.background.Add(1)
	m.sess.Delete(id, func(err error) {
		defer u.background.Done()
		defer u.deletes.Done()
		if err == nil && m.keeper != nil {
			m.keeper.forget(id)
		}
		u.do(func() {
			if u.main != m {
				return // another service is in use now: this window is gone
			}
			if err != nil {
				m.sess.Unhide(id)
				m.status.flash(fmt.Sprintf(lang.L("“%s” was not deleted. %s"), pd.entry.DisplayTitle(), phrase(err).text))
			}
		})
	})
}

// commitDeletes deletes at once every conversation whose Undo still runs: the window closes.
func (m *mainWindow) commitDeletes() {
	for _, pd := range m.pendingDeletes {
		m.commitDelete(pd.entry.ID)
	}
}

// renameConversation asks for a new name of e, kept on this computer; a blank name gives it
// back the service's title.
func (m *mainWindow) renameConversation(e conversation.Entry) {
	if e.ID.IsZero() {
		return
	}
	m.askName(lang.L("Rename conversation"), lang.L("Rename"), e.DisplayTitle(), func(name string) error {
		name = strings.Join(strings.Fields(name), " ")
		if len(name) > maxConversationName {
			return formError(fmt.Sprintf(i18n.N("The name is too long: %s character at most.",
				"The name is too long: %s characters at most.", maxConversationName), i18n.Number(maxConversationName)))
		}
		if name == e.Title {
			name = ""
		}
		m.setLabel(e.ID, conversation.Label{Name: name, Pinned: e.Pinned})
		return nil
	})
}

// maxConversationName bounds a conversation's name (in bytes, as the archive keeps it).
const maxConversationName = 200

// togglePin pins e (first in the list), or unpins it.
func (m *mainWindow) togglePin(e conversation.Entry) {
	if e.ID.IsZero() {
		return
	}
	m.setLabel(e.ID, conversation.Label{Name: e.Name, Pinned: !e.Pinned})
	if !e.Pinned {
		m.status.flash(fmt.Sprintf(lang.L("“%s” is pinned to the top of the list."), e.DisplayTitle()))
	}
}

// setLabel gives conversation id label l, in the list at once and kept on this computer.
func (m *mainWindow) setLabel(id client.ConversationID, l conversation.Label) {
	m.sess.SetLabel(id, l)
	if m.keeper != nil {
		m.keeper.setLabel(id, l)
	}
	if m.current != nil {
		m.header.refreshFrom(m.sess.Snapshot(m.current))
	}
}
