package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_KeyboardOnly uses the app from the keyboard alone (xdotool keys, no pointer), from the
// first-run screen to an export, and checks each step where it lands: the service's history,
// the preferences file, the file exported.
func TestApp_KeyboardOnly(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract", "sox", "paplay")
	d := testenv.StartDisplay(t)
	testenv.StartKeyring(t)
	p := testenv.StartPulse(t)
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY=" + key)
	appEnv := appEnviron()
	home := t.TempDir()
	shots := shotsDir(t) // PARLEY_KEEP_SHOTS keeps them, to look at the screens after the test
	startAppAt(t, d, appEnv, home)
	defer func() {
		if t.Failed() {
			d.Screenshot(t, filepath.Join(shots, "failed.png"))
			t.Logf("the screen when it failed: %s", filepath.Join(shots, "failed.png"))
		}
	}()
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "No account needed", 30*time.Second)

	// First run: Tab to "Connect to a service…", the address, Enter, the key, Enter.
	d.Key(t, "Tab", "Tab")
	d.Screenshot(t, filepath.Join(shots, "01-welcome.png"))
	d.Key(t, "space")
	d.WaitForText(t, "API key", 20*time.Second)
	d.Type(t, s.url)
	d.Key(t, "Return")
	d.Type(t, key)
	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)

	// Send in a new conversation.
	d.Key(t, "ctrl+n")
	d.Type(t, "Where is the lighthouse of Alexandria?")
	d.Key(t, "Return")
	first := waitConversations(t, env, 1)[0]
	testenv.WaitUntil(t, 30*time.Second, poll, "the reply", func() bool { return len(history(t, env, first).Messages) == 2 })

	// The settings: the persona, Tab out of it three times (no tab typed), Save as preset by
	// Shift+Tab from the persona, its name, Enter; back in the persona, Enter saves.
	d.Key(t, "ctrl+comma")
	d.WaitForText(t, "Conversation settings", 20*time.Second)
	d.Type(t, "a pirate")
	d.Key(t, "Tab", "Tab", "Tab", "shift+Tab", "shift+Tab", "shift+Tab") // back in the persona
	d.Key(t, "shift+Tab")                                                // Save as preset…
	d.Key(t, "Return")
	// The name dialog opens at once, with its field focused (OCR reads a dialog over a dialog
	// badly, so the file it writes is the check).
	d.Type(t, "Pirate")
	d.Key(t, "Return")
	testenv.WaitUntil(t, 10*time.Second, poll, "the preset in the preferences", func() bool {
		return strings.Contains(readPreferences(t, home), "Pirate")
	})
	d.Key(t, "Tab", "Tab", "Tab", "End") // Rename… and Delete (a preset of one's own), the persona
	d.Screenshot(t, filepath.Join(shots, "02-settings.png"))
	d.Key(t, "Return")
	testenv.WaitUntil(t, 30*time.Second, poll, "the persona to be saved", func() bool {
		p, _ := history(t, env, first).Config["persona"].(string)
		return p == "a pirate"
	})
	if p, _ := history(t, env, first).Config["persona"].(string); p != "a pirate" {
		t.Fatalf("the persona saved is %q", p)
	}

	// Preferences through the menu (Alt, then the arrows): the microphone test hears a tone at
	// -20 dBFS as sound.
	d.Key(t, "alt") // opens the first menu, Parley
	// Keys sent before the menu shows are lost on a busy machine: wait for it.
	d.WaitForText(t, "Built-in service", 20*time.Second)
	d.Key(t, "Down", "Down")
	d.Screenshot(t, filepath.Join(shots, "03-menu.png"))
	d.Key(t, "Return")
	d.WaitForText(t, "Microphone", 20*time.Second)
	toneFile := filepath.Join(t.TempDir(), "tone.wav")
	if out, err := exec.Command("sox", "-n", "-r", "48000", "-c", "1", toneFile, "synth", "40", "sine", "440", "vol", "-20dB").CombinedOutput(); err != nil {
		t.Fatalf("sox: %v: %s", err, out)
	}
	tone := exec.Command("paplay", "--device="+p.Sink, toneFile)
	if err := tone.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { tone.Process.Kill(); tone.Wait() }()
	d.Key(t, "Tab", "space") // the Test button
	// The test's own verdict is waited on below; "Stop test" in the button, ringed with the
	// keyboard's focus, is left to the app's tests (OCR misreads it beside the ring).
	d.Screenshot(t, filepath.Join(shots, "04-preferences.png"))
	// The monitor of a null sink starts with seconds of zeros: the test listens through them.
	d.WaitForText(t, "the microphone works", 30*time.Second)
	d.Key(t, "Escape")

	// A second conversation, then the first one again: search, Down, Enter.
	d.Key(t, "ctrl+n")
	d.Type(t, "How tall is a ship's mast?")
	d.Key(t, "Return")
	waitConversations(t, env, 2)
	d.Key(t, "ctrl+f")
	d.Type(t, "lighthouse")
	d.Key(t, "Down", "Return")
	d.Type(t, "And who built it?")
	d.Key(t, "Return")
	testenv.WaitUntil(t, 30*time.Second, poll, "the question in the first conversation", func() bool {
		return len(history(t, env, first).Messages) == 4
	})

	// The list with the arrows: Down to the other one, Delete. It leaves the list at once, and
	// the service deletes it when Undo (in the status bar for 8 s) runs out.
	d.Key(t, "ctrl+f", "Escape", "ctrl+f", "Down", "Down", "Delete")
	testenv.WaitUntil(t, 30*time.Second, poll, "the deletion", func() bool { return len(listConversations(t, env)) == 1 })
	if left := listConversations(t, env); left[0] != first {
		t.Fatalf("deleted the wrong conversation: %v left", left)
	}

	// Export through the menu: Alt, Right to Conversation, its items, Enter on the file name.
	d.Key(t, "ctrl+f", "Down", "Return") // the first conversation, on screen
	d.Key(t, "alt")
	d.Key(t, "Right", "Down", "Down", "Down", "Down", "Down")
	d.Screenshot(t, filepath.Join(shots, "05-menu.png"))
	d.Key(t, "Return") // Export as Markdown…: the path has the keyboard, in the home folder
	d.Key(t, "Return")
	var exported string
	testenv.WaitUntil(t, 10*time.Second, poll, "the export", func() bool {
		m, _ := filepath.Glob(filepath.Join(home, "*.md"))
		if len(m) == 1 {
			b, _ := os.ReadFile(m[0])
			exported = string(b)
		}
		return exported != ""
	})
	for _, want := range []string{"Where is the lighthouse of Alexandria?", "And who built it?", "a pirate"} {
		if !strings.Contains(exported, want) {
			t.Errorf("the export lacks %q:\n%s", want, exported)
		}
	}
	d.Screenshot(t, filepath.Join(shots, "06-exported.png"))
}

// waitConversations waits for n conversations on the service and returns their IDs.
func waitConversations(t *testing.T, env []string, n int) []string {
	t.Helper()
	var ids []string
	testenv.WaitUntil(t, 30*time.Second, poll, "the conversations on the service", func() bool {
		ids = listConversations(t, env)
		return len(ids) == n
	})
	return ids
}

// listConversations lists the IDs of the service's conversations, newest first.
func listConversations(t *testing.T, env []string) []string {
	t.Helper()
	r := run(t, env, "", "conversations", "--json")
	var list []map[string]any
	json.Unmarshal([]byte(r.Stdout), &list)
	var ids []string
	for _, c := range list {
		id, _ := c["id"].(string)
		ids = append(ids, id)
	}
	return ids
}

// readPreferences is the app's preferences file under home ("" before it is written).
func readPreferences(t *testing.T, home string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(home, "config", "fyne", "*", "preferences.json"))
	for _, m := range matches {
		if b, err := os.ReadFile(m); err == nil {
			return string(b)
		}
	}
	return ""
}
