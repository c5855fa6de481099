// Package store is the SQLite storage of the reference Chat and Voice Service:
// API keys and their accounts, the points ledger, the price, and conversations
// with their messages.
//
// Several processes (the service and `parley admin`) may open the same file at
// once. The database runs in WAL mode with synchronous=FULL, so a transaction
// that returned is on disk; every write is one BEGIN IMMEDIATE transaction, so
// writers queue (up to busy_timeout, 10 s) instead of failing half-way.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Errors the callers match with errors.Is.
var (
	// ErrNotFound reports a conversation that is missing or owned by another
	// account, or an unknown key in the admin calls.
	ErrNotFound = errors.New("store: not found")
	// ErrUnknownKey reports an API key that is unknown or revoked.
	ErrUnknownKey = errors.New("store: unknown or revoked API key")
	// ErrInsufficientPoints reports a balance below the price of a call, or a
	// grant that would make a balance negative.
	ErrInsufficientPoints = errors.New("store: insufficient points")
	// ErrCallSettled reports a Commit or Void of a call that is not pending:
	// already committed, already voided, or never reserved.
	ErrCallSettled = errors.New("store: call already settled")
	// ErrBadCursor reports a paging cursor this store did not hand out.
	ErrBadCursor = errors.New("store: bad cursor")
)

// busyTimeout is how long a statement waits for another connection's lock.
const busyTimeout = 10 * time.Second

// crashedAfter is how old a pending charge of another process must be before
// Open voids it as left behind by a crash. It is well past the service's longest chat
// timeout (120 s by default), so an admin run never refunds a call still in flight.
const crashedAfter = 15 * time.Minute

// instance identifies this process in the pending charges it reserves, so that
// Open in another process (say `parley admin`) leaves live calls alone.
var instance = randomHex(8)

// Store is an open database. It is safe for concurrent use.
type Store struct {
	db *sql.DB
	// writeMu queues this process's writers in Go rather than in SQLite's
	// busy handler, which polls; other processes still queue on the file lock.
	writeMu sync.Mutex
}

// Open opens (creating if needed, with parent directories 0700) the database
// file at path, applies migrations, and voids pending charges left behind by
// another process for longer than two minutes (see RecoverPending).
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("store: resolve %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("store: create directory for %s: %w", abs, err)
	}
	// Create the file ourselves so it is private; SQLite gives the -wal and
	// -shm files the same mode.
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: create %s: %w", abs, err)
	}
	f.Close()

	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	s := &Store{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: migrate %s: %w", abs, err)
	}
	if _, err := s.recoverPending(ctx, crashedAfter, instance); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: recover pending charges in %s: %w", abs, err)
	}
	return s, nil
}

// dsn is the modernc.org/sqlite data source name for the file at abs. Every
// connection gets the pragmas; _txlock=immediate makes BeginTx (when not
// read-only) issue BEGIN IMMEDIATE.
func dsn(abs string) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(abs))
	if !strings.HasPrefix(escaped, "/") {
		escaped = "/" + escaped // Windows: file:/C:/...
	}
	return "file:" + escaped +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(FULL)" +
		"&_txlock=immediate"
}

// Close closes the database.
func (s *Store) Close() error {
	return s.db.Close()
}

// migrate applies the migrations the file has not seen, each in its own
// transaction, re-reading the version inside it so two processes opening a
// fresh file at once apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	for {
		done := false
		err := s.write(ctx, func(tx *sql.Tx) error {
			var version int
			if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
				return err
			}
			if version > len(migrations) {
				return fmt.Errorf("database schema version %d is newer than this program's %d", version, len(migrations))
			}
			if version == len(migrations) {
				done = true
				return nil
			}
			if _, err := tx.ExecContext(ctx, migrations[version]); err != nil {
				return fmt.Errorf("migration %d: %w", version+1, err)
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version+1))
			return err
		})
		if err != nil || done {
			return err
		}
	}
}

// write runs fn in one BEGIN IMMEDIATE transaction and commits it if fn
// returns nil.
func (s *Store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// read runs fn in one read transaction, so it sees a single snapshot.
func (s *Store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// randomHex returns n random bytes as 2n lowercase hex characters.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return an error)
	return hex.EncodeToString(b)
}

// now is the current time in Unix milliseconds, the unit of every stored time.
func now() int64 {
	return time.Now().UnixMilli()
}

// fromMillis turns a stored time back into a UTC time.Time.
func fromMillis(ms int64) time.Time {
	return time.UnixMilli(ms).UTC()
}
