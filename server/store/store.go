// Package store is the SQLite storage of the reference Chat and Voice Service:
// API keys and their accounts, the points ledger, the price, and conversations
// with their messages.
//
// Several processes (the service and `parley admin`) may open the same file at
// once. The database runs in WAL mode with synchronous=FULL, so a write that
// returned is on disk; every write runs in a BEGIN IMMEDIATE transaction, so
// writers queue (up to busy_timeout, 10 s) instead of failing half-way. The
// writes of one process that arrive together share one transaction, each in
// its own savepoint, so one sync of the disk acknowledges many of them.
// Readers never wait for writers (WAL).
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"parley/internal/sqlitefile"
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
	// ErrCallSettled reports a Commit or Refund of a call that is not pending:
	// already committed, already refunded, or never reserved.
	ErrCallSettled = errors.New("store: call already settled")
	// ErrBadCursor reports a paging cursor this store did not hand out.
	ErrBadCursor = errors.New("store: bad cursor")
	// ErrClosed reports a call on a store that is closed (or closing).
	ErrClosed = errors.New("store: closed")
)

// busyTimeout is how long a statement waits for another connection's lock.
const busyTimeout = 10 * time.Second

// Connection pool: enough open connections for the writer and the readers a
// 2-core machine can serve at once, all kept idle between requests (opening a
// connection re-reads the schema). Each holds up to 2 MB of page cache.
const (
	maxOpenConns = 16
	maxIdleConns = 16
)

// maxBatch bounds how many writes share one transaction.
const maxBatch = 128

// instance identifies this process in the pending charges it reserves, for the
// record (and for a recovery that should spare this process's own calls).
var instance = randomHex(8)

// Store is an open database. It is safe for concurrent use.
type Store struct {
	db     *sql.DB
	closed atomic.Bool

	// wconn is the connection every write of this process runs on, so its
	// page cache stays valid from one write to the next (another
	// connection's write would make it read the pages again). Only the
	// writer running a batch replaces it.
	wconn atomic.Pointer[sql.Conn]

	// This process's writes queue here rather than in SQLite's busy handler,
	// which polls; other processes still queue on the file lock. The writer
	// at the head of the queue runs the writes waiting behind it with its own
	// as one transaction (see write).
	queueMu sync.Mutex
	queue   []*writeOp
	leading bool // a writer is running a batch; the others wait to be woken

	stmts sync.Map // query → *sql.Stmt (see stmt)
}

// Open opens (creating if needed, with parent directories 0700) the database
// file at path and applies migrations. It recovers nothing: pending charges are
// the business of the data directory's owner (see RecoverPending).
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	abs, err := sqlitefile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}

	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxIdleConns)
	s := &Store{db: db}
	wconn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", abs, err)
	}
	s.wconn.Store(wconn)
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("store: migrate %s: %w", abs, err)
	}
	return s, nil
}

// dsn is the modernc.org/sqlite data source name for the file at abs. Every
// connection gets the pragmas; _txlock=immediate makes BeginTx (when not
// read-only) issue BEGIN IMMEDIATE.
func dsn(abs string) string {
	return sqlitefile.URI(abs) +
		fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeout.Milliseconds()) +
		"&_pragma=journal_mode(WAL)" +
		"&_pragma=foreign_keys(1)" +
		"&_pragma=synchronous(FULL)" +
		"&_txlock=immediate"
}

// Close closes the database. Calls made after it (or waiting for a write
// when it runs) fail with an error wrapping ErrClosed.
func (s *Store) Close() error {
	s.closed.Store(true)
	s.stmts.Range(func(_, st any) bool {
		st.(*sql.Stmt).Close()
		return true
	})
	s.wconn.Load().Close() // waits for a statement running on it
	return s.db.Close()
}

// migrate applies the migrations the file has not seen, each in its own
// transaction, re-reading the version inside it so two processes opening a
// fresh file at once apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	for {
		done := false
		err := s.write(ctx, func(ctx context.Context, tx *txn) error {
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
			// One-off statements: run unprepared.
			if _, err := tx.tx.ExecContext(ctx, migrations[version]); err != nil {
				return fmt.Errorf("migration %d: %w", version+1, err)
			}
			_, err := tx.tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", version+1))
			return err
		})
		if err != nil || done {
			return err
		}
	}
}

// writeFunc is one write: its statements run in tx, under a context that is
// not cancelled once it has begun (an interrupted statement would roll back
// the writes it shares the transaction with).
type writeFunc func(ctx context.Context, tx *txn) error

// writeOp is a write waiting in the queue.
type writeOp struct {
	ctx  context.Context
	fn   writeFunc
	err  error
	done bool
	wake chan struct{} // the op is done, or its caller is to run the next batch
}

// write runs fn in a BEGIN IMMEDIATE transaction and returns once that
// transaction is committed (on disk: synchronous=FULL), or fn's error once its
// changes are rolled back.
//
// Concurrent writes are committed together: while one transaction commits,
// the writes that arrive queue, and the first of them then runs up to
// maxBatch of them in one transaction, each in its own savepoint so that one
// failing rolls back only its own changes, and commits once. A write whose
// ctx ends before it starts is not run; once started it runs to the end.
func (s *Store) write(ctx context.Context, fn writeFunc) error {
	if s.closed.Load() {
		return ErrClosed
	}
	op := &writeOp{ctx: ctx, fn: fn, wake: make(chan struct{}, 1)}
	s.queueMu.Lock()
	s.queue = append(s.queue, op)
	lead := !s.leading
	s.leading = true
	s.queueMu.Unlock()
	if !lead {
		<-op.wake
		if op.done {
			return s.writeErr(op.err)
		}
	}
	// op is at the head of the queue: run it and those behind it.
	s.queueMu.Lock()
	n := min(len(s.queue), maxBatch)
	batch := s.queue[:n:n]
	s.queue = s.queue[n:]
	s.queueMu.Unlock()

	s.runBatch(batch)
	for _, o := range batch[1:] {
		o.wake <- struct{}{}
	}

	// Hand the queue to its new head, if any.
	s.queueMu.Lock()
	var next *writeOp
	if len(s.queue) > 0 {
		next = s.queue[0]
	} else {
		s.queue, s.leading = nil, false
	}
	s.queueMu.Unlock()
	if next != nil {
		next.wake <- struct{}{}
	}
	return s.writeErr(op.err)
}

// writeErr marks the failure of a write on a closed store.
func (s *Store) writeErr(err error) error {
	if err != nil && s.closed.Load() && !errors.Is(err, ErrClosed) {
		return fmt.Errorf("%w: %w", ErrClosed, err)
	}
	return err
}

// runBatch runs the ops in one transaction and sets each one's outcome.
func (s *Store) runBatch(batch []*writeOp) {
	err := s.runTx(batch)
	for _, o := range batch {
		if o.err == nil {
			o.err = err // the transaction failed: nothing of o was kept
		}
		o.done = true
	}
}

// runTx runs the ops in one transaction; it returns the error that undid the
// whole transaction, and sets each op's own error.
func (s *Store) runTx(batch []*writeOp) error {
	ctx := context.Background()
	wconn := s.wconn.Load()
	sqlTx, err := wconn.BeginTx(ctx, nil)
	if (errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone)) && !s.closed.Load() {
		// The connection broke: take another one.
		wconn.Close()
		if wconn, err = s.db.Conn(ctx); err != nil {
			return err
		}
		s.wconn.Store(wconn)
		sqlTx, err = wconn.BeginTx(ctx, nil)
	}
	if err != nil {
		return err
	}
	tx := &txn{tx: sqlTx, s: s}
	if len(batch) == 1 { // no savepoint needed
		o := batch[0]
		if o.err = o.ctx.Err(); o.err == nil {
			o.err = o.run(tx)
		}
		if o.err != nil {
			sqlTx.Rollback()
			return nil
		}
		return sqlTx.Commit()
	}
	for _, o := range batch {
		if o.err = o.ctx.Err(); o.err != nil {
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT write"); err != nil {
			sqlTx.Rollback()
			return err
		}
		if o.err = o.run(tx); o.err != nil {
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO write"); err != nil {
				sqlTx.Rollback()
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE write"); err != nil {
			sqlTx.Rollback()
			return err
		}
	}
	return sqlTx.Commit()
}

// run calls the op's function; a panic in it is its error, so that the
// writes queued behind it are not left waiting.
func (o *writeOp) run(tx *txn) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("store: write panicked: %v", p)
		}
	}()
	return o.fn(context.WithoutCancel(o.ctx), tx)
}

// read runs fn in one read transaction, so it sees a single snapshot.
func (s *Store) read(ctx context.Context, fn func(tx *txn) error) error {
	tx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(&txn{tx: tx, s: s})
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
