package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"parley/server/store"
)

// The tests here run copies of the test binary as separate processes sharing
// one database file, the way the service and `parley admin` do.

const helperEnv = "PARLEY_STORE_HELPER"

// TestHelperProcess is not a test: it is the body of the child processes.
// Arguments come in the environment: mode, database path, account ID, calls.
func TestHelperProcess(t *testing.T) {
	args := strings.Split(os.Getenv(helperEnv), ",")
	if len(args) != 4 {
		t.Skip("helper process for the multi-process tests")
	}
	mode, path := args[0], args[1]
	accountID, _ := strconv.ParseInt(args[2], 10, 64)
	calls, _ := strconv.Atoi(args[3])
	ctx := context.Background()
	s, err := store.Open(ctx, path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for range calls {
		r, err := s.Reserve(ctx, accountID, "")
		if errors.Is(err, store.ErrInsufficientPoints) {
			fmt.Println("broke")
			continue
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		res, err := s.Commit(ctx, store.CommitParams{CallID: r.CallID, UserText: "hi", Reply: "hello"})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("ok", res.ConversationID) // acknowledged
	}
	if mode == "crash" {
		r, err := s.Reserve(ctx, accountID, "")
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("reserved", r.CallID)
		select {} // wait to be killed mid-call
	}
	os.Exit(0)
}

// helper starts a child process running TestHelperProcess and returns it with
// its output.
func helper(t *testing.T, mode, path string, accountID int64, calls int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%s,%d,%d", helperEnv, mode, path, accountID, calls))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewScanner(out)
}

func TestReserve_ConcurrentProcessesNeverOverdraw(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s, path := store.OpenTemp(t)
	key, acct, err := s.CreateKey(t.Context(), 5)
	if err != nil {
		t.Fatal(err)
	}
	type child struct {
		cmd *exec.Cmd
		out *bufio.Scanner
	}
	var children []child
	for range 3 {
		cmd, out := helper(t, "calls", path, acct.ID, 7)
		children = append(children, child{cmd, out})
	}
	ok, broke := 0, 0
	for _, c := range children {
		for c.out.Scan() {
			switch line := c.out.Text(); {
			case strings.HasPrefix(line, "ok "):
				ok++
			case line == "broke":
				broke++
			case strings.HasPrefix(line, "PASS"), strings.HasPrefix(line, "ok"):
			default:
				t.Errorf("child: %s", line)
			}
		}
		if err := c.cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	}
	if ok != 5 || broke != 16 {
		t.Errorf("%d calls succeeded and %d ran out of points, want 5 and 16", ok, broke)
	}
	if got := balance(t, s, key); got != 0 {
		t.Errorf("balance = %d, want 0", got)
	}
	verify(t, s)
}

// TestCommit_SurvivesKill checks that a process killed mid-call loses none of
// the turns it had acknowledged and leaves a charge that RecoverPending refunds.
func TestCommit_SurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	s, path := store.OpenTemp(t)
	key, acct, err := s.CreateKey(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	cmd, out := helper(t, "crash", path, acct.ID, 3)
	var acked []string
	for out.Scan() {
		line := out.Text()
		if id, found := strings.CutPrefix(line, "ok "); found {
			acked = append(acked, id)
			continue
		}
		if strings.HasPrefix(line, "reserved ") {
			break
		}
		t.Fatalf("child: %s", line)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()

	if len(acked) != 3 {
		t.Fatalf("child acknowledged %d calls, want 3", len(acked))
	}
	for _, id := range acked {
		if msgs, err := s.Messages(t.Context(), acct.ID, id); err != nil || len(msgs) != 2 {
			t.Errorf("acknowledged conversation %s: %d messages, %v; want 2", id, len(msgs), err)
		}
	}
	if got := balance(t, s, key); got != 6 {
		t.Errorf("balance with the killed call pending = %d, want 6", got)
	}
	if n, err := s.RecoverPending(t.Context(), 0); err != nil || n != 1 {
		t.Errorf("RecoverPending = %d, %v; want 1", n, err)
	}
	if got := balance(t, s, key); got != 7 {
		t.Errorf("balance after recovery = %d, want 7", got)
	}
	verify(t, s)
}
