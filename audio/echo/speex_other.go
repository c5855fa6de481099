//go:build !(linux || windows) || !cgo

package echo

import "fmt"

func loadSpeex() error {
	return fmt.Errorf("%w: this build of Parley has none", ErrUnavailable)
}

type speexState struct{}

func newSpeexState(frame, tail, rate int, o suppression) (*speexState, error) {
	return nil, loadSpeex()
}

func (s *speexState) process(mic, far, out []int16, suppress bool) {}
func (s *speexState) reset()                                       {}
func (s *speexState) close()                                       {}
