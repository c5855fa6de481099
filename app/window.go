package app

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"

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
)

// buildMain puts the main window together: the menu, the sidebar, the conversation (header,
// messages, composer) and the status bar.
func (u *UI) buildMain() {
	u.leaveConnecting()
	canvas := u.win.Canvas()
	if u.sidebar != nil {
		u.sidebar.stop()
	}
	u.sidebar = newSidebar(u, u.sess, canvas, u.deps.Now, u.do)
	u.chat = newChatView(u)
	u.composer = newComposer(u, u.talk)
	u.status = newStatusBar(u.conn, u.sess, u.do)
	u.header = newHeader(u, canvas)
	u.vpanel = newVoicePanel(u.talk)
	if u.unfollowTalk != nil {
		u.unfollowTalk()
	}
	m := &mainTalk{u: u, composer: u.composer, panel: u.vpanel, status: u.status, header: u.header}
	u.unfollowTalk = u.talk.Subscribe(m.event)
	m.event(talk.Event{Kind: talk.Changed}) // the window shows what the controller does now

	bottom := container.NewVBox(u.composer.object(), u.vpanel.object())
	conv := border(u.header.object(), bottom, nil, nil, u.chat.Object())
	split := container.NewHSplit(u.sidebar.object(), conv)
	split.SetOffset(0.27)
	u.win.SetContent(border(nil, u.status.object(), nil, nil, split))
	u.win.SetMainMenu(u.mainMenu())
	u.status.refresh()
}

// closeAndQuitItems are the menu items that close the window (Ctrl+W) and quit (Ctrl+Q); they
// work with a dialog open too.
func (u *UI) closeAndQuitItems() (closeWin, quit *fyne.MenuItem) {
	quit = fyne.NewMenuItem("Quit", u.quit)
	quit.Shortcut, quit.IsQuit = scQuit, true
	closeWin = fyne.NewMenuItem("Close window", u.quit)
	closeWin.Shortcut = scClose
	return closeWin, quit
}

// mainMenu holds every command, with its shortcut.
func (u *UI) mainMenu() *fyne.MainMenu {
	item := func(label string, sc fyne.Shortcut, action func()) *fyne.MenuItem {
		it := fyne.NewMenuItem(label, u.unlessDialog(action))
		it.Shortcut = sc
		return it
	}
	closeWin, quit := u.closeAndQuitItems()
	// Switching back to the built-in service from another, without going through Account.
	useLocal := item("Use the local service", nil, u.useLocal)
	useLocal.Disabled = u.deps.Local == nil || u.conn != nil && u.conn.local
	return fyne.NewMainMenu(
		fyne.NewMenu("Parley",
			item("Account…", nil, u.showAccount),
			item("Preferences…", nil, u.showPreferences),
			item("Built-in service…", nil, u.showEngines),
			useLocal,
			fyne.NewMenuItemSeparator(),
			closeWin,
			quit,
		),
		fyne.NewMenu("Conversation",
			item("New conversation", scNew, u.newConversation),
			u.presetMenu(),
			item("Search conversations", scSearch, func() { u.sidebar.focusSearch() }),
			item("Settings…", scSettings, u.showSettings),
			fyne.NewMenuItemSeparator(),
			item("Export as Markdown…", nil, func() { u.export(exportMarkdown) }),
			item("Export as JSON…", nil, func() { u.export(exportJSON) }),
			fyne.NewMenuItemSeparator(),
			item("Delete…", nil, func() { u.confirmDelete(u.currentEntry()) }),
		),
		fyne.NewMenu("Voice",
			item("Push to talk", scMic, u.toggleRecording),
			item("Voice mode (hands-free)", scVoiceMode, u.toggleVoiceMode),
			item("Mute the microphone in voice mode", scMute, func() {
				if u.voiceModeActive() {
					u.toggleMute()
				}
			}),
			item("Stop speaking", nil, u.talk.StopSpeaking),
		),
		fyne.NewMenu("Help",
			item("Keyboard shortcuts", nil, u.showShortcuts),
			item("About Parley", nil, u.showAbout),
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
		if u.shiftHeld && u.chat != nil {
			u.chat.ExtendSelection(ev.Name)
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
	if u.talk.Escape() || (u.composer != nil && u.composer.hideNotice()) {
		return
	}
	u.stopWaiting()
}

// stopWaiting stops waiting for the reply being written in the conversation on screen (Stop on
// "Thinking…", or Esc); the status bar says what that means for points.
func (u *UI) stopWaiting() {
	if u.current == nil || u.sess == nil || !u.sess.StopWaiting(u.current) {
		return
	}
	u.flash("Stopped waiting for the reply: the message says what it means for points.")
}

// refreshMenu builds the main menu again, after the presets changed.
func (u *UI) refreshMenu() { u.win.SetMainMenu(u.mainMenu()) }

// flash shows msg in the status bar for a while.
func (u *UI) flash(msg string) { u.status.flash(msg) }

// quit closes the window, which ends the app.
func (u *UI) quit() { u.win.Close() }

// apply renders a change of the session's state.
func (u *UI) apply(ch conversation.Change) {
	if u.sidebar == nil {
		return
	}
	if ch.List {
		u.sidebar.refresh()
	}
	if ch.Err != nil {
		u.sidebar.showError(ch.Err)
	}
	if _, kept := u.unsentSent[ch.Thread]; kept && ch.Thread != nil {
		u.dropAnswered(ch.Thread, u.sess.Snapshot(ch.Thread))
	}
	if ch.Thread != nil && ch.Thread != u.current {
		u.restoreRefused(ch.Thread, u.sess.Snapshot(ch.Thread))
	}
	if ch.Thread != nil && ch.Thread == u.current {
		// One copy of the conversation for everything that renders it.
		v := u.sess.Snapshot(ch.Thread)
		if u.restoreRefused(ch.Thread, v) {
			v = u.sess.Snapshot(ch.Thread)
		}
		u.offerAccountFor(v)
		u.chat.Render(v)
		u.header.refreshFrom(v)
		u.sidebar.selectCurrent()
	}
	// The turns that ended, on screen or not: voice mode and push-to-talk wait for their keys.
	for _, o := range ch.Ended {
		u.talk.TurnEnded(ch.Thread, o)
	}
	if ch.Usage {
		u.status.refresh()
	}
}

// newConversation opens a new, empty conversation with the default settings.
func (u *UI) newConversation() {
	cfg, voice := u.defaultSettings()
	u.show(u.sess.NewThread(cfg, voice))
}

// open shows an existing conversation.
func (u *UI) open(id client.ConversationID) {
	if u.current != nil && u.sess.ID(u.current) == id {
		u.focusComposer()
		return
	}
	u.show(u.sess.Open(id))
}

// show makes th the conversation on screen, keeping the composer's text of each conversation.
func (u *UI) show(th *conversation.Thread) {
	if u.current != nil {
		u.drafts[u.current] = u.composer.text()
		u.keepUnsent(u.current, th)
	}
	if u.voiceModeActive() && u.talk.VoiceThread() != th {
		u.talk.EndVoiceMode() // voice mode talks in one conversation
	}
	u.current = th
	if u.drafts[th] == "" && u.isBlank(th) && u.newDraft != "" {
		u.drafts[th], u.newDraft = u.newDraft, ""
	}
	u.composer.setText(u.drafts[th])
	v := u.sess.Snapshot(th)
	u.chat.ShowThread(v)
	u.header.refreshFrom(v)
	u.sidebar.selectCurrent()
	u.focusComposer()
}

// keepUnsent keeps what was written in a new conversation that was never created (its first
// message failed, or was never sent) when the person leaves it for next: the text of its failed
// messages and its composer become the draft of the next new conversation.
func (u *UI) keepUnsent(left, next *conversation.Thread) {
	if left == next || !u.sess.ID(left).IsZero() {
		return
	}
	v := u.sess.Snapshot(left)
	if len(v.Messages) > 0 {
		return
	}
	for _, t := range v.Turns {
		if t.State == conversation.Sending {
			return // its reply may still come
		}
	}
	parts := u.sess.TakeUnsent(left)
	if d := strings.TrimSpace(u.drafts[left]); d != "" {
		parts = append(parts, d)
	}
	delete(u.drafts, left)
	if len(parts) == 0 {
		return
	}
	u.newDraft = strings.Join(parts, "\n")
	if !u.isBlank(next) {
		u.flash("Your unsent message is kept: press Ctrl+N to find it in a new conversation.")
	}
}

// isBlank reports whether th is a new conversation with nothing in it yet.
func (u *UI) isBlank(th *conversation.Thread) bool {
	v := u.sess.Snapshot(th)
	return u.sess.ID(th).IsZero() && len(v.Messages) == 0 && len(v.Turns) == 0
}

// toggleRecording starts push-to-talk, or finishes the recording under way.
func (u *UI) toggleRecording() {
	u.talk.Toggle()
}

// voiceModeActive reports whether hands-free voice mode runs.
func (u *UI) voiceModeActive() bool { return u.talk.State().Mode != talk.Off }

// voiceModeShown gives the composer's place to voice mode's panel (on), or gives it back, and
// shows on the header whether voice mode runs.
func (u *UI) voiceModeShown(on bool) {
	if on {
		u.composer.box.Hide()
	} else {
		u.composer.box.Show()
	}
	u.header.voiceOn(on)
}

// refreshHeader shows the title and persona of the conversation on screen again.
func (u *UI) refreshHeader() {
	if u.current != nil {
		u.header.refreshFrom(u.sess.Snapshot(u.current))
	}
}

// speak says text with the voice of the conversation on screen (a reply's Speak button).
func (u *UI) speak(text string) { u.talk.Speak(text) }

// retry sends a failed message of the conversation on screen again.
func (u *UI) retry(key int64) { u.sess.Retry(u.current, key) }

// focusComposer gives the composer the keyboard.
func (u *UI) focusComposer() {
	if u.composer != nil {
		u.win.Canvas().Focus(u.composer.entry)
	}
}

// currentEntry is the list entry of the conversation on screen (zero for a new one).
func (u *UI) currentEntry() conversation.Entry {
	if u.current == nil {
		return conversation.Entry{}
	}
	id := u.sess.ID(u.current)
	if id.IsZero() {
		return conversation.Entry{}
	}
	entries, _ := u.sess.Entries()
	for _, e := range entries {
		if e.ID == id {
			return e
		}
	}
	return conversation.Entry{ID: id}
}

// send sends the composer's text in the conversation on screen, and returns the turn's key (0:
// nothing sent).
func (u *UI) send(text string) int64 {
	if u.current == nil || u.sess == nil {
		return 0
	}
	key := u.sess.Send(u.current, text)
	u.talk.ExpectReply(u.current, key)
	u.chat.StickToBottom()
	return key
}

// offerAccountFor opens the account dialog once for a message refused because of the key or
// the address; the message stays, with Retry, for after the account is fixed.
func (u *UI) offerAccountFor(v conversation.ThreadView) {
	for _, t := range v.Turns {
		if t.State != conversation.Failed || u.accountOffered[t.Key] {
			continue
		}
		if p := phrase(t.Err); p.action == actionAccount {
			u.accountOffered[t.Key] = true
			u.showAccountFor(t.Err)
			return
		}
	}
}

// presetMenu starts a new conversation from a preset.
func (u *UI) presetMenu() *fyne.MenuItem {
	it := fyne.NewMenuItem("New from preset", nil)
	var items []*fyne.MenuItem
	for _, p := range (presetBook{u.prefs}).all() {
		items = append(items, fyne.NewMenuItem(p.Name, u.unlessDialog(func() { u.newFromPreset(p) })))
	}
	it.ChildMenu = fyne.NewMenu("", items...)
	return it
}
