package conversation_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// newFake is the scripted service, replying "re: <message>" with a balance of 41.
func newFake() *conversationtest.Service {
	f := conversationtest.New()
	f.Reply = func(m string) string { return "re: " + m }
	f.Balance = 41
	return f
}

// watcher keeps the turns' ends that the session's changes told.
type watcher struct {
	mu    sync.Mutex
	ended []conversation.Outcome
}

// newSession is a session over f, watched, closed when the test ends.
func newSession(t *testing.T, f conversation.Service) (*conversation.Session, *watcher) {
	w := newWatcher()
	s := conversation.NewSession(f, w.onChange)
	t.Cleanup(s.Close)
	return s, w
}

func newWatcher() *watcher { return &watcher{} }

func (w *watcher) onChange(c conversation.Change) {
	w.mu.Lock()
	w.ended = append(w.ended, c.Ended...)
	w.mu.Unlock()
}

// ends returns the ends told so far of the turn key.
func (w *watcher) ends(key int64) []conversation.Outcome {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []conversation.Outcome
	for _, o := range w.ended {
		if o.Key == key {
			out = append(out, o)
		}
	}
	return out
}

// endsAre reports whether the ends told of key are, in order, those named.
func (w *watcher) endsAre(key int64, want ...conversation.End) bool {
	got := w.ends(key)
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].End != want[i] {
			return false
		}
	}
	return true
}

// until waits until every other goroutine of the test's synctest bubble is blocked (the
// session and the scripted service, all in this process, have done all they can), and fails
// unless cond then holds. The session tests run in bubbles for this.
func until(t *testing.T, cond func() bool) {
	t.Helper()
	synctest.Wait()
	if !cond() {
		t.Fatal("the condition never held")
	}
}

// inBubble runs a subtest f in a synctest bubble of its own.
func inBubble(f func(t *testing.T)) func(t *testing.T) {
	return func(t *testing.T) { synctest.Test(t, f) }
}

func ptr[T any](v T) *T { return &v }

func TestSession_FirstSendCreatesThenContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		s, _ := newSession(t, f)

		th := s.NewThread(client.Config{Persona: ptr("a pirate"), MaxTokens: ptr(50)}, "")
		s.Send(th, "  Hello there  ")
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 2 })

		v := s.Snapshot(th)
		if v.ID.String() != "c1" || v.Messages[0].Text != "Hello there" || v.Messages[0].Role != conversation.User ||
			v.Messages[1].Text != "re: Hello there" || v.Messages[1].Role != conversation.Assistant || len(v.Turns) != 0 {
			t.Fatalf("after the first reply: %+v", v)
		}
		entries, _ := s.Entries()
		if len(entries) != 1 || entries[0].ID.String() != "c1" || entries[0].Title != "Hello there" {
			t.Errorf("the new conversation is not at the top of the list: %+v", entries)
		}
		if c, b := s.Usage(); c == nil || *c != 1 || b == nil || *b != 41 {
			t.Errorf("usage %v %v, want charged 1 and balance 41", c, b)
		}

		s.Send(th, "Again")
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 4 })
		reqs := f.ChatRequests()
		if reqs[0].Persona == nil || *reqs[0].Persona != "a pirate" || reqs[0].MaxTokens == nil || !reqs[0].ConversationID.IsZero() {
			t.Errorf("the first call did not carry the new conversation's settings: %+v", reqs[0])
		}
		if reqs[1].ConversationID.String() != "c1" || reqs[1].Persona != nil || reqs[1].MaxTokens != nil {
			t.Errorf("the second call %+v: want conversation c1 and no settings", reqs[1])
		}
	})
}

func TestSession_SecondMessageBeforeFirstReplyContinuesTheSameConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Gate = make(chan struct{})
		s, _ := newSession(t, f)

		th := s.NewThread(client.Config{}, "")
		s.Send(th, "one")
		<-f.Entered
		s.Send(th, "two")
		v := s.Snapshot(th)
		if len(v.Turns) != 2 || v.Turns[0].State != conversation.Sending || v.Turns[1].State != conversation.Queued || !v.Waiting() {
			t.Fatalf("while the first reply is pending: %+v", v.Turns)
		}
		f.Gate <- struct{}{}
		<-f.Entered
		f.Gate <- struct{}{}
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 4 })
		reqs := f.ChatRequests()
		if len(reqs) != 2 || !reqs[0].ConversationID.IsZero() || reqs[1].ConversationID.String() != "c1" {
			t.Errorf("requests %+v: want the second to continue c1, not start a conversation", reqs)
		}
		if entries, _ := s.Entries(); len(entries) != 1 {
			t.Errorf("%d conversations in the list, want 1", len(entries))
		}
	})
}

func TestSession_ReplyLandsInItsOwnConversation(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c9"] = &client.History{ConversationID: conversationtest.ID("c9"), Messages: []client.Message{{Role: "user", Content: "old"}}}
		f.Gate = make(chan struct{})
		s, _ := newSession(t, f)

		first := s.NewThread(client.Config{}, "")
		s.Send(first, "question")
		<-f.Entered
		other := s.Open(conversationtest.ID("c9")) // the person switches while the reply is pending
		until(t, func() bool { return len(s.Snapshot(other).Messages) == 1 })
		f.Gate <- struct{}{}
		until(t, func() bool { return len(s.Snapshot(first).Messages) == 2 })
		if got := s.Snapshot(other); len(got.Messages) != 1 || len(got.Turns) != 0 {
			t.Errorf("the other conversation changed: %+v", got)
		}
		if got := s.Snapshot(first); got.Messages[1].Text != "re: question" {
			t.Errorf("the reply did not land in its own conversation: %+v", got)
		}
	})
}

func TestSession_FailureKeepsTextRetryAndDismiss(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.ChatErrs = []error{&client.Error{StatusCode: 503}}
		s, _ := newSession(t, f)

		th := s.NewThread(client.Config{}, "")
		s.Send(th, "keep me")
		until(t, func() bool { v := s.Snapshot(th); return len(v.Turns) == 1 && v.Turns[0].State == conversation.Failed })
		v := s.Snapshot(th)
		if v.Turns[0].Text != "keep me" || v.Turns[0].Err == nil || v.Waiting() {
			t.Fatalf("failed turn %+v", v.Turns[0])
		}
		// A later message waits behind the failed one, so replies stay in order.
		s.Send(th, "after")
		if v := s.Snapshot(th); len(v.Turns) != 2 || v.Turns[1].State != conversation.Queued || len(f.ChatRequests()) != 1 {
			t.Fatalf("a message after a failure: %+v, %d calls", v.Turns, len(f.ChatRequests()))
		}
		s.Retry(th, v.Turns[0].Key)
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 4 })
		if n := len(f.ChatRequests()); n != 3 {
			t.Errorf("%d chat calls, want 3 (failed, retried, the next)", n)
		}

		// Dismiss gives the text back for the composer.
		f.Mu.Lock()
		f.ChatErrs = []error{errors.New("network down")}
		f.Mu.Unlock()
		s.Send(th, "draft text")
		until(t, func() bool { v := s.Snapshot(th); return len(v.Turns) == 1 && v.Turns[0].State == conversation.Failed })
		if got := s.Dismiss(th, s.Snapshot(th).Turns[0].Key); got != "draft text" || len(s.Snapshot(th).Turns) != 0 {
			t.Errorf("Dismiss returned %q, turns %v", got, s.Snapshot(th).Turns)
		}
	})
}

func TestSession_LostReplyIsNeverResentAndReloads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c1"] = &client.History{ConversationID: conversationtest.ID("c1")}
		f.ChatErrs = []error{nil, fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)}
		s, _ := newSession(t, f)

		th := s.NewThread(client.Config{}, "")
		s.Send(th, "first")
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 2 })
		f.Mu.Lock()
		f.Histories["c1"].Messages = []client.Message{{Role: "user", Content: "first"}, {Role: "assistant", Content: "re: first"},
			{Role: "user", Content: "second"}, {Role: "assistant", Content: "stored reply"}}
		f.Mu.Unlock()
		s.Send(th, "second")
		// The history read again shows the message answered: the lost turn gives way to it.
		until(t, func() bool {
			v := s.Snapshot(th)
			return len(v.Turns) == 0 && len(v.Messages) == 4 && !v.Loading
		})
		if n := len(f.ChatRequests()); n != 2 {
			t.Errorf("%d chat calls, want 2: a lost reply must not be re-sent", n)
		}
		if v := s.Snapshot(th); v.Messages[3].Text != "stored reply" {
			t.Errorf("after the reload: %+v", v)
		}
	})
}

// TestSession_LostReplyStoredLaterShowsAtTheNextOpen: a reply the service stores after the
// client lost it (it finishes calls its client left) shows when the conversation is opened
// again, and the lost turn then goes; until then the turn stays, never re-sent.
func TestSession_LostReplyStoredLaterShowsAtTheNextOpen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c1"] = &client.History{ConversationID: conversationtest.ID("c1"), Messages: []client.Message{
			{ID: client.MessageID{}, Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi"}}}
		f.ChatErrs = []error{fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)}
		s, _ := newSession(t, f)
		th := s.Open(conversationtest.ID("c1"))
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 2 })
		s.Send(th, "hello") // the same words as before: only a message after those known counts
		until(t, func() bool {
			v := s.Snapshot(th)
			return len(v.Turns) == 1 && v.Turns[0].State == conversation.Lost && !v.Loading
		})
		f.Mu.Lock()
		f.Histories["c1"].Messages = append(f.Histories["c1"].Messages,
			client.Message{Role: "user", Content: "hello"}, client.Message{Role: "assistant", Content: "hello again"})
		f.Mu.Unlock()
		if s.Open(conversationtest.ID("c1")) != th {
			t.Fatal("Open gave another thread")
		}
		until(t, func() bool { v := s.Snapshot(th); return len(v.Turns) == 0 && len(v.Messages) == 4 && !v.Loading })
		if n := len(f.ChatRequests()); n != 1 {
			t.Errorf("%d chat calls, want 1", n)
		}
	})
}

func TestSession_SettingsPatchOnlyChangedFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c5"] = &client.History{ConversationID: conversationtest.ID("c5"), Config: client.Config{Persona: ptr("a guide"), Temperature: ptr(0.3)}}
		s, _ := newSession(t, f)
		th := s.Open(conversationtest.ID("c5"))
		until(t, func() bool { v := s.Snapshot(th); return !v.Loading && v.Config.Persona != nil })

		done := make(chan client.Config, 1)
		s.SaveSettings(th, client.Config{Persona: ptr("a guide"), Temperature: ptr(0.3), MaxTokens: ptr(64)}, &conversation.Speech{Voice: "en-gb"},
			func(c client.Config, err error) {
				if err != nil {
					t.Error(err)
				}
				done <- c
			})
		saved := <-done
		if len(f.Patches) != 1 || fmt.Sprint(f.Patches[0].MaxTokens != nil, f.Patches[0].Persona, f.Patches[0].Temperature) != "true <nil> <nil>" {
			t.Errorf("PATCH sent %+v; want only max_tokens", f.Patches)
		}
		if saved.MaxTokens == nil || *saved.MaxTokens != 64 || *saved.Persona != "a guide" {
			t.Errorf("saved %+v", saved)
		}
		if v := s.Snapshot(th); v.Voice != "en-gb" || v.Config.MaxTokens == nil {
			t.Errorf("thread after save: %+v", v)
		}
		// Nothing changed: no call at all.
		s.SaveSettings(th, saved, &conversation.Speech{Voice: "en-gb"}, func(client.Config, error) { done <- client.Config{} })
		<-done
		if len(f.Patches) != 1 {
			t.Errorf("an unchanged save sent a PATCH")
		}
	})
}

func TestSession_ListPagesSearchAndDelete(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		now := time.Now()
		f.Pages[""] = &client.ConversationList{NextCursor: "p2", Conversations: []client.Conversation{
			{ID: conversationtest.ID("a"), Title: "Trip to Lisbon", UpdatedAt: now},
			{ID: conversationtest.ID("b"), UpdatedAt: now.Add(-time.Hour)},
		}}
		f.Pages["p2"] = &client.ConversationList{NextCursor: "p2", Conversations: []client.Conversation{
			{ID: conversationtest.ID("c"), Title: "Recipes", UpdatedAt: now.Add(-48 * time.Hour)},
			{ID: conversationtest.ID("a"), Title: "duplicate"},
		}}
		f.Histories["b"] = &client.History{ConversationID: conversationtest.ID("b"), Messages: []client.Message{{Role: "user", Content: "How do lighthouses work?"}}}
		s, _ := newSession(t, f)

		s.LoadMore()
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 2 })
		s.LoadMore()
		until(t, func() bool { _, more := s.Entries(); return !more })
		entries, _ := s.Entries()
		if len(entries) != 3 || entries[2].ID.String() != "c" {
			t.Fatalf("entries %+v: want a, b, c without the duplicate", entries)
		}
		if entries[1].DisplayTitle() != conversation.DefaultTitle {
			t.Errorf("untitled conversation shows %q", entries[1].DisplayTitle())
		}

		// Opening b reads its history; its first message becomes its title and is searchable.
		s.Open(conversationtest.ID("b"))
		until(t, func() bool { e, _ := s.Entries(); return e[1].Title != "" })
		for q, want := range map[string]string{"lisbon": "a", "LIGHTHOUSES work": "b", "recipes": "c", "nothing here": ""} {
			got := s.Search(q)
			if (want == "" && len(got) != 0) || (want != "" && (len(got) != 1 || got[0].ID.String() != want)) {
				t.Errorf("Search(%q) = %+v, want %q", q, got, want)
			}
		}
		if got := s.Search("  "); len(got) != 3 {
			t.Errorf("a blank search shows %d, want all 3", len(got))
		}

		done := make(chan error, 1)
		s.Delete(conversationtest.ID("b"), func(err error) { done <- err })
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if e, _ := s.Entries(); len(e) != 2 || strings.Contains(fmt.Sprint(e), " b ") || f.Deletes[0] != "b" {
			t.Errorf("after delete: %+v, deleted %v", e, f.Deletes)
		}
	})
}

func TestTitleFrom(t *testing.T) {
	for in, want := range map[string]string{
		"Hello there": "Hello there",
		"  \n ":       "",
		"What is the weather like in Paris today and tomorrow?": "What is the weather like in Paris today…",
		strings.Repeat("x", 60):                                 "X" + strings.Repeat("x", 47) + "…",
		"Plan:\nday one, day two":                               "Plan: day one, day two",
		"what is the weather like":                              "What is the weather like",
		"élan vital":                                            "Élan vital",
		"42 is the answer":                                      "42 is the answer",
	} {
		if got := conversation.TitleFrom(in); got != want {
			t.Errorf("TitleFrom(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRelativeTime(t *testing.T) {
	now := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Time{}, ""},
		{now.Add(-20 * time.Second), "just now"},
		{now.Add(-5 * time.Minute), "5 min ago"},
		{now.Add(-3 * time.Hour), "3 h ago"},
		{time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC), "Yesterday"},
		{time.Date(2026, 11, 19, 9, 0, 0, 0, time.UTC), "Thursday"},
		{time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC), "2 Mar"},
		{time.Date(2024, 3, 2, 9, 0, 0, 0, time.UTC), "2 Mar 2024"},
		{now.Add(time.Minute), "just now"}, // a clock slightly ahead
	} {
		if got := conversation.RelativeTime(tc.t, now); got != tc.want {
			t.Errorf("RelativeTime(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}

// TestRelativeTimeChanges: the label stays the same until the time given, and (but at
// midnight, when an older date's label may stay) reads differently from then on.
func TestRelativeTimeChanges(t *testing.T) {
	now := time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC)
	for _, ago := range []time.Duration{0, 20 * time.Second, 59 * time.Second, 5*time.Minute + 3*time.Second,
		59 * time.Minute, 61 * time.Minute, 3*time.Hour + time.Second, 14*time.Hour + 59*time.Minute, 16 * time.Hour,
		40 * time.Hour, 9 * 24 * time.Hour, 500 * 24 * time.Hour, -30 * time.Second} {
		at := now.Add(-ago)
		next := conversation.RelativeTimeChanges(at, now)
		if !next.After(now) && ago >= 0 {
			t.Errorf("%v ago: changes at %v, not after now", ago, next)
			continue
		}
		label := conversation.RelativeTime(at, now)
		for probe := now; probe.Before(next); probe = probe.Add(7 * time.Second) {
			if got := conversation.RelativeTime(at, probe); got != label {
				t.Errorf("%v ago: reads %q at %v, before %v when it was to change from %q", ago, got, probe, next, label)
				break
			}
		}
		midnight := next.Hour() == 0 && next.Minute() == 0 && next.Second() == 0
		if got := conversation.RelativeTime(at, next); got == label && !midnight && ago >= 0 {
			t.Errorf("%v ago: still %q at %v", ago, got, next)
		}
	}
	if !conversation.RelativeTimeChanges(time.Time{}, now).IsZero() {
		t.Error("a zero time changes")
	}
}

// TestSession_StopWaiting stops waiting for a reply: the turn is shown Lost with ErrStopped at
// once, it blocks the next message, it cannot be sent again while its call runs, nothing is sent
// again by itself; and the reply, which the service charged for, is added when it comes.
func TestSession_StopWaiting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Gate = make(chan struct{})
		s, _ := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		if s.StopWaiting(th) {
			t.Error("StopWaiting reported a call stopped when none was under way")
		}
		s.Send(th, "a long question")
		<-f.Entered
		s.Send(th, "a second one")
		if !s.StopWaiting(th) {
			t.Fatal("StopWaiting found no call under way")
		}
		if s.StopWaiting(th) {
			t.Error("a second StopWaiting found a call to stop")
		}
		v := s.Snapshot(th)
		if len(v.Turns) != 2 || v.Turns[0].State != conversation.Lost || !v.Turns[0].Answering || !errors.Is(v.Turns[0].Err, conversation.ErrStopped) {
			t.Fatalf("after StopWaiting: %+v, want the turn Lost, stopped and still answering", v.Turns)
		}
		if v.Turns[1].State != conversation.Queued {
			t.Errorf("the message after the stopped one is %v, want Queued", v.Turns[1].State)
		}
		s.Retry(th, v.Turns[0].Key) // ignored: its call still runs
		if n := len(f.ChatRequests()); n != 1 {
			t.Errorf("%d chat calls, want 1: a stopped call is not sent again while it runs", n)
		}
		if entries, _ := s.Entries(); len(entries) != 0 {
			t.Errorf("the list has %d conversations before the service answered", len(entries))
		}

		// The service answers: the reply shows, the conversation joins the list, the next goes.
		close(f.Gate)
		until(t, func() bool { v := s.Snapshot(th); return len(v.Messages) == 4 && len(v.Turns) == 0 })
		if v := s.Snapshot(th); v.Messages[0].Text != "a long question" || v.Messages[2].Text != "a second one" {
			t.Errorf("the conversation holds %+v", v.Messages)
		}
		if entries, _ := s.Entries(); len(entries) != 1 || entries[0].ID != s.ID(th) {
			t.Errorf("the list holds %+v, want the conversation the stopped call created", entries)
		}
		if n := len(f.ChatRequests()); n != 2 {
			t.Errorf("%d chat calls, want 2", n)
		}
	})
}

// TestSession_StopWaitingThenTheReplyIsLost: stopped, and the call then fails after the message
// left: the turn stays Lost and stopped, and may now be sent again by the person.
func TestSession_StopWaitingThenTheReplyIsLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Gate = make(chan struct{})
		f.SentWhenCancelled = true
		w := newWatcher()
		s := conversation.NewSession(f, w.onChange)
		th := s.NewThread(client.Config{}, "")
		s.Send(th, "a long question")
		<-f.Entered
		s.StopWaiting(th)
		s.Close() // the app quits: the call is cancelled after it left
		until(t, func() bool { v := s.Snapshot(th); return len(v.Turns) == 1 && !v.Turns[0].Answering })
		v := s.Snapshot(th)
		if v.Turns[0].State != conversation.Lost || !errors.Is(v.Turns[0].Err, conversation.ErrStopped) || !errors.Is(v.Turns[0].Err, client.ErrReplyLost) {
			t.Errorf("the stopped turn: %v %v, want Lost with ErrStopped and ErrReplyLost", v.Turns[0].State, v.Turns[0].Err)
		}
	})
}

// TestSession_TakeUnsent takes a failed message and the one queued behind it out of a new
// conversation, and sends neither.
func TestSession_TakeUnsent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.ChatErrs = []error{&client.Error{StatusCode: 402, Message: "no points"}}
		s, _ := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		s.Send(th, "first")
		until(t, func() bool { v := s.Snapshot(th); return len(v.Turns) == 1 && v.Turns[0].State == conversation.Failed })
		s.Send(th, "second")
		if got := s.TakeUnsent(th); strings.Join(got, "|") != "first|second" {
			t.Errorf("TakeUnsent = %q, want first and second", got)
		}
		if v := s.Snapshot(th); len(v.Turns) != 0 {
			t.Errorf("turns left: %+v", v.Turns)
		}
		if n := len(f.ChatRequests()); n != 1 {
			t.Errorf("%d chat calls, want 1", n)
		}
	})
}

// TestSession_DismissedWhileAnsweringHoldsTheNext: a stopped message whose call still runs
// cannot be dismissed (Edit) until the call ends, and the next message waits for it: a new
// conversation's next message goes with the ID the first one brings.
func TestSession_DismissedWhileAnsweringHoldsTheNext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Gate = make(chan struct{})
		s, _ := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		s.Send(th, "first")
		<-f.Entered
		s.StopWaiting(th)
		if text := s.Dismiss(th, s.Snapshot(th).Turns[0].Key); text != "" || len(s.Snapshot(th).Turns) != 1 {
			t.Fatalf("Dismiss of a turn whose call still runs gave %q", text)
		}
		s.Send(th, "second")
		if n := len(f.ChatRequests()); n != 1 {
			t.Fatalf("%d chat calls while the first still runs, want 1", n)
		}
		close(f.Gate)
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 4 })
		reqs := f.ChatRequests()
		if len(reqs) != 2 || reqs[1].ConversationID.IsZero() || reqs[1].ConversationID != s.ID(th) {
			t.Errorf("the second message went to %v, want the conversation the first made (%v)", reqs[1].ConversationID, s.ID(th))
		}
		if entries, _ := s.Entries(); len(entries) != 1 {
			t.Errorf("the list holds %d conversations, want 1", len(entries))
		}
	})
}

// TestSession_LostBeforeTheHistoryWasReadIsNotSettled: a message sent before its conversation's
// history was read has no place to be known by: an older identical question in the history is
// not taken for its answer.
func TestSession_LostBeforeTheHistoryWasReadIsNotSettled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c1"] = &client.History{ConversationID: conversationtest.ID("c1"), Messages: []client.Message{
			{Role: "user", Content: "continue"}, {Role: "assistant", Content: "and then…"}}}
		f.ChatErrs = []error{fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)}
		f.Gate = make(chan struct{})
		s, _ := newSession(t, f)
		th := s.Open(conversationtest.ID("c1"))
		s.Send(th, "continue") // sent while the history is being read (the gate holds the call)
		<-f.Entered
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 2 })
		close(f.Gate)
		until(t, func() bool {
			v := s.Snapshot(th)
			return len(v.Turns) == 1 && v.Turns[0].State == conversation.Lost && !v.Loading
		})
		s.Open(conversationtest.ID("c1"))
		until(t, func() bool { return !s.Snapshot(th).Loading })
		if v := s.Snapshot(th); len(v.Turns) != 1 {
			t.Errorf("the lost message was taken for answered by an older identical one: %+v", v.Turns)
		}
	})
}

// TestSession_LostFirstMessageReadsTheListAgain: a new conversation's first message whose reply
// was lost may have made the conversation: the list is read again, where it shows.
func TestSession_LostFirstMessageReadsTheListAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.ChatErrs = []error{fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)}
		s, _ := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		f.Mu.Lock()
		f.List = []client.Conversation{{ID: conversationtest.ID("c7"), Title: "hello"}} // what the service made
		f.Mu.Unlock()
		s.Send(th, "hello")
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 1 })
		if v := s.Snapshot(th); len(v.Turns) != 1 || v.Turns[0].State != conversation.Lost {
			t.Errorf("the lost message: %+v", v.Turns)
		}
	})
}

// TestSession_DeletedWhileAnsweringStaysDeleted: a conversation deleted while a stopped call
// still runs is not brought back to the list by its reply.
func TestSession_DeletedWhileAnsweringStaysDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.Histories["c1"] = &client.History{ConversationID: conversationtest.ID("c1")}
		f.List = []client.Conversation{{ID: conversationtest.ID("c1"), Title: "old"}}
		f.Gate = make(chan struct{})
		s, _ := newSession(t, f)
		s.LoadMore()
		until(t, func() bool { e, _ := s.Entries(); return len(e) == 1 })
		th := s.Open(conversationtest.ID("c1"))
		until(t, func() bool { return !s.Snapshot(th).Loading })
		s.Send(th, "one more")
		<-f.Entered
		s.StopWaiting(th)
		deleted := make(chan error, 1)
		s.Delete(conversationtest.ID("c1"), func(err error) { deleted <- err })
		if err := <-deleted; err != nil {
			t.Fatal(err)
		}
		close(f.Gate)
		until(t, func() bool { return len(s.Snapshot(th).Turns) == 0 })
		if e, _ := s.Entries(); len(e) != 0 {
			t.Errorf("the deleted conversation is back in the list: %+v", e)
		}
	})
}

// TestSession_TurnsEndByKey: each turn's end is told once by the key Send returned, whatever
// the messages look like: the reply, a failure and then the reply to the person's Retry, a
// stop and then the reply, a lost reply found in the history read after it, a message taken
// back, and messages whose conversation was deleted.
func TestSession_TurnsEndByKey(t *testing.T) {
	t.Run("replies, in order", inBubble(func(t *testing.T) {
		f := newFake()
		f.Gate = make(chan struct{})
		s, w := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		if k := s.Send(th, "   "); k != 0 {
			t.Errorf("a blank message got key %d, want 0", k)
		}
		a, b := s.Send(th, "same words"), s.Send(th, "same words")
		if a == 0 || b == 0 || a == b {
			t.Fatalf("keys %d and %d", a, b)
		}
		close(f.Gate)
		until(t, func() bool { return w.endsAre(a, conversation.Replied) && w.endsAre(b, conversation.Replied) })
		if o := w.ends(b)[0]; o.Reply.Text != "re: same words" || o.Reply.Role != conversation.Assistant || o.Err != nil {
			t.Errorf("the second turn ended %+v", o)
		}
	}))
	t.Run("failed, then retried", inBubble(func(t *testing.T) {
		f := newFake()
		refused := &client.Error{StatusCode: 402, Message: "no points"}
		f.ChatErrs = []error{refused}
		s, w := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		k := s.Send(th, "hello")
		until(t, func() bool { return w.endsAre(k, conversation.NoReply) })
		if o := w.ends(k)[0]; o.State != conversation.Failed || !errors.Is(o.Err, refused) {
			t.Errorf("the failed turn ended %+v", o)
		}
		s.Retry(th, k)
		until(t, func() bool { return w.endsAre(k, conversation.NoReply, conversation.Replied) })
	}))
	t.Run("stopped, then answered", inBubble(func(t *testing.T) {
		f := newFake()
		f.Gate = make(chan struct{})
		s, w := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		k := s.Send(th, "a long question")
		<-f.Entered
		s.StopWaiting(th)
		if o := w.ends(k); len(o) != 1 || o[0].End != conversation.Stopped || !errors.Is(o[0].Err, conversation.ErrStopped) {
			t.Fatalf("after StopWaiting the turn ended %+v, want Stopped at once", o)
		}
		close(f.Gate)
		until(t, func() bool { return w.endsAre(k, conversation.Stopped, conversation.Replied) })
	}))
	t.Run("lost, then found in the history", inBubble(func(t *testing.T) {
		f := newFake()
		f.Histories["c1"] = &client.History{ConversationID: conversationtest.ID("c1"), Messages: []client.Message{
			{Role: "user", Content: "hello"}, {Role: "assistant", Content: "hi"}}}
		f.ChatErrs = []error{fmt.Errorf("POST /v1/chat/messages: %w", client.ErrReplyLost)}
		s, w := newSession(t, f)
		th := s.Open(conversationtest.ID("c1"))
		until(t, func() bool { return len(s.Snapshot(th).Messages) == 2 })
		f.Mu.Lock()
		f.Histories["c1"].Messages = append(f.Histories["c1"].Messages,
			client.Message{Role: "user", Content: "hello"}, client.Message{Role: "assistant", Content: "stored later"})
		f.Mu.Unlock()
		k := s.Send(th, "hello")
		until(t, func() bool { return w.endsAre(k, conversation.NoReply, conversation.Replied) })
		o := w.ends(k)
		if o[0].State != conversation.Lost || !errors.Is(o[0].Err, client.ErrReplyLost) || o[1].Reply.Text != "stored later" {
			t.Errorf("the lost turn ended %+v", o)
		}
	}))
	t.Run("taken back", inBubble(func(t *testing.T) {
		f := newFake()
		f.ChatErrs = []error{&client.Error{StatusCode: 402, Message: "no points"}}
		s, w := newSession(t, f)
		th := s.NewThread(client.Config{}, "")
		first := s.Send(th, "first")
		until(t, func() bool { return w.endsAre(first, conversation.NoReply) })
		second := s.Send(th, "second") // queued behind the failed one
		s.TakeUnsent(th)
		until(t, func() bool { return w.endsAre(second, conversation.NoReply) })
		if o := w.ends(second)[0]; !errors.Is(o.Err, conversation.ErrWithdrawn) {
			t.Errorf("the queued turn taken back ended %+v", o)
		}
		if !w.endsAre(first, conversation.NoReply) {
			t.Errorf("the failed turn taken back ended again: %+v", w.ends(first))
		}
	}))
	t.Run("deleted", inBubble(func(t *testing.T) {
		f := newFake()
		f.Histories["c1"] = &client.History{ConversationID: conversationtest.ID("c1")}
		f.List = []client.Conversation{{ID: conversationtest.ID("c1"), Title: "old"}}
		f.Gate = make(chan struct{})
		s, w := newSession(t, f)
		th := s.Open(conversationtest.ID("c1"))
		until(t, func() bool { return !s.Snapshot(th).Loading })
		sending := s.Send(th, "one more")
		<-f.Entered
		queued := s.Send(th, "and another")
		deleted := make(chan error, 1)
		s.Delete(conversationtest.ID("c1"), func(err error) { deleted <- err })
		if err := <-deleted; err != nil {
			t.Fatal(err)
		}
		until(t, func() bool { return w.endsAre(queued, conversation.NoReply) })
		close(f.Gate)
		until(t, func() bool { return w.endsAre(sending, conversation.NoReply) })
		for _, k := range []int64{sending, queued} {
			if o := w.ends(k)[0]; !errors.Is(o.Err, conversation.ErrDeleted) {
				t.Errorf("turn %d of the deleted conversation ended %+v", k, o)
			}
		}
	}))
}
