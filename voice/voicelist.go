package voice

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"parley/client"
)

// VoiceLister is a service that lists its voices (GET /v1/chat/voices): Parley's own, and
// client.Client against any service (which may answer that it has no such list).
type VoiceLister interface {
	Voices(ctx context.Context) ([]client.Voice, error)
}

// VoiceList is a service's voices, read once in the background, for Config.Voices. The zero
// VoiceList is empty; it is safe for concurrent use.
type VoiceList struct {
	once sync.Once
	list atomic.Pointer[[]client.Voice]
}

// Read starts reading l's voices, the first time it is called (10 s at most, ctx ending it
// sooner); later calls do nothing. A service that lists none, or fails, leaves the list empty.
func (v *VoiceList) Read(ctx context.Context, l VoiceLister) {
	v.once.Do(func() {
		go func() {
			ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if vs, err := l.Voices(ctx); err == nil {
				v.list.Store(&vs)
			}
		}()
	})
}

// Get returns the voices read so far: nil before they are read, and for a service without the
// list.
func (v *VoiceList) Get() []client.Voice {
	if l := v.list.Load(); l != nil {
		return *l
	}
	return nil
}
