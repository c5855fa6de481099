package app

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"

	"parley/app/talk"
	"parley/client"
	"parley/conversation"
)

// Keyboard shortcuts of the main window; the menu items carry them, so they work while the
// composer has focus (window shortcuts do not fire while an Entry has focus).
var (
	scNew      = &desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault}
	scSearch   = &desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}
	scSettings = &desktop.CustomShortcut{KeyName: fyne.KeyComma, Modifier: fyne.KeyModifierShortcutDefault}
	scMic      = &desktop.CustomShortcut{KeyName: fyne.KeyM, Modifier: fyne.KeyModifierShortcutDefault}
	scClose    = &desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault}
	scQuit     = &desktop.CustomShortcut{KeyName: fyne.KeyQ, Modifier: fyne.KeyModifierShortcutDefault}
	scRename   = &desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	scPin      = &desktop.CustomShortcut{KeyName: fyne.KeyP, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	scEditLast = &desktop.CustomShortcut{KeyName: fyne.KeyE, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	scRegen    = &desktop.CustomShortcut{KeyName: fyne.KeyG, Modifier: fyne.KeyModifierShortcutDefault | fyne.KeyModifierShift}
	scSidebar  = &desktop.CustomShortcut{KeyName: fyne.KeyB, Modifier: fyne.KeyModifierShortcutDefault}
	scLatest   = &desktop.CustomShortcut{KeyName: fyne.KeyJ, Modifier: fyne.KeyModifierShortcutDefault}
	scLarger   = &desktop.CustomShortcut{KeyName: fyne.KeyEqual, Modifier: fyne.KeyModifierShortcutDefault}
	scSmaller  = &desktop.CustomShortcut{KeyName: fyne.KeyMinus, Modifier: fyne.KeyModifierShortcutDefault}
)

// build puts the main window together: the menu, the sidebar, the conversation (header,
// messages, composer, voice panel) and the status bar; it follows the talk controller until
// close.
func (m *mainWindow) build() {
	u := m.u
	u.leaveConnecting()
	canvas := u.win.Canvas()
	m.sidebar = newSidebar(m, m.sess, canvas, u.deps.Now, u.do)
	m.chat = newChatView(m)
	m.composer = newComposer(m, u.talk)
	m.status = newStatusBar(m.conn, m.sess, u.do)
	m.header = newHeader(m, canvas)
	m.vpanel = newVoicePanel(u.talk)
	t := &mainTalk{m: m, composer: m.composer, panel: m.vpanel, status: m.status}
	m.unfollowTalk = u.talk.Subscribe(t.event)
	t.event(talk.Event{Kind: talk.Changed}) // the window shows what the controller does now

	bottom := container.New(columnLayout{m.chat.ColumnWidth}, container.NewVBox(m.composer.object(), m.vpanel.object()))
	conv := border(m.header.object(), bottom, nil, nil, m.chat.Object())
	var main fyne.CanvasObject
	m.fold, main = newFolding(m, m.sidebar.object(), conv)
	m.fold.resized(u.win.Canvas().Size().Width) // folded before it is shown, in a narrow window
	u.win.SetContent(container.NewStack(dialogRoom(), border(nil, m.status.object(), nil, nil, main)))
	u.win.SetMainMenu(m.mainMenu())
	m.status.refresh()
}

// closeAndQuitItems are the menu items that close the window (Ctrl+W) and quit (Ctrl+Q); they
// work with a dialog open too.
func (u *UI) closeAndQuitItems() (closeWin, quit *fyne.MenuItem) {
	quit = fyne.NewMenuItem(lang.L("Quit"), u.quit)
	quit.Shortcut, quit.IsQuit = scQuit, true
	closeWin = fyne.NewMenuItem(lang.L("Close window"), u.quit)
	closeWin.Shortcut = scClose
	return closeWin, quit
}

// mainMenu holds every command, with its shortcut.
func (m *mainWindow) mainMenu() *fyne.MainMenu {
	u := m.u
	item := func(label string, sc fyne.Shortcut, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, u.unlessDialog(action))
		it.Shortcut = sc
		return it
	}
	closeWin, quit := u.closeAndQuitItems()
	// Switching back to the built-in service from another, without going through Account.
	useLocal := item(lang.L("Use the local service"), nil, u.useLocal)
	useLocal.Disabled = u.deps.Local == nil || m.conn.local
	return fyne.NewMainMenu(
		fyne.NewMenu("Parley",
			item(lang.L("Account…"), nil, u.showAccount),
			item(lang.L("Preferences…"), nil, u.showPreferences),
			item(lang.L("Built-in service…"), nil, u.showEngines),
			useLocal,
			fyne.NewMenuItemSeparator(),
			closeWin,
			quit,
		),
		fyne.NewMenu(lang.L("Conversation"),
			item(lang.L("New conversation"), scNew, m.newConversation),
			m.presetMenu(),
			item(lang.L("Search conversations"), scSearch, func() { m.sidebar.focusSearch() }),
			item(lang.L("Settings…"), scSettings, m.showSettings),
			fyne.NewMenuItemSeparator(),
			item(lang.L("Export as Markdown…"), nil, func() { m.export(exportMarkdown) }),
			item(lang.L("Export as JSON…"), nil, func() { m.export(exportJSON) }),
			fyne.NewMenuItemSeparator(),
			item(lang.L("Rename…"), scRename, func() { m.renameConversation(m.currentEntry()) }),
			item(lang.L("Pin or unpin"), scPin, func() { m.togglePin(m.currentEntry()) }),
			item(lang.L("Delete"), nil, func() { m.deleteConversation(m.currentEntry()) }),
			fyne.NewMenuItemSeparator(),
			// Last: the menu's earlier items keep their places for those who know them by heart.
			item(lang.L("Edit your last message"), scEditLast, m.editLast),
			item(lang.L("Regenerate the last reply…"), scRegen, m.regenerateLast),
		),
		fyne.NewMenu(lang.L("View"),
			item(lang.L("Show or hide the conversations"), scSidebar, m.fold.toggle),
			item(lang.L("Jump to latest"), scLatest, m.chat.JumpToLatest),
			fyne.NewMenuItemSeparator(),
			item(lang.L("Larger text"), scLarger, func() { u.stepTextSize(+1) }),
			item(lang.L("Smaller text"), scSmaller, func() { u.stepTextSize(-1) }),
		),
		fyne.NewMenu(lang.X("menu.voice", "Voice"),
			item(lang.L("Push to talk"), scMic, u.toggleRecording),
			item(lang.L("Voice mode (hands-free)"), scVoiceMode, m.toggleVoiceMode),
			item(lang.L("Mute the microphone in voice mode"), scMute, func() {
				if u.voiceModeActive() {
					u.toggleMute()
				}
			}),
			item(lang.L("Stop speaking"), nil, u.talk.StopSpeaking),
		),
		fyne.NewMenu(helpTitle(),
			item(lang.L("Keyboard shortcuts"), nil, u.showShortcuts),
			item(lang.L("About Parley"), nil, u.showAbout),
		),
	)
}

// typedKey handles keys that reach the window with no widget focused. With a dialog open,
// Enter and Escape are the dialog's, and other keys go nowhere.
func (u *UI) typedKey(ev *fyne.KeyEvent) {
	if top := u.topDialog(); top != nil {
		top.keys.key(ev)
		return
	}
	switch ev.Name {
	case fyne.KeyLeft, fyne.KeyRight, fyne.KeyUp, fyne.KeyDown, fyne.KeyHome, fyne.KeyEnd:
		if u.shiftHeld && u.main != nil {
			u.main.chat.ExtendSelection(ev.Name)
		}
	case fyne.KeyEscape:
		u.escape()
	case fyne.KeyReturn, fyne.KeyEnter:
		if u.onEnter != nil {
			u.onEnter()
		}
	}
}

// escape closes the dialog on top, else stops a recording, else the speech.
func (u *UI) escape() {
	if u.closeDialog != nil {
		u.closeDialog()
		return
	}
	if u.talk.Escape() || u.main == nil || u.main.composer.hideNotice() {
		return
	}
	u.main.stopWaiting()
}

// stopWaiting stops waiting for the reply being written in the conversation on screen (Stop on
// "Thinking…", or Esc); the status bar says what that means for points.
func (m *mainWindow) stopWaiting() {
	if m.current == nil || !m.sess.StopWaiting(m.current) {
		return
	}
	for _, t := range m.sess.Snapshot(m.current).Turns {
		if t.Stopping {
			m.flash(lang.L("Stopped the reply: what it says so far is kept, and charged as a reply (nothing written: nothing charged)."))
			return
		}
	}
	m.flash(lang.L("Stopped waiting for the reply: the message says what it means for points."))
}

// refreshMenu builds the main menu again, after the presets changed.
func (m *mainWindow) refreshMenu() { m.u.win.SetMainMenu(m.mainMenu()) }

// flash shows msg in the status bar for a while (on the main window: the welcome screen has no
// status bar).
func (u *UI) flash(msg string) {
	if u.main != nil {
		u.main.flash(msg)
	}
}

// quit closes the window, which ends the app.
func (u *UI) quit() { u.win.Close() }

// apply renders a change of the session's state.
func (m *mainWindow) apply(ch conversation.Change) {
	u := m.u
	if ch.Growing {
		// Only a reply being written grew: it is drawn again, and heard by voice.
		v := m.sess.Snapshot(ch.Thread)
		if ch.Thread == m.current {
			m.chat.Render(v)
			u.probe.event("grew")
		}
		u.talk.ReplyGrowing(ch.Thread, v)
		return
	}
	if ch.List {
		m.sidebar.refresh()
	}
	if ch.Thread != nil && m.keeper != nil {
		m.keeper.touch(ch.Thread) // its messages are indexed as they are read or arrive
	}
	if ch.Err != nil {
		m.sidebar.showError(ch.Err)
	}
	if _, kept := m.unsentSent[ch.Thread]; kept && ch.Thread != nil {
		m.dropAnswered(ch.Thread, m.sess.Snapshot(ch.Thread))
	}
	if ch.Thread != nil && ch.Thread != m.current {
		m.restoreRefused(ch.Thread, m.sess.Snapshot(ch.Thread))
	}
	if ch.Thread != nil && ch.Thread == m.current {
		// One copy of the conversation for everything that renders it.
		v := m.sess.Snapshot(ch.Thread)
		if m.restoreRefused(ch.Thread, v) {
			v = m.sess.Snapshot(ch.Thread)
		}
		m.offerAccountFor(v)
		m.chat.Render(v)
		m.header.refreshFrom(v)
		m.sidebar.selectCurrent()
	}
	// The turns that ended, on screen or not: voice mode and push-to-talk wait for their keys.
	for _, o := range ch.Ended {
		if o.End == conversation.Replied && ch.Thread == m.current {
			u.probe.event("replied")
		}
		u.talk.TurnEnded(ch.Thread, o)
	}
	if ch.Usage {
		m.status.refresh()
	}
}

// newConversation opens a new, empty conversation with the default settings.
func (m *mainWindow) newConversation() {
	u := m.u
	cfg, voice := u.defaultSettings()
	m.show(m.sess.NewThread(cfg, voice))
}

// open shows an existing conversation.
func (m *mainWindow) open(id client.ConversationID) {
	if m.current != nil && m.sess.ID(m.current) == id {
		m.fold.chosen()
		m.focusComposer()
		return
	}
	m.show(m.sess.Open(id))
}

// show makes th the conversation on screen, keeping the composer's text of each conversation.
func (m *mainWindow) show(th *conversation.Thread) { m.showAt(th, -1) }

// showAt is show, at th's message number message (its newest when negative).
func (m *mainWindow) showAt(th *conversation.Thread, message int) {
	u := m.u
	if m.fold != nil {
		m.fold.chosen() // a narrow window shows the conversation, not the list
	}
	if m.current != nil {
		m.drafts[m.current] = m.composer.text()
		m.keepUnsent(m.current, th)
	}
	if u.voiceModeActive() && u.talk.VoiceThread() != th {
		u.talk.EndVoiceMode() // voice mode talks in one conversation
	}
	m.current = th
	if m.drafts[th] == "" && m.isBlank(th) && m.newDraft != "" {
		m.drafts[th], m.newDraft = m.newDraft, ""
	}
	m.composer.setText(m.drafts[th])
	v := m.sess.Snapshot(th)
	m.chat.ShowThreadAt(v, message)
	m.header.refreshFrom(v)
	m.sidebar.selectCurrent()
	m.focusComposer()
}

// keepUnsent keeps what was written in a new conversation that was never created (its first
// message failed, or was never sent) when the person leaves it for next: the text of its failed
// messages and its composer become the draft of the next new conversation.
func (m *mainWindow) keepUnsent(left, next *conversation.Thread) {
	if left == next || !m.sess.ID(left).IsZero() {
		return
	}
	v := m.sess.Snapshot(left)
	if len(v.Messages) > 0 {
		return
	}
	for _, t := range v.Turns {
		if t.State == conversation.Sending {
			return // its reply may still come
		}
	}
	parts := m.sess.TakeUnsent(left)
	if d := strings.TrimSpace(m.drafts[left]); d != "" {
		parts = append(parts, d)
	}
	delete(m.drafts, left)
	if len(parts) == 0 {
		return
	}
	m.newDraft = strings.Join(parts, "\n")
	if !m.isBlank(next) {
		m.flash(lang.L("Your unsent message is kept: press Ctrl+N to find it in a new conversation."))
	}
}

// isBlank reports whether th is a new conversation with nothing in it yet.
func (m *mainWindow) isBlank(th *conversation.Thread) bool {
	v := m.sess.Snapshot(th)
	return m.sess.ID(th).IsZero() && len(v.Messages) == 0 && len(v.Turns) == 0
}

// toggleRecording starts push-to-talk, or finishes the recording under way.
func (u *UI) toggleRecording() {
	u.talk.Toggle()
}

// voiceModeActive reports whether hands-free voice mode runs.
func (u *UI) voiceModeActive() bool { return u.talk.State().Mode != talk.Off }

// voiceModeShown gives the composer's place to voice mode's panel (on), or gives it back, and
// shows on the header whether voice mode runs.
func (m *mainWindow) voiceModeShown(on bool) {
	if on {
		m.composer.box.Hide()
	} else {
		m.composer.box.Show()
	}
	m.header.voiceOn(on)
}

// refreshHeader shows the title and persona of the conversation on screen again.
func (m *mainWindow) refreshHeader() {
	if m.current != nil {
		m.header.refreshFrom(m.sess.Snapshot(m.current))
	}
}

// retry sends a failed message of the conversation on screen again.
func (m *mainWindow) retry(key int64) {
	m.sess.Retry(m.current, key)
	m.u.talk.ExpectReply(m.current, key) // its reply is spoken as a new message's
}

// focusComposer gives the composer the keyboard, on the main window.
func (u *UI) focusComposer() {
	if u.main != nil {
		u.main.focusComposer()
	}
}

// currentEntry is the list entry of the conversation on screen (zero for a new one).
func (m *mainWindow) currentEntry() conversation.Entry {
	if m.current == nil {
		return conversation.Entry{}
	}
	id := m.sess.ID(m.current)
	if id.IsZero() {
		return conversation.Entry{}
	}
	entries, _ := m.sess.Entries()
	for _, e := range entries {
		if e.ID == id {
			return e
		}
	}
	return conversation.Entry{ID: id}
}

// send sends the composer's text in the conversation on screen, and returns the turn's key (0:
// nothing sent).
func (m *mainWindow) send(text string) int64 {
	u := m.u
	if m.current == nil {
		return 0
	}
	key := m.sess.Send(m.current, text)
	m.u.probe.event("sent")
	u.talk.ExpectReply(m.current, key)
	m.chat.StickToBottom()
	return key
}

// offerAccountFor opens the account dialog once for a message refused because of the key or
// the address; the message stays, with Retry, for after the account is fixed.
func (m *mainWindow) offerAccountFor(v conversation.ThreadView) {
	u := m.u
	for _, t := range v.Turns {
		if t.State != conversation.Failed || m.accountOffered[t.Key] {
			continue
		}
		if p := phrase(t.Err); p.action == actionAccount {
			m.accountOffered[t.Key] = true
			u.showAccountFor(t.Err)
			return
		}
	}
}

// presetMenu starts a new conversation from a preset.
func (m *mainWindow) presetMenu() *fyne.MenuItem {
	u := m.u
	it := fyne.NewMenuItem(lang.L("New from preset"), nil)
	var items []*fyne.MenuItem
	for _, p := range (presetBook{u.prefs}).all() {
		items = append(items, fyne.NewMenuItem(p.Title(), u.unlessDialog(func() { m.newFromPreset(p) })))
	}
	it.ChildMenu = fyne.NewMenu("", items...)
	return it
}

// minWindowWidth is the narrowest the main window may be: the widest dialog (Preferences, in
// the longest of the window's languages) fits in it whole. Narrower than the folding width,
// the conversation list folds away.
const minWindowWidth = 720

// dialogRoom holds the window at least minWindowWidth wide.
func dialogRoom() fyne.CanvasObject {
	r := canvas.NewRectangle(color.Transparent)
	r.SetMinSize(fyne.NewSize(minWindowWidth, 0))
	return r
}
