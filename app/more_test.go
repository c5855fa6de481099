package app

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/client"
	"parley/conversation/conversationtest"
	"parley/conversation/export"
	"parley/keystore"
)

func TestSidebar_UpDownEnterOpens(t *testing.T) {
	svc := newFakeService()
	svc.List = []client.Conversation{{ID: conversationtest.ID("a"), Title: "First"}, {ID: conversationtest.ID("b"), Title: "Second"}}
	svc.Histories["a"] = &client.History{ConversationID: conversationtest.ID("a"), Messages: []client.Message{{Role: "user", Content: "in a"}}}
	svc.Histories["b"] = &client.History{ConversationID: conversationtest.ID("b"), Messages: []client.Message{{Role: "user", Content: "in b"}}}
	h := start(t, svc)
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 2 })
	l := h.u.main.sidebar.list
	h.u.win.Canvas().Focus(l)
	l.TypedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	l.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 1 })
	if got := h.view().ID.String(); got != "b" {
		t.Errorf("Down then Enter opened %q, want the second conversation", got)
	}
	l.TypedKey(&fyne.KeyEvent{Name: fyne.KeyUp})
	l.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.waitFor(func() bool { return h.view().ID.String() == "a" && h.shown(chatview.RowMessage) == 1 })
	if h.u.win.Canvas().Focused() != h.u.main.composer.entry {
		t.Error("opening a conversation does not give the composer the keyboard")
	}
}

func TestAccount_NoKeyringOffersSessionOnly(t *testing.T) {
	svc := newFakeService()
	a := test.NewTempApp(t)
	secrets := &memSecrets{keys: map[string]string{}, err: &keystore.UnavailableError{Op: "store", Reason: keystore.ReasonNoSecretService, Err: keystore.ErrUnavailable}}
	queue := make(chan func(), 100)
	u := New(a, Deps{Connect: func(string, client.APIKey) (Service, error) { return svc, nil }, Secrets: secrets,
		Getenv: func(k string) string { return map[string]string{"PARLEY_BASE_URL": ""}[k] }, Now: fixedNow,
		run: func(fn func()) { queue <- fn }})
	u.win.Resize(fyne.NewSize(1000, 700))
	u.showAccount()
	markup := test.RenderToMarkup(u.win.Canvas())
	if !strings.Contains(markup, "Account") {
		t.Fatal("no account dialog")
	}
	dlg := openDialogOf[*accountDialog](t, u)
	test.Type(dlg.base, "api.example.com")
	dlg.save()
	if !strings.Contains(dlg.result.Text, "https://api.example.com") {
		t.Errorf("an address without a scheme: %q", dlg.result.Text)
	}
	dlg.base.SetText("https://api.example.com")
	test.Type(dlg.key, "pk_test_0123456789abcdef")
	dlg.save()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(test.RenderToMarkup(u.win.Canvas()), "for this session only") {
		select {
		case fn := <-queue:
			fn()
		case <-deadline:
			t.Fatal("no offer to keep the key for this session")
		}
	}
	confirm := findButton(u.win.Canvas().Overlays().Top(), "Keep for this session")
	test.Tap(confirm)
	for u.main == nil {
		select {
		case fn := <-queue:
			fn()
		case <-deadline:
			t.Fatal("not connected")
		}
	}
	if !u.main.conn.sessionKey || !strings.Contains(u.main.status.service.Text, "session only") {
		t.Errorf("connection %+v, status %q", u.main.conn, u.main.status.service.Text)
	}
	u.shutdown()
}

// TestExport_FileNameAndTitle: the export suggests a file named after the conversation, and
// writes what package export writes (its tests hold the formats), titled as the list shows it.
func TestExport_FileNameAndTitle(t *testing.T) {
	if got := fileNameFor("What is the tallest lighthouse?"); got != "what-is-the-tallest-lighthouse" {
		t.Errorf("file name %q", got)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	svc := newFakeService()
	svc.List = []client.Conversation{{ID: conversationtest.ID("a"), Title: "Lighthouses"}}
	svc.Histories["a"] = &client.History{ConversationID: conversationtest.ID("a"), Messages: []client.Message{
		{Role: "user", Content: "Which is the tallest?"}, {Role: "assistant", Content: "Jeddah's."}}}
	h := start(t, svc)
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 1 })
	h.u.main.open(conversationtest.ID("a"))
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	h.u.main.export(exportJSON)
	enter(h.u.win.Canvas())
	b, err := os.ReadFile(filepath.Join(home, "lighthouses.json"))
	var want bytes.Buffer
	v := h.view()
	_ = export.JSON(&want, export.Conversation{ID: v.ID, Title: "Lighthouses", Config: v.Config, Messages: v.Messages})
	if err != nil || !bytes.Equal(b, want.Bytes()) || !strings.Contains(string(b), `"title": "Lighthouses"`) {
		t.Errorf("exported %s (%v), want %s", b, err, want.Bytes())
	}
}

func TestSettings_SaveAsPresetThroughTheDialog(t *testing.T) {
	h := start(t, newFakeService())
	h.u.main.showSettings()
	s := h.openSettings()
	test.Type(s.persona, "You are a lighthouse keeper.")
	s.saveAsPreset()
	top := h.u.win.Canvas().Overlays().Top()
	var name *field
	for _, o := range test.LaidOutObjects(top) {
		if e, ok := o.(*field); ok && e.PlaceHolder == "Name" {
			name = e
		}
	}
	if name == nil {
		t.Fatal("no name field")
	}
	if h.u.win.Canvas().Focused() != name {
		t.Fatalf("the name field does not have the keyboard: %T has", h.u.win.Canvas().Focused())
	}
	test.Type(name, "Keeper")
	test.Tap(findButton(top, "Save"))
	p, ok := (presetBook{h.u.prefs}).find("Keeper")
	if !ok || p.Persona != "You are a lighthouse keeper." || s.preset.Selected != "Keeper" || s.rename.Disabled() {
		t.Errorf("saved preset %+v (%v), selected %q, rename enabled %v", p, ok, s.preset.Selected, !s.rename.Disabled())
	}
}
