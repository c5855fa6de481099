package testenv

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BuildParley builds the parley binary into a new temporary directory, for a TestMain that runs
// the binary the way a person would; cleanup removes the directory.
func BuildParley() (bin string, cleanup func(), err error) {
	dir, err := os.MkdirTemp("", "parley-bin-")
	if err != nil {
		return "", nil, err
	}
	bin = filepath.Join(dir, "parley")
	build := exec.Command("go", "build", "-o", bin, "parley")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building parley: %w", err)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// Result is what one run of a program printed and how it exited.
type Result struct {
	Stdout, Stderr string
	Code           int
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
}

// Cmd says how Run starts a program.
type Cmd struct {
	Bin     string
	Env     []string
	Dir     string        // working directory; "" for the test's own
	Stdin   string        // what the program reads on standard input
	Timeout time.Duration // after which the program is killed; 0 means two minutes
}

// Run runs c.Bin with args and returns what it printed and its exit code; it fails the test if
// the program could not be started at all.
func Run(t testing.TB, c Cmd, args ...string) Result {
	t.Helper()
	if c.Timeout == 0 {
		c.Timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(t.Context(), c.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Bin, args...)
	cmd.Env, cmd.Dir = c.Env, c.Dir
	cmd.Stdin = strings.NewReader(c.Stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := Result{Stdout: out.String(), Stderr: errb.String()}
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("running %s %v: %v", filepath.Base(c.Bin), args, err)
		}
		r.Code = ee.ExitCode()
	}
	return r
}

// AssertSecretInNoFile fails the test if any file under dirs holds secret in plaintext.
func AssertSecretInNoFile(t testing.TB, secret string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(secret)) {
				t.Errorf("the API key is stored in plaintext in %s", path)
			}
			return nil
		})
	}
}
