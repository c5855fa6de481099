// Package sphinx loads libpocketsphinx (Debian's 0.8+5prealpha) with dlopen through a small C
// shim, so that the binary needs neither the library nor its headers to build or to start.
// The built-in service's recogniser and the wake-word spotter decode with it.
package sphinx

import "errors"

// ErrNoLibrary reports that libpocketsphinx cannot be loaded in this process: not installed,
// or a build without cgo.
var ErrNoLibrary = errors.New("libpocketsphinx is not available")

var errFreed = errors.New("pocketsphinx decoder already freed")

// Files of the English model that pocketsphinx-en-us installs, which pocketsphinx_continuous
// uses by default (its log lists them).
const (
	Model = "/usr/share/pocketsphinx/model/en-us/en-us"
	LM    = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin"
	Dict  = "/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict"
)
