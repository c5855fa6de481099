package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// charges counts the charges posted to key in the service's ledger.
func charges(t *testing.T, s *service, key string) int {
	t.Helper()
	n := 0
	for _, line := range strings.Split(s.admin(t, "ledger", "--key", key).Stdout, "\n") {
		if f := strings.Fields(line); len(f) == 7 && f[2] == "charge" && f[5] == "posted" {
			n++
		}
	}
	return n
}

// TestApp_EditRegenerateThemeAndFolding drives the window from the keyboard against the real
// service: a message is edited and sent again, a reply regenerated (asked first; the ledger
// shows each charge); the light theme at 150% text is chosen in Preferences and read back from
// the screen; in a narrow window the conversation list folds away and Ctrl+B brings it back.
func TestApp_EditRegenerateThemeAndFolding(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY=" + key)
	shots := shotsDir(t)
	home := t.TempDir()

	startAppAt(t, d, env, home)
	win := d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Type(t, "Tell me about the Ebbsfleet lighthouse")
	d.Key(t, "Return")
	d.WaitForText(t, "you asked about", 30*time.Second)
	before := d.FindWord(t, "Ebbsfleet", 10*time.Second)

	// Edit the last message (Ctrl+Shift+E): it is in the message box, and sent only on Enter.
	d.Key(t, "ctrl+shift+e")
	d.WaitForText(t, "charged like any", 10*time.Second)
	if n := charges(t, s, key); n != 1 {
		t.Fatalf("%d charges after Edit, want the first message's only", n)
	}
	d.Type(t, " at night")
	d.Key(t, "Return")
	testenv.WaitUntil(t, 30*time.Second, poll, "the edited message's charge", func() bool { return charges(t, s, key) == 2 })
	d.WaitForText(t, "lighthouse, night", 30*time.Second) // the reply names the words it was asked about

	// Regenerate the last reply (Ctrl+Shift+G): asked first, saying it is charged.
	d.Key(t, "ctrl+shift+g")
	d.WaitForText(t, "charged like any message", 10*time.Second)
	d.Screenshot(t, filepath.Join(shots, "reading-01-regenerate.png"))
	d.Key(t, "Escape")
	time.Sleep(time.Second) // nothing is to happen
	if n := charges(t, s, key); n != 2 {
		t.Fatalf("%d charges after Regenerate was cancelled, want 2", n)
	}
	d.Key(t, "ctrl+shift+g")
	d.WaitForText(t, "charged like any message", 10*time.Second)
	d.Key(t, "Return")
	testenv.WaitUntil(t, 30*time.Second, poll, "the regenerated reply's charge", func() bool { return charges(t, s, key) == 3 })
	if got := strings.Count(run(t, env, "", "history", listConversations(t, env)[0]).Stdout, "lighthouse at night"); got < 2 {
		t.Errorf("the history has the question %d times, want it sent twice", got)
	}

	// The light theme at 150% (Preferences: Shift+Tab from the first field goes to Save, Cancel,
	// Change…, the two checks, the key's field, the language, the text size, the theme).
	dark := d.Lightness(t)
	d.Key(t, "alt")
	d.Key(t, "Down", "Down", "Return")
	d.WaitForText(t, "Microphone", 20*time.Second)
	for range 9 {
		d.Key(t, "shift+Tab")
	}
	// Space opens a choice's list, with nothing marked; the keys after it go to the list.
	d.Key(t, "space", "Down", "Down", "Return")                                // as the system's, light
	d.Key(t, "Tab", "space", "Down", "Down", "Down", "Down", "Down", "Return") // 90, 100, 110, 125, 150
	// Tried at once, before it is saved: the dialog is light, the text large.
	testenv.WaitUntil(t, 20*time.Second, poll, "the theme tried", func() bool { return d.Lightness(t) > 0.45 })
	d.Screenshot(t, filepath.Join(shots, "reading-02-preferences-light.png"))
	d.Key(t, "Return")
	testenv.WaitUntil(t, 20*time.Second, poll, "the theme and the text size in the preferences", func() bool {
		p := readPreferences(t, home)
		return strings.Contains(p, `"theme":"light"`) && strings.Contains(p, `"text_size_pct":150`)
	})
	d.WaitForText(t, "you asked about", 20*time.Second)
	d.Screenshot(t, filepath.Join(shots, "reading-03-light-150.png"))
	// The window covers 68% of the screen, black around it.
	if light := d.Lightness(t); light < 0.55 || light < dark+0.3 {
		t.Errorf("the screen's lightness is %.2f in the light theme (%.2f before)", light, dark)
	}
	after := d.FindWord(t, "Ebbsfleet", 10*time.Second)
	if after.H*10 < before.H*13 {
		t.Errorf("a word is %d px high at 150%%, %d px at 100%%", after.H, before.H)
	}
	// The other screens, light at 150%, read back (and kept to be looked at).
	for i, screen := range []struct {
		keys  []string
		shows string
	}{
		{[]string{"ctrl+comma"}, "Temperature"},
		{[]string{"alt", "Down", "Return"}, "Address"}, // Account…
	} {
		d.Key(t, screen.keys...)
		d.WaitForText(t, screen.shows, 20*time.Second)
		d.Screenshot(t, filepath.Join(shots, fmt.Sprintf("reading-03%c-light-150.png", 'a'+i)))
		d.Key(t, "Escape")
		testenv.WaitUntil(t, 20*time.Second, poll, "the dialog closed", func() bool { return !strings.Contains(d.Read(t), screen.shows) })
	}

	// A narrow window: the list folds away; Ctrl+B shows it in the conversation's place, and
	// again the conversation.
	d.ResizeWindow(t, win, 600, 700)
	// The list shows when the conversation's title is read at the window's left edge, where
	// no other text starts (the header's title is after the list button, the person's messages
	// on the right, replies in bubbles); OCR does not read the list's white-on-blue button,
	// nor the search field's grey placeholder once it has the keyboard.
	listShown := func() bool {
		return slices.ContainsFunc(d.Words(t, "Tell"), func(b testenv.Box) bool { return b.X < 40 })
	}
	testenv.WaitUntil(t, 20*time.Second, poll, "the list folded away", func() bool {
		return !listShown() && strings.Contains(d.Read(t), "you asked about")
	})
	d.Screenshot(t, filepath.Join(shots, "reading-04-narrow.png"))
	d.Key(t, "ctrl+b")
	testenv.WaitUntil(t, 20*time.Second, poll, "the list shown", listShown)
	d.Screenshot(t, filepath.Join(shots, "reading-05-narrow-list.png"))
	if text := d.Read(t); strings.Contains(text, "you asked about") {
		t.Errorf("the list shows beside the conversation in a narrow window:\n%s", text)
	}
	d.Key(t, "ctrl+b")
	testenv.WaitUntil(t, 20*time.Second, poll, "the conversation back", func() bool {
		return !listShown() && strings.Contains(d.Read(t), "you asked about")
	})
	d.ResizeWindow(t, win, 1000, 700)
	testenv.WaitUntil(t, 20*time.Second, poll, "the list back beside the conversation", listShown)
}
