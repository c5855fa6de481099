//go:build !(linux && cgo)

package speech

import "context"

// newLibFliteSpeaker returns nil: this build cannot speak in process, and flite's program is run.
func newLibFliteSpeaker(string) func(ctx context.Context, text string) ([]byte, error) {
	return nil
}
