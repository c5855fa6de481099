package store

import (
	"context"
	"database/sql"
)

// Statements are prepared once and kept: database/sql keeps a *sql.Stmt
// prepared on each connection that has run it, and the pool keeps the
// connections. Parsing the SQL of every statement anew was a quarter of the
// CPU time of a chat call.

// stmt returns the prepared statement of query, preparing it on first use;
// nil if it cannot be prepared (the caller then runs the query unprepared,
// which reports the error).
func (s *Store) stmt(ctx context.Context, query string) *sql.Stmt {
	if st, ok := s.stmts.Load(query); ok {
		return st.(*sql.Stmt)
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	if prev, loaded := s.stmts.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt)
	}
	return st
}

// queryRow runs a one-row query outside any transaction.
func (s *Store) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st := s.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return s.db.QueryRowContext(ctx, query, args...)
}

// query runs a query outside any transaction.
func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := s.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return s.db.QueryContext(ctx, query, args...)
}

// txn is a transaction that runs its statements prepared (see Store.stmt).
type txn struct {
	tx *sql.Tx
	s  *Store
}

// ExecContext runs a statement in the transaction.
func (t *txn) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := t.s.stmt(ctx, query); st != nil {
		return t.tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return t.tx.ExecContext(ctx, query, args...)
}

// QueryContext runs a query in the transaction.
func (t *txn) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := t.s.stmt(ctx, query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return t.tx.QueryContext(ctx, query, args...)
}

// QueryRowContext runs a one-row query in the transaction.
func (t *txn) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := t.s.stmt(ctx, query); st != nil {
		return t.tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return t.tx.QueryRowContext(ctx, query, args...)
}
