package app

import (
	"parley/app/chatview"
	"parley/conversation"
)

// mainWindow is the window over one service: the service in use, its conversations, and the
// widgets that show them. It is built whole when a service is attached and replaced whole on the
// next (close ends the old one); the welcome screen has none. What lives as long as the app (the
// preferences, the tray, the global key, the dialogs, the talk controller) is the UI's.
type mainWindow struct {
	u *UI

	conn *connection // the service in use and how it was reached
	// parleys: the service is Parley's own (built in, or parley serve elsewhere, which names
	// its chat engine in its account answer), which takes Parley's extensions: a limit on a
	// message, a speech language.
	parleys bool
	sess    *conversation.Session
	current *conversation.Thread            // the conversation on screen
	drafts  map[*conversation.Thread]string // unsent composer text per conversation
	// unsentSent are, per conversation, the messages put back in its message box that had been
	// sent before Parley last closed: taken out again once its history shows them (unsent.go).
	unsentSent map[*conversation.Thread][]string
	// newDraft is what was written in a new conversation left before it was created, for the
	// next new one.
	newDraft string
	// accountOffered marks the failed turns for which the account dialog was opened.
	accountOffered map[int64]bool

	sidebar  *sidebar
	chat     *chatview.View
	composer *composer
	status   *statusBar
	header   *header
	vpanel   *voicePanel
	fold     *folding // the conversation list folding away
	// unfollowTalk ends this window's following of the talk controller.
	unfollowTalk func()
	// keeper keeps the service's names, pins and search index (nil without an archive);
	// pendingDeletes are the conversations deleted that Undo can still bring back, by ID.
	keeper         *keeper
	pendingDeletes map[string]*pendingDelete
}

// newMainWindow builds the main window over the service c: a new session, and the widgets.
func newMainWindow(u *UI, c *connection) *mainWindow {
	m := &mainWindow{u: u, conn: c, drafts: map[*conversation.Thread]string{}, accountOffered: map[int64]bool{},
		pendingDeletes: map[string]*pendingDelete{}}
	m.sess = conversation.NewSession(c.svc, func(ch conversation.Change) {
		u.do(func() {
			if u.main == m { // a window replaced meanwhile renders nothing more
				m.apply(ch)
			}
		})
	})
	m.sess.SetClock(u.deps.Now)
	if u.archive != nil {
		m.keeper = newKeeper(u.archive, c.serviceKey(), m.sess, c.svc, func() {
			u.do(func() {
				if u.main == m {
					m.sidebar.indexChanged()
				}
			})
		})
	}
	m.build()
	if m.keeper != nil {
		if u.deps.fillAfter != 0 {
			m.keeper.fillAfter = u.deps.fillAfter
		}
		m.keeper.start()
	}
	return m
}

// close ends the window's session and its following of the talk controller, as another
// replaces it or the app quits: what was written and not answered is kept first.
func (m *mainWindow) close() {
	m.commitDeletes()
	if m.keeper != nil {
		m.keeper.stop()
	}
	m.keepUnsentText()
	m.unfollowTalk()
	m.sidebar.stop()
	m.sess.Close()
}

// What the widgets ask of the window that is the app's.

func (m *mainWindow) focusComposer()       { m.u.win.Canvas().Focus(m.composer.entry) }
func (m *mainWindow) speak(text string)    { m.u.talk.Speak(text) }
func (m *mainWindow) copyText(text string) { m.u.copyText(text) }
func (m *mainWindow) openLink(link string) { m.u.openLink(link) }
func (m *mainWindow) selecting()           { m.u.selecting() }
func (m *mainWindow) escape()              { m.u.escape() }
func (m *mainWindow) toggleVoiceMode()     { m.u.toggleVoiceMode() }
func (m *mainWindow) toggleSidebar()       { m.fold.toggle() }
func (m *mainWindow) flash(msg string)     { m.status.flash(msg) }
func (m *mainWindow) confirm(title, msg, yes string, danger bool, done func(ok bool)) {
	m.u.confirm(title, msg, yes, danger, done)
}
func (m *mainWindow) askName(title, yes, initial string, apply func(name string) error) {
	m.u.askName(title, yes, initial, apply)
}

// conn is the service in use and how it was reached (nil while the welcome screen shows).
func (u *UI) conn() *connection {
	if u.main == nil {
		return nil
	}
	return u.main.conn
}
