package app

import (
	"context"
	"strings"
	"testing"

	"parley/client"
	"parley/conversation/conversationtest"
)

// accountGated is the scripted service with an account endpoint that answers only when let.
type accountGated struct {
	*conversationtest.Service
	let chan struct{}
}

func (s *accountGated) Account(ctx context.Context) (*client.Account, error) {
	select {
	case <-s.let:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.Service.Account(ctx)
}

// Another service attached while the balance of the one before is still being read: each
// balance lands in its own service's session, and the status bar shows the new one's. Under
// -race this also checks that the read runs on what it was given, not on the window's state,
// which the second attach changes meanwhile.
func TestApp_ReconnectingWhileTheBalanceIsReadShowsTheNewServicesBalance(t *testing.T) {
	h := start(t, newFakeService())
	slow := &accountGated{Service: newFakeService(), let: make(chan struct{})}
	slow.AccountBalance = 5
	h.u.attach(&connection{svc: slow, baseURL: slow.BaseURL()})
	slowSess := h.u.main.sess

	next := newFakeService()
	next.AccountBalance = 7
	h.u.attach(&connection{svc: next, baseURL: next.BaseURL()})
	close(slow.let) // the first read ends after the second service is in use

	h.waitFor(func() bool {
		_, b := slowSess.Usage()
		return b != nil && *b == 5 && strings.Contains(h.u.main.status.points.Text, "Balance: 7 points")
	})
	if _, b := h.u.main.sess.Usage(); b == nil || *b != 7 {
		t.Errorf("the new service's session has balance %v, want 7", b)
	}
}
