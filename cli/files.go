package cli

import (
	"errors"
	"os"
	"path/filepath"
)

// writeFileAtomic writes data to path with permissions perm through a temporary file in the same
// directory, so a reader never sees half a file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return writeError(path, err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return writeError(path, err)
	}
	if err := tmp.Close(); err != nil {
		return writeError(path, err)
	}
	if err := os.Chmod(tmp.Name(), perm); err != nil {
		return writeError(path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return writeError(path, err)
	}
	return nil
}

// writeError says that path could not be written, and why, without the system call's name.
func writeError(path string, err error) error {
	reason := err
	var pe *os.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		reason = pe.Err
	case errors.As(err, &le):
		reason = le.Err
	}
	return phrased(err, "Cannot write %s: %s.", elastic(path), clippable(reason.Error()))
}
