package conversation

import (
	"math"

	"parley/client"
)

// The ranges the service accepts, the same the CLI checks.
const (
	MinTemperature = 0.0
	MaxTemperature = 2.0
	MinTopP        = 0.0
	MaxTopP        = 1.0
	MinMaxTokens   = 1
	// MaxPersonaRunes is the longest persona, in characters.
	MaxPersonaRunes = 8000
)

// Changed returns the fields of next that differ from saved: what a PATCH must send. A field
// next leaves unset is not a change (the API has no way to unset a saved setting).
func Changed(saved, next client.Config) client.Config {
	var c client.Config
	if next.Persona != nil && (saved.Persona == nil || *saved.Persona != *next.Persona) {
		c.Persona = next.Persona
	}
	if next.Temperature != nil && (saved.Temperature == nil || !sameFloat(*saved.Temperature, *next.Temperature)) {
		c.Temperature = next.Temperature
	}
	if next.TopP != nil && (saved.TopP == nil || !sameFloat(*saved.TopP, *next.TopP)) {
		c.TopP = next.TopP
	}
	if next.MaxTokens != nil && (saved.MaxTokens == nil || *saved.MaxTokens != *next.MaxTokens) {
		c.MaxTokens = next.MaxTokens
	}
	return c
}

// sameFloat compares settings shown with two decimals.
func sameFloat(a, b float64) bool { return math.Abs(a-b) < 0.0005 }

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
	id, diff := th.id, Changed(th.config, cfg)
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
