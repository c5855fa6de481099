package cli

import (
	"errors"
	"os"

	"parley/internal/atomicfile"
)

// writeFileAtomic replaces path with data, whole (see atomicfile.WriteFile): a new file gets
// perm less the umask, one that exists keeps its mode. Its error names the file.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	if err := atomicfile.WriteFile(path, data, perm); err != nil {
		return writeError(path, err)
	}
	return nil
}

// writePrivateFile replaces path with data, whole, in a file only its owner may read (see
// atomicfile.WritePrivate). Its error names the file.
func writePrivateFile(path string, data []byte) error {
	if err := atomicfile.WritePrivate(path, data); err != nil {
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
