package server_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

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
