//go:build unix

package atomicfile

import "os"

// syncDir flushes dir's entries to the disk, so that a rename in it survives a crash. It is
// done after the rename, which has happened whatever it returns: a failure (a file system that
// cannot flush a folder) is not reported.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	d.Sync()
	d.Close()
}
