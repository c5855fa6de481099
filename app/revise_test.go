package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"parley/app/chatview"
	"parley/conversation"
)

// rowOf draws the chat view's confirmed message with text, apart from the list.
func (h *harness) rowOf(text string) *chatview.Bubble {
	h.t.Helper()
	return h.drawnRow(text, chatview.RowMessage)
}

// TestApp_EditAndResend: Edit on a message of the person's puts its text in the message box
// and says that sending it is charged; nothing is sent until the person sends it.
func TestApp_EditAndResend(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.typeAndSend("What is the tide at Dover?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	test.Tap(h.rowOf("What is the tide at Dover?").Revise())
	if got := h.u.main.composer.text(); got != "What is the tide at Dover?" {
		t.Fatalf("the message box holds %q", got)
	}
	if msg := h.u.main.status.message.Text; !strings.Contains(msg, "charged like any") {
		t.Errorf("the status bar says %q", msg)
	}
	if n := len(svc.ChatRequests()); n != 1 {
		t.Fatalf("%d chat calls after Edit; Edit sends nothing", n)
	}
	h.u.main.composer.setText("What is the tide at Dover tomorrow?")
	h.u.main.composer.submit()
	h.waitFor(func() bool { return len(h.view().Messages) == 4 })
	reqs := svc.ChatRequests()
	if len(reqs) != 2 || reqs[1].Message != "What is the tide at Dover tomorrow?" || reqs[1].ConversationID != h.view().ID {
		t.Errorf("chat calls %+v", reqs)
	}

	// From the menu: the last message of the person's.
	h.u.main.composer.setText("")
	h.u.main.editLast()
	if got := h.u.main.composer.text(); got != "What is the tide at Dover tomorrow?" {
		t.Errorf("Edit your last message put %q in the message box", got)
	}
}

// TestApp_Regenerate: Regenerate on the last reply asks first, saying it is charged; Cancel
// sends nothing; Regenerate sends the question again as a new turn.
func TestApp_Regenerate(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.typeAndSend("Name a lighthouse")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	reply := h.view().Messages[1].Text
	b := h.rowOf(reply)
	if b.Regenerate().Hidden {
		t.Fatal("the last reply offers no Regenerate")
	}
	test.Tap(b.Regenerate())
	d := h.u.topDialog()
	if d == nil {
		t.Fatal("Regenerate sent at once, without asking")
	}
	if text := dialogText(h.u); !strings.Contains(text, "charged like any message") || !strings.Contains(text, "Name a lighthouse") {
		t.Errorf("the question says %q", text)
	}
	d.keys.cancel()
	if n := len(svc.ChatRequests()); n != 1 {
		t.Fatalf("%d chat calls after Cancel", n)
	}
	h.u.main.regenerateLast()
	h.u.topDialog().keys.submit()
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 4 })
	reqs := svc.ChatRequests()
	if len(reqs) != 2 || reqs[1].Message != "Name a lighthouse" {
		t.Fatalf("chat calls %+v", reqs)
	}
	if v := h.view(); v.Messages[2].Role != conversation.User || v.Messages[2].Text != "Name a lighthouse" {
		t.Errorf("the new turn is %+v", v.Messages[2])
	}
	// Asked, and meanwhile another message was sent: the old question is not sent after it.
	h.u.main.regenerateLast()
	h.typeAndSend("And a lightship?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 6 })
	h.u.topDialog().keys.submit()
	h.drain()
	if n := len(svc.ChatRequests()); n != 3 {
		t.Fatalf("%d chat calls: Regenerate answered after another message was sent sent the old question", n)
	}

	// Only the new reply offers Regenerate.
	rows := h.u.main.chat.Rows()
	for i := range rows {
		if shown := !h.u.main.chat.Draw(i).Regenerate().Hidden; shown != (i == len(rows)-1) {
			t.Errorf("row %d (%q) offers Regenerate: %v", i, rows[i].Text, shown)
		}
	}
}

// TestApp_ListFoldsInANarrowWindow: below foldWidth the conversation list folds away and the
// header's list button shows; Ctrl+B shows the list in the conversation's place, choosing a
// conversation folds it again; in a wide window Ctrl+B folds it and the choice is kept.
func TestApp_ListFoldsInANarrowWindow(t *testing.T) {
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 })
	m := h.u.main
	list, conv := m.fold.split.Leading, m.fold.split.Trailing
	if !list.Visible() || m.header.list.Visible() {
		t.Fatal("the list is folded in a wide window")
	}
	h.u.win.Resize(fyne.NewSize(600, 700))
	if list.Visible() || !conv.Visible() || !m.header.list.Visible() {
		t.Fatalf("at 600 px the list shows %v, the conversation %v, the list button %v", list.Visible(), conv.Visible(), m.header.list.Visible())
	}
	test.Tap(m.header.list)
	if !list.Visible() || conv.Visible() {
		t.Fatal("the list button did not show the list in the conversation's place")
	}
	m.open(m.sidebar.items[0].ID)
	if list.Visible() || !conv.Visible() {
		t.Fatal("choosing a conversation did not fold the list again")
	}
	m.fold.toggle()
	m.newConversation() // the list's button, Ctrl+N
	if list.Visible() || !conv.Visible() {
		t.Fatal("a new conversation did not fold the list")
	}
	h.u.win.Resize(fyne.NewSize(1000, 700))
	if !list.Visible() {
		t.Fatal("the list did not come back in a wide window")
	}
	m.fold.toggle()
	if list.Visible() || !h.u.prefs.sidebarFolded() {
		t.Fatal("Ctrl+B did not fold the list in a wide window, or it was not kept")
	}
	m.fold.toggle()
	if !list.Visible() || h.u.prefs.sidebarFolded() {
		t.Fatal("Ctrl+B did not bring the list back")
	}
}

// TestApp_ThemeAndTextSize: Preferences' theme and text size apply at once, Cancel takes them
// back, Save keeps them; the View menu's larger text steps through the sizes.
func TestApp_ThemeAndTextSize(t *testing.T) {
	h := start(t, newFakeService())
	base := h.u.app.Settings().Theme()
	h.u.showPreferences()
	p := h.u.topDialog().owner.(*preferencesDialog)
	p.theme.SetSelected("Light")
	p.textSize.SetSelected(textSizeName(150))
	th, ok := h.u.app.Settings().Theme().(appTheme)
	if !ok || th.variant != themeLight || th.scale != 1.5 {
		t.Fatalf("the theme tried is %#v", h.u.app.Settings().Theme())
	}
	p.cancel()
	if h.u.app.Settings().Theme() != base {
		t.Fatal("Cancel did not take the theme back")
	}
	h.u.showPreferences()
	p = h.u.topDialog().owner.(*preferencesDialog)
	p.theme.SetSelected("Dark")
	p.textSize.SetSelected(textSizeName(125))
	p.submit()
	if h.u.prefs.theme() != themeDark || h.u.prefs.textSize() != 125 {
		t.Fatalf("kept %q at %d%%", h.u.prefs.theme(), h.u.prefs.textSize())
	}
	h.u.stepTextSize(+1)
	h.u.stepTextSize(+1)
	if h.u.prefs.textSize() != 150 || !strings.Contains(h.u.main.status.message.Text, "largest") {
		t.Errorf("larger text twice from 125%%: %d%%, %q", h.u.prefs.textSize(), h.u.main.status.message.Text)
	}
	for range 6 {
		h.u.stepTextSize(-1)
	}
	if h.u.prefs.textSize() != 90 {
		t.Errorf("smaller text from 150%%: %d%%", h.u.prefs.textSize())
	}
	if th := h.u.app.Settings().Theme().(appTheme); th.scale != 0.9 || th.variant != themeDark {
		t.Errorf("the theme in use is %#v", th)
	}
}

// TestDialogs_FitAtTheLargestText: at 150% text, in the window's default size, every dialog
// fits the window: none is wider than it (a row would be cut at its right edge).
func TestDialogs_FitAtTheLargestText(t *testing.T) {
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	h.u.win.Resize(fyne.NewSize(defaultWidth, defaultHeight))
	c := h.u.win.Canvas()
	for _, scale := range []int{100, maxTextSize} {
		h.u.applyTheme(themeLight, scale)
		for name, open := range map[string]func(){"settings": h.u.main.showSettings, "account": h.u.showAccount,
			"preferences": h.u.showPreferences, "shortcuts": h.u.showShortcuts, "about": h.u.showAbout,
			"preset name": func() { h.u.main.showSettings(); h.openSettings().saveAsPreset() },
			"rename":      func() { h.u.main.renameConversation(h.u.main.currentEntry()) },
			"regenerate":  h.u.main.regenerateLast,
		} {
			open()
			top := c.Overlays().Top()
			if top == nil {
				t.Fatalf("%s: no dialog", name)
			}
			if w := top.MinSize().Width; w > c.Size().Width {
				t.Errorf("at %d%% the %s dialog is %.0f px wide, in a window %.0f px wide", scale, name, w, c.Size().Width)
			}
			// Every label within the window: a row wider than the dialog is cut at its edge.
			d := fyne.CurrentApp().Driver()
			for _, o := range shownObjects(top) {
				if l, ok := o.(*widget.Label); ok && l.Text != "" {
					if right := d.AbsolutePositionForObject(l).X + l.Size().Width; right > c.Size().Width+1 {
						t.Errorf("at %d%% the %s dialog's %q ends at %.0f px, out of the window (%.0f px)", scale, name, l.Text, right, c.Size().Width)
					}
				}
			}
			for h.u.closeDialog != nil {
				h.u.closeDialog()
			}
		}
	}
}
