//go:build !(linux && cgo)

package sphinx

// Decoder is not available in this build.
type Decoder struct{}

// Load reports that this build cannot load libpocketsphinx.
func Load() error { return ErrNoLibrary }

// New reports that this build has no in-process decoder.
func New([]string) (*Decoder, error) { return nil, ErrNoLibrary }

// Reset and the other methods are never reached: New returns no decoder.
func (*Decoder) Reset() error               { return errFreed }
func (*Decoder) Start() error               { return errFreed }
func (*Decoder) End() error                 { return errFreed }
func (*Decoder) Process([]int16) error      { return errFreed }
func (*Decoder) ProcessWhole([]int16) error { return errFreed }
func (*Decoder) InSpeech() bool             { return false }
func (*Decoder) Hyp() string                { return "" }
func (*Decoder) Free()                      {}
