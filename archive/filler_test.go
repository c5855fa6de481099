package archive_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/archive"
	"parley/client"
	"parley/server"
	"parley/server/store"
)

// service is the reference service in-process, with a funded account, and how many requests
// it was sent and when.
type service struct {
	c        *client.Client
	requests atomic.Int64
	counting atomic.Bool
}

// recordingSource notes when each request was sent, and whether two were under way at once.
type recordingSource struct {
	archive.Source
	busy       atomic.Bool
	overlapped atomic.Bool
	mu         sync.Mutex
	starts     []time.Time
}

func (r *recordingSource) begin() func() {
	if !r.busy.CompareAndSwap(false, true) {
		r.overlapped.Store(true)
	}
	r.mu.Lock()
	r.starts = append(r.starts, time.Now())
	r.mu.Unlock()
	return func() { r.busy.Store(false) }
}

func (r *recordingSource) ListConversations(ctx context.Context, req client.ListConversationsRequest) (*client.ConversationList, error) {
	defer r.begin()()
	return r.Source.ListConversations(ctx, req)
}

func (r *recordingSource) History(ctx context.Context, id client.ConversationID) (*client.History, error) {
	defer r.begin()()
	return r.Source.History(ctx, id)
}

func startService(t testing.TB) *service {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	s := &service{}
	h := srv.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.counting.Load() {
			s.requests.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	key, _, err := st.CreateKey(ctx, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	s.c, err = client.New(client.Options{BaseURL: hs.URL, APIKey: client.APIKey(key)})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// chat creates conversations with one question each, n at a time in parallel, and returns
// their IDs in the order asked.
func (s *service) chat(t testing.TB, questions ...string) []client.ConversationID {
	t.Helper()
	ids := make([]client.ConversationID, len(questions))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	var failed atomic.Value
	for i, q := range questions {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res, err := s.c.SendMessage(context.Background(), client.SendMessageRequest{Message: q})
			if err != nil {
				failed.Store(err)
				return
			}
			ids[i] = res.ConversationID
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestFiller_IndexesEveryConversationPolitely(t *testing.T) {
	s := startService(t)
	qs := make([]string, 1000)
	for i := range qs {
		qs[i] = fmt.Sprintf("Question %d about the tide", i)
	}
	qs[777] = "Where is the lighthouse of Ebbsfleet?"
	s.chat(t, qs...)

	a := openArchive(t)
	var changes atomic.Int64
	const interval = 5 * time.Millisecond
	rec := &recordingSource{Source: s.c}
	f := &archive.Filler{Archive: a, Service: "svc", Source: rec, Interval: interval, Changed: func() { changes.Add(1) }}
	s.counting.Store(true)
	p, err := f.Run(t.Context())
	s.counting.Store(false)
	if err != nil {
		t.Fatal(err)
	}
	// 10 pages of the list, then 1,000 histories.
	if p.Listed != 1000 || !p.Complete || p.Indexed != 1000 || p.Left != 0 || p.Requests != 1010 || s.requests.Load() != 1010 {
		t.Fatalf("progress %+v, %d requests arrived; want 1,000 listed and indexed in 1,010 requests", p, s.requests.Load())
	}
	// Politeness: one request at a time, and sent an interval apart at the least. The times
	// are taken where the filler calls its source (what it controls), not where the requests
	// arrive; a busy machine may still hold a goroutine between the filler's clock and the
	// source's, so each run of 20 requests must span 20 intervals less a slack of 25 ms. A
	// filler with no pause sends 20 requests here in 10-20 ms.
	if rec.overlapped.Load() {
		t.Fatal("the filler had two requests under way at once")
	}
	const run, slack = 20, 25 * time.Millisecond
	for i := run; i < len(rec.starts); i++ {
		if d := rec.starts[i].Sub(rec.starts[i-run]); d < run*interval-slack {
			t.Fatalf("requests %d to %d were sent in %v; at an interval of %v they take %v", i-run, i, d, interval, run*interval)
		}
	}
	if len(rec.starts) != 1010 {
		t.Fatalf("the source was called %d times, want 1,010", len(rec.starts))
	}
	if changes.Load() < 1000 {
		t.Errorf("Changed was called %d times, want once per conversation", changes.Load())
	}
	hits, err := a.Search("svc", "lighthouse ebbs", 10)
	if err != nil || len(hits) != 1 || hits[0].Seq != 1 || hits[0].Title != qs[777] {
		t.Fatalf("hits = %+v, %v; want the conversation never opened, at its last message with the words (the reply, which repeats them), with its title", hits, err)
	}

	// A second run reads the list only: nothing changed.
	s.requests.Store(0)
	s.counting.Store(true)
	p, err = f.Run(t.Context())
	s.counting.Store(false)
	if err != nil || p.Indexed != 0 || p.Requests != 10 || s.requests.Load() != 10 {
		t.Errorf("second run: %+v, %v, %d requests; want the 10 pages of the list only", p, err, s.requests.Load())
	}
}

func TestFiller_BudgetEndsARunAndTheNextGoesOn(t *testing.T) {
	s := startService(t)
	s.chat(t, "one tide", "two tide", "three tide", "four tide", "five tide")
	a := openArchive(t)
	f := &archive.Filler{Archive: a, Service: "svc", Source: s.c, Interval: time.Millisecond, Budget: 3}
	p, err := f.Run(t.Context())
	if err != archive.ErrBudget || p.Indexed != 2 || p.Left != 3 {
		t.Fatalf("first run: %+v, %v; want 2 indexed, 3 left, ErrBudget", p, err)
	}
	f.Budget = 0
	p, err = f.Run(t.Context())
	if err != nil || p.Indexed != 3 {
		t.Fatalf("second run: %+v, %v; want the 3 left indexed", p, err)
	}
	if hits, _ := a.Search("svc", "tide", 10); len(hits) != 5 {
		t.Errorf("%d conversations found, want 5", len(hits))
	}
}

func TestFiller_DeletedElsewhereDropsOut(t *testing.T) {
	s := startService(t)
	ids := s.chat(t, "keep the tide", "drop the tide")
	a := openArchive(t)
	f := &archive.Filler{Archive: a, Service: "svc", Source: s.c, Interval: time.Millisecond}
	if _, err := f.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	a.SetLabel("svc", ids[1].String(), archive.Label{Name: "Pinned one", Pinned: true})
	if err := s.c.DeleteConversation(t.Context(), ids[1]); err != nil { // another device deletes it
		t.Fatal(err)
	}
	p, err := f.Run(t.Context())
	if err != nil || p.Dropped != 1 {
		t.Fatalf("%+v, %v; want one dropped", p, err)
	}
	hits, _ := a.Search("svc", "tide", 10)
	if len(hits) != 1 || hits[0].Conversation != ids[0].String() {
		t.Errorf("hits = %+v", hits)
	}
	if l, _ := a.Labels("svc"); len(l) != 0 {
		t.Errorf("its label stayed: %+v", l)
	}
}

func TestFiller_StopsWithItsContext(t *testing.T) {
	s := startService(t)
	s.chat(t, "a", "b", "c")
	a := openArchive(t)
	ctx, cancel := context.WithCancel(t.Context())
	// The first history is asked for an hour after the list: the window closing ends the wait.
	f := &archive.Filler{Archive: a, Service: "svc", Source: s.c, Interval: time.Hour}
	time.AfterFunc(50*time.Millisecond, cancel)
	p, err := f.Run(ctx)
	if err != context.Canceled || p.Requests != 1 {
		t.Fatalf("%+v, %v; want the run stopped after the list's first page, waiting for its next request", p, err)
	}
}
