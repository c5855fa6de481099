package instance

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive lock on f without waiting; the system drops it when the process
// ends, however it ends.
func tryLock(f *os.File) (bool, error) {
	// The locked byte lies far past the process number written at the start, which others read.
	ol := &windows.Overlapped{OffsetHigh: 1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return false, nil
	}
	return false, err
}

// ownedPrivateDir is not used on Windows (the instance listens on loopback TCP).
func ownedPrivateDir(string) error { return nil }

var procAllowSetForegroundWindow = windows.NewLazySystemDLL("user32.dll").NewProc("AllowSetForegroundWindow")

// allowForeground lets the running instance (pid) bring its window to the front: Windows lets
// only the program the person just started do that, and passes the right on only when asked.
func allowForeground(pid int) {
	if pid <= 0 {
		return // unknown: the right is not given to just any process
	}
	procAllowSetForegroundWindow.Call(uintptr(pid))
}
