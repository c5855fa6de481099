//go:build linux && !cgo

package playback

import "errors"

// openSystemOutput fails: a Linux build without cgo has no ALSA.
func openSystemOutput() (output, error) {
	return nil, noDevice(errors.New("built without cgo, so without ALSA"))
}

// outputTaps: this output does not see what it plays; the players give the tap their PCM as
// they hand it over.
const outputTaps = false
