//go:build linux && !cgo

package playback

import "errors"

// openSystemOutput fails: a Linux build without cgo has no ALSA.
func openSystemOutput() (output, error) {
	return nil, noDevice(errors.New("built without cgo, so without ALSA"))
}
