package store

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"parley/internal/testenv"
)

// TestWrite_GroupedWritesKeepTheirOwnOutcome queues writes behind one that
// holds the writer, so that they run as one batch, and checks that each keeps
// its own outcome: a failed or panicking write leaves nothing behind, a write
// whose caller gave up before it ran is not run, and the others are committed.
func TestWrite_GroupedWritesKeepTheirOwnOutcome(t *testing.T) {
	s, _ := OpenTemp(t)
	ctx := t.Context()
	insert := func(name string) writeFunc {
		return func(ctx context.Context, tx *txn) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO settings (name, value) VALUES (?, 1)", name)
			return err
		}
	}
	entered, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		first <- s.write(ctx, func(ctx context.Context, tx *txn) error {
			close(entered)
			<-release
			return insert("first")(ctx, tx)
		})
	}()
	<-entered

	gone, leave := context.WithCancel(ctx)
	type outcome struct {
		name string
		err  error
	}
	outcomes := make(chan outcome, 8)
	var wg sync.WaitGroup
	queue := func(name string, wctx context.Context, fn writeFunc) {
		wg.Go(func() { outcomes <- outcome{name, s.write(wctx, fn)} })
	}
	failing := errors.New("refused")
	queue("ok1", ctx, insert("ok1"))
	queue("failed", ctx, func(ctx context.Context, tx *txn) error {
		if err := insert("failed")(ctx, tx); err != nil {
			return err
		}
		return failing
	})
	queue("panicked", ctx, func(ctx context.Context, tx *txn) error {
		insert("panicked")(ctx, tx)
		panic("a bug")
	})
	queue("gone", gone, insert("gone"))
	queue("ok2", ctx, insert("ok2"))
	waitQueued(t, s, 5)
	leave()
	close(release)
	wg.Wait()
	close(outcomes)
	if err := <-first; err != nil {
		t.Fatalf("the first write: %v", err)
	}
	got := map[string]error{}
	for o := range outcomes {
		got[o.name] = o.err
	}
	if got["ok1"] != nil || got["ok2"] != nil || !errors.Is(got["failed"], failing) ||
		got["panicked"] == nil || !errors.Is(got["gone"], context.Canceled) {
		t.Errorf("outcomes %v", got)
	}
	for name, want := range map[string]bool{"first": true, "ok1": true, "ok2": true, "failed": false, "panicked": false, "gone": false} {
		var n int
		if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM settings WHERE name = ?", name).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if (n == 1) != want {
			t.Errorf("row %q stored: %v, want %v", name, n == 1, want)
		}
	}
}

// waitQueued waits until n writes wait in the queue.
func waitQueued(t *testing.T, s *Store, n int) {
	t.Helper()
	testenv.Poll(t, 10*time.Second, time.Millisecond, func() error {
		s.queueMu.Lock()
		queued := len(s.queue)
		s.queueMu.Unlock()
		if queued >= n {
			return nil
		}
		return fmt.Errorf("%d writes queued, want %d", queued, n)
	})
}

// TestWrite_ManyConcurrentWritersAllLand runs many writers at once and
// checks that every acknowledged write is there.
func TestWrite_ManyConcurrentWritersAllLand(t *testing.T) {
	s, _ := OpenTemp(t)
	ctx := t.Context()
	const writers = 300
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Go(func() {
			errs <- s.write(ctx, func(ctx context.Context, tx *txn) error {
				_, err := tx.ExecContext(ctx, "INSERT INTO settings (name, value) VALUES (?, ?)", fmt.Sprint("w", i), i)
				return err
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM settings WHERE name LIKE 'w%'").Scan(&n); err != nil || n != writers {
		t.Errorf("%d rows, %v; want %d", n, err, writers)
	}
}

// TestWrite_AfterCloseIsErrClosed: a closed store refuses writes plainly.
func TestWrite_AfterCloseIsErrClosed(t *testing.T) {
	s, _ := OpenTemp(t)
	s.Close()
	if _, err := s.Reserve(t.Context(), 1, ""); !errors.Is(err, ErrClosed) {
		t.Errorf("Reserve after Close: %v, want ErrClosed", err)
	}
}
