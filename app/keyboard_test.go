package app

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/archive"
	"parley/audio"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// describe names a focused widget for a focus order: its kind and its label or placeholder.
func describe(o fyne.Focusable) string {
	switch w := o.(type) {
	case nil:
		return "nothing"
	case *field:
		if w.PlaceHolder != "" {
			return "field " + w.PlaceHolder
		}
		return "field"
	case *button:
		if w.Text == "" {
			return "button (icon)"
		}
		return "button " + w.Text
	case *pagingButton:
		return "button " + w.Text
	case *check:
		return "check " + w.Text
	case *slider:
		return "slider"
	case *selector:
		return "select"
	case *choiceField:
		return "choice " + w.PlaceHolder
	case *composerEntry:
		return "message box"
	case *searchField:
		return "search"
	case *keyField:
		return "key field"
	case *conversationList:
		return "conversation list"
	case *widget.Button:
		if w.Text == "" {
			return "Button (icon)"
		}
		return "Button " + w.Text
	case *widget.Entry:
		return "Entry " + w.PlaceHolder
	}
	return fmt.Sprintf("%T", o)
}

// focusOrder presses Tab until the focus comes back to where it started (at most 60 times) and
// lists what had it, starting with what has it now.
func focusOrder(t *testing.T, c fyne.Canvas) []string {
	t.Helper()
	first := c.Focused()
	order := []string{describe(first)}
	for i := 0; i < 60; i++ {
		c.FocusNext()
		if c.Focused() == first {
			return order
		}
		order = append(order, describe(c.Focused()))
	}
	t.Fatalf("Tab never came back to %s: %s", describe(first), strings.Join(order, ", "))
	return nil
}

// wantOrder checks the focus order from what has the keyboard now.
func wantOrder(t *testing.T, c fyne.Canvas, what string, want ...string) {
	t.Helper()
	if got := focusOrder(t, c); strings.Join(got, " | ") != strings.Join(want, " | ") {
		t.Errorf("Tab in %s goes\n  %s\nwant\n  %s", what, strings.Join(got, " | "), strings.Join(want, " | "))
	}
}

func TestKeyboard_FocusOrderFollowsTheLayout(t *testing.T) {
	h := start(t, newFakeService())
	c := h.u.win.Canvas()
	// The main window: the sidebar top to bottom, the header left to right, the messages,
	// then the composer left to right.
	wantOrder(t, c, "the main window", "message box", "button (icon)",
		"Button New conversation", "search", "button (icon)", "conversation list",
		"Button Voice mode", "button No persona", "button (icon)", "*chatview.messageList", "button (icon)")

	h.u.main.showSettings()
	wantOrder(t, c, "the settings", "field Who the assistant is, e.g. “a patient maths tutor”",
		"check Set", "check Set", "field service default", "choice the default voice", "button (icon)",
		"button Cancel", "button Save", "select", "button Save as preset…")
	c.Focus(h.openSettings().tempOn)
	test.Tap(h.openSettings().tempOn) // a temperature is set: its slider follows its check
	wantOrder(t, c, "the settings with a temperature", "check Set", "slider", "check Set",
		"field service default", "choice the default voice", "button (icon)", "button Cancel", "button Save",
		"select", "button Save as preset…", "field Who the assistant is, e.g. “a patient maths tutor”")
	h.u.closeDialog()

	h.u.showPreferences()
	wantOrder(t, c, "the preferences", "select", "button Test", "slider", "select", "slider",
		"select", // the speech rate
		"check Speak replies aloud", "choice the service's default", "button (icon)",
		"select", // the speech language
		"check Speaking over a reply interrupts it (barge-in)",
		"check End a question when it sounds complete",
		"check Say aloud when something goes wrong", "select", "select", "select",
		"select", // the language
		"key field",
		"check Keep running in the tray when the window is closed",
		"button Cancel", "button Save")
	h.u.closeDialog()

	h.u.showAccount()
	wantOrder(t, c, "the account", "field API key (kept in the system keyring, never shown)", "button (icon)",
		"button Test connection", "button Cancel", "button Connect", "field https://api.example.com")
	h.u.closeDialog()

	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 && len(h.view().Messages) == 2 })
	h.u.main.renameConversation(h.u.main.currentEntry())
	wantOrder(t, c, "the rename dialog", "field Name", "button Cancel", "button Rename")
	h.u.closeDialog()
	h.u.main.export(exportJSON)
	wantOrder(t, c, "the export", "field", "button Choose folder…", "button Cancel", "button Export")
	h.u.closeDialog()
	h.u.showShortcuts()
	wantOrder(t, c, "the shortcuts", "button Close")
}

func TestKeyboard_TabLeavesMultiLineFields(t *testing.T) {
	h := start(t, newFakeService())
	h.u.main.showSettings()
	// The driver moves the focus on Tab unless the focused widget accepts tabs.
	for name, w := range map[string]fyne.Tabbable{"the message box": h.u.main.composer.entry,
		"the persona": h.openSettings().persona, "the voice": h.openSettings().voice} {
		if w.AcceptsTab() {
			t.Errorf("%s takes Tab as a character", name)
		}
	}
}

func TestKeyboard_DialogsOpenOnTheirFirstField(t *testing.T) {
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	c := h.u.win.Canvas()
	for _, tc := range []struct {
		open func()
		want string
	}{
		{h.u.main.showSettings, "field Who the assistant is, e.g. “a patient maths tutor”"},
		{h.u.showPreferences, "select"},
		{h.u.showAccount, "field API key (kept in the system keyring, never shown)"},
		{func() { h.u.main.showSettings(); h.openSettings().saveAsPreset() }, "field Name"},
		{func() { h.u.main.export(exportMarkdown) }, "field"},
	} {
		tc.open()
		if got := describe(c.Focused()); got != tc.want {
			t.Errorf("opened with %s focused, want %s", got, tc.want)
		}
		for h.u.closeDialog != nil {
			h.u.closeDialog()
		}
	}
}

// enter and esc press Enter and Escape on what has the keyboard, or the window.
func enter(c fyne.Canvas) { key(c, fyne.KeyReturn) }
func esc(c fyne.Canvas)   { key(c, fyne.KeyEscape) }

func key(c fyne.Canvas, name fyne.KeyName) {
	if f := c.Focused(); f != nil {
		f.TypedKey(&fyne.KeyEvent{Name: name})
		return
	}
	c.(interface{ OnTypedKey() func(*fyne.KeyEvent) }).OnTypedKey()(&fyne.KeyEvent{Name: name})
}

func TestKeyboard_EnterSavesAndEscapeCancelsWhateverHasTheKeyboard(t *testing.T) {
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	c := h.u.win.Canvas()

	// Esc from each kind of field closes the settings unsaved.
	pick := []func(s *settingsDialog) fyne.Focusable{
		func(s *settingsDialog) fyne.Focusable { return s.persona },
		func(s *settingsDialog) fyne.Focusable { return s.tempOn },
		func(s *settingsDialog) fyne.Focusable { return s.maxTok },
		func(s *settingsDialog) fyne.Focusable { return s.voice },
		func(s *settingsDialog) fyne.Focusable { return s.preset },
		func(s *settingsDialog) fyne.Focusable { return s.saveBtn },
	}
	for _, p := range pick {
		h.u.main.showSettings()
		w := p(h.openSettings())
		c.Focus(w)
		esc(c)
		if h.u.topDialog() != nil {
			t.Errorf("Escape on %s left the settings open", describe(w))
			h.u.closeDialog()
		}
	}

	// Enter on a check box saves; Shift+Enter in the persona adds a line, Enter saves it.
	h.u.main.showSettings()
	s := h.openSettings()
	test.Type(s.persona, "a pirate")
	s.persona.KeyDown(&fyne.KeyEvent{Name: "LeftShift"})
	s.persona.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	s.persona.KeyUp(&fyne.KeyEvent{Name: "LeftShift"})
	test.Type(s.persona, "who rhymes")
	c.Focus(s.topOn)
	test.Tap(s.topOn)
	enter(c)
	h.waitFor(func() bool { p, _, _ := h.svc.Recorded(); return len(p) == 1 && h.u.topDialog() == nil })
	p, _, _ := h.svc.Recorded()
	if p[0].Persona == nil || *p[0].Persona != "a pirate\nwho rhymes" || p[0].TopP == nil {
		t.Errorf("saved %+v", p[0])
	}

	// Enter on a button presses it (Cancel cancels).
	h.u.main.showSettings()
	test.Type(h.openSettings().persona, " again")
	c.Focus(findButtonOf(t, c, "Cancel"))
	enter(c)
	if h.u.topDialog() != nil {
		t.Error("Enter on Cancel left the settings open")
	}
	if p, _, _ := h.svc.Recorded(); len(p) != 1 {
		t.Errorf("Enter on Cancel saved: %d saves", len(p))
	}
}

// findButtonOf is the dialog button labelled label in the dialog on top.
func findButtonOf(t *testing.T, c fyne.Canvas, label string) *button {
	t.Helper()
	for _, o := range test.LaidOutObjects(c.Overlays().Top()) {
		if b, ok := o.(*button); ok && b.Text == label {
			return b
		}
	}
	t.Fatalf("no button %q", label)
	return nil
}

func TestKeyboard_KeysInADialogNeverReachTheWindow(t *testing.T) {
	h := start(t, newFakeService())
	c := h.u.win.Canvas()
	h.u.showShortcuts()
	c.Unfocus() // keys to the window itself
	before := h.u.main.current
	for _, it := range h.u.main.mainMenu().Items[1].Items {
		if it.Label == "New conversation" || it.Label == "Settings…" || it.Label == "Search conversations" {
			it.Action()
		}
	}
	typed := c.(interface{ OnTypedRune() func(rune) }).OnTypedRune()
	typed('x')
	if h.u.main.current != before || isOpen[*settingsDialog](h.u) || h.u.main.composer.text() != "" || c.Focused() != nil {
		t.Errorf("keys behind the dialog acted: new conversation %v, settings %v, composer %q, focus %s",
			h.u.main.current != before, isOpen[*settingsDialog](h.u), h.u.main.composer.text(), describe(c.Focused()))
	}
	enter(c) // Enter closes the shortcuts, its default, also when nothing has the keyboard
	if h.u.topDialog() != nil {
		t.Fatal("Enter did not close the shortcuts")
	}
	h.waitFor(func() bool { return c.Focused() == h.u.main.composer.entry })
}

func TestKeyboard_SpaceOnAConfirmationTypesNothing(t *testing.T) {
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 && len(h.view().Messages) == 2 })
	c := h.u.win.Canvas()
	h.u.confirm("Delete preset", "Delete the preset “Pirate”?", "Delete", true, func(bool) {})
	// Space on the focused Cancel, then the character the same key types, as the driver sends
	// them.
	c.Focus(findButtonOf(t, c, "Cancel"))
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if f := c.Focused(); f != nil {
		f.TypedRune(' ')
	} else {
		c.(interface{ OnTypedRune() func(rune) }).OnTypedRune()(' ')
	}
	h.waitFor(func() bool { return c.Focused() == h.u.main.composer.entry })
	if got := h.u.main.composer.text(); got != "" {
		t.Errorf("the message box got %q", got)
	}
	if _, d, _ := h.svc.Recorded(); len(d) != 0 {
		t.Error("Cancel deleted")
	}
}

func TestKeyboard_ConversationList(t *testing.T) {
	svc := newFakeService()
	for i := 0; i < 40; i++ {
		svc.List = append(svc.List, client.Conversation{ID: conversationtest.ID(fmt.Sprint("c", i)), Title: fmt.Sprint("Trip ", i)})
	}
	h := start(t, svc)
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 40 })
	l := h.u.main.sidebar.list
	c := h.u.win.Canvas()
	c.Focus(l)
	at := func(want int, after string) {
		t.Helper()
		if l.cursor != want {
			t.Errorf("after %s the keyboard is on row %d, want %d", after, l.cursor, want)
		}
		ring := false
		for _, o := range test.LaidOutObjects(l) {
			if r, ok := o.(*conversationRow); ok && r.index == want && r.ring.Visible() {
				ring = true
			}
		}
		if !ring {
			t.Errorf("after %s row %d does not show the keyboard's place", after, want)
		}
	}
	at(0, "focusing the list")
	key(c, fyne.KeyDown)
	key(c, fyne.KeyDown)
	at(2, "Down twice")
	key(c, fyne.KeyUp)
	at(1, "Up")
	key(c, fyne.KeyEnd)
	at(39, "End")
	key(c, fyne.KeyPageUp)
	page := l.page()
	if page < 3 {
		t.Fatalf("a page is %d rows", page)
	}
	at(39-page, "Page Up")
	key(c, fyne.KeyHome)
	at(0, "Home")
	key(c, fyne.KeyPageDown)
	at(page, "Page Down")
	key(c, fyne.KeyUp)
	key(c, fyne.KeyUp)
	key(c, fyne.KeyUp)
	if h.u.main.current != nil && !h.u.main.sess.ID(h.u.main.current).IsZero() {
		t.Fatal("moving opened a conversation")
	}
	want := l.s.items[l.cursor].ID
	enter(c)
	h.waitFor(func() bool { return h.u.main.sess.ID(h.u.main.current) == want })
	if c.Focused() != h.u.main.composer.entry {
		t.Errorf("after opening, %s has the keyboard", describe(c.Focused()))
	}
	c.Focus(l)
	key(c, fyne.KeyDown)
	gone := l.s.items[l.cursor]
	key(c, fyne.KeyDelete)
	// It leaves the list at once, with Undo in the status bar; the service deletes it once
	// Undo is no longer offered.
	h.waitFor(func() bool {
		return !slices.ContainsFunc(l.s.items, func(e conversation.Entry) bool { return e.ID == gone.ID })
	})
	if !h.u.main.status.action.Visible() || !strings.Contains(h.u.main.status.message.Text, "Deleted “"+gone.DisplayTitle()+"”") {
		t.Fatalf("Delete did not take %q out of the list with Undo offered", gone.DisplayTitle())
	}
	if _, d, _ := svc.Recorded(); len(d) != 0 {
		t.Fatalf("deleted at once: %v", d)
	}
	h.u.main.commitDeletes() // as when Undo runs out
	h.waitFor(func() bool { _, d, _ := svc.Recorded(); return len(d) == 1 })
	if _, d, _ := svc.Recorded(); d[0] != gone.ID.String() || d[0] == want.String() {
		t.Errorf("deleted %s, want %s", d[0], gone.ID)
	}
	c.Focus(l)
	// Typing in the list searches, and the results show from their top; Down goes to them,
	// Escape back to the message box.
	c.Focus(l)
	key(c, fyne.KeyEnd)
	if l.GetScrollOffset() == 0 {
		t.Fatal("End did not scroll")
	}
	l.TypedRune('1')
	if h.u.main.sidebar.search.Text != "1" || c.Focused() != h.u.main.sidebar.search {
		t.Errorf("typing in the list: search %q, focus %s", h.u.main.sidebar.search.Text, describe(c.Focused()))
	}
	if off := l.GetScrollOffset(); off != 0 {
		t.Errorf("the results of a new search start scrolled by %v", off)
	}
	key(c, fyne.KeyDown)
	if c.Focused() != l || l.cursor != 0 {
		t.Errorf("Down in the search: %s has the keyboard, on row %d", describe(c.Focused()), l.cursor)
	}
	c.Focus(h.u.main.sidebar.search)
	esc(c)
	if c.Focused() != h.u.main.composer.entry || h.u.main.sidebar.search.Text != "" {
		t.Errorf("Escape in the search: %s has the keyboard, the search holds %q", describe(c.Focused()), h.u.main.sidebar.search.Text)
	}
}

func TestKeyboard_TranscriptLeavesTheCursorAtItsEnd(t *testing.T) {
	h := start(t, newFakeService())
	text := strings.Repeat("the tide turns at six and the wind is from the west ", 12) + "\nand the last line"
	h.u.main.composer.setText(text)
	if got := h.u.main.composer.entry.CursorTextOffset(); got != len([]rune(text)) {
		t.Errorf("the cursor is at %d of %d", got, len([]rune(text)))
	}
	test.Type(h.u.main.composer.entry, "!")
	if got := h.u.main.composer.text(); got != text+"!" {
		t.Errorf("typing after it gives …%q", got[max(0, len(got)-20):])
	}
}

func TestKeyboard_MessageBoxGrowsWithWrappedLinesToEight(t *testing.T) {
	h := start(t, newFakeService())
	c := h.u.main.composer
	rowsShown := func() int { return c.rows }
	c.setText("short")
	if rowsShown() != 1 {
		t.Errorf("one short line: %d rows", rowsShown())
	}
	// One paragraph that wraps: as many rows as the entry makes of it.
	para := strings.Repeat("the tide turns at six and the wind is from the west ", 4)
	c.setText(para)
	if want := textRows(t, c.entry); rowsShown() != want || want < 2 {
		t.Errorf("a wrapped paragraph: %d rows, the entry shows %d", rowsShown(), want)
	}
	c.setText(strings.Repeat(para, 10))
	if rowsShown() != maxComposerRows {
		t.Errorf("a long paragraph: %d rows, want %d", rowsShown(), maxComposerRows)
	}
	c.setText("")
	if rowsShown() != 1 {
		t.Errorf("emptied: %d rows", rowsShown())
	}
}

// textRows counts the rows of text an entry lays out (its text's canvas.Text objects).
func textRows(t *testing.T, e fyne.Widget) int {
	t.Helper()
	n := 0
	for _, o := range test.LaidOutObjects(e) {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() && tx.Color != theme.Color(theme.ColorNamePlaceHolder) {
			n++
		}
	}
	return n
}

func TestRowCounter_CountsAsTheEntryWraps(t *testing.T) {
	test.NewTempApp(t)
	words := strings.Fields("a lighthouse keeper keeps the light burning through the night while the tide turns supercalifragilisticexpialidocious and extraordinarily")
	for _, width := range []float32{120, 233, 400, 631} {
		for n := 1; n < 60; n += 7 {
			var b strings.Builder
			for i := 0; i < n; i++ {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(words[(i*5)%len(words)])
				if i%23 == 22 {
					b.WriteString("\n")
				}
			}
			e := widget.NewMultiLineEntry()
			e.Wrapping = fyne.TextWrapWord
			e.SetText(b.String())
			e.SetMinRowsVisible(40)
			w := test.NewTempWindow(t, e)
			w.Resize(fyne.NewSize(width+2*theme.InnerPadding()+2*theme.Padding(), 1200))
			var rc rowCounter
			got := rc.count(e.Text, max(0, e.Size().Width-2*theme.InnerPadding()), 40)
			if want := textRows(t, e); got != want {
				t.Errorf("%d words at %v: counted %d rows, the entry has %d", n, e.Size().Width, got, want)
			}
		}
	}
}

// fakeIndex is a conversation list that never changes.
type fakeIndex []conversation.Entry

func (f fakeIndex) Search(string) []conversation.Entry                 { return f }
func (f fakeIndex) Entries() (entries []conversation.Entry, more bool) { return f, false }
func (f fakeIndex) ListErr() error                                     { return nil }
func (f fakeIndex) LoadMore()                                          {}

// fakeSidebarHost is a window with nothing in it.
type fakeSidebarHost struct{}

func (fakeSidebarHost) open(client.ConversationID)                 {}
func (fakeSidebarHost) newConversation()                           {}
func (fakeSidebarHost) deleteConversation(conversation.Entry)      {}
func (fakeSidebarHost) renameConversation(conversation.Entry)      {}
func (fakeSidebarHost) togglePin(conversation.Entry)               {}
func (fakeSidebarHost) searchMessages(string, func([]archive.Hit)) {}
func (fakeSidebarHost) undoLastDelete()                            {}
func (fakeSidebarHost) openAt(client.ConversationID, int)          {}
func (fakeSidebarHost) currentEntry() conversation.Entry           { return conversation.Entry{} }
func (fakeSidebarHost) focusComposer()                             {}

func TestSidebar_TimesReadAgainWhenTheyChange(t *testing.T) {
	test.NewTempApp(t)
	updates := make(chan func(), 10)
	// The clock stands still until the timer fires, however slowly the test runs; then it is a
	// second on, past the minute.
	base := time.Now()
	var clock atomic.Pointer[time.Time]
	clock.Store(&base)
	now := func() time.Time { return *clock.Load() }
	index := fakeIndex{{ID: conversationtest.ID("a"), Title: "Tides", UpdatedAt: base.Add(-59*time.Second - 800*time.Millisecond)}}
	s := newSidebar(fakeSidebarHost{}, index, nil, now, func(fn func()) { updates <- fn })
	defer s.stop()
	w := test.NewTempWindow(t, s.object())
	w.Resize(fyne.NewSize(300, 400))
	s.refresh()
	when := func() string {
		for _, o := range test.LaidOutObjects(s.list) {
			if r, ok := o.(*conversationRow); ok {
				return r.when.Text
			}
		}
		return ""
	}
	if got := when(); got != "just now" {
		t.Fatalf("shown %q", got)
	}
	select {
	case fn := <-updates: // the timer, about 200 ms on
		later := base.Add(time.Second)
		clock.Store(&later)
		fn()
	case <-time.After(5 * time.Second):
		t.Fatal("the time was not read again when it changed")
	}
	if got := when(); got != "1 min ago" {
		t.Errorf("a minute on, shown %q", got)
	}
	if s.times == nil {
		t.Error("no timer for the next change")
	}
}

// clippedPlaceholders lists the placeholders in o that do not fit their entry.
func clippedPlaceholders(o fyne.CanvasObject) []string {
	var bad []string
	for _, obj := range shownObjects(o) {
		var e *widget.Entry
		switch w := obj.(type) {
		case *widget.Entry:
			e = w
		case *field:
			e = &w.Entry
		case *composerEntry:
			e = &w.Entry
		case *searchField:
			e = &w.Entry
		case *choiceField:
			e = &w.Entry
		}
		if e == nil || e.PlaceHolder == "" || !e.Visible() {
			continue
		}
		avail := e.Size().Width - 2*theme.InnerPadding()
		if e.ActionItem != nil {
			avail -= e.ActionItem.MinSize().Width
		}
		if w := fyne.MeasureText(e.PlaceHolder, theme.TextSize(), fyne.TextStyle{}).Width; w > avail {
			bad = append(bad, fmt.Sprintf("%q (%.0f px in %.0f)", e.PlaceHolder, w, avail))
		}
	}
	return bad
}

// shownObjects lists o and the objects in it that show: none under a hidden one.
func shownObjects(o fyne.CanvasObject) []fyne.CanvasObject {
	if o == nil || !o.Visible() {
		return nil
	}
	objs := []fyne.CanvasObject{o}
	var children []fyne.CanvasObject
	switch w := o.(type) {
	case *fyne.Container:
		children = w.Objects
	case fyne.Widget:
		children = test.WidgetRenderer(w).Objects()
	}
	for _, c := range children {
		objs = append(objs, shownObjects(c)...)
	}
	return objs
}

func TestPlaceholders_FitANarrowWindow(t *testing.T) {
	h := start(t, newFakeService())
	h.u.win.Resize(fyne.NewSize(530, 700))
	c := h.u.win.Canvas()
	if bad := clippedPlaceholders(c.Content()); len(bad) > 0 {
		t.Errorf("cut off in the window: %s", strings.Join(bad, ", "))
	}
	h.u.main.fold.toggle() // the conversation list, folded away, opened
	if bad := clippedPlaceholders(c.Content()); len(bad) > 0 {
		t.Errorf("cut off in the conversation list: %s", strings.Join(bad, ", "))
	}
	h.u.main.fold.toggle()
	for name, open := range map[string]func(){"settings": h.u.main.showSettings, "account": h.u.showAccount,
		"preferences": h.u.showPreferences,
		"preset name": func() { h.u.main.showSettings(); h.openSettings().saveAsPreset() }} {
		open()
		if bad := clippedPlaceholders(c.Overlays().Top()); len(bad) > 0 {
			t.Errorf("cut off in the %s: %s", name, strings.Join(bad, ", "))
		}
		for h.u.closeDialog != nil {
			h.u.closeDialog()
		}
	}
	h.u.win.Resize(fyne.NewSize(1000, 700))
	if got := h.u.main.composer.entry.PlaceHolder; got != composerPlaceholders[0] {
		t.Errorf("a wide window shows %q", got)
	}
}

func TestMicTestMessage(t *testing.T) {
	for _, tc := range []struct {
		l    audio.Level
		want string
	}{
		{audio.Level{RMS: -120, Peak: -120}, "Only silence so far"},
		{audio.Level{RMS: -23, Peak: -20}, "Sound at -23 dB: the microphone works."},
		{audio.Level{RMS: -80, Peak: -70}, "very quiet"},
		{audio.Level{RMS: -4, Peak: 0}, "cut off"},
	} {
		if got := micTestMessage(tc.l); !strings.Contains(got, tc.want) {
			t.Errorf("%+v: %q, want %q in it", tc.l, got, tc.want)
		}
	}
}

func TestExport_AsksWhereAndNeverHalfReplaces(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	c := h.u.win.Canvas()
	path := filepath.Join(home, "plan-a-trip.md")

	h.u.main.export(exportMarkdown)
	f, ok := c.Focused().(*field)
	if !ok || f.Text != path {
		t.Fatalf("the export opens on %s holding %q, want the path %s", describe(c.Focused()), f.Text, path)
	}
	enter(c)
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "Plan a trip") {
		t.Fatalf("exported %q, %v", b, err)
	}
	os.WriteFile(path, []byte("keep me"), 0o644)

	// An existing file: Escape on the question keeps it, and so does Enter (Cancel has the
	// keyboard); Tab to Replace and Enter replaces it.
	h.u.main.export(exportMarkdown)
	enter(c)
	if !strings.Contains(test.RenderToMarkup(c), "Replace the file?") {
		t.Fatal("an existing file is not asked about")
	}
	esc(c)
	enter(c) // the export again
	enter(c) // the question, on Cancel
	if b, _ := os.ReadFile(path); string(b) != "keep me" {
		t.Errorf("the file was replaced after Escape or Enter: %q", b)
	}
	enter(c) // the export again
	c.FocusNext()
	enter(c)
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "Plan a trip") {
		t.Errorf("Replace did not replace: %q", b)
	}
	for h.u.closeDialog != nil {
		h.u.closeDialog()
	}

	// A folder that does not exist, and a folder for a file: said in the dialog, which stays.
	h.u.main.export(exportJSON)
	f = c.Focused().(*field)
	for _, bad := range []string{filepath.Join(home, "nowhere", "x.json"), home} {
		f.SetText(bad)
		enter(c)
		if h.u.topDialog() == nil || !strings.Contains(test.RenderToMarkup(c), "choose another") && !strings.Contains(test.RenderToMarkup(c), "is a folder") {
			t.Errorf("%s: no message in the dialog", bad)
		}
	}
	// A bare name goes beside the suggested file, not where the app was started.
	f.SetText("notes.json")
	enter(c)
	if _, err := os.Stat(filepath.Join(home, "notes.json")); err != nil {
		t.Errorf("a bare name: %v", err)
	}
	if m, _ := filepath.Glob(filepath.Join(home, ".*")); len(m) != 0 {
		t.Errorf("left behind: %v", m)
	}
}

func TestExportTarget(t *testing.T) {
	home, _ := os.UserHomeDir()
	for typed, want := range map[string]string{
		"notes.md": "/docs/notes.md", "sub/notes.md": "/docs/sub/notes.md", "/tmp/x.md": "/tmp/x.md",
		"~": home, "~/x.md": filepath.Join(home, "x.md"), "  /a/../b.md ": "/b.md", "": "",
	} {
		if got := exportTarget(typed, "/docs"); got != want {
			t.Errorf("exportTarget(%q) = %q, want %q", typed, got, want)
		}
	}
}

// A button pressed from the keyboard keeps it (Tab goes on from it), unless the press hid it:
// then nothing has the keyboard, as no key may go to a button no one sees.
func TestKeyboard_APressedButtonKeepsTheKeyboardUnlessItHid(t *testing.T) {
	test.NewTempApp(t)
	stays := widget.NewButton("Stays", nil)
	hides := widget.NewButton("Hides", nil)
	hides.OnTapped = hides.Hide
	w := test.NewTempWindow(t, container.NewVBox(stays, hides, widget.NewEntry()))
	c := w.Canvas()

	c.Focus(stays)
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if c.Focused() != stays {
		t.Fatalf("after Space on a button, %s has the keyboard, want the button", describe(c.Focused()))
	}
	c.FocusNext()
	if c.Focused() != hides {
		t.Fatalf("Tab after the pressed button went to %s", describe(c.Focused()))
	}
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeySpace})
	if hides.Visible() || c.Focused() != nil {
		t.Errorf("after Space on a button that hid itself (visible %v), %s has the keyboard, want nothing",
			hides.Visible(), describe(c.Focused()))
	}
}
