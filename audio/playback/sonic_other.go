//go:build !(linux || windows) || !cgo

package playback

import "fmt"

func loadSonic() error {
	return fmt.Errorf("%w: this build of Parley has none", ErrNoSpeed)
}

type sonicStream struct{}

func newSonicStream(rate, channels int, speed float64) (*sonicStream, error) {
	return nil, loadSonic()
}

func (s *sonicStream) write(pcm []int16) bool { return false }
func (s *sonicStream) read(buf []int16) int   { return 0 }
func (s *sonicStream) available() int         { return 0 }
func (s *sonicStream) flush() bool            { return false }
func (s *sonicStream) close()                 {}
