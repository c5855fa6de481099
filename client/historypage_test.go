package client

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// pagingService answers the message history the way the reference service pages it: the newest
// page first, messages oldest first within a page, "next_before" naming the oldest message of the
// page while older ones are left. Messages have IDs 1..n.
func pagingService(t *testing.T, n, pageSize int) *testenv.RecordingServer {
	t.Helper()
	return testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		q, _ := url.ParseQuery(r.URL.RawQuery)
		end := n + 1 // IDs below end
		if b := q.Get("before"); b != "" {
			v, err := strconv.Atoi(b)
			if err != nil {
				t.Errorf("before=%q is not a message ID", b)
			}
			end = v
		}
		size := pageSize
		if l := q.Get("limit"); l != "" {
			size, _ = strconv.Atoi(l)
		}
		start := max(1, end-size)
		var msgs []string
		for id := start; id < end; id++ {
			role := map[bool]string{true: "user", false: "assistant"}[id%2 == 1]
			msgs = append(msgs, fmt.Sprintf(`{"id":%d,"role":%q,"content":"m%d","created_at":"2025-11-22T10:00:00Z"}`, id, role, id))
		}
		next := "null"
		if start > 1 {
			next = strconv.Itoa(start)
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"data":{"id":"c1","title":"T","config":{"persona":"a guide"},"messages":[%s],"next_before":%s}}`,
			strings.Join(msgs, ","), next)
	})
}

func TestHistory_FollowsPagesOldestFirst(t *testing.T) {
	for _, tt := range []struct{ n, pageSize, requests int }{
		{n: 7, pageSize: 3, requests: 3},
		{n: 6, pageSize: 3, requests: 2},
		{n: 2, pageSize: 3, requests: 1},
		{n: 0, pageSize: 3, requests: 1},
	} {
		t.Run(fmt.Sprintf("%d messages in pages of %d", tt.n, tt.pageSize), func(t *testing.T) {
			ts := pagingService(t, tt.n, tt.pageSize)
			c := newTestClient(t, ts.URL)
			h, err := c.History(t.Context(), strID("c1"))
			if err != nil {
				t.Fatalf("History: %v", err)
			}
			var ids []string
			for _, m := range h.Messages {
				ids = append(ids, m.ID.String())
				if m.Content != "m"+m.ID.String() {
					t.Errorf("message %s has content %q", m.ID, m.Content)
				}
			}
			var want []string
			for id := 1; id <= tt.n; id++ {
				want = append(want, strconv.Itoa(id))
			}
			if strings.Join(ids, " ") != strings.Join(want, " ") {
				t.Errorf("message IDs %v, want %v (all of them, oldest first)", ids, want)
			}
			if h.Config.Persona == nil || *h.Config.Persona != "a guide" {
				t.Errorf("config %+v", h.Config)
			}
			reqs := ts.Requests()
			if len(reqs) != tt.requests {
				t.Fatalf("%d requests, want %d", len(reqs), tt.requests)
			}
			if reqs[0].RawQuery != "" {
				t.Errorf("first request has query %q, want none (the service's newest page)", reqs[0].RawQuery)
			}
			for i, r := range reqs[1:] {
				if want := "before=" + strconv.Itoa(tt.n-(i+1)*tt.pageSize+1); r.RawQuery != want {
					t.Errorf("request %d query %q, want %q", i+2, r.RawQuery, want)
				}
			}
		})
	}
}

func TestHistory_ServiceThatIgnoresBeforeIsReadOnce(t *testing.T) {
	// The same page again and again, with the same next_before: a service that does not page.
	ts := testenv.NewRecordingServer(t, reply(200, `{"messages":[{"id":5,"role":"user","content":"hi"}],"next_before":5}`))
	c := newTestClient(t, ts.URL)
	h, err := c.History(t.Context(), strID("c1"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Messages) != 1 || len(ts.Requests()) != 2 {
		t.Errorf("%d messages after %d requests, want 1 message (no duplicates) after 2", len(h.Messages), len(ts.Requests()))
	}
}

func TestHistoryPage_SendsLimitAndBefore(t *testing.T) {
	ts := pagingService(t, 10, 4)
	c := newTestClient(t, ts.URL)
	var before MessageID
	if err := before.UnmarshalJSON([]byte("8")); err != nil {
		t.Fatal(err)
	}
	p, err := c.HistoryPage(t.Context(), strID("c1"), HistoryPageRequest{Limit: 2, Before: before})
	if err != nil {
		t.Fatal(err)
	}
	if got := ts.Only(t).RawQuery; got != "before=8&limit=2" {
		t.Errorf("query %q", got)
	}
	if len(p.Messages) != 2 || p.Messages[0].ID.String() != "6" || p.Messages[1].ID.String() != "7" || p.NextBefore.String() != "6" {
		t.Errorf("page %+v, next_before %q; want messages 6 and 7, then 6", p.Messages, p.NextBefore)
	}
}

func TestHistoryPage_LastPageHasNoNextBefore(t *testing.T) {
	for _, body := range []string{
		`{"data":{"messages":[{"id":1,"role":"user","content":"a"}],"next_before":null}}`,
		`{"data":{"messages":[{"id":1,"role":"user","content":"a"}]}}`,
		`[{"id":1,"role":"user","content":"a"}]`,
	} {
		ts := testenv.NewRecordingServer(t, reply(200, body))
		c := newTestClient(t, ts.URL)
		p, err := c.HistoryPage(t.Context(), strID("c1"), HistoryPageRequest{})
		if err != nil || !p.NextBefore.IsZero() || len(p.Messages) != 1 {
			t.Errorf("%s: page %+v, %v; want one message and no next page", body, p, err)
		}
	}
}
