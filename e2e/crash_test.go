package e2e

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/server/store"
)

// ack is a chat call the service acknowledged with a 200.
type ack struct {
	conversation string
	message      string
}

// TestCrash_KillNineLosesNothingAcknowledged kills the service with SIGKILL while chats are in
// flight, several times, and checks after each restart that the database is intact, that every
// balance equals its ledger, that no charge is left pending, and that every acknowledged message is
// stored.
func TestCrash_KillNineLosesNothingAcknowledged(t *testing.T) {
	if testing.Short() {
		t.Skip("the kill -9 loop takes a while; run without -short")
	}
	data := t.TempDir()
	s := &service{data: data, home: t.TempDir()}
	key := s.newKey(t, 1_000_000)
	var acked []ack
	const rounds = 6
	for round := 0; round < rounds; round++ {
		addr := freeAddr(t)
		cmd := startRaw(t, s, addr)
		url := "http://" + addr
		ctx, cancel := context.WithCancel(t.Context())
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; ctx.Err() == nil; i++ {
					msg := fmt.Sprintf("round %d worker %d message %d", round, w, i)
					id, err := sendChat(ctx, url, key, "", msg)
					if err == nil {
						mu.Lock()
						acked = append(acked, ack{id, msg})
						mu.Unlock()
					}
				}
			}(w)
		}
		time.Sleep(time.Duration(150+rand.IntN(500)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		cancel()
		wg.Wait()
	}
	if len(acked) < 20 {
		t.Fatalf("only %d chats were acknowledged across %d rounds; the load did not run", len(acked), rounds)
	}

	// A last clean start refunds what the crashes left pending; then check the file itself.
	cmd := startRaw(t, s, freeAddr(t))
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()

	st, err := store.Open(t.Context(), filepath.Join(data, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Verify(t.Context()); err != nil {
		t.Fatalf("after %d kills: %v", rounds, err)
	}
	acct, err := st.AccountByKey(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	ledger, err := st.Ledger(t.Context(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	posted := 0
	for _, e := range ledger {
		switch {
		case e.Kind == "charge" && e.Status == "pending":
			t.Errorf("charge %s is still pending after a clean restart", e.CallID)
		case e.Kind == "charge" && e.Status == "posted":
			posted++
		}
	}
	if posted < len(acked) {
		t.Errorf("%d charges posted but %d calls acknowledged", posted, len(acked))
	}
	if want := int64(1_000_000 - posted); acct.Balance != want {
		t.Errorf("balance %d, want %d (1,000,000 minus %d posted charges at price 1)", acct.Balance, want, posted)
	}
	stored := map[string]map[string]bool{}
	for _, a := range acked {
		if stored[a.conversation] == nil {
			msgs, err := st.Messages(t.Context(), acct.ID, a.conversation)
			if err != nil {
				t.Fatalf("acknowledged conversation %s: %v", a.conversation, err)
			}
			stored[a.conversation] = map[string]bool{}
			for _, m := range msgs {
				stored[a.conversation][m.Content] = true
			}
		}
		if !stored[a.conversation][a.message] {
			t.Errorf("acknowledged message %q is not stored", a.message)
		}
	}
	t.Logf("%d kills, %d acknowledged chats, %d charges posted: all stored, ledger consistent", rounds, len(acked), posted)
}

// startRaw starts `parley serve` for a test that stops it itself, and waits until it answers.
func startRaw(t *testing.T, s *service, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data", s.data)
	cmd.Env = s.env()
	var logs testenv.SyncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	testenv.Poll(t, 30*time.Second, 20*time.Millisecond, func() error {
		resp, err := http.Get("http://" + addr + "/v1/chat/conversations")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		return fmt.Errorf("parley serve did not answer:\n%s", logs.String())
	})
	return cmd
}
