package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
)

// longModel is a stand-in that writes as a 3B model does on a laptop's CPU: 150 words at 20 a
// second, the first after 300 ms (7.8 s in all), for a question that says "long".
func longModel(t *testing.T) *standIn {
	return startStandIn(t, standInSettings{Addr: "127.0.0.1:0", LongOn: "long", LongTokens: 150,
		FirstToken: 300 * time.Millisecond, TokensPerSecond: 20})
}

// ended counts the stand-in's streams that finished and that were given up.
func (si *standIn) ended(t *testing.T) (finished, stopped int) {
	for _, r := range si.requests(t) {
		switch r.Path {
		case "finished":
			finished++
		case "stopped":
			stopped++
		}
	}
	return finished, stopped
}

// apiGet reads a GET answer's data with key.
func apiGet(t *testing.T, url, key string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data map[string]any `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return out.Data
}

// lastReply is the last message of the service's newest conversation.
func lastReply(t *testing.T, base, key string) string {
	t.Helper()
	convs := apiGet(t, base+"/v1/chat/conversations", key)["conversations"].([]any)
	id := convs[0].(map[string]any)["id"].(string)
	msgs := apiGet(t, base+"/v1/chat/conversations/"+id+"/messages", key)["messages"].([]any)
	return msgs[len(msgs)-1].(map[string]any)["content"].(string)
}

// TestCLI_StreamedReplyOnATerminal: on a terminal, `parley chat` prints the reply of a model that
// writes slowly as it is written (its first sentence shows while the model is still writing),
// and Ctrl-C stops the reply there: exit 130, the words written are the reply, kept and charged
// once, and the model stops writing.
func TestCLI_StreamedReplyOnATerminal(t *testing.T) {
	si := longModel(t)
	s := startService(t, "--llm-url", si.url, "--llm-model", standInModel)
	key := s.newKey(t, 10)
	h := newCLIHome(t, "PARLEY_BASE_URL="+s.url, "PARLEY_API_KEY="+key)

	term := testenv.OpenTerminal(t)
	cmd := h.command("chat", "tell me something long")
	cmd.Stdout, cmd.Stderr = term.TTY, term.TTY
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	term.WaitFor(t, "word8.")
	if finished, _ := si.ended(t); finished != 0 || strings.Contains(term.Shown(), "Done.") {
		t.Fatalf("the first sentence showed only once the model had finished: %q", term.Shown())
	}
	if code := waitCLIExit(t, cmd, 30*time.Second); code != 0 {
		t.Fatalf("exit %d: %q", code, term.Shown())
	}
	term.WaitFor(t, "Done.")
	term.WaitFor(t, "charged 1, balance 9")

	// Ctrl-C in the middle of the next reply.
	term2 := testenv.OpenTerminal(t)
	cmd = h.command("chat", "another long one")
	cmd.Stdout, cmd.Stderr = term2.TTY, term2.TTY
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	term2.WaitFor(t, "word10 ")
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitCLIExit(t, cmd, 10*time.Second); code != 130 {
		t.Errorf("Ctrl-C during the reply: exit %d, want 130", code)
	}
	term2.WaitFor(t, "Stopped: the reply is what the model wrote until then")
	term2.WaitFor(t, "charged 1, balance 8")
	reply := lastReply(t, s.url, key)
	if !strings.HasPrefix(reply, "Word1 word2") || strings.Contains(reply, "Done.") || !strings.Contains(term2.Shown(), reply) {
		t.Errorf("the stored reply %q; the terminal showed %q", reply, term2.Shown())
	}
	testenv.WaitUntil(t, 10*time.Second, 50*time.Millisecond, "the model to be told to stop", func() bool {
		_, stopped := si.ended(t)
		return stopped == 1
	})
	if b := apiGet(t, s.url+"/v1/account", key)["balance"]; b != float64(8) {
		t.Errorf("balance %v, want 8: each reply charged once", b)
	}
}

// TestCLI_PipedReplyIsWhole: piped, `parley chat` prints the whole reply at once, as before.
func TestCLI_PipedReplyIsWhole(t *testing.T) {
	si := startStandIn(t, standInSettings{Addr: "127.0.0.1:0", LongOn: "long", LongTokens: 20,
		FirstToken: 100 * time.Millisecond, TokensPerSecond: 50})
	s := startService(t, "--llm-url", si.url, "--llm-model", standInModel)
	key := s.newKey(t, 10)
	h := newCLIHome(t, "PARLEY_BASE_URL="+s.url, "PARLEY_API_KEY="+key)
	r := h.run(t, "", "chat", "a long one please")
	if r.Code != 0 || !strings.HasSuffix(strings.TrimSpace(r.Stdout), "Done.") || !strings.HasPrefix(r.Stdout, "Word1 ") {
		t.Fatalf("%s", r)
	}
	for _, c := range si.chats(t) {
		if c.Stream {
			t.Error("a piped chat asked the model to stream")
		}
	}
}
