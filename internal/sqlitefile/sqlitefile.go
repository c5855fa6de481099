// Package sqlitefile prepares the file of a SQLite database that only its owner may read, and
// names it for modernc.org/sqlite: the service's store and the app's archive both keep one.
package sqlitefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Create makes the database file at path, and its folder, when missing: the folder 0700 and the
// file 0600, created here so that it is private (SQLite gives its -wal and -shm files the same
// mode). It returns the file's absolute path.
func Create(path string) (abs string, err error) {
	abs, err = filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", fmt.Errorf("create directory for %s: %w", abs, err)
	}
	f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return "", fmt.Errorf("create %s: %w", abs, err)
	}
	f.Close()
	return abs, nil
}

// URI is the modernc.org/sqlite name of the file at abs ("file:/…", its query to be added):
// the characters a URI gives a meaning to are escaped, and a Windows path starts with a slash.
func URI(abs string) string {
	escaped := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(abs))
	if !strings.HasPrefix(escaped, "/") {
		escaped = "/" + escaped // Windows: file:/C:/...
	}
	return "file:" + escaped
}
