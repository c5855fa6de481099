package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

// screenshotDir is where the app's screenshots go: docs/screenshots when
// PARLEY_UPDATE_SCREENSHOTS=1 (to refresh the README's pictures), else the test's own folder.
func screenshotDir(t *testing.T) string {
	if os.Getenv("PARLEY_UPDATE_SCREENSHOTS") == "1" {
		dir, _ := filepath.Abs(filepath.Join("..", "docs", "screenshots"))
		os.MkdirAll(dir, 0o755)
		return dir
	}
	return t.TempDir()
}

// app is the desktop app running on a test display.
type app struct {
	cmd    *exec.Cmd
	exited chan struct{}
	logs   *strings.Builder
}

// startApp opens `parley` with no arguments on d with env and a HOME of its own, and stops it
// (SIGTERM, by its PID) when the test ends.
func startApp(t *testing.T, d *testenv.Display, env []string) *app {
	t.Helper()
	return startAppAt(t, d, env, t.TempDir())
}

// stop ends the app as a window manager would, and checks that it quits by itself.
func (a *app) stop(t *testing.T) {
	select {
	case <-a.exited:
		return
	default:
	}
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.exited:
	case <-time.After(15 * time.Second):
		a.dump()
		t.Errorf("the app did not quit within 15 s of SIGTERM; its log, with its goroutines:\n%s", a.logs)
	}
}

// dump ends an app that hangs with SIGQUIT, which has the Go runtime print every goroutine to
// its log first, and waits for it to end (killing it after 10 s).
func (a *app) dump() { testenv.EndProcess(a.cmd, syscall.SIGQUIT, a.exited, 10*time.Second) }

// TestApp_TypeSendAndSettings drives the real window against the real service: a message typed
// and sent with Enter is in the service's history with its reply, and a persona typed in the
// settings dialog (Ctrl+, then Ctrl+Enter) is in the conversation's saved settings.
func TestApp_TypeSendAndSettings(t *testing.T) {
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	s := startService(t)
	key := s.newKey(t, 100)
	shots := screenshotDir(t)
	startApp(t, d, s.env("PARLEY_API_KEY="+key))
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "empty-conversation.png"))

	d.Type(t, "What is the tallest lighthouse?")
	d.Key(t, "Return")
	env := s.env("PARLEY_API_KEY=" + key)
	var id string
	testenv.WaitUntil(t, 30*time.Second, poll, "the message to reach the service", func() bool {
		r := run(t, env, "", "conversations", "--json")
		var list []map[string]any
		if json.Unmarshal([]byte(r.Stdout), &list) != nil || len(list) != 1 {
			return false
		}
		id, _ = list[0]["id"].(string)
		h := history(t, env, id)
		return len(h.Messages) == 2 && h.Messages[0].Content == "What is the tallest lighthouse?" && h.Messages[1].Role == "assistant"
	})
	d.WaitForText(t, "you asked about", 20*time.Second) // the offline responder's reply
	d.WaitForText(t, "tallest lighthouse", 5*time.Second)
	d.Screenshot(t, filepath.Join(shots, "conversation.png"))

	d.Key(t, "ctrl+comma")
	d.WaitForText(t, "Conversation settings", 20*time.Second)
	d.Type(t, "a ships navigator")
	d.WaitForText(t, "a ships navigator", 10*time.Second)
	d.Screenshot(t, filepath.Join(shots, "settings.png"))
	d.Key(t, "ctrl+Return")
	// Waited on in the service's state: the status bar's "Saved: persona" shows for 8 s only, which
	// OCR on a busy machine can miss (the app's unit tests check that sentence).
	testenv.WaitUntil(t, 30*time.Second, poll, "the persona to be saved", func() bool {
		h := history(t, env, id)
		p, _ := h.Config["persona"].(string)
		return p == "a ships navigator"
	})
}

// TestApp_FirstRunWelcome opens the app with nothing configured: the welcome screen offers the
// local service, and Enter starts it.
func TestApp_FirstRunWelcome(t *testing.T) {
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	shots := screenshotDir(t)
	env := appEnviron()
	startApp(t, d, env)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "No account needed", 30*time.Second) // under "Use the local service"
	d.Screenshot(t, filepath.Join(shots, "welcome.png"))
	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Type(t, "Hello from the local service")
	d.Key(t, "Return")
	d.WaitForText(t, "you asked about", 30*time.Second)
}

// TestApp_WelcomeClosesAndQuits: Ctrl+W and Ctrl+Q work on the first-run screen, and the app
// exits 0 each time.
func TestApp_WelcomeClosesAndQuits(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	for _, key := range []string{"ctrl+w", "ctrl+q"} {
		a := startApp(t, d, appEnviron())
		d.WaitForWindow(t, "Parley", 30*time.Second)
		d.WaitForText(t, "No account needed", 30*time.Second)
		d.Key(t, key)
		a.waitExit(t, key+" on the welcome screen")
		if code := a.cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("%s: exit code %d, want 0; log:\n%s", key, code, a.logs)
		}
	}
}

// historyJSON is what `parley history --json` prints.
type historyJSON struct {
	Config   map[string]any `json:"config"`
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
}

func history(t testing.TB, env []string, id string) historyJSON {
	t.Helper()
	var h historyJSON
	r := run(t, env, "", "history", "--json", id)
	json.Unmarshal([]byte(r.Stdout), &h)
	return h
}

// poll is how often a test looks again at what another process shows (its window, the service's
// history through the CLI, the session bus): nothing signals it.
const poll = 200 * time.Millisecond
