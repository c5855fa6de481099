//go:build !(linux && cgo)

package speech

// newLibDecoder reports that this build has no in-process recogniser: the program is run instead.
func newLibDecoder([]string) (recogniser, error) { return nil, errNoLibrary }

// loadLibrary reports that this build cannot load libpocketsphinx.
func loadLibrary() error { return errNoLibrary }
