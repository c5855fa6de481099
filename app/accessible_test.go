package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/conversation"
	"parley/internal/testenv"
)

// told is what a screen reader is told of one object: its label and role, and whether it shows
// (it and every object it is in are visible).
type told struct {
	obj   fyne.CanvasObject
	label string
	role  fyne.AccessibleRole
	shown bool
	fault any // what AccessibilityLabel panicked with
}

// tellAll walks o's whole tree as a screen reader's bridge that descends into widgets would
// (Fyne 2.8's stops at the first widget), and lists every accessible object but the containers.
func tellAll(o fyne.CanvasObject) []told {
	var all []told
	var walk func(o fyne.CanvasObject, shown bool)
	walk = func(o fyne.CanvasObject, shown bool) {
		shown = shown && o.Visible()
		switch x := o.(type) {
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c, shown)
			}
			return
		case fyne.Accessible:
			all = append(all, tell(x, shown))
		}
		if w, ok := o.(fyne.Widget); ok {
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c, shown)
			}
		}
	}
	walk(o, true)
	return all
}

// tell asks a for its label and role, catching a panic.
func tell(a fyne.Accessible, shown bool) (w told) {
	w = told{obj: a.(fyne.CanvasObject), role: a.AccessibilityRole(), shown: shown}
	defer func() { w.fault = recover() }()
	w.label = a.AccessibilityLabel()
	return w
}

// checkButtons fails the test for every button in what (pressed things: buttons, check boxes,
// drop-downs, rows) whose label panics, or that shows and is called by a file name or nothing;
// it returns the labels of those that show.
func checkButtons(t *testing.T, where string, what []told) []string {
	t.Helper()
	var labels []string
	for _, w := range what {
		if w.role != fyne.AccessibleRoleButton {
			continue
		}
		switch {
		case w.fault != nil:
			t.Errorf("%s: a %T's label panics: %v", where, w.obj, w.fault)
		case !w.shown: // the bridge passes it by (Fyne's forms keep two such buttons, unnamed)
		case strings.HasSuffix(w.label, ".svg") || strings.HasSuffix(w.label, ".png"):
			t.Errorf("%s: a %T is called by its icon's file name %q", where, w.obj, w.label)
		case strings.TrimSpace(w.label) == "":
			t.Errorf("%s: a %T that shows has no label", where, w.obj)
		default:
			labels = append(labels, w.label)
		}
	}
	return labels
}

// wantLabels fails the test for each of want that is not among got.
func wantLabels(t *testing.T, where string, got []string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !contains(got, w) {
			t.Errorf("%s: nothing is called %q; labels:\n  %s", where, w, strings.Join(got, "\n  "))
		}
	}
}

// TestAccessible_EveryButtonOfTheWindowHasAName walks the main window with a conversation open
// (replies with code blocks, a notice over the message box): every button a screen reader
// could reach says what it does, none a file name, and none fails to answer.
func TestAccessible_EveryButtonOfTheWindowHasAName(t *testing.T) {
	svc := newFakeService()
	svc.Reply = func(string) string { return testenv.EveryBlock }
	h := start(t, svc)
	h.typeAndSend("Show me everything")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	h.u.main.composer.showNotice("The speakers could not be opened.", "", nil) // no action: its button hides

	labels := checkButtons(t, "the main window", tellAll(h.u.win.Content()))
	wantLabels(t, "the main window", labels, "Send message", "Push to talk", "Dismiss the notice",
		"Clear the search", "Conversation menu", "Conversation settings, persona: No persona",
		"Copy reply", "Read aloud", "Copy", "New conversation", "Voice mode")

	h.u.main.composer.showRecording(true)
	if got := h.u.main.composer.mic.AccessibilityLabel(); got != "Stop recording" {
		t.Errorf("while recording, the microphone's button is called %q", got)
	}
}

// TestAccessible_EveryButtonOfTheDialogsHasAName walks each dialog: every button says what it
// does (the icon-only ones too), and its fields say their row's name.
func TestAccessible_EveryButtonOfTheDialogsHasAName(t *testing.T) {
	h := start(t, newFakeService())
	h.u.deps.Local = fakeLocal{}
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 && len(h.view().Messages) == 2 })
	for _, d := range []struct {
		name string
		open func()
		want []string
	}{
		{"conversation settings", h.u.main.showSettings,
			[]string{"Delete the preset", "Voice: choices", "Temperature: Set, off", "Preset: Start from a preset…", "Save", "Cancel"}},
		{"preferences", h.u.showPreferences,
			[]string{"Default voice: choices", "Replies: Speak replies aloud, off", "Test the microphone", "Save"}},
		{"account", h.u.showAccount, []string{"Show the text", "Test connection", "Connect"}},
		{"built-in service", h.u.showEngines,
			[]string{"Test the chat", "Test the voices", "Chat: Offline responder (cannot think)", "Show the text"}},
		{"keyboard shortcuts", h.u.showShortcuts, []string{"Close"}},
		{"about", h.u.showAbout, []string{"Close"}},
		{"export", func() { h.u.main.export(exportJSON) }, []string{"Choose folder…", "Export"}},
		{"rename", func() { h.u.main.renameConversation(h.u.main.currentEntry()) }, []string{"Cancel", "Rename"}},
	} {
		d.open()
		h.waitFor(func() bool { return h.u.win.Canvas().Overlays().Top() != nil })
		labels := checkButtons(t, d.name, tellAll(h.u.win.Canvas().Overlays().Top()))
		wantLabels(t, d.name, labels, d.want...)
		h.u.cancelTopDialog()
		h.waitFor(func() bool { return h.u.win.Canvas().Overlays().Top() == nil })
	}
}

// says is what a screen reader should be told of obj.
type says struct {
	obj   fyne.CanvasObject
	label string
	role  fyne.AccessibleRole
}

// checkSays fails the test for each of wants whose object is not accessible, or tells another
// label or role.
func checkSays(t *testing.T, when string, wants ...says) {
	t.Helper()
	for _, w := range wants {
		a, ok := w.obj.(fyne.Accessible)
		if !ok {
			t.Errorf("%s: a %T says nothing to a screen reader", when, w.obj)
			continue
		}
		if got, role := a.AccessibilityLabel(), a.AccessibilityRole(); got != w.label || role != w.role {
			t.Errorf("%s: a %T says %q (%s), want %q (%s)", when, w.obj, got, role, w.label, w.role)
		}
	}
}

// The roles of Parley's widgets.
const (
	roleText   = fyne.AccessibleRoleText
	roleButton = fyne.AccessibleRoleButton
)

// TestAccessible_WindowSaysWhatItShows checks what a screen reader is told of the main window's
// own widgets: the message box (never its text), the search, the conversation list and its
// rows, the messages and each message, and the row of a reply being written.
func TestAccessible_WindowSaysWhatItShows(t *testing.T) {
	svc := newFakeService()
	svc.Reply = func(string) string { return "Go by **train**:\n\n- Lyon\n- Turin" }
	h := start(t, svc)
	m := h.u.main
	checkSays(t, "at the start",
		says{m.composer.entry, "Message box, empty", roleText},
		says{m.sidebar.search, "Search conversations", roleText},
		says{m.sidebar.list, "Conversations: 0", roleText})

	test.Type(m.composer.entry, "Plan a trip")
	checkSays(t, "typing", says{m.composer.entry, "Message box", roleText})
	m.composer.setLimit(5)
	checkSays(t, "over the limit", says{m.composer.entry, "Message box, over the service's limit", roleText})
	m.composer.setLimit(0)
	m.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor(func() bool { return len(m.sidebar.items) == 1 && h.shown(chatview.RowMessage) == 2 })
	var rows []fyne.CanvasObject
	var messages, mine, reply fyne.CanvasObject
	eachObject(h.u.win.Content(), func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *conversationRow:
			if x.Visible() && x.title.Text != "" {
				rows = append(rows, x)
			}
		case *chatview.Bubble:
			switch {
			case !x.Visible() || x.Row().Kind != chatview.RowMessage:
			case x.Row().Role == conversation.User:
				mine = x
			default:
				reply = x
			}
		case fyne.Accessible:
			if x.AccessibilityRole() == roleText && strings.HasPrefix(x.AccessibilityLabel(), "Messages:") {
				messages = o
			}
		}
	})
	if len(rows) != 1 || mine == nil || reply == nil || messages == nil {
		t.Fatalf("found %d conversation rows; the message %t, the reply %t, the message list %t", len(rows), mine != nil, reply != nil, messages != nil)
	}
	checkSays(t, "a conversation with a reply",
		says{m.composer.entry, "Message box, empty", roleText},
		says{m.sidebar.list, "Conversations: 1", roleText},
		says{rows[0], "Plan a trip, just now", roleButton},
		says{messages, "Messages: 2", roleText},
		says{mine, "You, 15:00: Plan a trip", roleText},
		says{reply, "Parley, 15:00: Go by train:\n\n• Lyon\n• Turin", roleText})

	test.Type(m.sidebar.search, "trip")
	checkSays(t, "searching", says{m.sidebar.search, "Search conversations: trip", roleText})

	svc.Gate = make(chan struct{})
	t.Cleanup(func() { close(svc.Gate) })
	h.typeAndSend("And back?")
	h.waitFor(func() bool { return h.shown(chatview.RowThinking) == 1 })
	var writing []fyne.CanvasObject
	eachObject(h.u.win.Content(), func(o fyne.CanvasObject) {
		if b, ok := o.(*chatview.Bubble); ok && b.Visible() && b.Row().Kind == chatview.RowThinking {
			writing = append(writing, b)
		}
	})
	if len(writing) != 1 {
		t.Fatalf("%d rows show a reply being written", len(writing))
	}
	checkSays(t, "a reply being written", says{writing[0], "Parley is writing…", roleText})
}

// TestAccessible_FieldsSayTheirRowAndValue checks what a screen reader is told of the fields,
// check boxes, sliders and drop-downs of the dialogs: their form row's name and their value, a
// hidden key only that it is there.
func TestAccessible_FieldsSayTheirRowAndValue(t *testing.T) {
	h := start(t, newFakeService())
	h.u.main.showSettings()
	s := h.openSettings()
	test.Type(s.persona, "A patient guide\nwho knows trains")
	checkSays(t, "the settings",
		says{s.persona, "Persona: A patient guide…", roleText},
		says{s.tempOn, "Temperature: Set, off", roleButton},
		says{s.temp, "Temperature: unset", roleText},
		says{s.maxTok, "Max tokens: empty", roleText},
		says{s.voice, "Voice: the default voice", roleText},
		says{s.preset, "Preset: Start from a preset…", roleButton})
	test.Tap(s.tempOn)
	s.temp.SetValue(0.7)
	checkSays(t, "a temperature set", says{s.tempOn, "Temperature: Set, on", roleButton}, says{s.temp, "Temperature: 0.70", roleText})
	h.u.cancelTopDialog()

	h.u.showAccount()
	a := openDialogOf[*accountDialog](t, h.u)
	checkSays(t, "the account", says{a.base, "Address: " + h.svc.BaseURL(), roleText}, says{a.key, "API key: empty", roleText})
	test.Type(a.key, "pk_secret")
	checkSays(t, "a key typed", says{a.key, "API key: hidden", roleText})
	h.u.cancelTopDialog()

	h.u.showPreferences()
	p := openDialogOf[*preferencesDialog](t, h.u)
	checkSays(t, "the preferences",
		says{p.volume, "Output volume: 1.00", roleText},
		says{p.hold, "Silence that ends a recording: 0.9 s", roleText},
		says{p.autoSpeak, "Replies: Speak replies aloud, off", roleButton},
		says{p.sendSpoken, "What you said: Put it in the message box to review", roleButton},
		says{p.talkKey.field, "Talk from anywhere: Ctrl+Alt+Space", roleText})
}
