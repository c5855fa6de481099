package voice

import (
	"errors"
	"fmt"
)

// Errors Run ends with.
var (
	// ErrNoSpeech means no speech started within Config.ListenTimeout.
	ErrNoSpeech = errors.New("no speech was heard")
	// ErrRunning means Run was called while the loop was running.
	ErrRunning = errors.New("voice: the loop is already running")
)

// FailuresError ends Run after Config.MaxFailures failed turns in a row.
type FailuresError struct {
	N    int
	Last error
}

func (e *FailuresError) Error() string {
	return fmt.Sprintf("stopped after %d failed turns in a row; the last: %v", e.N, e.Last)
}

func (e *FailuresError) Unwrap() error { return e.Last }

// StepError says which step of a turn failed.
type StepError struct {
	Step string // "record", "transcribe", "chat" or "speak"
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

// Cause is the error behind a failed step, for saying what went wrong without the step's
// name; other errors are returned as they are.
func Cause(err error) error {
	var se *StepError
	if errors.As(err, &se) {
		return se.Err
	}
	return err
}
