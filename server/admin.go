package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"parley/server/store"
)

// Admin is the reference service's back office: API keys, points and the price of a chat call,
// in the database of one data directory. It may run while the service runs on the same
// directory. Each method opens the database for its own work and closes it; only CreateKey and
// SetPrice create a database that does not exist yet.
type Admin struct {
	// DataDir is the directory holding parley.db, as in ServeOptions.Data.
	DataDir string
}

// ErrNoSuchKey means the API key given to an Admin method has no account.
var ErrNoSuchKey = errors.New("no such key")

// ErrBadPoints means a count of points is out of range: negative, or zero where a grant needs
// a positive number.
var ErrBadPoints = errors.New("points out of range")

// MaxPoints is the most points an account may hold: 2^53 − 1, the largest whole number that
// every JSON client (JavaScript's included) reads exactly.
const MaxPoints = 1<<53 - 1

// ErrTooManyPoints means a key would hold more than MaxPoints.
var ErrTooManyPoints = fmt.Errorf("the balance would be more than %d points, the most an account may hold", int64(MaxPoints))

// NoDatabaseError means the data directory holds no database for an operation that only reads
// or changes existing keys.
type NoDatabaseError struct{ Dir string }

func (e *NoDatabaseError) Error() string {
	return fmt.Sprintf("there is no Parley database in %s", e.Dir)
}

// open opens the database; with create it makes the directory and the database if needed.
func (a Admin) open(ctx context.Context, create bool) (*store.Store, error) {
	path := filepath.Join(a.DataDir, "parley.db")
	if create {
		if err := os.MkdirAll(a.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("cannot create the data directory: %w", err)
		}
	} else if _, err := os.Stat(path); err != nil {
		return nil, &NoDatabaseError{Dir: a.DataDir}
	}
	return store.Open(ctx, path)
}

// keyError turns the store's "no account" errors into ErrNoSuchKey.
func keyError(err error) error {
	if errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrUnknownKey) {
		return ErrNoSuchKey
	}
	return err
}

// Account is the number of the account key belongs to, revoked or not: ErrNoSuchKey when
// there is none, a *NoDatabaseError when there is no database (none is created to find out).
func (a Admin) Account(ctx context.Context, key string) (int64, error) {
	acct, err := a.account(ctx, key)
	return acct.ID, err
}

// account reads the account key belongs to, revoked or not, from an existing database.
func (a Admin) account(ctx context.Context, key string) (store.Account, error) {
	st, err := a.open(ctx, false)
	if err != nil {
		return store.Account{}, err
	}
	defer st.Close()
	acct, err := st.AccountByKey(ctx, key)
	if err != nil {
		return store.Account{}, keyError(err)
	}
	return acct, nil
}

// CreateKey creates an API key whose account holds points (0 or more) and returns the key and
// the balance. The key is returned only here: the database keeps only its hash.
func (a Admin) CreateKey(ctx context.Context, points int64) (key string, balance int64, err error) {
	if points < 0 {
		return "", 0, ErrBadPoints
	}
	if points > MaxPoints {
		return "", 0, ErrTooManyPoints
	}
	st, err := a.open(ctx, true)
	if err != nil {
		return "", 0, err
	}
	defer st.Close()
	key, acct, err := st.CreateKey(ctx, points)
	if err != nil {
		return "", 0, err
	}
	return key, acct.Balance, nil
}

// RevokeKey makes a key unusable: calls with it get 401. Its account and ledger are kept.
func (a Admin) RevokeKey(ctx context.Context, key string) error {
	st, err := a.open(ctx, false)
	if err != nil {
		return err
	}
	defer st.Close()
	return keyError(st.RevokeKey(ctx, key))
}

// Grant adds points (more than 0) to a key's balance and returns the new balance; a balance
// past MaxPoints is ErrTooManyPoints, and nothing is granted.
func (a Admin) Grant(ctx context.Context, key string, points int64) (balance int64, err error) {
	if points <= 0 {
		return 0, ErrBadPoints
	}
	if points > MaxPoints {
		return 0, ErrTooManyPoints
	}
	st, err := a.open(ctx, false)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	acct, err := st.AccountByKey(ctx, key)
	if err != nil {
		return 0, keyError(err)
	}
	// Checked without a sum that could wrap. A grant racing this one may pass MaxPoints by up
	// to MaxPoints, never int64's range.
	if points > MaxPoints-acct.Balance {
		return 0, ErrTooManyPoints
	}
	balance, err = st.Grant(ctx, key, points, "granted with parley admin")
	if errors.Is(err, store.ErrInsufficientPoints) {
		return 0, ErrTooManyPoints // a positive grant is refused only when the sum wraps
	}
	return balance, keyError(err)
}

// Balance returns a key's balance, revoked or not.
func (a Admin) Balance(ctx context.Context, key string) (int64, error) {
	acct, err := a.account(ctx, key)
	return acct.Balance, err
}

// SetPrice sets the points (0 or more) a chat call costs, from the next call on.
func (a Admin) SetPrice(ctx context.Context, points int64) error {
	if points < 0 {
		return ErrBadPoints
	}
	st, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.SetPrice(ctx, points)
}

// Price returns the points a chat call costs.
func (a Admin) Price(ctx context.Context) (int64, error) {
	st, err := a.open(ctx, false)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return st.Price(ctx)
}

// Ledger returns a key's grants, charges and refunds, oldest first.
func (a Admin) Ledger(ctx context.Context, key string) ([]store.LedgerEntry, error) {
	st, err := a.open(ctx, false)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	acct, err := st.AccountByKey(ctx, key)
	if err != nil {
		return nil, keyError(err)
	}
	return st.Ledger(ctx, acct.ID)
}
