package conversation

import "parley/client"

// SpeechAuto is a conversation's speech Language that leaves the language to the recogniser,
// whatever the app's default says ("" follows the default).
const SpeechAuto = "auto"

// Speech is how a conversation is heard and spoken, as the person chose it on this computer:
// the service keeps neither.
type Speech struct {
	// Voice is the voice its replies are spoken with ("" for the default).
	Voice string
	// Language is the language its questions are spoken in, a BCP 47 tag; "" for the app's
	// default, SpeechAuto for the recogniser to tell.
	Language string
}

// KeepSpeech has keep told of a conversation whose speech settings changed (set in its
// settings, or a new conversation's once the service made it), on no goroutine in particular,
// so that the app keeps them: it reads them with SpeechOf when it writes them, so that two
// changes told out of order still leave the last. Call it before the session is used.
func (s *Session) KeepSpeech(keep func(client.ConversationID)) { s.keep = keep }

// SpeechOf is conversation id's speech settings.
func (s *Session) SpeechOf(id client.ConversationID) Speech {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.speech[id.String()]
}

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
	return func() { keep(id) }
}
