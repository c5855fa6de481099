package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// richReply is what the stand-in model answers: a table, code, a citation and a link, the way
// assistants write.
const richReply = "Here are the cities [1]:\n\n" +
	"| City | Population |\n|:-----|-----------:|\n| Paris | 2102650 |\n| Lyon | 522250 |\n\n" +
	"```go\nfunc main() {\n\tfmt.Println(\"bonjour\")\n}\n```\n\n" +
	"See [the census](https://parley.example/census) for more.\n\n[1]: https://parley.example/source\n"

// codeOfRichReply is the code block of richReply, as its Copy button must copy it.
const codeOfRichReply = "func main() {\n\tfmt.Println(\"bonjour\")\n}"

// newMarkdownModel starts an OpenAI-compatible stand-in on 127.0.0.1 that answers every chat
// completion with reply.
func newMarkdownModel(t testing.TB, reply string) string {
	t.Helper()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": reply}}}})
		w.Write(b)
	}))
	t.Cleanup(hs.Close)
	return hs.URL
}

// TestApp_RichReply opens a reply with a table, code and links in the real window: the table
// reads as cells with no Markdown pipes on screen, a drag over the first line and Ctrl+C copies
// exactly that line, the code block's Copy copies exactly the code, and a click on a link asks
// the system (xdg-open) to open it.
func TestApp_RichReply(t *testing.T) {
	testenv.RequireCommands(t, "xclip")
	d := testenv.StartDisplay(t)
	testenv.StartSessionBus(t)
	s := startService(t, "--llm-url", newMarkdownModel(t, richReply), "--llm-model", "m")
	key := s.newKey(t, 100)
	shots := screenshotDir(t)
	// xdg-open is a script of the test's, which writes down what it was asked to open.
	tools := t.TempDir()
	opened := filepath.Join(tools, "opened")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >> " + opened + "\n"
	if err := os.WriteFile(filepath.Join(tools, "xdg-open"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	startApp(t, d, s.env("PARLEY_API_KEY="+key, "PATH="+tools+":"+os.Getenv("PATH")))
	d.WaitForWindow(t, "Parley", 30*time.Second)
	d.WaitForText(t, "What's on your mind?", 30*time.Second)
	d.Type(t, "Which cities?")
	d.Key(t, "Return")
	screen := d.WaitForText(t, "2102650", 30*time.Second)
	d.Screenshot(t, filepath.Join(shots, "rich-reply.png"))
	for _, want := range []string{"City", "Population", "Paris", "Lyon", "522250", "bonjour", "census"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen does not show %q; it read:\n%s", want, screen)
		}
	}
	if strings.Contains(screen, "|--") || strings.Contains(screen, "--|") || strings.Contains(screen, "```") {
		t.Errorf("the screen shows Markdown's markup; it read:\n%s", screen)
	}

	// A drag over the first line, and Ctrl+C.
	here := d.FindWord(t, "Here", 10*time.Second)
	_, y := here.Center()
	d.Drag(t, here.X-1, y, here.X+500, y)
	d.Key(t, "ctrl+c")
	waitClipboard(t, d, "Here are the cities [1]:")

	// The code block's own Copy.
	cx, cy := d.FindWord(t, "Copy", 10*time.Second).Center()
	d.Click(t, cx, cy)
	waitClipboard(t, d, codeOfRichReply)

	// A link, opened by the system.
	lx, ly := d.FindWord(t, "census", 10*time.Second).Center()
	d.Click(t, lx, ly)
	testenv.WaitUntil(t, 10*time.Second, poll, "xdg-open to be asked to open the census link", func() bool {
		b, _ := os.ReadFile(opened)
		return strings.TrimSpace(string(b)) == "https://parley.example/census"
	})
}

// waitClipboard waits until the clipboard holds exactly want.
func waitClipboard(t *testing.T, d *testenv.Display, want string) {
	t.Helper()
	testenv.Poll(t, 10*time.Second, 100*time.Millisecond, func() error {
		if got := d.Clipboard(t); got != want {
			return fmt.Errorf("the clipboard holds %q, want %q", got, want)
		}
		return nil
	})
}
