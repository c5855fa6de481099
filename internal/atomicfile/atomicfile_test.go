package atomicfile_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"parley/internal/atomicfile"
)

// entries lists the names in dir.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// onlyFile fails unless dir holds name and nothing else (no temporary file left).
func onlyFile(t *testing.T, dir, name string) {
	t.Helper()
	if got := entries(t, dir); len(got) != 1 || got[0] != name {
		t.Errorf("the folder holds %q, want only %q", got, name)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

func skipModesOnWindows(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows keeps only a read-only flag, not modes")
	}
}

func TestWriteFile_NewFileHoldsTheDataWithTheModeOSWriteFileGives(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "notes.md")
	if err := atomicfile.WriteFile(path, []byte("# Notes\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "# Notes\n" {
		t.Errorf("the file holds %q", got)
	}
	onlyFile(t, dir, "notes.md")
	skipModesOnWindows(t)
	ref := filepath.Join(t.TempDir(), "ref")
	if err := os.WriteFile(ref, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if got, want := mode(t, path), mode(t, ref); got != want {
		t.Errorf("a new file has mode %v, want %v (0640 less the umask, as os.WriteFile gives)", got, want)
	}
}

func TestWriteFile_ReplacesTheFileAndKeepsItsMode(t *testing.T) {
	skipModesOnWindows(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "take.wav")
	if err := os.WriteFile(path, []byte("a longer old content"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o604); err != nil { // a mode no umask gives
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(path, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "new" {
		t.Errorf("the file holds %q, want %q", got, "new")
	}
	if got := mode(t, path); got != 0o604 {
		t.Errorf("the file's mode is %v, want the 0604 it had", got)
	}
	onlyFile(t, dir, "take.wav")
}

func TestWrite_FollowsALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need a privilege on Windows")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "real.md")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("real.md", link); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(link, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, real); got != "new" {
		t.Errorf("the file linked to holds %q, want %q", got, "new")
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", st, err)
	}
}

func TestWritePrivate_GivesOwnerOnlyWhateverWasThere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "instance.addr")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WritePrivate(path, []byte("unix /run/x.sock token\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "unix /run/x.sock token\n" {
		t.Errorf("the file holds %q", got)
	}
	onlyFile(t, dir, "instance.addr")
	skipModesOnWindows(t)
	if got := mode(t, path); got != 0o600 {
		t.Errorf("the file's mode is %v, want 0600", got)
	}
	fresh := filepath.Join(dir, "fresh")
	if err := atomicfile.WritePrivate(fresh, nil); err != nil {
		t.Fatal(err)
	}
	if got := mode(t, fresh); got != 0o600 {
		t.Errorf("a new private file's mode is %v, want 0600", got)
	}
}

// A failed write leaves the old file whole and no temporary file beside it.
func TestWrite_FailureLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conversation.md")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("the disk is full")
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		io.WriteString(w, "half of the n")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("Write = %v, want the writer's error", err)
	}
	if got := readFile(t, path); got != "old" {
		t.Errorf("the file holds %q, want the old %q", got, "old")
	}
	onlyFile(t, dir, "conversation.md")
}

// A rename that fails (the target is a folder) leaves no temporary file.
func TestWriteFile_FailedRenameLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "taken")
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(path, "inside"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := atomicfile.WriteFile(path, []byte("data"), 0o644); err == nil {
		t.Fatal("a file was renamed over a folder")
	}
	if err := atomicfile.WritePrivate(path, []byte("data")); err == nil {
		t.Fatal("a private file was renamed over a folder")
	}
	onlyFile(t, dir, "taken")
}

// A folder that vanishes while the file is written (removed, and made again) fails the write,
// with nothing left in the new folder.
func TestWrite_FolderRemovedWhileWriting(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows does not remove a folder holding an open file")
	}
	dir := filepath.Join(t.TempDir(), "exports")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "out.md")
	err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return err
		}
		_, err := io.WriteString(w, "data")
		return err
	})
	if err == nil {
		t.Fatal("Write succeeded though its temporary file was removed")
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("the folder holds %q, want nothing", got)
	}
}

// A folder Parley may not write in gets no file, and the error says permission.
func TestWriteFile_ReadOnlyFolder(t *testing.T) {
	skipModesOnWindows(t)
	if os.Geteuid() == 0 {
		t.Skip("root writes in a read-only folder")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	err := atomicfile.WriteFile(filepath.Join(dir, "out.md"), []byte("data"), 0o644)
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("WriteFile = %v, want a permission error", err)
	}
	if got := entries(t, dir); len(got) != 0 {
		t.Errorf("the folder holds %q, want nothing", got)
	}
}

// A reader reading while the file is replaced again and again sees one whole version each time.
func TestWriteFile_AReaderNeverSeesHalfAFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	versions := [][]byte{bytes.Repeat([]byte("a"), 64<<10), bytes.Repeat([]byte("b"), 80<<10)}
	if err := atomicfile.WriteFile(path, versions[0], 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Errorf("reading while it is replaced: %v", err)
				return
			}
			if !bytes.Equal(b, versions[0]) && !bytes.Equal(b, versions[1]) {
				t.Errorf("a reader saw %d bytes that are neither version", len(b))
				return
			}
		}
	})
	for i := range 40 {
		if err := atomicfile.WriteFile(path, versions[i%2], 0o644); err != nil {
			t.Error(err)
			break
		}
	}
	close(done)
	wg.Wait()
	onlyFile(t, dir, "config.json")
}
