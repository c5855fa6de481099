package archive

import (
	"context"
	"errors"
	"net/http"
	"time"

	"parley/client"
	"parley/internal/backoff"
)

// Source is what the filler reads from the service; *client.Client is one.
type Source interface {
	ListConversations(ctx context.Context, req client.ListConversationsRequest) (*client.ConversationList, error)
	History(ctx context.Context, id client.ConversationID) (*client.History, error)
}

// Filler fills the index of one service in the background: it reads the whole conversation
// list, page by page, then the history of each conversation that changed since it was indexed,
// newest first. It is polite: one request at a time, at most one per Interval, at most Budget
// in a run; what a run leaves is done by the next (a conversation indexed stays indexed until
// it changes). Once the whole list was read, the conversations it no longer has (deleted
// elsewhere) are dropped, their labels too.
type Filler struct {
	Archive *Archive
	// Service names the service in the archive.
	Service string
	Source  Source
	// Interval is the least time between two requests (0: DefaultInterval).
	Interval time.Duration
	// Budget bounds the requests of one run (0: DefaultBudget).
	Budget int
	// Changed, when not nil, is called after conversations were indexed or dropped (not on any
	// particular goroutine).
	Changed func()
}

// DefaultInterval and DefaultBudget are a run's politeness: four requests a second, and 3,000
// requests (a list of 2,900 conversations) at most.
const (
	DefaultInterval = 250 * time.Millisecond
	DefaultBudget   = 3000
)

// listPage is how many conversations a page of the list asks for; maxListPages bounds the pages
// followed, against a cursor that never ends.
const (
	listPage     = 100
	maxListPages = 1000
)

// Progress is what a run did.
type Progress struct {
	// Listed is how many conversations the list had (as far as it was read); Complete: it was
	// read to its end.
	Listed   int
	Complete bool
	// Indexed is how many conversations were read and indexed; Left how many are still to be.
	Indexed, Left int
	// Dropped is how many conversations were dropped: deleted at the service.
	Dropped int
	// Requests is how many requests the run made.
	Requests int
}

// ErrBudget is the error of a run that ended because it made its Budget of requests.
var ErrBudget = errors.New("archive: the run made its requests; the next goes on")

// Run fills the index until it is up to date, the budget is spent (ErrBudget), ctx ends, or a
// request fails (its error; a conversation deleted meanwhile is not a failure: it is dropped).
func (f *Filler) Run(ctx context.Context) (Progress, error) {
	var p Progress
	interval := f.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	budget := f.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	var last time.Time
	request := func() error { // waits for the request's turn
		if p.Requests >= budget {
			return ErrBudget
		}
		if !last.IsZero() {
			if err := backoff.Sleep(ctx, interval-time.Since(last)); err != nil {
				return err
			}
		}
		last = time.Now()
		p.Requests++
		return nil
	}

	var stale []client.Conversation
	var ids []string
	// Where the archive stood before the list was read: a conversation made meanwhile (its
	// speech settings kept at its first reply) is not in the list, and is not dropped.
	mark, err := f.Archive.Mark()
	if err != nil {
		return p, err
	}
	cursor := ""
	for pages := 0; ; pages++ {
		if err := request(); err != nil {
			return p, err
		}
		page, err := f.Source.ListConversations(ctx, client.ListConversationsRequest{Limit: listPage, Cursor: cursor})
		if err != nil {
			return p, err
		}
		for _, c := range page.Conversations {
			if c.ID.IsZero() {
				continue
			}
			updated := c.UpdatedAt
			if updated.IsZero() {
				updated = c.CreatedAt
			}
			ids = append(ids, c.ID.String())
			s, err := f.Archive.Listed(f.Service, c.ID.String(), c.Title, updated)
			if err != nil {
				return p, err
			}
			if s {
				c.UpdatedAt = updated
				stale = append(stale, c)
			}
		}
		p.Listed = len(ids)
		if page.NextCursor == "" || page.NextCursor == cursor || pages+1 >= maxListPages {
			p.Complete = page.NextCursor == "" || page.NextCursor == cursor
			break
		}
		cursor = page.NextCursor
	}
	if p.Complete {
		n, err := f.Archive.KeepOnly(f.Service, ids, mark)
		if err != nil {
			return p, err
		}
		p.Dropped = n
		if n > 0 {
			f.changed()
		}
	}
	p.Left = len(stale)
	for _, c := range stale {
		if err := request(); err != nil {
			return p, err
		}
		h, err := f.Source.History(ctx, c.ID)
		var ae *client.Error
		switch {
		case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound:
			err = f.Archive.Forget(f.Service, c.ID.String()) // deleted since it was listed
			p.Dropped++
		case err == nil:
			err = f.Archive.Index(f.Service, c.ID.String(), firstNonEmpty(h.Title, c.Title), c.UpdatedAt, MessagesOf(h.Messages))
			p.Indexed++
		}
		if err != nil {
			return p, err
		}
		p.Left--
		f.changed()
	}
	return p, nil
}

func (f *Filler) changed() {
	if f.Changed != nil {
		f.Changed()
	}
}

// MessagesOf are a history's messages as the archive indexes them.
func MessagesOf(msgs []client.Message) []Message {
	out := make([]Message, len(msgs))
	for i, m := range msgs {
		out[i] = Message{ID: m.ID.String(), Role: m.Role, Text: m.Content, At: m.CreatedAt}
	}
	return out
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
