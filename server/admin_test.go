package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/server/store"
)

func TestAdmin_KeyLifecycle(t *testing.T) {
	ctx := t.Context()
	a := Admin{DataDir: filepath.Join(t.TempDir(), "new")} // created by the first CreateKey
	key, balance, err := a.CreateKey(ctx, 50)
	if err != nil || balance != 50 {
		t.Fatalf("CreateKey: %q %d %v", key, balance, err)
	}
	if !strings.HasPrefix(key, "pk_") || strings.Contains(key, " ") {
		t.Fatalf("key %q is not a key alone", key)
	}
	if b, err := a.Balance(ctx, key); err != nil || b != 50 {
		t.Errorf("Balance: %d %v", b, err)
	}
	if b, err := a.Grant(ctx, key, 10); err != nil || b != 60 {
		t.Errorf("Grant: %d %v", b, err)
	}
	if b, err := a.Grant(ctx, key, 5); err != nil || b != 65 {
		t.Errorf("second Grant: %d %v", b, err)
	}
	if b, _ := a.Balance(ctx, key); b != 65 {
		t.Errorf("balance after grants %d", b)
	}
	if err := a.SetPrice(ctx, 3); err != nil {
		t.Error("SetPrice", err)
	}
	if p, err := a.Price(ctx); err != nil || p != 3 {
		t.Errorf("Price: %d %v", p, err)
	}

	// A chat call through the service on the same database.
	st, err := store.Open(ctx, filepath.Join(a.DataDir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := st.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.Reserve(ctx, acct.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refund(ctx, res.CallID); err != nil {
		t.Fatal(err)
	}
	st.Close()

	entries, err := a.Ledger(ctx, key)
	if err != nil {
		t.Fatalf("Ledger: %v", err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, fmt.Sprintf("%s %+d %d %s %s", e.Kind, e.Amount, e.BalanceAfter, e.Status, e.CallID))
	}
	want := []string{"grant +50 50  ", "grant +10 60  ", "grant +5 65  ",
		"charge -3 62 voided " + res.CallID, "refund +3 65  " + res.CallID}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ledger:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := a.RevokeKey(ctx, key); err != nil {
		t.Error("RevokeKey", err)
	}
	if b, err := a.Balance(ctx, key); err != nil || b != 65 {
		t.Errorf("balance of a revoked key: %d %v", b, err)
	}
}

func TestAdmin_Errors(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	a := Admin{DataDir: dir}

	// Reading commands do not create a database.
	var nd *NoDatabaseError
	if _, err := a.Price(ctx); !errors.As(err, &nd) || nd.Dir != dir {
		t.Errorf("Price without a database: %v, want a NoDatabaseError for %s", err, dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "parley.db")); err == nil {
		t.Error("Price created a database")
	}
	absent := Admin{DataDir: filepath.Join(dir, "absent")}
	if _, err := absent.Balance(ctx, "k"); !errors.As(err, &nd) || !strings.Contains(err.Error(), "no Parley database") {
		t.Errorf("missing data dir: %v", err)
	}

	if _, _, err := a.CreateKey(ctx, 1); err != nil {
		t.Fatal("CreateKey", err)
	}
	for name, err := range map[string]error{
		"Balance":   second(a.Balance(ctx, "pk_nope")),
		"Grant":     second(a.Grant(ctx, "pk_nope", 5)),
		"RevokeKey": a.RevokeKey(ctx, "pk_nope"),
		"Ledger":    second(a.Ledger(ctx, "pk_nope")),
	} {
		if !errors.Is(err, ErrNoSuchKey) || err.Error() != "no such key" {
			t.Errorf("%s of an unknown key: %v, want ErrNoSuchKey", name, err)
		}
	}
	for name, err := range map[string]error{
		"CreateKey -1": third(a.CreateKey(ctx, -1)),
		"Grant 0":      second(a.Grant(ctx, "pk_nope", 0)),
		"Grant -5":     second(a.Grant(ctx, "pk_nope", -5)),
		"SetPrice -1":  a.SetPrice(ctx, -1),
	} {
		if !errors.Is(err, ErrBadPoints) {
			t.Errorf("%s: %v, want ErrBadPoints", name, err)
		}
	}
	if p, _ := a.Price(ctx); p != 1 {
		t.Errorf("price %d after a refused SetPrice, want the default 1", p)
	}
}

// second is the error of a call that returns a value and an error.
func second[T any](_ T, err error) error { return err }

// third is the error of a call that returns two values and an error.
func third[T, U any](_ T, _ U, err error) error { return err }

// Account names the account of a key, revoked or not, and creates no database to find out.
func TestAdmin_Account(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	a := Admin{DataDir: dir}
	var nd *NoDatabaseError
	if _, err := a.Account(t.Context(), "pk_nothing"); !errors.As(err, &nd) {
		t.Fatalf("Account with no database: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Account made the data folder: %v", err)
	}
	first, _, err := a.CreateKey(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	second, _, err := a.CreateKey(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	id1, err1 := a.Account(t.Context(), first)
	id2, err2 := a.Account(t.Context(), second)
	if err1 != nil || err2 != nil || id1 == id2 || id1 <= 0 {
		t.Errorf("Account: %d, %v; %d, %v", id1, err1, id2, err2)
	}
	if err := a.RevokeKey(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	if id, err := a.Account(t.Context(), first); err != nil || id != id1 {
		t.Errorf("a revoked key's account: %d, %v; want %d", id, err, id1)
	}
	if _, err := a.Account(t.Context(), "pk_nothing"); !errors.Is(err, ErrNoSuchKey) {
		t.Errorf("an unknown key: %v", err)
	}
}
