//go:build !unix && !windows

package server

import "os"

// openLocked opens the file at path without a lock where there is no way to take one: one
// service per data directory is then up to the person who starts it.
func openLocked(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
