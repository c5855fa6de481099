package store

import (
	"database/sql"
	"strings"
	"testing"
	"time"
)

// TestWrite_TakesTheWriteLockAtBegin checks that _txlock=immediate makes
// BeginTx issue BEGIN IMMEDIATE: while a write transaction that has run no
// statement is open, another connection cannot start one.
func TestWrite_TakesTheWriteLockAtBegin(t *testing.T) {
	s, path := OpenTemp(t)
	ctx := t.Context()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	other, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err == nil {
		conn.ExecContext(ctx, "ROLLBACK")
		t.Fatal("another connection began a write transaction while ours was open: BeginTx is not BEGIN IMMEDIATE")
	} else if !strings.Contains(err.Error(), "SQLITE_BUSY") && !strings.Contains(err.Error(), "locked") {
		t.Fatalf("BEGIN IMMEDIATE on the other connection: %v, want SQLITE_BUSY", err)
	}
}

func TestOpen_Pragmas(t *testing.T) {
	s, _ := OpenTemp(t)
	ctx := t.Context()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for pragma, want := range map[string]string{
		"journal_mode": "wal",
		"busy_timeout": "10000",
		"foreign_keys": "1",
		"synchronous":  "2", // FULL
		"user_version": "1",
	} {
		var got string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestOpen_RefusesANewerSchema(t *testing.T) {
	s, path := OpenTemp(t)
	if _, err := s.db.ExecContext(t.Context(), "PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	if s2, err := Open(t.Context(), path); err == nil {
		s2.Close()
		t.Fatal("Open accepted a database from a newer program")
	}
}

// TestOpen_LeavesPendingChargesToTheOwner checks that opening the database (as
// `parley admin` does beside a running service) refunds nothing, however old a
// pending charge is: only the owner of the data directory recovers.
func TestOpen_LeavesPendingChargesToTheOwner(t *testing.T) {
	s, path := OpenTemp(t)
	ctx := t.Context()
	_, acct, err := s.CreateKey(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Reserve(ctx, acct.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	old := now() - (24 * time.Hour).Milliseconds()
	if _, err := s.db.ExecContext(ctx, "UPDATE ledger SET instance = 'dead', created_at = ? WHERE call_id = ?", old, r.CallID); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s2.Close()
	status := func() string {
		var st string
		if err := s.db.QueryRowContext(ctx, "SELECT status FROM ledger WHERE call_id = ? AND kind = 'charge'", r.CallID).Scan(&st); err != nil {
			t.Fatal(err)
		}
		return st
	}
	if got := status(); got != "pending" {
		t.Errorf("after another Open the day-old charge is %s, want pending", got)
	}
	if n, err := s.RecoverPending(ctx, 0); err != nil || n != 1 || status() != "voided" {
		t.Errorf("the owner's RecoverPending refunded %d (%v); charge %s", n, err, status())
	}
	if err := s.Verify(ctx); err != nil {
		t.Error(err)
	}
}

func TestVerify_DetectsTampering(t *testing.T) {
	tests := []struct {
		name, tamper, want string
	}{
		{"balance", "UPDATE accounts SET balance = balance + 1", "ledger sums to"},
		{"refund removed", "DELETE FROM ledger WHERE kind = 'refund'", "voided charge with 0 refunds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := OpenTemp(t)
			ctx := t.Context()
			_, acct, err := s.CreateKey(ctx, 5)
			if err != nil {
				t.Fatal(err)
			}
			r, err := s.Reserve(ctx, acct.ID, "")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Refund(ctx, r.CallID); err != nil {
				t.Fatal(err)
			}
			if err := s.Verify(ctx); err != nil {
				t.Fatalf("Verify before tampering: %v", err)
			}
			if _, err := s.db.ExecContext(ctx, tt.tamper); err != nil {
				t.Fatal(err)
			}
			err = s.Verify(ctx)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Verify after tampering = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
}

func TestBalance_CannotGoNegativeEvenByDirectUpdate(t *testing.T) {
	s, _ := OpenTemp(t)
	if _, err := s.db.ExecContext(t.Context(), "INSERT INTO accounts (key_hash, balance, created_at) VALUES ('x', -1, 0)"); err == nil {
		t.Error("the schema accepted a negative balance")
	}
}
