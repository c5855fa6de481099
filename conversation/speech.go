package conversation

import "parley/client"

// Speech is how a conversation is heard and spoken, as the person chose it on this computer:
// the service keeps neither.
type Speech struct {
	// Voice is the voice its replies are spoken with ("" for the default).
	Voice string
	// Language is the language its questions are spoken in, a BCP 47 tag ("" for the
	// recogniser to tell).
	Language string
}

// KeepSpeech has keep called with a conversation's speech settings each time they change (set
// in its settings, or a new conversation's kept once the service made it), on no goroutine in
// particular, so that the app keeps them. Call it before the session is used.
func (s *Session) KeepSpeech(keep func(client.ConversationID, Speech)) { s.keep = keep }

// SetSpeeches gives the session the speech settings kept of the service's conversations, by
// conversation ID; those set since the session started win over them.
func (s *Session) SetSpeeches(kept map[string]Speech) {
	s.mu.Lock()
	if s.speech == nil {
		s.speech = map[string]Speech{}
	}
	for id, sp := range kept {
		if _, ok := s.speech[id]; !ok {
			s.speech[id] = sp
		}
	}
	s.mu.Unlock()
	s.onChange(Change{List: true})
}

// speechOf is th's speech settings. Call with s.mu held.
func (s *Session) speechOf(th *Thread) Speech {
	if th.id.IsZero() {
		return th.speech
	}
	return s.speech[th.id.String()]
}

// setSpeech makes sp conversation id's speech settings, and returns what tells the app to keep
// them, to call once s.mu is released. Call with s.mu held.
func (s *Session) setSpeech(id client.ConversationID, sp Speech) func() {
	if s.speech == nil {
		s.speech = map[string]Speech{}
	}
	s.speech[id.String()] = sp
	keep := s.keep
	if keep == nil {
		return func() {}
	}
	return func() { keep(id, sp) }
}
