// Package atomicfile replaces a file whole. What is written goes to a temporary file beside the
// target, reaches the disk, and is then renamed over the target (the rename replaces it on
// Windows too), and the folder's entry is flushed where the system allows: a reader, or the
// disk after a crash, holds the old file or the new one, never half of one, and a failure
// leaves the old file as it was and no temporary file behind.
package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Write replaces the file at path with what write writes. A new file gets perm less the umask,
// as os.WriteFile gives it; a file that exists keeps its mode. A link at path is followed: the
// file it points to is replaced, and the link stays.
func Write(path string, perm fs.FileMode, write func(io.Writer) error) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	st, err := os.Stat(path)
	switch {
	case err == nil:
		return replace(path, st.Mode().Perm(), true, write)
	case errors.Is(err, fs.ErrNotExist):
		return replace(path, perm, false, write)
	}
	return err
}

// WriteFile is Write for data held in memory.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return Write(path, perm, writeAll(data))
}

// WritePrivate replaces path with data in a file only its owner may read and write (mode 0600
// where the system has modes), whatever the umask and the mode of the file it replaces, and at
// no moment readable by others. A link at path is replaced, not followed.
func WritePrivate(path string, data []byte) error {
	return replace(path, 0o600, true, writeAll(data))
}

// writeAll is a write func that writes data.
func writeAll(data []byte) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}
}

// replace writes a temporary file beside path through write, gives it mode (exactly, when exact;
// else less the umask), flushes it to the disk and renames it over path.
func replace(path string, mode fs.FileMode, exact bool, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	created := mode
	if exact {
		created = 0o600 // until the data is there; then exactly mode
	}
	f, err := createBeside(dir, filepath.Base(path), created)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if exact {
		if err := f.Chmod(mode); err != nil {
			return err
		}
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// createBeside creates a new file in dir whose name starts with "."+base and ends in a random
// number, with mode perm less the umask.
func createBeside(dir, base string, perm fs.FileMode) (*os.File, error) {
	var err error
	for range 10000 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10))
		var f *os.File
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, err
}
