package conversation

import (
	"parley/client"
	"parley/settings"
)

// SaveSettings makes cfg th's settings. For a conversation not yet created they are kept for its
// first call; for an existing one only the changed fields are sent (PATCH), and th takes what
// the service saved. sp, when not nil, is its new speech settings, kept on this computer and in
// force at once (nil leaves them: a dialog opened before they were read from the archive must
// not blank them). done, when not nil, gets the settings now in force and any error.
func (s *Session) SaveSettings(th *Thread, cfg client.Config, sp *Speech, done func(client.Config, error)) {
	s.mu.Lock()
	if th.id.IsZero() {
		if sp != nil {
			th.speech = *sp
		}
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
	kept := func() {}
	if sp != nil && *sp != s.speechOf(th) {
		kept = s.setSpeech(id, *sp)
	}
	s.mu.Unlock()
	kept()
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
