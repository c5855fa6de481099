package speech

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// maxStderr bounds how much of a program's stderr is kept for an error message.
const maxStderr = 4 << 10

// semaphore bounds how many local engine programs run at once.
type semaphore chan struct{}

func newSemaphore() semaphore { return make(semaphore, runtime.NumCPU()) }

// acquire takes a slot, or returns ctx's error once ctx is done.
func (s semaphore) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s semaphore) release() { <-s }

// cappedBuffer keeps the first max bytes written to it and counts the rest.
type cappedBuffer struct {
	buf     bytes.Buffer
	max     int
	dropped int64
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.max - b.buf.Len(); room < len(p) {
		b.dropped += int64(len(p) - max(room, 0))
		p = p[:max(room, 0)]
	}
	b.buf.Write(p)
	return n, nil
}

// exceeded reports whether anything was dropped.
func (b *cappedBuffer) exceeded() bool { return b.dropped > 0 }

// run runs a program (never through a shell) with stdin, bounded by timeout and ctx. It returns
// at most maxOut bytes of stdout; more is an error. Its stderr, bounded, goes in the error.
func run(ctx context.Context, timeout time.Duration, stdin io.Reader, maxOut int, name string, args ...string) ([]byte, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.WaitDelay = 2 * time.Second
	cmd.Stdin = stdin
	stdout := &cappedBuffer{max: maxOut}
	stderr := &cappedBuffer{max: maxStderr}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	err := cmd.Run()
	if err := parent.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s took longer than %v: %w", name, timeout, err)
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return nil, fmt.Errorf("%s: %w: %s", name, err, msg)
	}
	if stdout.exceeded() {
		return nil, fmt.Errorf("%s: output longer than %d bytes", name, maxOut)
	}
	return stdout.buf.Bytes(), nil
}
