package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
	"parley/keystore"
)

func TestSidebar_UpDownEnterOpens(t *testing.T) {
	svc := newFakeService()
	svc.List = []client.Conversation{{ID: conversationtest.ID("a"), Title: "First"}, {ID: conversationtest.ID("b"), Title: "Second"}}
	svc.Histories["a"] = &client.History{ConversationID: conversationtest.ID("a"), Messages: []client.Message{{Role: "user", Content: "in a"}}}
	svc.Histories["b"] = &client.History{ConversationID: conversationtest.ID("b"), Messages: []client.Message{{Role: "user", Content: "in b"}}}
	h := start(t, svc)
	h.waitFor(func() bool { return len(h.u.sidebar.items) == 2 })
	l := h.u.sidebar.list
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
	if h.u.win.Canvas().Focused() != h.u.composer.entry {
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
	dlg := u.lastAccount
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
	for u.conn == nil {
		select {
		case fn := <-queue:
			fn()
		case <-deadline:
			t.Fatal("not connected")
		}
	}
	if !u.conn.sessionKey || !strings.Contains(u.status.service.Text, "session only") {
		t.Errorf("connection %+v, status %q", u.conn, u.status.service.Text)
	}
	u.shutdown()
}

func TestExport_MarkdownAndJSON(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	// A long persona of several lines, which the Markdown keeps whole, as the JSON does.
	persona := "a ship's navigator\n" + strings.Repeat("Name every lighthouse you pass. ", 20) + "\nEnd with the heading."
	temp, topP := 1.15, 0.9
	v := conversation.ThreadView{ID: conversationtest.ID("c1"), Config: client.Config{Persona: &persona, Temperature: &temp, TopP: &topP}, Messages: []conversation.Message{
		{Role: conversation.User, Text: "Where to?", At: at},
		{Role: conversation.Assistant, Text: "West, to the **lighthouse**.", At: at},
	}}
	var md bytes.Buffer
	if err := writeConversationMarkdown(&md, v, "Trip"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Trip", "> a ship's navigator\n> Name every", "> End with the heading.\n", "temperature 1.15, top p 0.9",
		"**You**", "Where to?", "**Assistant**", "West, to the **lighthouse**."} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var js bytes.Buffer
	if err := writeConversationJSON(&js, v, "Trip"); err != nil {
		t.Fatal(err)
	}
	var out struct {
		ID       string `json:"conversation_id"`
		Config   map[string]any
		Messages []struct{ Role, Content, CreatedAt string } `json:"messages"`
	}
	if err := json.Unmarshal(js.Bytes(), &out); err != nil || out.ID != "c1" || len(out.Messages) != 2 || out.Messages[1].Role != "assistant" || out.Config["persona"] != persona {
		t.Errorf("JSON export %s (%v)", js.String(), err)
	}
	if got := fileNameFor("What is the tallest lighthouse?"); got != "what-is-the-tallest-lighthouse" {
		t.Errorf("file name %q", got)
	}
}

func TestSettings_SaveAsPresetThroughTheDialog(t *testing.T) {
	h := start(t, newFakeService())
	h.u.showSettings()
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
