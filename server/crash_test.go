package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/server/store"
)

// childEnv makes the test binary serve the data directory it names on a
// free loopback port instead of running the tests.
const childEnv = "PARLEY_TEST_SERVE_DATA"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		o := DefaultServeOptions()
		o.Addr, o.Data = "127.0.0.1:0", dir
		err := Serve(ctx, o, os.Stdout, os.Stderr) // the log, for the test to show when it fails
		stop()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is `parley serve` in its own process.
type child struct {
	cmd  *exec.Cmd
	base string
	done chan error
}

var childListenRE = regexp.MustCompile(`listening on (http://\S+) `)

func startChild(t *testing.T, dir string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var log testenv.SyncBuffer
	cmd.Stderr = &log
	c := &child{cmd: cmd, done: make(chan error, 1)}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-c.done
		if t.Failed() {
			t.Logf("the service's log, last lines:\n%s", lastLines(log.String(), 40))
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := childListenRE.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
		io.Copy(io.Discard, out)
		c.done <- cmd.Wait()
	}()
	select {
	case c.base = <-lines:
	case <-time.After(30 * time.Second):
		t.Fatal("the service did not start")
	}
	return c
}

// ack is a chat call the service acknowledged with 200.
type ack struct {
	conv          string
	user, reply   int64
	userText, ans string
}

// TestCrash_KillDuringLoadLosesNothing kills the service with SIGKILL while
// clients chat, several times, and checks after each restart that every
// acknowledged turn is stored, the database is intact and every balance
// equals its ledger; then that a clean start refunds what was pending.
func TestCrash_KillDuringLoadLosesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills the service several times")
	}
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "parley.db")
	st, err := store.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	const initial = 1_000_000
	key, _, err := st.CreateKey(t.Context(), initial)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	var acks []ack
	var mu sync.Mutex
	for round := range 5 {
		c := startChild(t, dir)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				hc := &http.Client{Timeout: 10 * time.Second}
				conv := ""
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					text := fmt.Sprintf("round %d worker %d turn %d", round, w, i)
					a, err := crashChat(hc, c.base, key, conv, text)
					if err != nil {
						continue // the service is being killed
					}
					mu.Lock()
					acks = append(acks, a)
					mu.Unlock()
					conv = a.conv
					if i%5 == 4 {
						conv = ""
					}
				}
			})
		}
		time.Sleep(time.Duration(150+rand.IntN(250)) * time.Millisecond) // let load build before the kill
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-c.done
		c.done <- nil // for the cleanup
		close(stop)
		wg.Wait()
		checkAcks(t, dbPath, key, acks)
	}
	if len(acks) == 0 {
		t.Fatal("no call was acknowledged")
	}

	// A clean start refunds the calls the kills left pending.
	c := startChild(t, dir)
	c.cmd.Process.Signal(os.Interrupt)
	if err := <-c.done; err != nil {
		t.Fatalf("graceful stop: %v", err)
	}
	c.done <- nil
	st, err = store.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	acct, _ := st.AccountByKey(t.Context(), key)
	entries, err := st.Ledger(t.Context(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	posted := 0
	for _, e := range entries {
		if e.Status == "pending" {
			t.Errorf("charge %s still pending after a restart", e.CallID)
		}
		if e.Kind == "charge" && e.Status == "posted" {
			posted++
		}
	}
	if posted < len(acks) || acct.Balance != initial-int64(posted) {
		t.Errorf("%d acknowledged, %d posted charges, balance %d", len(acks), posted, acct.Balance)
	}
	t.Logf("%d calls acknowledged over 5 kills, %d charges posted", len(acks), posted)
}

// checkAcks opens the database as a restarted service would and checks it.
func checkAcks(t *testing.T, dbPath, key string, acks []ack) {
	t.Helper()
	st, err := store.Open(t.Context(), dbPath)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer st.Close()
	if err := st.Verify(t.Context()); err != nil {
		t.Fatalf("after kill: %v", err)
	}
	acct, err := st.AccountByKey(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	byConv := map[string][]store.Message{}
	for _, a := range acks {
		msgs, ok := byConv[a.conv]
		if !ok {
			if msgs, err = st.Messages(t.Context(), acct.ID, a.conv); err != nil {
				t.Fatalf("acknowledged conversation %s: %v", a.conv, err)
			}
			byConv[a.conv] = msgs
		}
		found := 0
		for _, m := range msgs {
			if m.ID == a.user && m.Content == a.userText || m.ID == a.reply && m.Content == a.ans {
				found++
			}
		}
		if found != 2 {
			t.Errorf("acknowledged turn %q in %s is lost", a.userText, a.conv)
		}
	}
}

// crashChat sends one chat turn; an error means it was not acknowledged.
func crashChat(hc *http.Client, base, key, conv, text string) (ack, error) {
	body := fmt.Sprintf(`{"message": %q}`, text)
	if conv != "" {
		body = fmt.Sprintf(`{"message": %q, "conversation_id": %q}`, text, conv)
	}
	req, _ := http.NewRequest("POST", base+"/v1/chat/messages", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return ack{}, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		return ack{}, fmt.Errorf("status %d: %v", resp.StatusCode, err)
	}
	f, e := parseObject(raw)
	if e != nil {
		return ack{}, e
	}
	var out struct {
		ConversationID     string `json:"conversation_id"`
		Reply              string `json:"reply"`
		UserMessageID      int64  `json:"user_message_id"`
		AssistantMessageID int64  `json:"assistant_message_id"`
	}
	if err := json.Unmarshal(f["data"], &out); err != nil {
		return ack{}, err
	}
	return ack{conv: out.ConversationID, user: out.UserMessageID, reply: out.AssistantMessageID, userText: text, ans: out.Reply}, nil
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
