//go:build linux

package cli

import (
	"context"
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"

	"parley/keystore"
)

// hiddenLine reads one line from the terminal f without echo, as term.ReadPassword does, but
// gives up at once when ctx ends (Ctrl-C): term.ReadPassword would wait for Enter. Echo is
// turned off and back on here, not in the goroutine that reads, so that a read still waiting
// when ctx ends cannot turn it off again; that read ends with the process.
func hiddenLine(ctx context.Context, f *os.File) ([]byte, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON | unix.ISIG
	quiet.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return nil, err
	}
	defer unix.IoctlSetTermios(fd, unix.TCSETS, old)

	type typed struct {
		line []byte
		err  error
	}
	done := make(chan typed, 1)
	go func() {
		var line []byte
		b := make([]byte, 1)
		for len(line) <= keystore.MaxKeyLen {
			n, err := f.Read(b)
			if n == 1 && b[0] == '\n' {
				break
			}
			if n == 1 {
				line = append(line, b[0])
			}
			if errors.Is(err, io.EOF) && len(line) > 0 {
				break
			}
			if err != nil {
				done <- typed{nil, err}
				return
			}
		}
		done <- typed{line, nil}
	}()
	select {
	case t := <-done:
		return t.line, t.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
