//go:build !unix

package atomicfile

// syncDir does nothing where Go offers no way to flush a folder's entries (on Windows, flushing
// needs a handle to the folder opened for writing, which os.Open does not give).
func syncDir(string) {}
