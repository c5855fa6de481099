package conversation_test

import (
	"testing"
	"testing/synctest"
	"time"

	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// titles are the list's shown titles, a star before a pinned one.
func titles(entries []conversation.Entry) []string {
	var out []string
	for _, e := range entries {
		t := e.DisplayTitle()
		if e.Pinned {
			t = "*" + t
		}
		out = append(out, t)
	}
	return out
}

func listOf(ids ...string) []client.Conversation {
	t0 := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	var out []client.Conversation
	for i, id := range ids {
		out = append(out, client.Conversation{ID: conversationtest.ID(id), Title: "Title " + id, UpdatedAt: t0.Add(-time.Duration(i) * time.Hour)})
	}
	return out
}

func TestSession_LabelsNameAndPin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.List = listOf("c1", "c2", "c3")
		s, _ := newSession(t, f)
		s.LoadMore()
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 3 })

		s.SetLabels(map[string]conversation.Label{"c3": {Pinned: true}, "c2": {Name: "Boat plans"}}, nil)
		e, _ := s.Entries()
		if got := titles(e); len(got) != 3 || got[0] != "*Title c3" || got[1] != "Title c1" || got[2] != "Boat plans" {
			t.Fatalf("list = %q; want the pinned first, then the list's order, with the name", got)
		}
		s.SetLabel(conversationtest.ID("c1"), conversation.Label{Pinned: true})
		s.SetLabel(conversationtest.ID("c3"), conversation.Label{})
		e, _ = s.Entries()
		if got := titles(e); got[0] != "*Title c1" || got[1] != "Boat plans" || got[2] != "Title c3" {
			t.Errorf("list = %q", got)
		}
		if found := s.Search("boat"); len(found) != 1 || found[0].ID.String() != "c2" {
			t.Errorf("a search finds the person's name: %+v", found)
		}
	})
}

func TestSession_PinnedNotListedYetShowsUntilACompleteListLacksIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Pages["" /* first */] = &client.ConversationList{Conversations: listOf("c1"), NextCursor: "p2"}
		f.Pages["p2"] = &client.ConversationList{Conversations: listOf("c2")}
		s, _ := newSession(t, f)
		s.SetLabels(map[string]conversation.Label{"c9": {Pinned: true}}, []conversation.Entry{{ID: conversationtest.ID("c9"), Title: "Old pinned"}})
		s.LoadMore()
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 2 })
		e, more := s.Entries()
		if got := titles(e); !more || got[0] != "*Old pinned" || got[1] != "Title c1" {
			t.Fatalf("list = %q (more %v); want the pinned conversation first while later pages are unread", got, more)
		}
		s.LoadMore()
		until(t, func() bool { _, more := s.Entries(); return !more })
		if e, _ := s.Entries(); len(e) != 2 || e[0].ID.String() != "c1" {
			t.Errorf("list = %q; a pinned conversation the whole list lacks (deleted elsewhere) is gone", titles(e))
		}
	})
}

func TestSession_HideUntilUnhidden(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.List = listOf("c1", "c2")
		s, _ := newSession(t, f)
		s.LoadMore()
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 2 })
		s.Hide(conversationtest.ID("c1"))
		if e, _ := s.Entries(); len(e) != 1 || e[0].ID.String() != "c2" {
			t.Errorf("hidden: %q", titles(e))
		}
		if found := s.Search("title"); len(found) != 1 {
			t.Errorf("a search finds a hidden conversation: %q", titles(found))
		}
		s.Unhide(conversationtest.ID("c1"))
		if e, _ := s.Entries(); len(e) != 2 || e[0].ID.String() != "c1" {
			t.Errorf("unhidden: %q", titles(e))
		}
	})
}

func TestSession_ConversationDeletedElsewhereLeavesTheList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.List = listOf("c1", "c2") // no history: both deleted since the list was read
		s, _ := newSession(t, f)
		s.LoadMore()
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 2 })
		s.SetLabel(conversationtest.ID("c1"), conversation.Label{Name: "Renamed", Pinned: true})
		th := s.Open(conversationtest.ID("c1"))
		until(t, func() bool { return s.Snapshot(th).Deleted })
		if e, _ := s.Entries(); len(e) != 1 || e[0].ID.String() != "c2" {
			t.Errorf("list = %q; the conversation deleted elsewhere is still in it", titles(e))
		}
	})
}
