package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/client"
	"parley/conversation/conversationtest"
)

// What was written and had no answer when Parley closed comes back at the next start with the
// same service: the new conversation's message box, and a failed message in its conversation's
// box, with nothing sent again; a message the service answered after all is not put back.
func TestApp_UnansweredTextSurvivesAQuit(t *testing.T) {
	svc, a := newFakeService(), test.NewTempApp(t)
	h, first := startWithAnswered(t, svc, a, "Where is the lighthouse?")
	svc.ChatErrs = []error{&client.Error{StatusCode: 503, Message: "down for a moment"}}
	h.typeAndSend("And the harbour?")
	h.waitFor(h.failedShown)
	h.u.main.newConversation()
	h.u.main.composer.setText("a thought, half written")
	calls := len(svc.ChatRequests())
	h.u.shutdown()

	h2 := startWith(t, svc, a, nil)
	if got := h2.u.main.composer.text(); got != "a thought, half written" {
		t.Errorf("the new conversation's message box holds %q after the restart", got)
	}
	if want := "Your unsent text in 2 conversations is back in their message boxes; nothing was sent again."; h2.u.main.status.flashText != want {
		t.Errorf("the status bar says %q", h2.u.main.status.flashText)
	}
	h2.u.main.open(first)
	h2.waitFor(func() bool { return len(h2.view().Messages) == 2 })
	if got := h2.u.main.composer.text(); got != "And the harbour?" {
		t.Errorf("the failed message's conversation's box holds %q after the restart", got)
	}
	if n := len(svc.ChatRequests()); n != calls {
		t.Errorf("%d chat calls after the restart, want none", n-calls)
	}
	// Kept once: a third start finds nothing more.
	h2.u.main.composer.setText("")
	h2.u.main.newConversation()
	h2.u.main.composer.setText("")
	h2.u.shutdown()
	h3 := startWith(t, svc, a, nil)
	if got := h3.u.main.composer.text(); got != "" {
		t.Errorf("the third start's message box holds %q", got)
	}
	if got := a.Preferences().String(prefUnsent); got != "" {
		t.Errorf("the preferences still keep %q", got)
	}
}

// A message being sent as Parley closed, which the service then answered, is not put back once
// the history shows it; what the person wrote after it is.
func TestApp_UnsentTextAnsweredAfterAllIsDropped(t *testing.T) {
	svc, a := newFakeService(), test.NewTempApp(t)
	h, first := startWithAnswered(t, svc, a, "Where is the lighthouse?")
	h.u.shutdown()

	// As if "Is it lit at night?" was being sent when Parley closed, and answered after.
	a.Preferences().SetString(prefUnsent, `[{"service":"`+svc.BaseURL()+`","entries":[{"conversation":"`+first.String()+
		`","text":"Where is the lighthouse?\nand a note","sent":["Where is the lighthouse?"]}]}]`)
	h2 := startWith(t, svc, a, nil)
	h2.u.main.open(first)
	h2.waitFor(func() bool { return len(h2.view().Messages) == 2 && h2.u.main.composer.text() == "and a note" })
}

// A switch to another service and back keeps what was written for the first: it is back in the
// message box, and was not carried to the other service's conversation.
func TestApp_UnsentTextSurvivesASwitchAndBack(t *testing.T) {
	local := &countingLocal{stops: make(chan struct{}, 10)}
	remote := newFakeService()
	h := startWithLocal(t, local)
	h.u.useLocal()
	h.waitFor(func() bool { return h.u.main != nil && h.u.main.conn.local })
	h.u.main.composer.setText("for the built-in service")
	h.u.useRemote(remote, remote.BaseURL(), false)
	h.waitFor(func() bool { return !h.u.main.conn.local })
	if got := h.u.main.composer.text(); got != "" {
		t.Errorf("the remote service's new conversation holds %q", got)
	}
	h.u.useLocal()
	h.waitFor(func() bool { return h.u.main.conn.local })
	if got := h.u.main.composer.text(); got != "for the built-in service" {
		t.Errorf("back on the built-in service, the message box holds %q", got)
	}
	if want := "Your unsent text is back in its message box; nothing was sent again."; h.u.main.status.flashText != want {
		t.Errorf("the status bar says %q, want %q", h.u.main.status.flashText, want)
	}
}

// startWithAnswered starts the app on svc, sends question in a new conversation, and waits for
// its answer; it returns the conversation's ID.
func startWithAnswered(t *testing.T, svc *conversationtest.Service, a fyne.App, question string) (*harness, client.ConversationID) {
	t.Helper()
	h := startWith(t, svc, a, nil)
	h.typeAndSend(question)
	h.waitFor(func() bool { return len(h.view().Messages) == 2 })
	return h, h.view().ID
}

func TestUnsentBackNotice(t *testing.T) {
	for _, c := range []struct {
		titles []string
		want   string
	}{
		{[]string{""}, "Your unsent text is back in its message box; nothing was sent again."},
		{[]string{"Tides"}, "Your unsent text in “Tides” is back in its message box; nothing was sent again."},
		{[]string{"Tides", ""}, "Your unsent text in 2 conversations is back in their message boxes; nothing was sent again."},
	} {
		if got := unsentBackNotice(c.titles); got != c.want {
			t.Errorf("unsentBackNotice(%q) = %q, want %q", c.titles, got, c.want)
		}
	}
}

// A kept message whose words an earlier message of the conversation also had, but which the
// end of the history does not show, stays: it was not answered.
func TestApp_UnsentTextLikeAnEarlierMessageStays(t *testing.T) {
	svc, a := newFakeService(), test.NewTempApp(t)
	h, first := startWithAnswered(t, svc, a, "yes")
	h.typeAndSend("Tell me more")
	h.waitFor(func() bool { return len(h.view().Messages) == 4 })
	h.u.shutdown()

	a.Preferences().SetString(prefUnsent, `[{"service":"`+svc.BaseURL()+`","entries":[{"conversation":"`+first.String()+
		`","text":"yes","sent":["yes"]}]}]`)
	h2 := startWith(t, svc, a, nil)
	h2.u.main.open(first)
	h2.waitFor(func() bool { return len(h2.view().Messages) == 4 })
	if got := h2.u.main.composer.text(); got != "yes" {
		t.Errorf("the message box holds %q, want the unanswered \"yes\"", got)
	}
}
