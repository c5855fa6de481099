package store

import (
	"path/filepath"
	"testing"
)

// OpenTemp opens a fresh database in a folder of a temporary directory (Open makes the folder)
// and closes it when the test ends; it returns the database file's path. The store's tests,
// inside the package and outside it, all open their stores with it.
func OpenTemp(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "data", "parley.db")
	s, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}
