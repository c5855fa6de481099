package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFileName names the file in the data directory that `parley serve` holds locked while it
// runs; it also holds that process's PID.
const lockFileName = "parley.lock"

// DataDirLockedError means another `parley serve` runs on the data directory: only one may,
// because a service refunds the pending charges it finds when it starts. PID is that process's,
// 0 when it could not be read.
type DataDirLockedError struct {
	Dir string
	PID int
}

func (e *DataDirLockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("the data directory %s is in use by another parley serve (PID %d)", e.Dir, e.PID)
	}
	return fmt.Sprintf("the data directory %s is in use by another parley serve", e.Dir)
}

// errLocked is what lockFile returns when another process holds the lock.
var errLocked = errors.New("locked by another process")

// lockDataDir takes the exclusive lock of the data directory dir, which must exist, and writes
// this process's PID into the lock file. It fails at once with a *DataDirLockedError if another
// process holds it. The lock lasts until unlock is called or the process ends, however it ends.
func lockDataDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, lockFileName)
	f, err := openLocked(path)
	if errors.Is(err, errLocked) {
		return nil, &DataDirLockedError{Dir: dir, PID: lockHolder(path)}
	}
	if err != nil {
		return nil, fmt.Errorf("cannot lock the data directory %s: %w", dir, err)
	}
	// The PID is for the message another process shows; the lock is what counts.
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// lockHolder reads the PID in the lock file; 0 if there is none.
func lockHolder(path string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
