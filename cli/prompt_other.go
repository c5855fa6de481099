//go:build !linux

package cli

import (
	"context"
	"os"

	"golang.org/x/term"
)

// hiddenLine reads one line from the terminal f without echo, giving up when ctx ends
// (Ctrl-C), with the terminal's state restored. Should Ctrl-C come before term.ReadPassword has
// turned echo off, the waiting read may turn it off after the restore; prompt_linux.go has no
// such window.
func hiddenLine(ctx context.Context, f *os.File) ([]byte, error) {
	fd := int(f.Fd())
	state, err := term.GetState(fd)
	if err != nil {
		return nil, err
	}
	type typed struct {
		line []byte
		err  error
	}
	done := make(chan typed, 1)
	go func() {
		b, err := term.ReadPassword(fd)
		done <- typed{b, err}
	}()
	select {
	case t := <-done:
		return t.line, t.err
	case <-ctx.Done():
		term.Restore(fd, state)
		return nil, ctx.Err()
	}
}
