package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"parley/app/chatview"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// TestApp_ChargedReplyUnreadableIsNotOfferedForRetry: a chat call the service answered with
// success (so charged) in a form the client cannot read is said to be charged, is never offered
// for a paid Retry, and cannot be re-sent through the session either; Edit gives the text back.
func TestApp_ChargedReplyUnreadableIsNotOfferedForRetry(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{fmt.Errorf("POST /v1/chat/messages: %w: %w: the response body is larger than the limit of 33554432 bytes: %w",
		client.ErrReplyUnreadable, client.ErrReplyLost, client.ErrTooLarge)}
	h := start(t, svc)
	h.typeAndSend("Write a very long answer")
	h.waitFor(h.failedShown)
	b := h.bubbleOf("Write a very long answer")
	if !b.Retry().Hidden {
		t.Errorf("the charged message offers %q", b.Retry().Text)
	}
	if b.Edit().Hidden {
		t.Error("the charged message offers no Edit")
	}
	meta := b.Meta()
	for _, want := range []string{"charged", "too large", "not sent again"} {
		if !strings.Contains(meta, want) {
			t.Errorf("the charged message says %q; want %q in it", meta, want)
		}
	}
	if strings.Contains(meta, "Not sent") {
		t.Errorf("the charged message says %q", meta)
	}
	h.u.main.retry(h.view().Turns[0].Key)
	h.u.main.sess.Retry(h.u.main.current, h.view().Turns[0].Key)
	if n := len(svc.ChatRequests()); n != 1 {
		t.Errorf("%d chat calls, want 1: a charged message is never sent again", n)
	}
}

// countingLocal is a built-in service that counts its starts and stops, and refuses a start
// while it runs unless it gives the running one again, as server.Local does.
type countingLocal struct {
	fakeLocal
	svc     *conversationtest.Service
	mu      sync.Mutex
	running bool
	starts  int
	stops   chan struct{}
}

func (l *countingLocal) Start(context.Context) (string, client.APIKey, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running = true
	l.starts++
	return l.svc.BaseURL(), "pk_local_0123456789", nil
}

func (l *countingLocal) Stop() {
	l.mu.Lock()
	l.running = false
	l.mu.Unlock()
	l.stops <- struct{}{}
}

// TestApp_SwitchLocalRemoteLocal goes from the built-in service to a remote one and back, twice,
// without a restart: leaving the built-in service stops it (in the background), coming back
// starts it again, and each time the main window shows the service chosen.
func TestApp_SwitchLocalRemoteLocal(t *testing.T) {
	local := &countingLocal{stops: make(chan struct{}, 10)}
	remote := newFakeService()
	h := startWithLocal(t, local)
	h.u.useLocal()
	h.waitFor(func() bool { return h.u.main != nil && h.u.main.conn.local })
	for round := 1; round <= 2; round++ {
		h.u.useRemote(remote, remote.BaseURL(), false)
		select {
		case <-local.stops:
		case <-time.After(10 * time.Second):
			t.Fatalf("round %d: the built-in service was not stopped when the remote one took over", round)
		}
		if h.u.main.conn.local || h.u.main.conn.baseURL != remote.BaseURL() {
			t.Fatalf("round %d: the remote service is not in use", round)
		}
		h.typeAndSend(fmt.Sprintf("to the remote, round %d", round))
		h.waitFor(func() bool { return len(h.view().Messages) == 2 })

		h.u.useLocal()
		h.waitFor(func() bool { return h.u.main.conn.local })
		h.typeAndSend(fmt.Sprintf("to the built-in service, round %d", round))
		h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	}
	local.mu.Lock()
	defer local.mu.Unlock()
	if local.starts != 3 || !local.running {
		t.Errorf("%d starts (running %v), want 3 and running", local.starts, local.running)
	}
	if n := len(remote.ChatRequests()); n != 2 {
		t.Errorf("the remote service got %d messages, want 2", n)
	}
}

// startWithLocal opens the app with nothing configured (the welcome screen) and local as its
// built-in service; each Connect gives the scripted service at the address asked for.
func startWithLocal(t *testing.T, local *countingLocal) *harness {
	t.Helper()
	el := &engineLocal{}
	h := startLocal(t, el, &memSecrets{keys: map[string]string{}})
	local.svc = el.svc
	h.u.deps.Local = local
	return h
}

// TestApp_WelcomeClosesAndQuits: the first-run screen has a menu with Close window (Ctrl+W)
// and Quit (Ctrl+Q), and the choices of service.
func TestApp_WelcomeClosesAndQuits(t *testing.T) {
	h := startLocal(t, &engineLocal{}, &memSecrets{keys: map[string]string{}})
	menu := h.u.win.MainMenu()
	if menu == nil {
		t.Fatal("the welcome screen has no menu")
	}
	found := map[string]fyne.Shortcut{}
	for _, m := range menu.Items {
		for _, it := range m.Items {
			found[it.Label] = it.Shortcut
		}
	}
	if found["Quit"] != scQuit || found["Close window"] != scClose {
		t.Errorf("the welcome menu's Quit and Close window have shortcuts %v and %v", found["Quit"], found["Close window"])
	}
	for _, label := range []string{"Connect to a service…", "Use the local service", "Keyboard shortcuts", "About Parley"} {
		if _, ok := found[label]; !ok {
			t.Errorf("the welcome menu has no %q", label)
		}
	}
}

var _ conversation.Service = (*conversationtest.Service)(nil)

// failingLocal is a built-in service that cannot start (its data folder is held elsewhere).
type failingLocal struct{ fakeLocal }

func (failingLocal) Start(context.Context) (string, client.APIKey, error) {
	return "", "", errors.New("the local service's data folder is in use by another Parley (process 4242)")
}

// TestApp_SwitchToALocalServiceThatCannotStart: switching from a remote service to a built-in
// one that cannot start leaves the window on the remote service, saying why; the welcome
// screen is not shown over a working window.
func TestApp_SwitchToALocalServiceThatCannotStart(t *testing.T) {
	svc := newFakeService()
	h := start(t, svc)
	h.u.deps.Local = failingLocal{}
	h.u.useLocal()
	h.waitFor(func() bool { return strings.Contains(h.u.main.status.message.Text, "did not start") })
	if h.u.main == nil || h.u.main.conn.local {
		t.Fatalf("after a failed switch the window left the remote service (local %v)", h.u.main.conn.local)
	}
	if msg := h.u.main.status.message.Text; !strings.Contains(msg, "in use by another Parley") {
		t.Errorf("the status bar says %q", msg)
	}
	h.typeAndSend("still here")
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
}

// A message sent again that fails again, for another reason, shows the new reason, even when
// the window takes the change in one step (on a busy machine it never drew the message as
// being sent in between; the row, still "failed" with the same text, kept the old reason).
func TestApp_RetriedFailureShowsItsOwnReason(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{
		&client.Error{StatusCode: 502, Message: "Ollama on this computer did not answer: is it still running?"},
		&client.Error{StatusCode: 502, Message: "Ollama on this computer is not running: start it."},
	}
	h := start(t, svc)
	h.typeAndSend("goodbye then")
	h.waitFor(h.failedShown)
	shownMeta := func() string {
		var meta string
		eachObject(h.u.win.Content(), func(o fyne.CanvasObject) {
			if x, ok := o.(*chatview.Bubble); ok && x.Row().Text == "goodbye then" {
				meta = x.Meta()
			}
		})
		return meta
	}
	h.waitFor(func() bool { return strings.Contains(shownMeta(), "still running") })

	// Sent again; the window's updates wait until the call has failed again.
	h.u.main.retry(h.view().Turns[0].Key)
	deadline := time.Now().Add(10 * time.Second)
	for len(svc.ChatRequests()) < 2 || h.view().Turns[0].State != conversation.Failed {
		if time.Now().After(deadline) {
			t.Fatal("the message was not sent again")
		}
		time.Sleep(5 * time.Millisecond)
	}
	h.waitFor(func() bool { return strings.Contains(shownMeta(), "start it") })
}
