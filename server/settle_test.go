package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
	"parley/server/store"
)

// The money path of a chat call, through HTTP: every way a call can end is
// settled in the ledger, and the client is told what the ledger says.

// gateModel is a chat model that reports each call as it arrives and then
// waits to be told how to end it: with its reply, or with an error.
type gateModel struct {
	arrived chan struct{}
	outcome chan error // nil: answer
}

func newGateModel() *gateModel {
	return &gateModel{arrived: make(chan struct{}, 1), outcome: make(chan error, 1)}
}

func (g *gateModel) Complete(ctx context.Context, req ChatRequest) (string, error) {
	g.arrived <- struct{}{}
	select {
	case err := <-g.outcome:
		if err != nil {
			return "", err
		}
		return "[gate] an answer to " + req.UserText, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// chatAsync sends a chat call from another goroutine and delivers its
// reply; a transport failure is a reply with status 0.
func (e *env) chatAsync(body map[string]any) <-chan reply {
	done := make(chan reply, 1)
	j, err := json.Marshal(body)
	if err != nil {
		e.t.Fatal(err)
	}
	go func() {
		req, _ := http.NewRequest("POST", e.base+"/v1/chat/messages", bytes.NewReader(j))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.key)
		resp, err := e.client.Do(req)
		if err != nil {
			done <- reply{Raw: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
		_ = json.Unmarshal(raw, &r.Body)
		done <- r
	}()
	return done
}

// refunded checks that an error reply says the call was refunded, with
// points_charged 0 and the balance the ledger holds.
func (e *env) refunded(r reply, status int, code string) {
	e.t.Helper()
	if r.Status != status || r.code() != code {
		e.t.Fatalf("status %d code %q, want %d %q: %s", r.Status, r.code(), status, code, r.Raw)
	}
	eobj, _ := r.Body["error"].(map[string]any)
	msg, _ := eobj["message"].(string)
	if eobj["points_charged"] != 0.0 || eobj["balance"] != float64(e.balance()) || !strings.Contains(msg, "refunded") {
		e.t.Errorf("error %v: want points_charged 0, balance %d and a message saying refunded", eobj, e.balance())
	}
}

// lastCharge returns the status of the account's newest charge.
func (e *env) lastCharge() string {
	e.t.Helper()
	entries, err := e.store.Ledger(e.t.Context(), e.acct.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Kind == "charge" {
			return entries[i].Status
		}
	}
	return ""
}

// requestDone waits until the service has logged its answer to a chat call.
func (e *env) requestDone() {
	e.t.Helper()
	waitFor(e.t, func() bool { return strings.Contains(e.logs.String(), "path=/v1/chat/messages") }, nil)
}

// TestChat_ClientLeavingMidCallStillGetsItsReply: the client hangs up while
// a slow model answers; the call is finished anyway, charged once, and its
// reply is in the conversation's history.
func TestChat_ClientLeavingMidCallStillGetsItsReply(t *testing.T) {
	arrived := make(chan struct{}, 1)
	up := fakeUpstream(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		arrived <- struct{}{}
		select { // a slow model
		case <-time.After(500 * time.Millisecond):
		case <-r.Context().Done(): // the service gave up on the model
			return
		}
		io.WriteString(w, `{"choices":[{"message":{"content":"Kept for you."}}]}`)
	})
	e := newEnv(t, 10, func(c *Config) { c.LLM = NewOpenAIChat(up.URL, "m", "", nil) })

	ctx, leave := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.base+"/v1/chat/messages", strings.NewReader(`{"message":"Remember the lighthouse."}`))
	req.Header.Set("Authorization", "Bearer "+e.key)
	req.Header.Set("Content-Type", "application/json")
	sent := make(chan error, 1)
	go func() {
		resp, err := e.client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		sent <- err
	}()
	<-arrived
	leave()
	if err := <-sent; err == nil {
		t.Fatal("the call finished before the client left; the test did not test anything")
	}
	e.requestDone()

	if got := e.lastCharge(); got != "posted" {
		t.Fatalf("the charge is %q, want posted", got)
	}
	if b := e.balance(); b != 9 {
		t.Errorf("balance %d, want 9", b)
	}
	list := e.do("GET", "/v1/chat/conversations", nil)
	convs, _ := list.data()["conversations"].([]any)
	if len(convs) != 1 {
		t.Fatalf("conversations: %s", list.Raw)
	}
	id := convs[0].(map[string]any)["id"].(string)
	msgs, _ := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil).data()["messages"].([]any)
	if len(msgs) != 2 || msgs[1].(map[string]any)["content"] != "Kept for you." {
		t.Errorf("history %v, want the question and the reply the client paid for", msgs)
	}
	e.verify()
}

// TestChat_ConversationDeletedDuringTheCallIsRefunded: the conversation is
// deleted (through the API) while the model answers; the call is refunded,
// nothing is stored, and the client is told so with its balance.
func TestChat_ConversationDeletedDuringTheCallIsRefunded(t *testing.T) {
	g := newGateModel()
	e := newEnv(t, 10, func(c *Config) { c.LLM = g })
	g.outcome <- nil
	first := e.chat(map[string]any{"message": "Plan a trip."})
	<-g.arrived
	id := first["conversation_id"].(string)

	done := e.chatAsync(map[string]any{"message": "And the way back?", "conversation_id": id})
	<-g.arrived
	if r := e.do("DELETE", "/v1/chat/conversations/"+id, nil); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	g.outcome <- nil
	r := <-done
	e.refunded(r, http.StatusNotFound, codeNotFound)
	if b := e.balance(); b != 9 {
		t.Errorf("balance %d, want 9 (the first call only)", b)
	}
	if got := e.lastCharge(); got != store.StatusRefunded {
		t.Errorf("the second call's charge is %q, want voided", got)
	}
	if h := e.do("GET", "/v1/chat/conversations/"+id+"/messages", nil); h.Status != 404 {
		t.Errorf("the deleted conversation came back: %d %s", h.Status, h.Raw)
	}
	if l := e.do("GET", "/v1/chat/conversations", nil); len(l.data()["conversations"].([]any)) != 0 {
		t.Errorf("list after the delete: %s", l.Raw)
	}
	e.verify()
}

// TestChat_CommitThatFailsIsRefundedAndSaidSo: storing the reply fails (a
// trigger makes the insert fail, as a full disk or a corrupt page would);
// the charge is refunded, and the client is told the truth.
func TestChat_CommitThatFailsIsRefundedAndSaidSo(t *testing.T) {
	e := newEnv(t, 10, nil)
	path := e.dbPath
	db := openRaw(t, path, 0)
	if _, err := db.ExecContext(t.Context(),
		"CREATE TRIGGER refuse_messages BEFORE INSERT ON messages BEGIN SELECT RAISE(ABORT, 'injected failure'); END"); err != nil {
		t.Fatal(err)
	}
	r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hello"})
	e.refunded(r, http.StatusInternalServerError, codeInternal)
	if b := e.balance(); b != 10 {
		t.Errorf("balance %d, want 10", b)
	}
	if got := e.lastCharge(); got != store.StatusRefunded {
		t.Errorf("charge %q, want voided", got)
	}
	if l := e.do("GET", "/v1/chat/conversations", nil); len(l.data()["conversations"].([]any)) != 0 {
		t.Errorf("a failed call stored a conversation: %s", l.Raw)
	}
	e.verify()
}

// TestChat_ModelTimeout502CarriesBalance: a call so slow that the pending
// charge was refunded meanwhile (as crash recovery does with a call left
// behind) ends in a 502 that, like every 502, says points_charged and balance.
func TestChat_ModelTimeout502CarriesBalance(t *testing.T) {
	g := newGateModel()
	e := newEnv(t, 10, func(c *Config) { c.LLM = g })
	done := e.chatAsync(map[string]any{"message": "Take your time."})
	<-g.arrived
	if n, err := e.store.RecoverPending(t.Context(), 0); err != nil || n != 1 {
		t.Fatalf("RecoverPending = %d, %v", n, err)
	}
	g.outcome <- nil
	r := <-done
	e.refunded(r, http.StatusBadGateway, codeUpstream)
	if b := e.balance(); b != 10 {
		t.Errorf("balance %d, want 10", b)
	}
	e.verify()
}

// TestChat_Every502CarriesPointsAndBalance goes through the ways a model
// fails.
func TestChat_Every502CarriesPointsAndBalance(t *testing.T) {
	for name, fail := range map[string]error{
		"error":   errors.New("upstream down"),
		"timeout": context.DeadlineExceeded,
	} {
		t.Run(name, func(t *testing.T) {
			g := newGateModel()
			e := newEnv(t, 10, func(c *Config) { c.LLM = g })
			g.outcome <- fail
			r := e.do("POST", "/v1/chat/messages", map[string]any{"message": "hi"})
			e.refunded(r, http.StatusBadGateway, codeUpstream)
		})
	}
}

// lockDB takes the database's write lock as another process holding BEGIN
// IMMEDIATE would, and returns the function that lets it go.
func lockDB(t *testing.T, path string) (unlock func()) {
	t.Helper()
	conn, err := openRaw(t, path, 0).Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(context.Background(), "ROLLBACK")
		conn.Close()
	}
}

// TestChat_LockedDatabaseIsWaitedOut: another process holds the database's
// write lock for longer than the busy timeout while a call is to be settled.
// The commit (or, when the model failed, the refund) is tried again until the
// lock is gone, and the client hears the outcome that was committed: never a
// 500, never a charge left pending.
func TestChat_LockedDatabaseIsWaitedOut(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out SQLite's 10 s busy timeout")
	}
	for _, c := range []struct {
		name    string
		outcome error
		status  int
		charge  string
	}{
		{"commit", nil, http.StatusOK, "posted"},
		{"void", errors.New("upstream down"), http.StatusBadGateway, "voided"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := newGateModel()
			e := newEnv(t, 10, func(cfg *Config) { cfg.LLM = g })
			path := e.dbPath
			done := e.chatAsync(map[string]any{"message": "hello"})
			<-g.arrived
			unlock := lockDB(t, path)
			g.outcome <- c.outcome
			// The first try fails once SQLite's busy timeout is over: let go then.
			waitFor(t, func() bool { return strings.Contains(e.logs.String(), "chat settle retry") }, nil)
			unlock()
			r := <-done
			if c.status == http.StatusOK {
				if r.Status != 200 || r.data()["points_charged"] != 1.0 || r.data()["balance"] != 9.0 {
					t.Errorf("status %d: %s", r.Status, r.Raw)
				}
			} else {
				e.refunded(r, c.status, codeUpstream)
			}
			if got := e.lastCharge(); got != c.charge {
				t.Errorf("charge %q, want %s", got, c.charge)
			}
			e.verify()
		})
	}
}

// TestServe_RefundsWhatTheLastRunLeftPending: a charge left pending (by a
// crash) is refunded when the service starts, before it answers anyone.
func TestServe_RefundsWhatTheLastRunLeftPending(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(t.Context(), filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	key, acct, err := st.CreateKey(t.Context(), 10)
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.Reserve(t.Context(), acct.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	st.Close()

	ctx, cancel := context.WithCancel(t.Context())
	out, errb := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	done := make(chan error, 1)
	o := DefaultServeOptions()
	o.Addr, o.Data = "127.0.0.1:0", dir
	go func() { done <- Serve(ctx, o, out, errb) }()
	waitFor(t, func() bool { return listenRE.MatchString(out.String()) }, done)
	e := &env{t: t, base: listenRE.FindStringSubmatch(out.String())[1], client: &http.Client{Timeout: 10 * time.Second}, key: key}
	if r := e.do("GET", "/v1/account", nil); r.Status != 200 || r.data()["balance"] != 10.0 {
		t.Errorf("account after the start: %d %s; want the balance back to 10", r.Status, r.Raw)
	}
	if !strings.Contains(errb.String(), "Refunded 1 chat call left unfinished") {
		t.Errorf("the start did not say it refunded the call:\n%s", errb)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(t.Context(), filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	entries, err := st.Ledger(t.Context(), acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	refunds := 0
	for _, en := range entries {
		if en.CallID == res.CallID && en.Kind == "charge" && en.Status != "voided" {
			t.Errorf("the charge is %s, want voided", en.Status)
		}
		if en.CallID == res.CallID && en.Kind == "refund" {
			refunds++
		}
	}
	if refunds != 1 {
		t.Errorf("%d refunds of the call, want 1", refunds)
	}
	if err := st.Verify(t.Context()); err != nil {
		t.Error(err)
	}
}
