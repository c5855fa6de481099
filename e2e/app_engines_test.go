package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/testenv"
)

// appEnviron is the test run's environment without PARLEY_ variables, plus extra.
func appEnviron(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PARLEY_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// shotsDir keeps a test's screenshots: PARLEY_KEEP_SHOTS when set, else a temporary folder.
func shotsDir(t *testing.T) string {
	if dir := os.Getenv("PARLEY_KEEP_SHOTS"); dir != "" {
		return dir
	}
	return t.TempDir()
}

// TestApp_LocalModelAnswers runs the app with nothing configured beside a model runtime (a
// stand-in process on the port the test-only setting names): the first-run
// screen names its model, Enter uses it, its replies are on screen, its requests carry the
// persona and the earlier turns, and when it dies mid-reply the screen says which engine failed
// and the status bar that it is not running; sent again, the question fails too, saying what to
// do, and nothing else answers in its place.
func TestApp_LocalModelAnswers(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	// A port of its own: another test's stand-in taking Ollama's port after this one died would
	// be this runtime back.
	si := startStandIn(t, standInSettings{DieOn: "goodbye", Addr: "127.0.0.1:0"})
	shots := shotsDir(t)
	home := t.TempDir()
	a := startAppAt(t, d, appEnviron(si.portsEnv...), home)
	defer func() {
		if t.Failed() {
			d.Screenshot(t, filepath.Join(shots, "failed.png"))
		}
	}()
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "answers with standin, from Ollama on this computer", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "welcome-model-found.png"))
	for _, r := range si.requests(t) {
		if r.Path != "/v1/models" {
			t.Errorf("the runtime was sent %s before the person chose it", r.Path)
		}
	}

	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.WaitForText(t, "standin from Ollama", 10*time.Second) // the status bar
	d.Type(t, "What is the capital of France?")
	d.Key(t, "Return")
	d.WaitForText(t, "after 0 earlier questions", 30*time.Second)

	d.Key(t, "ctrl+comma")
	d.WaitForText(t, "Conversation settings", 20*time.Second)
	d.Type(t, "a ships navigator")
	d.Key(t, "ctrl+Return")
	d.WaitForText(t, "Saved: persona", 20*time.Second)
	d.Type(t, "And of Spain?")
	d.Key(t, "Return")
	d.WaitForText(t, "after 1 earlier questions", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "local-model-reply.png"))

	chats := si.waitChats(t, 2)
	var got []string
	for _, m := range chats[1].Chat {
		c, _ := m["content"].(string)
		got = append(got, m["role"].(string)+": "+c)
	}
	want := []string{"system: a ships navigator", "user: What is the capital of France?",
		`assistant: The standin model heard "What is the capital of France?" after 0 earlier questions.`, "user: And of Spain?"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || chats[1].Model != "standin:latest" {
		t.Errorf("the second request carried (model %s):\n%s\nwant:\n%s", chats[1].Model, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The runtime dies while it answers: the message names it, the status bar says it is not running.
	d.Type(t, "goodbye then")
	d.Key(t, "Return")
	// The status bar first (larger text, read reliably), then the message's own line, which
	// names the engine in small red text.
	waitForTextAnySpaces(t, d, "standin from Ollama (not running)", 30*time.Second)
	waitForAnyText(t, d, 10*time.Second, "did not answer", "not answer", "still running")
	d.Screenshot(t, filepath.Join(shots, "local-model-gone.png"))
	// Sent again, the question fails again, refunded, saying what to do: no other engine
	// answers (and charges) in its place.
	// The service's books tell that the question went again and was refunded (the screen's
	// sentence may be the same as the first failure's).
	db := filepath.Join(home, "data", "parley", "app", "parley.db")
	refunds := func() int {
		h := openDB(t, db)
		if h == nil {
			return 0
		}
		defer h.Close()
		var n int
		h.QueryRow(`SELECT COUNT(*) FROM ledger WHERE kind = 'refund'`).Scan(&n)
		return n
	}
	testenv.WaitUntil(t, 10*time.Second, poll, "the first failure's refund", func() bool { return refunds() == 1 })
	x, y := d.FindWord(t, "Retry", 10*time.Second).Center()
	d.ClickSettled(t, x, y)
	testenv.WaitUntil(t, 30*time.Second, poll, "the question sent again, failed and refunded", func() bool { return refunds() == 2 })
	// The runtime is now known to be away: the message says so, and what to do ("… is not
	// running: start it, or choose another engine …"), where the first said it did not answer.
	if screen, ok := readUntilAnySpaces(t, d, "start it", 15*time.Second); !ok {
		t.Errorf("the failure of the question sent again does not say to start the runtime; the screen read:\n%s", screen)
	}
	screen := d.Read(t)
	d.Screenshot(t, filepath.Join(shots, "local-model-still-gone.png"))
	if strings.Contains(screen, "you asked about") {
		t.Errorf("the offline responder answered in the runtime's place:\n%s", screen)
	}
	if strings.Contains(a.logs.String(), "panic") {
		t.Errorf("the app's log has a panic:\n%s", a.logs.String())
	}
}

// TestApp_RemoteEngineFromTheKeyboard chooses an OpenAI-compatible service for the built-in
// service's chat, from the keyboard alone, with a key it requires: the Test line says it
// answers, its replies are on screen, the key it got is the one typed, and after a restart the
// one from the keyring. No key is in the app's output or its files. A runtime that takes the
// connection and never answers, at the one port detection looks at, holds up nothing.
func TestApp_RemoteEngineFromTheKeyboard(t *testing.T) {
	testenv.RequireCommands(t, "xdotool", "tesseract")
	d := testenv.StartDisplay(t)
	testenv.StartKeyring(t)
	const key = "sk-e2e-7f3a9c51d2b84e06"
	si := startStandIn(t, standInSettings{Addr: "127.0.0.1:0", Key: key})
	hung, accepted := hungRuntime(t)
	env := appEnviron("PARLEY_TEST_RUNTIME_PORTS=" + hung + "=Ollama")
	home := t.TempDir()
	shots := shotsDir(t)
	a := startAppAt(t, d, env, home)
	defer func() {
		if t.Failed() {
			d.Screenshot(t, filepath.Join(shots, "failed.png"))
		}
	}()
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "install Ollama", 30*time.Second) // detection ended, the hung runtime aside
	if accepted.Load() == 0 {
		t.Error("detection never reached the hung runtime's port")
	}
	d.Key(t, "Return")
	d.WaitForText(t, "What's on your mind?", 30*time.Second)

	// Parley menu: Account, Preferences, Built-in service.
	d.Key(t, "alt")
	d.Key(t, "Down", "Down", "Down", "Return")
	d.WaitForText(t, "Speech recognition", 20*time.Second)
	d.WaitForText(t, "No model runtime answers", 10*time.Second)
	d.Key(t, "space")                                           // the chat choice is focused: open it
	d.WaitForText(t, "service (address below)", 10*time.Second) // shown only in the open list
	d.Screenshot(t, filepath.Join(shots, "engines-choice.png"))
	d.Key(t, "Down", "Down", "Return") // the list opens with nothing marked: offline, then the OpenAI-compatible service
	d.Key(t, "Tab")
	d.Type(t, si.url)
	d.Key(t, "Tab")
	d.Type(t, "standin")
	d.Key(t, "Tab")
	d.Type(t, key)
	d.Key(t, "Tab", "Tab", "space") // past the show-key button, to Test
	d.WaitForText(t, "standin answered in", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "engines-tested.png"))
	d.Key(t, "ctrl+Return") // Enter would press Test again: Ctrl+Enter saves from anywhere
	d.WaitForText(t, "standin on this computer", 20*time.Second)
	d.Type(t, "Which way is north?")
	d.Key(t, "Return")
	d.WaitForText(t, "after 0 earlier questions", 30*time.Second)

	a.stop(t)
	a = startAppAt(t, d, env, home)
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "standin on this computer", 30*time.Second)
	d.Type(t, "And south?")
	d.Key(t, "Return")
	d.WaitForText(t, "after 0 earlier questions", 30*time.Second)

	chats := si.waitChats(t, 3)
	for i, c := range chats {
		if !c.KeyOK {
			t.Errorf("chat request %d came without the key", i+1)
		}
	}
	a.stop(t)
	testenv.AssertSecretInNoFile(t, key, home)
	if strings.Contains(a.logs.String(), key) {
		t.Error("the key is in the app's output")
	}
}

// waitForTextAnySpaces waits until the screen shows text, whatever spaces the OCR reads in it or
// leaves out ("Ollama(notrunning)"), and returns what it read.
func waitForTextAnySpaces(t *testing.T, d *testenv.Display, text string, timeout time.Duration) string {
	t.Helper()
	got, ok := readUntilAnySpaces(t, d, text, timeout)
	if !ok {
		t.Fatalf("the screen did not show %q within %v; it read:\n%s", text, timeout, got)
	}
	return got
}

// readUntilAnySpaces reads the screen until it shows text, as waitForTextAnySpaces does, for up
// to timeout; ok is false when it did not, with the last reading.
func readUntilAnySpaces(t *testing.T, d *testenv.Display, text string, timeout time.Duration) (got string, ok bool) {
	t.Helper()
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	deadline := time.Now().Add(timeout)
	for {
		got = d.Read(t)
		if strings.Contains(squeeze(got), squeeze(text)) {
			return got, true
		}
		if time.Now().After(deadline) {
			return got, false
		}
		time.Sleep(200 * time.Millisecond) // polling the screen: no channel to wait on
	}
}

// hungRuntime listens on a free port, accepts connections and never answers them.
func hungRuntime(t *testing.T) (port string, accepted *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = testenv.HoldConnections(t, ln, nil)
	_, port, _ = net.SplitHostPort(ln.Addr().String())
	return port, accepted
}
