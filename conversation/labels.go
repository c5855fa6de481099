package conversation

import (
	"slices"

	"parley/client"
)

// Label is what a person gave a conversation on this computer: a name that replaces its title,
// and a pin that puts it first in the list. The service has neither; the app keeps them (the
// archive) and hands them to the session.
type Label struct {
	Name   string
	Pinned bool
}

// SetLabels gives the session the labels of the service's conversations, by conversation ID,
// and the pinned conversations known on this computer that the list may not have shown yet
// (a list is read a page at a time): they are shown first until a complete list leaves them
// out (deleted elsewhere), or it shows them.
func (s *Session) SetLabels(labels map[string]Label, pinned []Entry) {
	s.mu.Lock()
	s.labels = labels
	s.pinned = nil
	for _, e := range pinned {
		if !e.ID.IsZero() {
			s.pinned = append(s.pinned, e)
		}
	}
	s.mu.Unlock()
	s.onChange(Change{List: true})
}

// SetLabel gives conversation id the label l (the zero Label removes it); the app keeps it.
func (s *Session) SetLabel(id client.ConversationID, l Label) {
	s.mu.Lock()
	if s.labels == nil {
		s.labels = map[string]Label{}
	}
	if l == (Label{}) {
		delete(s.labels, id.String())
	} else {
		s.labels[id.String()] = l
	}
	s.mu.Unlock()
	s.onChange(Change{List: true})
}

// Hide takes conversation id out of the list until Unhide (a delete that may still be undone).
func (s *Session) Hide(id client.ConversationID) {
	s.mu.Lock()
	if s.hidden == nil {
		s.hidden = map[string]bool{}
	}
	s.hidden[id.String()] = true
	s.mu.Unlock()
	s.onChange(Change{List: true})
}

// Unhide puts conversation id back in the list.
func (s *Session) Unhide(id client.ConversationID) {
	s.mu.Lock()
	delete(s.hidden, id.String())
	s.mu.Unlock()
	s.onChange(Change{List: true})
}

// shown is the list as it is shown: the entries with their labels, the hidden ones left out,
// the pinned first (the pinned known here and not listed yet among them), each part in the
// list's order. Call with s.mu held.
func (s *Session) shown() []Entry {
	out := make([]Entry, 0, len(s.entries)+len(s.pinned))
	listed := make(map[string]bool, len(s.entries))
	for _, e := range s.entries {
		listed[e.ID.String()] = true
	}
	for _, e := range s.pinned {
		if !listed[e.ID.String()] {
			out = append(out, e)
		}
	}
	out = append(out, s.entries...)
	kept := out[:0]
	for _, e := range out {
		id := e.ID.String()
		if s.hidden[id] {
			continue
		}
		l := s.labels[id]
		e.Name, e.Pinned = l.Name, l.Pinned
		kept = append(kept, e)
	}
	slices.SortStableFunc(kept, func(a, b Entry) int {
		switch {
		case a.Pinned == b.Pinned:
			return 0
		case a.Pinned:
			return -1
		}
		return 1
	})
	return kept
}
