package echo

import "errors"

// ErrUnavailable is wrapped by the errors of a canceller that cannot run here: its library is
// not installed, or this build has none.
var ErrUnavailable = errors.New("no echo canceller")
