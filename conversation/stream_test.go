package conversation_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
)

// streamingFake streams its replies a word at a time, one word each time next gets a value,
// and heeds a person's Stop unless deaf.
type streamingFake struct {
	*conversationtest.Service
	next chan struct{}
	deaf bool

	mu    sync.Mutex
	stops int
}

func (f *streamingFake) Streams() bool { return true }

func (f *streamingFake) SendMessageStream(ctx context.Context, req client.SendMessageRequest, opts client.StreamOptions) (*client.SendMessageResult, error) {
	words := strings.Fields("re: " + req.Message + " and more words")
	var sent []string
	stop := opts.Stop
	for _, w := range words {
		select {
		case <-f.next:
		case <-stop:
			f.mu.Lock()
			f.stops++
			f.mu.Unlock()
			if f.deaf {
				stop = nil
				<-f.next
				break
			}
			if len(sent) == 0 {
				return nil, &client.Error{StatusCode: 409, Code: client.CodeStopped, Message: "Stopped; refunded."}
			}
			return &client.SendMessageResult{ConversationID: conversationtest.ID("c1"), Reply: strings.Join(sent, " "), Stopped: true}, nil
		}
		piece := w
		if len(sent) > 0 {
			piece = " " + w
		}
		sent = append(sent, w)
		opts.OnText(piece)
	}
	return &client.SendMessageResult{ConversationID: conversationtest.ID("c1"), Reply: strings.Join(sent, " ")}, nil
}

// growth watches the Growing changes.
type growth struct {
	mu      sync.Mutex
	growing int
	ended   []conversation.Outcome
}

func (g *growth) onChange(c conversation.Change) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.Growing {
		g.growing++
	}
	g.ended = append(g.ended, c.Ended...)
}

func (g *growth) outcomes() []conversation.Outcome {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]conversation.Outcome(nil), g.ended...)
}

func newStreaming(t *testing.T, deaf bool) (*conversation.Session, *streamingFake, *growth) {
	f := &streamingFake{Service: newFake(), next: make(chan struct{}), deaf: deaf}
	g := &growth{}
	s := conversation.NewSession(f, g.onChange)
	t.Cleanup(s.Close)
	return s, f, g
}

// TestSession_StreamedReplyGrows: from a service that streams, the turn's Partial grows as the
// reply is written, told by Growing changes no more often than every 50 ms, and the reply ends
// the turn as any reply does.
func TestSession_StreamedReplyGrows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, f, g := newStreaming(t, false)
		th := s.NewThread(client.Config{}, "")
		key := s.Send(th, "north")
		f.next <- struct{}{}
		f.next <- struct{}{}
		until(t, func() bool { return len(s.Snapshot(th).Turns) == 1 && s.Snapshot(th).Turns[0].Partial == "re: north" })
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		told := g.growing
		for range 3 { // three pieces at once: told at once, then once more 50 ms later
			f.next <- struct{}{}
		}
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if g.growing-told != 2 {
			t.Errorf("%d Growing changes for three pieces within 50 ms, want 2", g.growing-told)
		}
		until(t, func() bool { return len(g.outcomes()) == 1 })
		v := s.Snapshot(th)
		if o := g.outcomes()[0]; o.Key != key || o.End != conversation.Replied || o.Stopped || o.Reply.Text != "re: north and more words" ||
			len(v.Turns) != 0 || len(v.Messages) != 2 {
			t.Errorf("outcome %+v, thread %+v", o, v)
		}
	})
}

// TestSession_StopAStreamedReply: Stop asks the service to end the reply where it is: the words
// written are the reply (Stopped). Stopped before any word: the turn failed, refunded.
func TestSession_StopAStreamedReply(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, f, g := newStreaming(t, false)
		th := s.NewThread(client.Config{}, "")
		s.Send(th, "north")
		f.next <- struct{}{}
		until(t, func() bool { return s.Snapshot(th).Turns[0].Partial == "re:" })
		if !s.StopWaiting(th) || !s.Snapshot(th).Turns[0].Stopping {
			t.Fatal("StopWaiting did not mark the turn stopping")
		}
		until(t, func() bool { return len(g.outcomes()) == 1 })
		if o := g.outcomes()[0]; o.End != conversation.Replied || !o.Stopped || o.Reply.Text != "re:" {
			t.Errorf("outcome %+v", o)
		}

		s.Send(th, "south")
		synctest.Wait()
		s.StopWaiting(th)
		until(t, func() bool { return len(g.outcomes()) == 2 })
		if o := g.outcomes()[1]; o.End != conversation.NoReply || o.State != conversation.Failed {
			t.Errorf("stopped before any word: outcome %+v", o)
		}
	})
}

// TestSession_StopNotHeeded: a streamed reply that does not end within 5 s of Stop is no longer
// waited for, as any reply the person stopped waiting for; it is still taken when it comes.
func TestSession_StopNotHeeded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, f, g := newStreaming(t, true)
		th := s.NewThread(client.Config{}, "")
		key := s.Send(th, "north")
		f.next <- struct{}{}
		synctest.Wait()
		s.StopWaiting(th)
		time.Sleep(6 * time.Second)
		synctest.Wait()
		if o := g.outcomes(); len(o) != 1 || o[0].End != conversation.Stopped {
			t.Fatalf("outcomes %+v, want Stopped after 5 s", o)
		}
		for range 4 {
			f.next <- struct{}{}
		}
		until(t, func() bool { return len(g.outcomes()) == 2 })
		if o := g.outcomes()[1]; o.Key != key || o.End != conversation.Replied {
			t.Errorf("the reply that came: %+v", o)
		}
	})
}

// TestSession_StopThenRetry: a turn stopped before any text, sent again within 5 s, is not taken
// for stopped by the first Stop's grace running out.
func TestSession_StopThenRetry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, f, g := newStreaming(t, false)
		th := s.NewThread(client.Config{}, "")
		key := s.Send(th, "north")
		synctest.Wait()
		s.StopWaiting(th)
		until(t, func() bool { return len(g.outcomes()) == 1 && g.outcomes()[0].State == conversation.Failed })
		time.Sleep(time.Second)
		s.Retry(th, key)
		time.Sleep(6 * time.Second) // past the first Stop's grace
		synctest.Wait()
		if o := g.outcomes(); len(o) != 1 {
			t.Fatalf("outcomes %+v: the retried turn ended before its reply", o)
		}
		for range 5 {
			f.next <- struct{}{}
		}
		until(t, func() bool { return len(g.outcomes()) == 2 })
		if o := g.outcomes()[1]; o.End != conversation.Replied || o.Stopped {
			t.Errorf("the retried turn: %+v", o)
		}
	})
}

// TestSession_StopTurnStopsOnlyItsTurn: StopTurn stops the reply of its own turn, not another's.
func TestSession_StopTurnStopsOnlyItsTurn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, f, g := newStreaming(t, false)
		th := s.NewThread(client.Config{}, "")
		typed := s.Send(th, "typed")
		voiced := s.Send(th, "voiced")
		f.next <- struct{}{}
		synctest.Wait()
		if s.StopTurn(th, voiced) {
			t.Error("StopTurn stopped the typed question's reply for the voiced one")
		}
		if !s.StopTurn(th, typed) {
			t.Error("StopTurn did not stop its own turn's reply")
		}
		until(t, func() bool { return len(g.outcomes()) >= 1 })
		if o := g.outcomes()[0]; o.Key != typed || !o.Stopped {
			t.Errorf("outcome %+v", o)
		}
		for range 5 {
			f.next <- struct{}{}
		}
		until(t, func() bool { return len(g.outcomes()) == 2 })
	})
}
