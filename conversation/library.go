package conversation

import (
	"context"
	"slices"
	"strings"
	"time"

	"parley/client"
)

// pageSize is how many conversations one page of the list asks for.
const pageSize = 100

// maxPages bounds how many pages the list follows, against a service whose cursor never ends.
const maxPages = 1000

// Entries returns the conversation list, pinned first then newest first, with the person's
// names, and whether more pages may follow.
func (s *Session) Entries() (entries []Entry, more bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shown(), !s.listDone
}

// ListErr is why the last page of the list could not be read, or nil.
func (s *Session) ListErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listErr
}

// Search returns the conversations whose title (or name), or the text of whose messages already
// read, contains every word of query (case-insensitive), in the list's order. A blank query
// returns all.
func (s *Session) Search(query string) []Entry {
	words := strings.Fields(strings.ToLower(query))
	s.mu.Lock()
	defer s.mu.Unlock()
	shown := s.shown()
	if len(words) == 0 {
		return shown
	}
	var out []Entry
	for _, e := range shown {
		hay := strings.ToLower(e.Title + "\n" + e.Name)
		if th := s.threads[e.ID.String()]; th != nil {
			var b strings.Builder
			b.WriteString(hay)
			for _, m := range th.messages {
				b.WriteByte('\n')
				b.WriteString(strings.ToLower(m.Text))
			}
			hay = b.String()
		}
		all := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				all = false
				break
			}
		}
		if all {
			out = append(out, e)
		}
	}
	return out
}

// LoadMore reads the next page of the list (the first page on the first call), unless a read is
// under way or every page was read. It returns at once; the list's Change reports the result.
func (s *Session) LoadMore() {
	s.mu.Lock()
	if s.listing || s.listDone {
		s.mu.Unlock()
		return
	}
	s.listing = true
	cursor := s.cursor
	s.mu.Unlock()
	go s.loadPage(cursor, s.now())
}

// Refresh reads the list again from its first page, keeping what is shown until it arrives.
func (s *Session) Refresh() {
	s.mu.Lock()
	if s.listing {
		s.mu.Unlock()
		return
	}
	s.listing, s.listDone, s.cursor, s.pages = true, false, "", 0
	s.mu.Unlock()
	go s.loadPage("", s.now())
}

// loadPage reads one page of the list; asked is when it was asked for. A first page replaces
// the list, except for conversations that changed here since it was asked for (a reply that
// arrived meanwhile), which stay at the top.
func (s *Session) loadPage(cursor string, asked time.Time) {
	page, err := s.svc.ListConversations(s.ctx, client.ListConversationsRequest{Limit: pageSize, Cursor: cursor})
	s.mu.Lock()
	s.listing = false
	s.listErr = err
	if err == nil {
		if cursor == "" {
			kept := s.entries[:0]
			for _, e := range s.entries {
				if !e.UpdatedAt.Before(asked) {
					kept = append(kept, e)
				}
			}
			s.entries = kept
		}
		seen := make(map[string]bool, len(s.entries))
		for _, e := range s.entries {
			seen[e.ID.String()] = true
		}
		for _, c := range page.Conversations {
			if c.ID.IsZero() || seen[c.ID.String()] {
				continue
			}
			seen[c.ID.String()] = true
			e := Entry{ID: c.ID, Title: strings.TrimSpace(c.Title), UpdatedAt: c.UpdatedAt}
			if e.UpdatedAt.IsZero() {
				e.UpdatedAt = c.CreatedAt
			}
			if th := s.threads[c.ID.String()]; e.Title == "" && th != nil && len(th.messages) > 0 {
				e.Title = TitleFrom(th.messages[0].Text)
			}
			s.entries = append(s.entries, e)
		}
		s.pages++
		s.listDone = page.NextCursor == "" || page.NextCursor == cursor || s.pages >= maxPages
		s.cursor = page.NextCursor
		if s.listDone && s.pages < maxPages {
			// The whole list was read: a pinned conversation it lacks was deleted elsewhere.
			s.pinned = slices.DeleteFunc(s.pinned, func(p Entry) bool { return !seen[p.ID.String()] })
		}
	}
	s.mu.Unlock()
	s.onChange(Change{List: true, Err: err})
}

// deleteTimeout bounds a delete call.
const deleteTimeout = 15 * time.Second

// Delete deletes conversation id at the service, then drops it from the list; done, when not
// nil, is called with the outcome. A delete asked for goes on after Close (the window closing
// just after the person deleted a conversation), for deleteTimeout at most.
func (s *Session) Delete(id client.ConversationID, done func(error)) {
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), deleteTimeout)
		defer cancel()
		err := s.svc.DeleteConversation(ctx, id)
		s.mu.Lock()
		var th *Thread
		var ended []Outcome
		if err == nil {
			s.drop(id)
			th = s.threads[id.String()]
			if th != nil {
				th.deleted = true
				delete(s.threads, id.String())
				for _, t := range th.turns {
					if t.State == Queued { // never sent now (a turn being sent ends when its call does)
						ended = append(ended, Outcome{Key: t.Key, End: NoReply, Err: ErrDeleted, State: Failed})
					}
				}
			}
		}
		s.mu.Unlock()
		s.onChange(Change{List: err == nil, Thread: th, Ended: ended})
		if done != nil {
			done(err)
		}
	}()
}

// drop takes conversation id out of the list, its pin and name too. Call with s.mu held.
func (s *Session) drop(id client.ConversationID) {
	s.entries = slices.DeleteFunc(s.entries, func(e Entry) bool { return e.ID == id })
	s.pinned = slices.DeleteFunc(s.pinned, func(e Entry) bool { return e.ID == id })
	delete(s.labels, id.String())
	delete(s.hidden, id.String())
}
