package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// A chat call is two write transactions: Reserve takes the price from the
// balance as a pending charge before the model is asked; then Commit posts the
// charge and stores the turn once the reply is in, or Refund refunds the charge
// if the call failed. A crash between them leaves the charge pending, and
// RecoverPending refunds it. The model's context is read before, outside any
// write (ChatContext), so a long conversation never holds the write lock.

// Reservation is a pending charge for one chat call, with the conversation it
// continues.
type Reservation struct {
	CallID       string // unique, "call_" + 32 hex characters
	AccountID    int64
	Price        int64
	BalanceAfter int64         // the balance after the pending charge
	Conversation *Conversation // nil for a new conversation; its MessageCount is not counted
}

// CommitParams is the outcome of a chat call that got its reply.
type CommitParams struct {
	CallID         string
	ConversationID string // "" creates a new conversation; must match Reserve's
	Config         Config // saved on a new conversation only
	UserText       string
	Reply          string
}

// CommitResult is what Commit stored.
type CommitResult struct {
	ConversationID                    string
	UserMessageID                     int64
	AssistantMessageID                int64
	Charged                           int64
	Balance                           int64
	UserCreatedAt, AssistantCreatedAt time.Time
}

// Reserve starts a chat call by the account, continuing conversationID (""
// for a new conversation). In one transaction it checks that the conversation
// exists and belongs to the account (ErrNotFound), that the balance covers the
// price (ErrInsufficientPoints, nothing charged), and records a pending charge
// of the price. A price of 0 is allowed. It returns ErrUnknownKey if the
// account was revoked or deleted since it was authenticated. It reads no
// messages: see ChatContext.
func (s *Store) Reserve(ctx context.Context, accountID int64, conversationID string) (*Reservation, error) {
	r := &Reservation{CallID: "call_" + randomHex(16), AccountID: accountID}
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		// The account, the price and the conversation in one statement.
		var balance int64
		var revoked bool
		var c conversationRow
		err := tx.QueryRowContext(ctx,
			"SELECT a.balance, a.revoked, (SELECT value FROM settings WHERE name = 'price'), "+conversationColumnsUncounted+
				" FROM accounts a LEFT JOIN conversations c ON c.id = ? AND c.account_id = a.id WHERE a.id = ?",
			conversationID, accountID).
			Scan(append([]any{&balance, &revoked, &r.Price}, c.dest()...)...)
		if errors.Is(err, sql.ErrNoRows) || err == nil && revoked {
			return ErrUnknownKey
		}
		if err != nil {
			return err
		}
		if conversationID != "" {
			if !c.id.Valid {
				return ErrNotFound
			}
			conv := c.conversation()
			r.Conversation = &conv
		}
		if balance < r.Price {
			return ErrInsufficientPoints
		}
		r.BalanceAfter = balance - r.Price
		if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = ? WHERE id = ?", r.BalanceAfter, accountID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx,
			`INSERT INTO ledger (account_id, call_id, kind, amount, balance_after, status, conversation_id, pid, instance, created_at)
			 VALUES (?, ?, 'charge', ?, ?, 'pending', ?, ?, ?, ?)`,
			accountID, r.CallID, -r.Price, r.BalanceAfter, conversationID, os.Getpid(), instance, now())
		return err
	})
	if err != nil {
		return nil, wrapUnlessSentinel("reserve", err)
	}
	return r, nil
}

// charge is the pending-or-settled charge of a call.
type charge struct {
	accountID      int64
	price          int64
	status         string
	conversationID string
	balance        int64 // of the account, when the charge was loaded
}

func loadCharge(ctx context.Context, tx *txn, callID string) (charge, error) {
	var c charge
	err := tx.QueryRowContext(ctx,
		`SELECT l.account_id, -l.amount, l.status, l.conversation_id, a.balance
		 FROM ledger l JOIN accounts a ON a.id = l.account_id WHERE l.call_id = ? AND l.kind = 'charge'`, callID).
		Scan(&c.accountID, &c.price, &c.status, &c.conversationID, &c.balance)
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("%w: no call %q", ErrCallSettled, callID)
	}
	if err != nil {
		return c, err
	}
	if c.status != "pending" {
		return c, fmt.Errorf("%w: call %q is %s", ErrCallSettled, callID, c.status)
	}
	return c, nil
}

// Commit ends a chat call that got its reply: in one transaction it posts the
// pending charge and stores the user and assistant messages, creating the
// conversation (titled after the user's text, with p.Config) if
// p.ConversationID is "". It returns ErrCallSettled if the call is not
// pending. If the conversation was deleted meanwhile, it refunds the charge
// instead and returns ErrNotFound with a result whose Balance is the balance
// after that refund.
func (s *Store) Commit(ctx context.Context, p CommitParams) (CommitResult, error) {
	var res CommitResult
	deleted := false
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		c, err := loadCharge(ctx, tx, p.CallID)
		if err != nil {
			return err
		}
		if p.ConversationID != c.conversationID {
			return fmt.Errorf("call %q reserved conversation %q, not %q", p.CallID, c.conversationID, p.ConversationID)
		}
		// The conversation goes to the front of its account's list: after every other one, even
		// when another turn was stored in the same millisecond (ties would fall to the random ID).
		var latest int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(updated_at), 0) FROM conversations WHERE account_id = ?`,
			c.accountID).Scan(&latest); err != nil {
			return err
		}
		at := max(now(), latest+1)
		if p.ConversationID == "" {
			res.ConversationID = "c_" + randomHex(10)
			_, err = tx.ExecContext(ctx,
				`INSERT INTO conversations (id, account_id, persona, temperature, top_p, max_tokens, title, created_at, updated_at)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				res.ConversationID, c.accountID, p.Config.Persona, p.Config.Temperature, p.Config.TopP, p.Config.MaxTokens,
				title(p.UserText), at, at)
		} else {
			res.ConversationID = p.ConversationID
			var r sql.Result
			r, err = tx.ExecContext(ctx,
				`UPDATE conversations SET updated_at = ?, title = CASE title WHEN '' THEN ? ELSE title END
				 WHERE id = ? AND account_id = ?`,
				at, title(p.UserText), p.ConversationID, c.accountID)
			if err == nil {
				var n int64
				if n, err = r.RowsAffected(); err == nil && n == 0 {
					deleted = true
					res.Balance, err = refund(ctx, tx, p.CallID, c, "conversation deleted during the call")
					return err
				}
			}
		}
		if err != nil {
			return err
		}
		if res.UserMessageID, res.AssistantMessageID, err = addTurn(ctx, tx, res.ConversationID, p.UserText, p.Reply, at); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE ledger SET status = 'posted', conversation_id = ? WHERE call_id = ? AND kind = 'charge'", res.ConversationID, p.CallID); err != nil {
			return err
		}
		res.Charged, res.Balance = c.price, c.balance // posting a charge leaves the balance as it is
		res.UserCreatedAt, res.AssistantCreatedAt = fromMillis(at), fromMillis(at)
		return nil
	})
	if err != nil {
		return CommitResult{}, wrapUnlessSentinel("commit", err)
	}
	if deleted {
		return CommitResult{Balance: res.Balance}, ErrNotFound
	}
	return res, nil
}

// addTurn stores the user's message and the assistant's reply, in one
// statement, and returns their IDs. Message IDs come from AUTOINCREMENT under
// the write lock, so the two rows of one statement get consecutive IDs.
func addTurn(ctx context.Context, tx *txn, conversationID, userText, reply string, at int64) (user, assistant int64, err error) {
	r, err := tx.ExecContext(ctx,
		"INSERT INTO messages (conversation_id, role, content, created_at) VALUES (?, 'user', ?, ?), (?, 'assistant', ?, ?)",
		conversationID, userText, at, conversationID, reply, at)
	if err != nil {
		return 0, 0, err
	}
	assistant, err = r.LastInsertId()
	return assistant - 1, assistant, err
}

// Refund ends a chat call that failed: it marks the pending charge refunded and
// refunds it with a "refund" ledger entry, returning the balance. It returns
// ErrCallSettled if the call is not pending, so a call is refunded once.
func (s *Store) Refund(ctx context.Context, callID string) (int64, error) {
	var balance int64
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		c, err := loadCharge(ctx, tx, callID)
		if err != nil {
			return err
		}
		balance, err = refund(ctx, tx, callID, c, "")
		return err
	})
	if err != nil {
		return 0, wrapUnlessSentinel("refund", err)
	}
	return balance, nil
}

// StatusRefunded is the ledger status of a charge that was refunded. The
// word stored is "voided", from before the code called it a refund: changing
// it would mean rebuilding the ledger table of every existing database (its
// CHECK constraint names the word, and SQLite cannot alter a constraint), and
// `parley admin ledger` shows it to operators as it is stored.
const StatusRefunded = "voided"

// CallStatus returns the status of a call's charge ("pending", "posted" or
// StatusRefunded) and the current balance of its account, so that a caller whose
// Commit or Refund met ErrCallSettled can tell what happened. A call never
// reserved is ErrCallSettled.
func (s *Store) CallStatus(ctx context.Context, callID string) (status string, balance int64, err error) {
	err = s.queryRow(ctx,
		`SELECT l.status, a.balance FROM ledger l JOIN accounts a ON a.id = l.account_id
		 WHERE l.call_id = ? AND l.kind = 'charge'`, callID).Scan(&status, &balance)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, fmt.Errorf("%w: no call %q", ErrCallSettled, callID)
	}
	if err != nil {
		return "", 0, fmt.Errorf("store: call status: %w", err)
	}
	return status, balance, nil
}

// IsBusy reports whether err is SQLite's "database is locked" (SQLITE_BUSY or
// SQLITE_LOCKED): another connection held a lock for longer than the busy
// timeout. Nothing of the failed call was written, and trying again later
// may succeed.
func IsBusy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	code := e.Code() & 0xff // the primary code of an extended one
	return code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED
}

// refund refunds the pending charge c of callID.
func refund(ctx context.Context, tx *txn, callID string, c charge, note string) (int64, error) {
	if _, err := tx.ExecContext(ctx, "UPDATE ledger SET status = ? WHERE call_id = ? AND kind = 'charge'", StatusRefunded, callID); err != nil {
		return 0, err
	}
	var balance int64
	if err := tx.QueryRowContext(ctx, "SELECT balance FROM accounts WHERE id = ?", c.accountID).Scan(&balance); err != nil {
		return 0, err
	}
	balance += c.price
	return balance, addLedger(ctx, tx, c.accountID, callID, "refund", c.price, balance, "", note)
}

// RecoverPending refunds every pending charge older than olderThan and returns
// how many it refunded; RecoverPending(ctx, 0) refunds them all. Only the owner of
// the data directory calls it, once it holds the directory's lock (parley serve,
// or the app's built-in service, when it starts): Open never recovers, so a
// `parley admin` beside a running service leaves its live calls alone.
func (s *Store) RecoverPending(ctx context.Context, olderThan time.Duration) (int, error) {
	return s.recoverPending(ctx, olderThan, "")
}

// recoverPending refunds pending charges older than olderThan whose instance (the
// random token of the process that reserved them) is not skipInstance.
func (s *Store) recoverPending(ctx context.Context, olderThan time.Duration, skipInstance string) (int, error) {
	n := 0
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		rows, err := tx.QueryContext(ctx,
			`SELECT call_id, account_id, -amount, status, conversation_id FROM ledger
			 WHERE status = 'pending' AND created_at <= ? AND COALESCE(instance, '') <> ?`,
			now()-olderThan.Milliseconds(), skipInstance)
		if err != nil {
			return err
		}
		var calls []string
		var charges []charge
		for rows.Next() {
			var id string
			var c charge
			if err := rows.Scan(&id, &c.accountID, &c.price, &c.status, &c.conversationID); err != nil {
				rows.Close()
				return err
			}
			calls, charges = append(calls, id), append(charges, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i, id := range calls {
			if _, err := refund(ctx, tx, id, charges[i], "recovered after a crash"); err != nil {
				return err
			}
		}
		n = len(calls)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: recover pending charges: %w", err)
	}
	return n, nil
}

// wrapUnlessSentinel adds what was being done to an unexpected error and
// leaves the errors callers match on (already descriptive) as they are.
func wrapUnlessSentinel(op string, err error) error {
	for _, sentinel := range []error{ErrNotFound, ErrUnknownKey, ErrInsufficientPoints, ErrCallSettled, ErrBadCursor, ErrClosed} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	return fmt.Errorf("store: %s: %w", op, err)
}
