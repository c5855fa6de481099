package server

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"parley/server/store"
)

// addTurns stores n turns in a conversation (a new one for ""), each message
// of text, straight through the store, and returns the conversation's ID.
func addTurns(t testing.TB, st *store.Store, accountID int64, conv string, n int, text string) string {
	t.Helper()
	for range n {
		r, err := st.Reserve(t.Context(), accountID, conv)
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Commit(t.Context(), store.CommitParams{CallID: r.CallID, ConversationID: conv, UserText: text, Reply: text})
		if err != nil {
			t.Fatal(err)
		}
		conv = res.ConversationID
	}
	return conv
}

// page is a decoded history page.
type page struct {
	ids        []int64
	nextBefore any // float64, or nil for null
	raw        []byte
}

func (e *env) historyPage(conv, query string) page {
	e.t.Helper()
	r := e.do("GET", "/v1/chat/conversations/"+conv+"/messages"+query, nil)
	if r.Status != 200 {
		e.t.Fatalf("history%s: %d %s", query, r.Status, truncate(string(r.Raw), 300))
	}
	next, present := r.data()["next_before"]
	if !present {
		e.t.Fatalf("history%s: no next_before: %s", query, truncate(string(r.Raw), 300))
	}
	p := page{nextBefore: next, raw: r.Raw}
	for _, m := range r.data()["messages"].([]any) {
		p.ids = append(p.ids, int64(m.(map[string]any)["id"].(float64)))
	}
	return p
}

func TestHistory_PagesNewestFirst(t *testing.T) {
	e := newEnv(t, 100, nil)
	conv := addTurns(t, e.store, e.acct.ID, "", 5, "hello") // messages 1..10

	full := e.historyPage(conv, "")
	if fmt.Sprint(full.ids) != "[1 2 3 4 5 6 7 8 9 10]" || full.nextBefore != nil {
		t.Errorf("default page %v, next_before %v; want all 10 oldest first and null", full.ids, full.nextBefore)
	}
	var got [][]int64
	query := "?limit=4"
	for range 5 {
		p := e.historyPage(conv, query)
		got = append(got, p.ids)
		if p.nextBefore == nil {
			break
		}
		if p.nextBefore != float64(p.ids[0]) {
			t.Errorf("next_before %v, want the page's oldest message %d", p.nextBefore, p.ids[0])
		}
		query = fmt.Sprintf("?limit=4&before=%v", p.nextBefore)
	}
	if fmt.Sprint(got) != "[[7 8 9 10] [3 4 5 6] [1 2]]" {
		t.Errorf("pages %v, want [[7 8 9 10] [3 4 5 6] [1 2]]: the newest first, each oldest first", got)
	}
	if p := e.historyPage(conv, "?limit=2&before=1"); len(p.ids) != 0 || p.nextBefore != nil {
		t.Errorf("before the first message: %v, %v", p.ids, p.nextBefore)
	}

	for _, c := range []struct {
		query  string
		status int
	}{
		{"?limit=0", 422}, {"?limit=1001", 422}, {"?limit=x", 400},
		{"?before=x", 400}, {"?before=0", 400}, {"?before=-3", 400}, {"?limit=1000&before=99", 200},
	} {
		if r := e.do("GET", "/v1/chat/conversations/"+conv+"/messages"+c.query, nil); r.Status != c.status {
			t.Errorf("%s: status %d, want %d", c.query, r.Status, c.status)
		}
	}
	if r := e.newAccount(10).do("GET", "/v1/chat/conversations/"+conv+"/messages?limit=1", nil); r.Status != 404 {
		t.Errorf("another account read a page: %d", r.Status)
	}
}

func TestHistory_PageHoldsAboutAMegabyte(t *testing.T) {
	e := newEnv(t, 100, nil)
	long := strings.Repeat("x", 32_000)
	conv := addTurns(t, e.store, e.acct.ID, "", 20, long) // 40 messages, 1.28 MB
	p := e.historyPage(conv, "")
	if len(p.ids) == 0 || len(p.ids)*32_000 > historyPageBytes || p.nextBefore == nil {
		t.Errorf("default page holds %d messages of 32,000 characters (%d bytes), next_before %v; want at most %d bytes and a next page",
			len(p.ids), len(p.raw), p.nextBefore, historyPageBytes)
	}
	// Following next_before reads every message once.
	seen := map[int64]bool{}
	for query := ""; ; {
		p := e.historyPage(conv, query)
		for _, id := range p.ids {
			if seen[id] {
				t.Fatalf("message %d on two pages", id)
			}
			seen[id] = true
		}
		if p.nextBefore == nil {
			break
		}
		query = fmt.Sprintf("?before=%v", p.nextBefore)
	}
	if len(seen) != 40 {
		t.Errorf("the pages held %d messages, want 40", len(seen))
	}
}

func TestHistory_TextIsNotHTMLEscaped(t *testing.T) {
	e := newEnv(t, 100, nil)
	text := "<b>Fish & chips</b> > <i>peas</i>"
	id := e.chat(map[string]any{"message": text})["conversation_id"].(string)
	r := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil)
	if !strings.Contains(string(r.Raw), `"content":"`+text+`"`) || strings.Contains(string(r.Raw), `\u003c`) {
		t.Errorf("the body escapes <, > or &: %s", truncate(string(r.Raw), 300))
	}
}

func TestConversations_PatchThatChangesNothingKeepsTheOrder(t *testing.T) {
	e := newEnv(t, 100, nil)
	older := e.chat(map[string]any{"message": "older", "persona": "a poet"})["conversation_id"].(string)
	// Let the clock move past older's updated_at, so that touching it would show.
	start := time.Now()
	waitFor(t, func() bool { return time.Since(start) > 3*time.Millisecond }, nil)
	newer := e.chat(map[string]any{"message": "newer"})["conversation_id"].(string)
	waitFor(t, func() bool { return time.Since(start) > 6*time.Millisecond }, nil)

	order := func() (ids []string, updated map[string]any) {
		r := e.do("GET", "/v1/chat/conversations", nil)
		updated = map[string]any{}
		for _, c := range r.data()["conversations"].([]any) {
			c := c.(map[string]any)
			ids = append(ids, c["id"].(string))
			updated[c["id"].(string)] = c["updated_at"]
		}
		return ids, updated
	}
	_, before := order()
	for _, body := range []string{`{}`, `{"persona": "a poet"}`, `{"top_p": null}`} {
		if r := e.do("PATCH", "/v1/chat/conversations/"+older+"/config", body); r.Status != 200 {
			t.Fatalf("PATCH %s: %d %s", body, r.Status, r.Raw)
		}
		ids, updated := order()
		if fmt.Sprint(ids) != fmt.Sprint([]string{newer, older}) || updated[older] != before[older] {
			t.Errorf("after PATCH %s, which changes nothing: order %v, updated_at %v (was %v)", body, ids, updated[older], before[older])
		}
	}
	if r := e.do("PATCH", "/v1/chat/conversations/"+older+"/config", `{"persona": "a painter"}`); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if ids, _ := order(); fmt.Sprint(ids) != fmt.Sprint([]string{older, newer}) {
		t.Errorf("a PATCH that changes the persona leaves the order %v; want the patched conversation first", ids)
	}
}

// recordingModel answers like the offline responder and keeps the last
// request it was given.
type recordingModel struct {
	mu   sync.Mutex
	last ChatRequest
}

func (m *recordingModel) Complete(ctx context.Context, req ChatRequest) (string, error) {
	m.mu.Lock()
	m.last = req
	m.mu.Unlock()
	return NewOfflineResponder().Complete(ctx, req)
}

// TestChat_ModelGetsTheNewestContextNotTheWholeHistory: a chat on a long
// conversation reads only what the model is given (the newest messages, up to
// its context budget), not every message.
func TestChat_ModelGetsTheNewestContextNotTheWholeHistory(t *testing.T) {
	m := &recordingModel{}
	e := newEnv(t, 1000, func(c *Config) { c.LLM = m })
	text := strings.Repeat("a long turn ", 250) // 3,000 characters
	conv := addTurns(t, e.store, e.acct.ID, "", 40, text)
	e.chat(map[string]any{"message": "And now?", "conversation_id": conv})

	m.mu.Lock()
	hist := m.last.History
	m.mu.Unlock()
	total := 0
	for _, msg := range hist {
		total += len(msg.Content)
	}
	if total > contextBudgetChars || len(hist) == 0 {
		t.Fatalf("the model got %d messages, %d characters; want at most the %d of its context", len(hist), total, contextBudgetChars)
	}
	all, err := e.store.Messages(t.Context(), e.acct.ID, conv)
	if err != nil {
		t.Fatal(err)
	}
	newest := all[len(all)-2-len(hist) : len(all)-2] // before the turn just sent
	for i := range hist {
		if hist[i].ID != newest[i].ID {
			t.Fatalf("the model got messages %d.., want the newest ones, oldest first, from %d", hist[0].ID, newest[0].ID)
		}
	}
	if fit := contextBudgetChars / len(text); len(hist) != fit {
		t.Errorf("the model got %d messages; %d fit in its context", len(hist), fit)
	}
}

// TestHistory_ParallelReadsOfAHugeConversationStayBounded reads a
// conversation of 1,000 turns of 32,000-character messages (64 MB of text
// full of < and &) with 8 clients at once, each following the pages to the
// first message, and checks the service's peak resident memory. Unpaged, one
// read was a 192 MB answer and 8 of them took the service to 3.9 GB.
func TestHistory_ParallelReadsOfAHugeConversationStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MB conversation and reads it 8 times")
	}
	const (
		turns   = 1000
		readers = 8
		bound   = 512 << 20 // far above what paging needs, far below what it replaced
	)
	dir := t.TempDir()
	st, err := store.Open(t.Context(), filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	key, acct, err := st.CreateKey(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("<b>Fish & chips</b> ", 1600) // 32,000 characters
	conv := addTurns(t, st, acct.ID, "", 1, text)
	st.Close()
	bulkTurns(t, filepath.Join(dir, "parley.db"), conv, turns-1, text)

	c := startChild(t, dir)
	var wg sync.WaitGroup
	counts := make([]int, readers)
	for i := range readers {
		wg.Go(func() {
			counts[i] = readAllPages(t, c.base, key, conv)
		})
	}
	wg.Wait()
	for i, n := range counts {
		if n != 2*turns {
			t.Errorf("reader %d read %d messages, want %d", i, n, 2*turns)
		}
	}
	peak := peakRSS(t, c.cmd.Process.Pid)
	t.Logf("peak resident memory of the service after %d parallel reads of %d messages: %.0f MB", readers, 2*turns, float64(peak)/(1<<20))
	if peak > bound {
		t.Errorf("the service peaked at %d MB, over the %d MB bound", peak>>20, bound>>20)
	}
}

// readAllPages reads a conversation's history from the newest page to the
// first message and returns how many messages it read.
func readAllPages(t *testing.T, base, key, conv string) int {
	hc := &http.Client{Timeout: time.Minute}
	n, query := 0, ""
	for range 100_000 {
		req, _ := http.NewRequest("GET", base+"/v1/chat/conversations/"+conv+"/messages"+query, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := hc.Do(req)
		if err != nil {
			t.Error(err)
			return n
		}
		var out struct {
			Data struct {
				Messages []struct {
					ID int64 `json:"id"`
				} `json:"messages"`
				NextBefore *int64 `json:"next_before"`
			} `json:"data"`
		}
		err = json.NewDecoder(bufio.NewReader(resp.Body)).Decode(&out)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("status %d: %v", resp.StatusCode, err)
			return n
		}
		n += len(out.Data.Messages)
		if out.Data.NextBefore == nil {
			return n
		}
		query = "?before=" + strconv.FormatInt(*out.Data.NextBefore, 10)
	}
	t.Error("the pages did not end")
	return n
}

// peakRSS returns the peak resident set size (VmHWM) of a process, in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	n := readVmHWM(fmt.Sprintf("/proc/%d/status", pid))
	if n == 0 {
		t.Skip("no VmHWM in /proc/<pid>/status")
	}
	return n
}
