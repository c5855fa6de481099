package app

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// threeConversations is a service with three conversations, the newest first; only the oldest
// mentions the lighthouse, far down.
func threeConversations() *conversationtest.Service {
	svc := newFakeService()
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for i, c := range []struct{ id, title string }{{"c3", "Bread"}, {"c2", "Trains"}, {"c1", "Sailing"}} {
		svc.List = append(svc.List, client.Conversation{ID: conversationtest.ID(c.id), Title: c.title, UpdatedAt: t0.Add(-time.Duration(i) * time.Hour)})
		h := &client.History{ConversationID: conversationtest.ID(c.id), Title: c.title}
		for j := range 12 {
			role := "user"
			if j%2 == 1 {
				role = "assistant"
			}
			h.Messages = append(h.Messages, client.Message{ID: client.MessageID{}, Role: role, Content: strings.Repeat(c.title+" message number "+string(rune('a'+j))+". ", 20)})
		}
		svc.Histories[c.id] = h
	}
	svc.Histories["c1"].Messages[9].Content = "The lighthouse of Ebbsfleet shows a white light every ten seconds."
	return svc
}

func titlesShown(s *sidebar) []string {
	var out []string
	for _, e := range s.items {
		t := e.DisplayTitle()
		if e.Pinned {
			t = "*" + t
		}
		out = append(out, t)
	}
	return out
}

func TestApp_RenameAndPinAreKeptOnThisComputer(t *testing.T) {
	svc := threeConversations()
	path := filepath.Join(t.TempDir(), "conversations.db")
	h := startWith(t, svc, test.NewTempApp(t), func(d *Deps) { d.ArchivePath = path })
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 3 })
	m := h.u.main

	m.renameConversation(m.sidebar.items[1]) // Trains
	name := h.u.topDialog()
	if name == nil {
		t.Fatal("Rename opened no dialog")
	}
	field := h.u.win.Canvas().Focused()
	field.(interface{ SetText(string) }).SetText("  Train   to Lisbon ")
	name.keys.submit()
	m.togglePin(m.sidebar.items[2]) // Sailing
	h.waitFor(func() bool { return strings.Join(titlesShown(m.sidebar), "|") == "*Sailing|Bread|Train to Lisbon" })

	m.sidebar.list.Refresh()
	for _, o := range test.LaidOutObjects(m.sidebar.list) {
		if r, ok := o.(*conversationRow); ok && r.Visible() && r.entry.ID.String() == "c1" && !strings.HasPrefix(r.when.Text, "Pinned · ") {
			t.Errorf("the pinned row's caption is %q", r.when.Text)
		}
	}

	// Set one after another just before quitting: the last of each is kept.
	bread := m.sidebar.items[1].ID
	for _, pinned := range []bool{true, false, true, false} {
		m.setLabel(bread, conversation.Label{Name: "Bread " + fmt.Sprint(pinned), Pinned: pinned})
	}
	m.setLabel(bread, conversation.Label{})

	// The names and pins are there at the next start.
	h.u.shutdown()
	h.u.Wait(5 * time.Second)
	h2 := startWith(t, svc, test.NewTempApp(t), func(d *Deps) { d.ArchivePath = path })
	h2.waitFor(func() bool {
		return strings.Join(titlesShown(h2.u.main.sidebar), "|") == "*Sailing|Bread|Train to Lisbon"
	})

	// A blank name gives back the service's title; unpinning puts it back in its place.
	m2 := h2.u.main
	m2.setLabel(conversationtest.ID("c2"), conversation.Label{})
	m2.togglePin(m2.sidebar.items[0])
	h2.waitFor(func() bool { return strings.Join(titlesShown(m2.sidebar), "|") == "Bread|Trains|Sailing" })
}

func TestApp_SearchFindsWordsInAConversationNeverOpened(t *testing.T) {
	svc := threeConversations()
	h := startWith(t, svc, test.NewTempApp(t), func(d *Deps) { d.fillAfter = time.Millisecond })
	m := h.u.main
	// The index fills in the background: the three histories are read, one request at a time.
	h.waitFor(func() bool {
		hits, _ := m.keeper.search("lighthouse", 10)
		return len(hits) == 1
	})
	m.sidebar.search.SetText("lighthouse ebbs")
	h.waitFor(func() bool { return len(m.sidebar.items) == 1 && m.sidebar.hitsFor == "lighthouse ebbs" })
	if got := m.sidebar.items[0].DisplayTitle(); got != "Sailing" {
		t.Fatalf("found %q", got)
	}
	hit, ok := m.sidebar.hit(m.sidebar.items[0])
	if !ok || hit.Seq != 9 {
		t.Fatalf("hit %+v, %v; want the tenth message", hit, ok)
	}
	var marked []string
	for _, p := range hit.Snippet {
		if p.Match {
			marked = append(marked, p.Text)
		}
	}
	if strings.Join(marked, " ") != "lighthouse Ebbsfleet" {
		t.Errorf("the words marked are %q", marked)
	}
	// The row shows the snippet in the place of the time.
	m.sidebar.list.Refresh()
	var row *conversationRow
	for _, o := range test.LaidOutObjects(m.sidebar.list) {
		if r, ok := o.(*conversationRow); ok && r.Visible() && r.entry.ID.String() == "c1" {
			row = r
		}
	}
	if row == nil || !row.snippet.Visible() || row.when.Visible() || !strings.Contains(row.snippet.String(), "lighthouse") {
		t.Fatalf("the row does not show the snippet")
	}

	// Enter opens the conversation at that message.
	m.sidebar.search.OnSubmitted(m.sidebar.search.Text)
	h.waitFor(func() bool { return m.current != nil && h.view().ID.String() == "c1" && len(h.view().Messages) == 12 })
	h.waitFor(func() bool { return len(m.chat.Rows()) == 12 })
	if !m.chat.InView(9) || m.chat.InView(0) {
		t.Fatal("the view does not open at the message found (row 9)")
	}

	// A word that is nowhere finds nothing.
	m.sidebar.search.SetText("zeppelin")
	h.waitFor(func() bool { return m.sidebar.hitsFor == "zeppelin" })
	if len(m.sidebar.items) != 0 || m.sidebar.noMatch.Hidden {
		t.Errorf("found %q", titlesShown(m.sidebar))
	}
}

func TestApp_AReplyIsIndexedAsItArrives(t *testing.T) {
	svc := newFakeService()
	svc.Reply = func(string) string { return "The ferry leaves from Harwich at noon." }
	h := start(t, svc)
	h.typeAndSend("When does the ferry leave?")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	h.waitFor(func() bool {
		hits, _ := h.u.main.keeper.search("harwich", 10)
		return len(hits) == 1 && hits[0].Seq == 1
	})
}
