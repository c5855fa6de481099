package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Verify checks the database: SQLite's integrity and foreign key checks, every
// account's balance against the sum of its ledger, and that each refunded
// charge has exactly one refund and no other charge has any.
func (s *Store) Verify(ctx context.Context) error {
	var problems []string
	err := s.read(ctx, func(tx *txn) error {
		integrity, err := column(ctx, tx, "PRAGMA integrity_check")
		if err != nil {
			return err
		}
		if len(integrity) != 1 || integrity[0] != "ok" {
			problems = append(problems, "integrity check: "+strings.Join(integrity, "; "))
		}
		fk, err := column(ctx, tx, "SELECT format('%s row %d', \"table\", rowid) FROM pragma_foreign_key_check")
		if err != nil {
			return err
		}
		for _, p := range fk {
			problems = append(problems, "foreign key check: "+p)
		}
		balances, err := column(ctx, tx, `
			SELECT format('account %d: balance %d but ledger sums to %d', a.id, a.balance, COALESCE(SUM(l.amount), 0))
			FROM accounts a LEFT JOIN ledger l ON l.account_id = a.id
			GROUP BY a.id HAVING a.balance <> COALESCE(SUM(l.amount), 0)`)
		if err != nil {
			return err
		}
		problems = append(problems, balances...)
		refunds, err := column(ctx, tx, `
			SELECT format('call %s: %s charge with %d refunds', c.call_id, c.status, COUNT(r.id))
			FROM ledger c LEFT JOIN ledger r ON r.call_id = c.call_id AND r.kind = 'refund'
			WHERE c.kind = 'charge'
			GROUP BY c.id HAVING COUNT(r.id) <> (c.status = ?)`, StatusRefunded)
		if err != nil {
			return err
		}
		problems = append(problems, refunds...)
		orphans, err := column(ctx, tx, `
			SELECT format('call %s: refund without a charge', r.call_id)
			FROM ledger r LEFT JOIN ledger c ON c.call_id = r.call_id AND c.kind = 'charge'
			WHERE r.kind = 'refund' AND c.id IS NULL`)
		if err != nil {
			return err
		}
		problems = append(problems, orphans...)
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: verify: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("store: verify: %w", errors.New(strings.Join(problems, "; ")))
	}
	return nil
}

// column runs a query returning one text column and collects it.
func column(ctx context.Context, tx *txn, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
