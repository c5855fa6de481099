package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Account is the points balance behind one API key.
type Account struct {
	ID        int64
	Balance   int64
	Revoked   bool
	CreatedAt time.Time
}

// LedgerEntry is one change to an account's balance.
type LedgerEntry struct {
	ID           int64
	CallID       string // "" for grants
	Kind         string // "grant", "charge" or "refund"
	Amount       int64  // signed: grants +, charges -, refunds +
	BalanceAfter int64
	Status       string // charges: "pending", "posted" or StatusRefunded; "" otherwise
	Note         string
	CreatedAt    time.Time
}

// hashKey is what the database keeps of a key: its SHA-256 in hex.
func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// CreateKey creates a new API key ("pk_" and 32 hex characters) and its
// account holding points, recorded as a "grant" ledger entry when points > 0.
// Only the key's hash is stored: the returned key cannot be recovered later.
func (s *Store) CreateKey(ctx context.Context, points int64) (string, Account, error) {
	if points < 0 {
		return "", Account{}, fmt.Errorf("store: create key: negative points %d", points)
	}
	key := "pk_" + randomHex(16)
	acct := Account{Balance: points, CreatedAt: fromMillis(now())}
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		at := acct.CreatedAt.UnixMilli()
		res, err := tx.ExecContext(ctx,
			"INSERT INTO accounts (key_hash, balance, created_at) VALUES (?, ?, ?)",
			hashKey(key), points, at)
		if err != nil {
			return err
		}
		if acct.ID, err = res.LastInsertId(); err != nil {
			return err
		}
		if points == 0 {
			return nil
		}
		_, err = tx.ExecContext(ctx,
			"INSERT INTO ledger (account_id, kind, amount, balance_after, note, created_at) VALUES (?, 'grant', ?, ?, 'new key', ?)",
			acct.ID, points, points, at)
		return err
	})
	if err != nil {
		return "", Account{}, fmt.Errorf("store: create key: %w", err)
	}
	return key, acct, nil
}

// Authenticate returns the account of a key, or ErrUnknownKey if the key is
// unknown or revoked.
func (s *Store) Authenticate(ctx context.Context, key string) (Account, error) {
	acct, err := s.AccountByKey(ctx, key)
	if errors.Is(err, ErrNotFound) || err == nil && acct.Revoked {
		return Account{}, ErrUnknownKey
	}
	return acct, err
}

// AccountByKey returns the account of a key, revoked or not, or ErrNotFound.
func (s *Store) AccountByKey(ctx context.Context, key string) (Account, error) {
	var acct Account
	var created int64
	err := s.queryRow(ctx,
		"SELECT id, balance, revoked, created_at FROM accounts WHERE key_hash = ?", hashKey(key)).
		Scan(&acct.ID, &acct.Balance, &acct.Revoked, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Account{}, ErrNotFound
	}
	if err != nil {
		return Account{}, fmt.Errorf("store: look up key: %w", err)
	}
	acct.CreatedAt = fromMillis(created)
	return acct, nil
}

// RevokeKey makes a key unusable (ErrNotFound if unknown). Its account, ledger
// and conversations are kept.
func (s *Store) RevokeKey(ctx context.Context, key string) error {
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, "UPDATE accounts SET revoked = 1 WHERE key_hash = ?", hashKey(key))
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrNotFound)
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("store: revoke key: %w", err)
	}
	return err
}

// Grant adds points (negative to take some back) to a key's account with a
// "grant" ledger entry and returns the new balance. It returns ErrNotFound for
// an unknown key and ErrInsufficientPoints if the balance would go below zero.
func (s *Store) Grant(ctx context.Context, key string, points int64, note string) (int64, error) {
	var balance int64
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id, balance FROM accounts WHERE key_hash = ?", hashKey(key)).
			Scan(&id, &balance)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if balance+points < 0 {
			return ErrInsufficientPoints
		}
		balance += points
		return addLedger(ctx, tx, id, "", "grant", points, balance, "", note)
	})
	if err != nil && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrInsufficientPoints) {
		return 0, fmt.Errorf("store: grant: %w", err)
	}
	return balance, err
}

// addLedger records a change of amount to an account and sets its balance to
// balanceAfter.
func addLedger(ctx context.Context, tx *txn, accountID int64, callID, kind string, amount, balanceAfter int64, status, note string) error {
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = ? WHERE id = ?", balanceAfter, accountID); err != nil {
		return err
	}
	var call any
	if callID != "" {
		call = callID
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO ledger (account_id, call_id, kind, amount, balance_after, status, note, created_at)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		accountID, call, kind, amount, balanceAfter, status, note, now())
	return err
}

// Ledger returns every entry of an account's ledger, oldest first.
func (s *Store) Ledger(ctx context.Context, accountID int64) ([]LedgerEntry, error) {
	rows, err := s.query(ctx,
		`SELECT id, COALESCE(call_id, ''), kind, amount, balance_after, status, note, created_at
		 FROM ledger WHERE account_id = ? ORDER BY id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("store: ledger: %w", err)
	}
	defer rows.Close()
	var entries []LedgerEntry
	for rows.Next() {
		var e LedgerEntry
		var created int64
		if err := rows.Scan(&e.ID, &e.CallID, &e.Kind, &e.Amount, &e.BalanceAfter, &e.Status, &e.Note, &created); err != nil {
			return nil, fmt.Errorf("store: ledger: %w", err)
		}
		e.CreatedAt = fromMillis(created)
		entries = append(entries, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: ledger: %w", err)
	}
	return entries, nil
}

// KeyCount returns the number of keys that are not revoked.
func (s *Store) KeyCount(ctx context.Context) (int, error) {
	var n int
	if err := s.queryRow(ctx, "SELECT COUNT(*) FROM accounts WHERE revoked = 0").Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count keys: %w", err)
	}
	return n, nil
}

// Price returns the points charged for each successful chat call.
func (s *Store) Price(ctx context.Context) (int64, error) {
	price, err := price(ctx, s.db)
	if err != nil {
		return 0, fmt.Errorf("store: price: %w", err)
	}
	return price, nil
}

// SetPrice sets the points charged for each successful chat call (>= 0).
func (s *Store) SetPrice(ctx context.Context, points int64) error {
	if points < 0 {
		return fmt.Errorf("store: set price: negative price %d", points)
	}
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		_, err := tx.ExecContext(ctx, "UPDATE settings SET value = ? WHERE name = 'price'", points)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: set price: %w", err)
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func price(ctx context.Context, q querier) (int64, error) {
	var p int64
	err := q.QueryRowContext(ctx, "SELECT value FROM settings WHERE name = 'price'").Scan(&p)
	return p, err
}
