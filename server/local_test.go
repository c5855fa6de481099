package server_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"parley/engine"
	"parley/server"
)

// TestLocal_SameAccountAcrossStarts starts the built-in service twice on one folder: the second
// start reaches the same account (its conversation is there) with a new key, and the old key
// is refused.
func TestLocal_SameAccountAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	l := &server.Local{DataDir: dir}
	base, key, err := l.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("address %q, want loopback", base)
	}
	post(t, base, key, `{"message":"Remember the word cobalt."}`)
	l.Stop()

	l2 := &server.Local{DataDir: dir}
	base2, key2, err := l2.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l2.Stop)
	if key2 == key {
		t.Error("the key was not replaced")
	}
	if code, _ := get(t, base2, key, "/v1/chat/conversations"); code != http.StatusUnauthorized {
		t.Errorf("the old key got %d, want 401", code)
	}
	code, body := get(t, base2, key2, "/v1/chat/conversations")
	if code != 200 || !strings.Contains(body, "cobalt") {
		t.Errorf("the second start's list: %d %s; want the conversation of the first", code, body)
	}
	// A second app on the same folder is refused while this one runs.
	var locked *server.DataDirLockedError
	if _, _, err := (&server.Local{DataDir: dir}).Start(t.Context()); !errors.As(err, &locked) {
		t.Errorf("a second start on the same folder: %v, want *DataDirLockedError", err)
	}
	code, body = get(t, base2, key2, "/v1/account")
	var acct struct {
		Data struct{ Balance int64 } `json:"data"`
	}
	if json.Unmarshal([]byte(body), &acct) != nil || code != 200 || acct.Data.Balance != server.LocalPoints-1 {
		t.Errorf("account %d %s", code, body)
	}
}

func post(t *testing.T, base, key, body string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/chat/messages", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("chat: %d %s", res.StatusCode, b)
	}
}

func get(t *testing.T, base, key, path string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestLocal_StartWhileRunningGivesTheSameService: the app switching back to the built-in service
// while it still runs gets the same address and key, not an error.
func TestLocal_StartWhileRunningGivesTheSameService(t *testing.T) {
	l := &server.Local{DataDir: t.TempDir()}
	base, key, err := l.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Stop)
	base2, key2, err := l.Start(t.Context())
	if err != nil || base2 != base || key2 != key {
		t.Fatalf("second Start: %q %v, want the running service again", base2, err)
	}
	post(t, base2, key2, `{"message":"Still here?"}`)
}

// TestLocal_StopAndStartAgain: stopped (the app switched to a remote service) and started again
// (switched back), the service answers with the same account, any number of times.
func TestLocal_StopAndStartAgain(t *testing.T) {
	l := &server.Local{DataDir: t.TempDir()}
	for i := range 3 {
		base, key, err := l.Start(t.Context())
		if err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		post(t, base, key, `{"message":"Round `+string(rune('1'+i))+`"}`)
		code, body := get(t, base, key, "/v1/chat/conversations")
		if code != 200 || strings.Count(body, `"id"`) != i+1 {
			t.Errorf("start %d: list %d %s, want %d conversations", i+1, code, body, i+1)
		}
		l.Stop()
		l.Stop() // twice is harmless
	}
}

// TestLocal_StopGivesUpAHungCallAndRefundsIt: a chat call whose model never answers does not
// hold Stop beyond LocalStopGrace; its charge is refunded when the service starts again.
func TestLocal_StopGivesUpAHungCallAndRefundsIt(t *testing.T) {
	old := server.LocalStopGrace
	server.LocalStopGrace = 200 * time.Millisecond
	t.Cleanup(func() { server.LocalStopGrace = old })

	asked := make(chan struct{}, 1)
	release := make(chan struct{})
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case asked <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); up.Close() })

	dir := t.TempDir()
	l := &server.Local{DataDir: dir}
	if st := l.SetEngines(t.Context(), engine.Set{Chat: engine.Chat{Kind: engine.Remote, URL: up.URL + "/v1", Model: "slow"}}); st.Chat == "" {
		t.Fatalf("engines not set: %+v", st)
	}
	base, key, err := l.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	callDone := make(chan struct{})
	go func() {
		defer close(callDone)
		req, _ := http.NewRequest("POST", base+"/v1/chat/messages", strings.NewReader(`{"message":"Take your time."}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
		}
	}()
	<-asked
	l.Stop() // returns, although the model never answers
	<-callDone

	l2 := &server.Local{DataDir: dir}
	base2, key2, err := l2.Start(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l2.Stop)
	code, body := get(t, base2, key2, "/v1/account")
	var acct struct {
		Data struct{ Balance int64 } `json:"data"`
	}
	if json.Unmarshal([]byte(body), &acct) != nil || code != 200 || acct.Data.Balance != server.LocalPoints {
		t.Errorf("account after the given-up call: %d %s, want the whole balance back", code, body)
	}
}

// TestLocal_StartWaitsForAStoppingHolder: a Parley started while the last one still finishes a
// call (holding the data folder) waits for the folder, and starts once it is let go.
func TestLocal_StartWaitsForAStoppingHolder(t *testing.T) {
	dir := t.TempDir()
	first := &server.Local{DataDir: dir}
	if _, _, err := first.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	second := &server.Local{DataDir: dir, LockWait: time.Minute}
	type started struct {
		base, key string
		err       error
	}
	done := make(chan started, 1)
	go func() {
		base, key, err := second.Start(t.Context())
		done <- started{base, key, err}
	}()
	select {
	case got := <-done:
		t.Fatalf("the second start did not wait for the folder: %q %v", got.base, got.err)
	case <-time.After(300 * time.Millisecond): // still waiting, as it should
	}
	first.Stop()
	got := <-done
	if got.err != nil {
		t.Fatalf("the second start: %v", got.err)
	}
	t.Cleanup(second.Stop)
	post(t, got.base, got.key, `{"message":"Taken over."}`)
}
