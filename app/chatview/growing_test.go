package chatview

import (
	"strings"
	"testing"
	"time"

	"parley/conversation"
	"parley/conversation/conversationtest"
)

// growingView is a conversation of 30 messages whose last turn's reply is being written: text.
func growingView(text string) conversation.ThreadView {
	t0 := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	var msgs []conversation.Message
	for i := range 30 {
		role := conversation.User
		if i%2 == 1 {
			role = conversation.Assistant
		}
		msgs = append(msgs, conversation.Message{Role: role, Text: "An earlier line of the conversation, long enough to wrap once or twice in the view.", At: t0})
	}
	return conversation.ThreadView{ID: conversationtest.ID("c1"), Messages: msgs,
		Turns: []conversation.Turn{{Key: 1, Text: "Tell me more", At: t0, State: conversation.Sending, Partial: text}}}
}

// TestChatView_GrowingReplyFollowsTheEndUnlessScrolledUp: a reply being written grows in its
// row, Markdown settled (no half table); the view stays at the end while the person reads there
// until the reply is taller than the view, whose top then stays at the view's top, to be read
// from its start, with "Jump to latest" shown; it stays where they scrolled up to otherwise.
func TestChatView_GrowingReplyFollowsTheEndUnlessScrolledUp(t *testing.T) {
	h := newViewHarness(t)
	text := ""
	for i := range 40 {
		text += "A sentence of the reply being written, number " + strings.Repeat("x", i%5) + ".\n\n"
	}
	h.v.ShowThread(growingView(""))
	h.drain()
	if h.shown(RowThinking) != 1 {
		t.Fatalf("rows %v", h.v.rows)
	}
	tall := false
	for end := 100; end <= len(text); end += 400 {
		h.v.Render(growingView(text[:end]))
		h.drain()
		last := len(h.v.rows) - 1
		off := h.v.list.GetScrollOffset()
		if h.v.heights[last] <= h.v.list.Size().Height {
			if !h.v.atBottom(off) || h.v.Away() {
				t.Fatalf("at %d bytes of the reply the view left the end (jump shown: %v)", end, h.v.Away())
			}
			continue
		}
		tall = true
		// Within the 24 px of slack of "at the end", no jump is offered.
		away := h.v.heights[last] > h.v.list.Size().Height+24
		if top := h.v.rowTop(last); abs32(off-top) > 1 || h.v.Away() != away {
			t.Fatalf("at %d bytes the reply (%v high) is taller than the view (%v): the view is at %v, the reply's top at %v (jump shown: %v)", end, h.v.heights[last], h.v.list.Size().Height, off, top, h.v.Away())
		}
	}
	if !tall {
		t.Fatal("the reply never grew taller than the view")
	}
	h.v.JumpToLatest()
	h.drain()
	if !h.v.atBottom(h.v.list.GetScrollOffset()) || h.v.Away() {
		t.Fatal("Jump to latest did not show the end, or still shows")
	}
	// At the end, the view follows the reply as it grows, and as it is done: never back to its
	// top.
	h.v.Render(growingView(text + "And one more sentence.\n\n"))
	h.drain()
	done := growingView("")
	done.Messages = append(done.Messages, conversation.Message{Role: conversation.User, Text: "Tell me more"},
		conversation.Message{Role: conversation.Assistant, Text: text + "And one more sentence."})
	done.Turns = nil
	h.v.Render(done)
	h.drain()
	h.v.Render(done)
	h.drain()
	if !h.v.atBottom(h.v.list.GetScrollOffset()) || h.v.Away() {
		t.Fatal("after Jump to latest, the view left the end as the reply grew or ended")
	}
	h.v.Render(growingView(text)) // written again, for what follows
	h.drain()
	last := h.v.rows[len(h.v.rows)-1]
	if last.Kind != RowThinking || !strings.HasPrefix(text, last.Text) || last.Text == "" {
		t.Fatalf("the growing row shows %q", last.Text)
	}

	// Scrolled up to read: growing does not move the view.
	h.v.list.ScrollToOffset(200)
	h.drain()
	off := h.v.list.GetScrollOffset()
	h.v.Render(growingView(text + "More text is written now, and more.\n\n"))
	h.drain()
	if got := h.v.list.GetScrollOffset(); got != off {
		t.Errorf("scrolled up at %v, the view moved to %v as the reply grew", off, got)
	}

	// A table shows only once its header is underlined.
	h.v.Render(growingView(text + "| Port | Tide |\n"))
	h.drain()
	if r := h.v.rows[len(h.v.rows)-1]; strings.Contains(r.Text, "| Port") {
		t.Errorf("a table header alone is shown: %q", r.Text[max(0, len(r.Text)-40):])
	}
	h.v.Render(growingView(text + "| Port | Tide |\n|---|---|\n"))
	h.drain()
	if r := h.v.rows[len(h.v.rows)-1]; !strings.Contains(r.Text, "| Port") {
		t.Error("the table is not shown once underlined")
	}
}

// TestChatView_WholeReplyShownFromItsTopWhenTaller: a reply that arrives whole while the person
// waits at the end is shown from its top when it is taller than the view, with "Jump to latest"
// shown, and at the end when it fits; either way decided on its measured height, whatever its
// estimate was (a reply estimated taller than the view that fits used to be shown from its top,
// and one shown from its top was taken for the end once measured, and scrolled there).
func TestChatView_WholeReplyShownFromItsTopWhenTaller(t *testing.T) {
	for _, c := range []struct {
		name  string
		reply string
		tall  bool
	}{
		{"short", "A short reply.", false},
		{"Markdown that fits", "# Heading\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```\n\n- one\n- two\n\n" + strings.Repeat("A sentence of text. ", 40), false},
		{"long", strings.Repeat("A paragraph of the reply, long enough to wrap in the view once or twice at least.\n\n", 40), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newViewHarness(t)
			t0 := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
			asked := growingView("")
			asked.Turns[0].Partial = ""
			h.v.ShowThread(asked)
			h.v.StickToBottom()
			h.drain()
			done := growingView("")
			done.Turns = nil
			done.Messages = append(done.Messages, conversation.Message{Role: conversation.User, Text: "Tell me more", At: t0},
				conversation.Message{Role: conversation.Assistant, Text: c.reply, At: t0})
			h.v.Render(done)
			h.drain()
			if !h.v.Settled() {
				t.Fatal("the view is not settled after its work ran")
			}
			last := len(h.v.rows) - 1
			off := h.v.list.GetScrollOffset()
			tall := h.v.heights[last] > h.v.list.Size().Height
			if tall != c.tall {
				t.Fatalf("the reply is %v high in a view of %v", h.v.heights[last], h.v.list.Size().Height)
			}
			if c.tall {
				if top := h.v.rowTop(last); abs32(off-top) > 1 || !h.v.Away() {
					t.Fatalf("the view is at %v, the reply's top at %v (jump shown: %v)", off, top, h.v.Away())
				}
			} else if !h.v.atBottom(off) || h.v.Away() {
				t.Fatalf("the view is at %v, not at the end (jump shown: %v)", off, h.v.Away())
			}
		})
	}
}
