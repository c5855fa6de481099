//go:build unix

package server

import (
	"errors"
	"os"
	"syscall"
)

// openLocked opens (creating) the file at path and takes an exclusive flock on it without
// waiting: errLocked if another process holds it. The kernel releases the lock when the file
// is closed or the process ends.
func openLocked(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errLocked
		}
		return nil, err
	}
	return f, nil
}
