package conversation

import (
	"parley/client"
	"parley/settings"
)

// SaveSettings makes cfg th's settings. For a conversation not yet created they are kept for its
// first call; for an existing one only the changed fields are sent (PATCH), and th takes what
// the service saved. done, when not nil, gets the settings now in force and any error.
func (s *Session) SaveSettings(th *Thread, cfg client.Config, voice string, done func(client.Config, error)) {
	s.mu.Lock()
	th.voice = voice
	if th.id.IsZero() {
		th.config = cfg
		s.mu.Unlock()
		s.onChange(Change{Thread: th})
		if done != nil {
			done(cfg, nil)
		}
		return
	}
	id, diff := th.id, settings.Changed(th.config, cfg)
	saved := th.config
	s.mu.Unlock()
	if diff.IsZero() {
		s.onChange(Change{Thread: th})
		if done != nil {
			done(saved, nil)
		}
		return
	}
	go func() {
		res, err := s.svc.SaveConfig(s.ctx, id, diff)
		if err == nil {
			s.mu.Lock()
			th.config = *res
			saved = *res
			s.mu.Unlock()
		}
		s.onChange(Change{Thread: th})
		if done != nil {
			done(saved, err)
		}
	}()
}
