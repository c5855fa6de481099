package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestApp_ConversationTools drives the window from the keyboard against the real service, with
// conversations made before it started: a search finds a word that is only in a message of a
// conversation never opened (the index fills in the background) and opens it; it is renamed
// and pinned, and both are still there after a restart; deleted, it leaves the list at once,
// Ctrl+Z brings it back, and deleted again it is gone from the service once Undo runs out.
func TestApp_ConversationTools(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	s := startService(t)
	key := s.newKey(t, 100)
	env := s.env("PARLEY_API_KEY=" + key)
	sailing := postChat(t, s.url, key, "", "Sailing to the Ebbsfleet lighthouse")
	postChat(t, s.url, key, sailing, "The keeper was called Wilhelmina")
	postChat(t, s.url, key, "", "Baking sourdough bread")
	postChat(t, s.url, key, "", "Trains from Lisbon")
	shots := shotsDir(t)
	home := t.TempDir()

	a := startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "Trains from Lisbon", 30*time.Second)

	// The word is in the second message only, not in any title.
	d.Key(t, "ctrl+f")
	d.Type(t, "wilhelmina")
	d.WaitForText(t, "Wilhelmina", 60*time.Second) // the snippet under the title, once indexed
	d.Screenshot(t, filepath.Join(shots, "conv-01-search.png"))
	if text := d.Read(t); strings.Contains(text, "Trains from") || strings.Contains(text, "sourdough") {
		t.Errorf("the search shows conversations without the word:\n%s", text)
	}
	d.Key(t, "Return") // opens it at the message found
	d.WaitForText(t, "you asked about", 30*time.Second)

	// Renamed (Ctrl+Shift+R) and pinned (Ctrl+Shift+P).
	d.Key(t, "ctrl+f", "Escape")
	// The dialog opens on the key, before the keys after it are handled (its title, dimmed
	// behind, is not read reliably).
	d.Key(t, "ctrl+shift+r")
	d.Key(t, "ctrl+a")
	d.Type(t, "Lighthouse keeper")
	d.Key(t, "Return")
	d.WaitForText(t, "Lighthouse keeper", 20*time.Second)
	d.Key(t, "ctrl+shift+p")
	pinnedFirst := func() bool {
		return d.FindWord(t, "Lighthouse", 20*time.Second).Y < d.FindWord(t, "Trains", 20*time.Second).Y
	}
	testenv.WaitUntil(t, 30*time.Second, poll, "the pinned conversation at the top of the list", pinnedFirst)
	d.Screenshot(t, filepath.Join(shots, "conv-02-renamed-pinned.png"))

	// Kept at the next start.
	a.stop(t)
	startAppAt(t, d, env, home) // stopped when the test ends
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "Lighthouse keeper", 30*time.Second)
	testenv.WaitUntil(t, 30*time.Second, poll, "the pinned conversation at the top after a restart", pinnedFirst)

	// Deleted from the list (Down in the search goes to the list, on the first), then Ctrl+Z
	// at once: once Undo would have run out, the service still has it, and so does the list.
	// (That it leaves the list at once is the app's unit test's: the status bar names it for
	// those seconds, which a reading of the screen cannot tell from the list.)
	d.Key(t, "ctrl+f", "Down", "Delete", "ctrl+z")
	time.Sleep(10 * time.Second) // Undo's 8 s, and more: nothing is to happen
	if n := len(listConversations(t, env)); n != 3 {
		t.Fatalf("the service has %d conversations after Undo, want 3", n)
	}
	testenv.WaitUntil(t, 30*time.Second, poll, "the pinned conversation back at the top", pinnedFirst)
	// Deleted again: the service deletes it when Undo runs out (8 s).
	d.Key(t, "ctrl+f", "Down", "Delete")
	testenv.WaitUntil(t, 30*time.Second, poll, "the deletion", func() bool { return len(listConversations(t, env)) == 2 })
	for _, id := range listConversations(t, env) {
		if id == sailing {
			t.Fatal("another conversation was deleted")
		}
	}
	d.Screenshot(t, filepath.Join(shots, "conv-03-deleted.png"))
}
