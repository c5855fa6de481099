package app

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestHeader_PersonaChipNamesItsPreset: a conversation whose persona is a preset's shows the
// preset's name on the chip, and a screen reader hears that it is a preset; another persona
// shows its first words.
func TestHeader_PersonaChipNamesItsPreset(t *testing.T) {
	h := start(t, newFakeService())
	var tutor Preset
	for _, p := range (presetBook{h.u.prefs}).all() {
		if p.Name == "Tutor" {
			tutor = p
		}
	}
	h.u.main.newFromPreset(tutor)
	h.u.main.header.refreshFrom(h.view())
	if got := h.u.main.header.persona.Text; got != "Tutor" {
		t.Errorf("the chip says %q, want the preset's name", got)
	}
	if got := h.u.main.header.persona.name; !strings.HasSuffix(got, "persona: preset Tutor") {
		t.Errorf("a screen reader hears %q", got)
	}
	own := "You are a lighthouse keeper who answers in rhymes."
	v := h.view()
	v.Config.Persona = &own
	h.u.main.header.refreshFrom(v)
	if got := h.u.main.header.persona.Text; !strings.HasPrefix(got, "You are a lighthouse") {
		t.Errorf("another persona's chip says %q", got)
	}
}

// TestAccount_SaysTheServiceInUseAndWhereTheKeyIs: the Account dialog names the service in use
// and says that its key is stored (where), never showing the key.
func TestAccount_SaysTheServiceInUseAndWhereTheKeyIs(t *testing.T) {
	const key = "pk_live_0123456789abcdef"
	svc := newFakeService()
	h := start(t, svc)
	h.u.main.conn.baseURL, h.u.main.conn.fromEnv = "https://chat.example.com", false
	for _, tc := range []struct {
		local, session bool
		want           string
	}{
		{false, false, "In use: https://chat.example.com, with a key stored in the system keyring."},
		{false, true, "for this session only"},
		{true, false, "the built-in service on this computer"},
	} {
		h.u.main.conn.local, h.u.main.conn.sessionKey = tc.local, tc.session
		h.u.showAccount()
		text := dialogText(h.u)
		if !strings.Contains(text, tc.want) {
			t.Errorf("local %v, session %v: the dialog says %q", tc.local, tc.session, text)
		}
		if strings.Contains(text, key) || strings.Contains(text, key[8:16]) {
			t.Error("the dialog shows the key")
		}
		h.u.closeDialog()
	}
}

// TestStatus_NoBalanceForTheBuiltInService: the built-in service's account is unlimited; the
// status bar shows no points for it, and a remote service's balance as before.
func TestStatus_NoBalanceForTheBuiltInService(t *testing.T) {
	h := start(t, newFakeService())
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return strings.Contains(h.u.main.status.points.Text, "Balance") })
	h.u.main.conn.local = true
	h.u.main.status.refresh()
	if got := h.u.main.status.points.Text; got != "" {
		t.Errorf("the built-in service's status shows %q", got)
	}
	if got := h.u.main.status.service.Text; !strings.HasPrefix(got, "Built-in service") {
		t.Errorf("the status names %q", got)
	}
}

// TestExport_OffersToOpenTheFolder: after an export the status bar says where, with Open folder,
// which opens the folder's file:// address.
func TestExport_OffersToOpenTheFolder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	h := start(t, newFakeService())
	var opened []string
	h.u.deps.openURL = func(u *url.URL) error { opened = append(opened, u.String()); return nil }
	h.typeAndSend("Plan a trip")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	dir := filepath.Join(home, "a b#%")
	os.Mkdir(dir, 0o755)
	h.u.main.export(exportMarkdown)
	path := filepath.Join(dir, "plan-a-trip.md")
	h.u.win.Canvas().Focused().(*field).SetText(path)
	enter(h.u.win.Canvas())
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	st := h.u.main.status
	if !strings.Contains(st.message.Text, "Exported to "+path) || !st.action.Visible() || st.action.Text != "Open folder" {
		t.Fatalf("the status bar says %q, its button %q (shown %v)", st.message.Text, st.action.Text, st.action.Visible())
	}
	test.Tap(st.action)
	if want := "file://" + strings.ReplaceAll(home, " ", "%20") + "/a%20b%23%25"; len(opened) != 1 || opened[0] != want {
		t.Errorf("opened %q, want %q", opened, want)
	}
}
