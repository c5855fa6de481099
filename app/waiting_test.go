package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"parley/app/chatview"
	"parley/client"
	"parley/conversation"
)

// thinkingStop is the Stop button of the chat view's "Thinking…" row.
func (h *harness) thinkingStop() *widget.Button {
	h.t.Helper()
	var found *widget.Button
	eachObject(h.u.win.Content(), func(o fyne.CanvasObject) {
		if x, ok := o.(*chatview.Bubble); ok && x.Row().Kind == chatview.RowThinking {
			if b := x.Stop(); b != nil && b.Text == "Stop" {
				found = b
			}
		}
	})
	return found
}

// TestApp_StopWaitingForAReply stops a reply that takes long, with the Stop on "Thinking…": the
// message stays with what it means for points, cannot be sent again while its call runs, a
// message typed meanwhile says what it waits for, and nothing is sent again by itself. The
// service then answers: the reply shows, the new conversation joins the list (as the message
// promised), and the waiting message goes. Esc stops the next reply the same way.
func TestApp_StopWaitingForAReply(t *testing.T) {
	svc := newFakeService()
	svc.Gate = make(chan struct{})
	h := start(t, svc)
	h.typeAndSend("Write me a long story")
	<-svc.Entered
	h.waitFor(func() bool { return h.shown(chatview.RowThinking) == 1 && h.thinkingStop() != nil })
	h.typeAndSend("And a poem")
	h.waitFor(func() bool { return h.rowShown("And a poem") })
	if meta := h.metaOf("And a poem"); meta != "Waits for the reply above" {
		t.Errorf("a message typed while a reply is written says %q", meta)
	}

	test.Tap(h.thinkingStop())
	h.waitFor(func() bool {
		v := h.view()
		return len(v.Turns) == 2 && v.Turns[0].State == conversation.Lost && h.shown(chatview.RowThinking) == 0
	})
	if meta := h.metaOf("Write me a long story"); !strings.Contains(meta, "Stopped waiting") || !strings.Contains(meta, "charges") || !strings.Contains(meta, "in the list") {
		t.Errorf("the stopped message says %q; want what stopping means for points, and where the reply will show", meta)
	}
	if b := h.bubbleOf("Write me a long story"); !b.Retry().Hidden {
		t.Error("Send again is offered while the stopped call still runs")
	}
	if meta := h.metaOf("And a poem"); meta != "Waits for the message above: send it again or edit it" {
		t.Errorf("the message behind the stopped one says %q", meta)
	}
	if msg := h.u.main.status.message.Text; !strings.Contains(msg, "Stopped waiting") {
		t.Errorf("the status bar says %q after Stop", msg)
	}
	if n := len(svc.ChatRequests()); n != 1 {
		t.Errorf("%d chat calls after Stop, want 1", n)
	}

	// The service answers after all: the reply shows, the conversation is in the list, and the
	// message behind goes (its reply held at the gate).
	svc.Gate <- struct{}{}
	<-svc.Entered
	h.waitFor(func() bool { return len(h.view().Messages) == 2 && h.shown(chatview.RowThinking) == 1 })
	if entries, _ := h.u.main.sess.Entries(); len(entries) != 1 || entries[0].ID != h.view().ID {
		t.Errorf("the list holds %+v, want the conversation the stopped message made", entries)
	}

	// Esc stops that one too; this time the reply is lost (the app quits meanwhile, say).
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	h.waitFor(func() bool { v := h.view(); return len(v.Turns) == 1 && v.Turns[0].State == conversation.Lost })
	if n := len(svc.ChatRequests()); n != 2 {
		t.Errorf("%d chat calls after Esc, want 2", n)
	}
	close(svc.Gate)
	h.waitFor(func() bool { return len(h.view().Messages) == 4 && len(h.view().Turns) == 0 })
}

// bubbleOf is the chat view's waiting or failed message with text, drawn apart from the list.
func (h *harness) bubbleOf(text string) *chatview.Bubble {
	h.t.Helper()
	return h.drawnRow(text, chatview.RowTurn)
}

// drawnRow is the chat view's row of kind with text, drawn apart from the list.
func (h *harness) drawnRow(text string, kind chatview.RowKind) *chatview.Bubble {
	h.t.Helper()
	for i, r := range h.u.main.chat.Rows() {
		if r.Text == text && r.Kind == kind {
			return h.u.main.chat.Draw(i)
		}
	}
	h.t.Fatalf("no row %q (kind %d) in the chat view", text, kind)
	return nil
}

// rowShown reports whether the chat view has a row with text.
func (h *harness) rowShown(text string) bool {
	for _, r := range h.u.main.chat.Rows() {
		if r.Text == text {
			return true
		}
	}
	return false
}

// metaOf is the line under the chat view's message with text.
func (h *harness) metaOf(text string) string {
	h.t.Helper()
	return h.bubbleOf(text).Meta()
}

// TestApp_FailedFirstMessageIsKeptAsDraft: the first message of a new conversation is refused
// (no points); leaving with Ctrl+N keeps it in the composer of the new conversation, and
// leaving for another conversation keeps it for the next new one, saying so.
func TestApp_FailedFirstMessageIsKeptAsDraft(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{&client.Error{StatusCode: 402, Message: "not enough points"}, &client.Error{StatusCode: 402, Message: "not enough points"}}
	h := start(t, svc)
	h.typeAndSend("Plan my trip to Lyon")
	h.waitFor(h.failedShown)
	test.Type(h.u.main.composer.entry, "with trains")
	h.u.main.newConversation()
	if got := h.u.main.composer.text(); got != "Plan my trip to Lyon\nwith trains" {
		t.Errorf("after Ctrl+N the composer holds %q; want the failed message and the draft", got)
	}

	// Sent again and refused again; then the person opens another conversation.
	h.u.main.composer.setText("")
	h.typeAndSend("Plan my trip to Nice")
	h.waitFor(h.failedShown)
	h.typeAndSend("hello") // queued behind the failed one
	svc.Mu.Lock()
	svc.ChatErrs = nil
	svc.Mu.Unlock()
	other := h.u.main.sess.NewThread(client.Config{}, "")
	h.u.main.sess.Send(other, "another conversation")
	h.waitFor(func() bool { return len(h.u.main.sess.Snapshot(other).Messages) == 2 })
	h.u.main.show(other)
	if msg := h.u.main.status.message.Text; !strings.Contains(msg, "Ctrl+N") {
		t.Errorf("leaving the failed conversation, the status bar says %q", msg)
	}
	h.u.main.newConversation()
	if got := h.u.main.composer.text(); got != "Plan my trip to Nice\nhello" {
		t.Errorf("the next new conversation's composer holds %q", got)
	}
	if n := len(svc.ChatRequests()); n != 3 {
		t.Errorf("%d chat calls, want 3: a kept draft is never sent by itself", n)
	}
}
