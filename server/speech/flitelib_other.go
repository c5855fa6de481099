//go:build !(linux && cgo)

package speech

import "context"

// newLibFliteSpeaker reports that this build cannot speak in process: flite's program is run.
func newLibFliteSpeaker(string) (func(ctx context.Context, text string) ([]byte, error), error) {
	return nil, errNoSynthLibrary
}
