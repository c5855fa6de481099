package app

import (
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/client"
)

// savedConversation is a conversation the service has stored, on screen with its settings
// dialog open.
func savedConversation(t *testing.T, h *harness) *settingsDialog {
	t.Helper()
	h.typeAndSend("Where are we?")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 && !h.view().ID.IsZero() })
	h.u.main.showSettings()
	return h.openSettings()
}

// TestSettings_NumbersShownAsSet checks that a temperature moved to 1.15 with the arrows (which
// a slider holds as 1.1500000000000001) is sent, kept and said as 1.15.
func TestSettings_NumbersShownAsSet(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	s := savedConversation(t, h)
	s.tempOn.SetChecked(true)
	s.temp.SetValue(1)
	for range 3 {
		s.temp.TypedKey(&fyne.KeyEvent{Name: fyne.KeyRight})
	}
	s.topOn.SetChecked(true)
	s.top.SetValue(0.9)
	for range 3 {
		s.top.TypedKey(&fyne.KeyEvent{Name: fyne.KeyLeft})
	}
	if s.tempVal.Text != "1.15" || s.topVal.Text != "0.87" {
		t.Errorf("the sliders say %q and %q, want 1.15 and 0.87", s.tempVal.Text, s.topVal.Text)
	}
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { p, _, _ := svc.Recorded(); return len(p) == 1 && h.u.closeDialog == nil })
	p, _, _ := svc.Recorded()
	if p[0].Temperature == nil || *p[0].Temperature != 1.15 || p[0].TopP == nil || *p[0].TopP != 0.87 {
		t.Errorf("sent temperature %s, top p %s; want exactly 1.15 and 0.87", numberOf(p[0].Temperature), numberOf(p[0].TopP))
	}
	msg := h.u.main.status.message.Text
	if !strings.Contains(msg, "temperature 1.15,") || !strings.Contains(msg, "top p 0.87") {
		t.Errorf("the status bar says %q", msg)
	}
	// A value an earlier version stored with float noise is said the short way too.
	noisy := 1.1500000000000001
	if got := describeConfig(client.Config{Temperature: &noisy}); got != "temperature 1.15" {
		t.Errorf("describeConfig(1.1500000000000001) = %q", got)
	}
}

// TestSettings_VoiceMustBeOneTheServiceHas checks that a voice the service does not list
// cannot be saved, that a voice kept earlier that it does not know is pointed out when the
// dialog opens, and that with a service that lists no voices any name goes.
func TestSettings_VoiceMustBeOneTheServiceHas(t *testing.T) {
	svc := newFakeService()
	svc.VoiceList = []client.Voice{{Name: "flite-slt"}, {Name: "en-us"}}
	h := start(t, svc)
	s := savedConversation(t, h)
	h.waitFor(func() bool { return s.listed })
	s.voice.SetText("99999999")
	if !s.saveBtn.Disabled() || !s.errText.Visible() || !strings.Contains(s.errText.Text, "no voice “99999999”") {
		t.Errorf("an unknown voice: save enabled %v, message %q", !s.saveBtn.Disabled(), s.errText.Text)
	}
	s.save() // Enter
	if p, _, _ := svc.Recorded(); len(p) != 0 || h.u.closeDialog == nil {
		t.Fatal("the unknown voice was saved")
	}
	s.voice.SetText("en-us")
	if s.saveBtn.Disabled() || s.errText.Visible() {
		t.Errorf("a listed voice: save enabled %v, message %q", !s.saveBtn.Disabled(), s.errText.Text)
	}
	s.voice.SetText("")
	if s.saveBtn.Disabled() {
		t.Error("no voice (the default) cannot be saved")
	}
	s.voice.SetText("en-us")
	test.Tap(s.saveBtn)
	h.waitFor(func() bool { return h.u.closeDialog == nil })
	if v := h.view().Voice; v != "en-us" {
		t.Errorf("the conversation's voice is %q", v)
	}

	// A voice kept before the check, which this service does not have.
	svc.Mu.Lock()
	svc.VoiceList = []client.Voice{{Name: "flite-slt"}}
	svc.Mu.Unlock()
	h.u.main.showSettings()
	s = h.openSettings()
	h.waitFor(func() bool { return s.listed })
	if !s.errText.Visible() || !strings.Contains(s.errText.Text, "“en-us” kept here is not one of this service's voices") {
		t.Errorf("a kept voice the service does not have: message %q", s.errText.Text)
	}
	h.u.escape()

	// A service that lists no voices: the name is the person's to choose.
	svc.Mu.Lock()
	svc.VoiceList = nil
	svc.Mu.Unlock()
	h.u.main.showSettings()
	s = h.openSettings()
	s.voice.SetText("99999999")
	if s.saveBtn.Disabled() {
		t.Errorf("with no list of voices, a name was refused: %q", s.errText.Text)
	}
}

// numberOf prints a setting's number, or "unset".
func numberOf(v *float64) string {
	if v == nil {
		return "unset"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}
