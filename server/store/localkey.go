package store

import (
	"context"
	"errors"
	"fmt"
)

// ReplaceKey gives an account a new key and returns it; the old key stops working. The app's
// built-in service uses it to reach the same account on every start without keeping a key
// anywhere. It returns ErrNotFound for an unknown or revoked account.
func (s *Store) ReplaceKey(ctx context.Context, accountID int64) (string, error) {
	key := "pk_" + randomHex(16)
	err := s.write(ctx, func(ctx context.Context, tx *txn) error {
		res, err := tx.ExecContext(ctx, "UPDATE accounts SET key_hash = ? WHERE id = ? AND revoked = 0", hashKey(key), accountID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, ErrNotFound)
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("store: replace key: %w", err)
	}
	return key, err
}
