package server

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/server/store"
)

// admin runs AdminMain and returns its exit code and output.
func admin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := AdminMain(t.Context(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func TestAdmin_KeyLifecycle(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := admin(t, "--data", dir, "key", "create", "--points", "50")
	if code != 0 {
		t.Fatalf("key create: %d %s", code, errs)
	}
	key := lastLine(out)
	if !strings.HasPrefix(key, "pk_") || strings.Contains(key, " ") {
		t.Fatalf("last line %q is not a key alone", key)
	}
	if code, out, _ := admin(t, "--data", dir, "balance", "--key", key); code != 0 || out != "50\n" {
		t.Errorf("balance: %d %q", code, out)
	}
	// Flags before and after the number.
	if code, _, errs := admin(t, "--data", dir, "points", "grant", "--key", key, "10"); code != 0 {
		t.Errorf("grant: %d %s", code, errs)
	}
	if code, _, errs := admin(t, "points", "grant", "5", "--key", key, "--data", dir); code != 0 {
		t.Errorf("grant, flags after: %d %s", code, errs)
	}
	if _, out, _ := admin(t, "--data", dir, "balance", "--key", key); out != "65\n" {
		t.Errorf("balance after grants %q", out)
	}
	if code, _, _ := admin(t, "--data", dir, "price", "set", "3"); code != 0 {
		t.Error("price set")
	}
	if _, out, _ := admin(t, "--data", dir, "price", "show"); out != "3\n" {
		t.Errorf("price show %q", out)
	}

	// A chat call through the service on the same database.
	st, err := store.Open(t.Context(), filepath.Join(dir, "parley.db"))
	if err != nil {
		t.Fatal(err)
	}
	acct, err := st.Authenticate(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	res, err := st.Reserve(t.Context(), acct.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Void(t.Context(), res.CallID); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, out, _ = admin(t, "--data", dir, "ledger", "--key", key)
	if code != 0 {
		t.Fatalf("ledger: %d", code)
	}
	for _, want := range []string{"TIME", "KIND", "AMOUNT", "BALANCE AFTER", "STATUS", "CALL ID", "grant", "+50", "charge", "-3", "voided", "refund", res.CallID} {
		if !strings.Contains(out, want) {
			t.Errorf("ledger lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := admin(t, "--data", dir, "key", "revoke", key); code != 0 {
		t.Error("revoke")
	}
	if code, _, errs := admin(t, "--data", dir, "balance", "--key", key); code != 0 {
		t.Logf("balance of a revoked key: %d %s", code, errs)
	}
}

func TestAdmin_Errors(t *testing.T) {
	dir := t.TempDir()
	admin(t, "--data", dir, "price", "show") // no database yet
	if code, _, _ := admin(t, "--data", dir, "key", "create", "--points", "1"); code != 0 {
		t.Fatal("key create")
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"balance", "--key", "pk_nope"}, 1, "no such key"},
		{[]string{"points", "grant", "--key", "pk_nope", "5"}, 1, "no such key"},
		{[]string{"key", "revoke", "pk_nope"}, 1, "no such key"},
		{[]string{"ledger", "--key", "pk_nope"}, 1, "no such key"},
		{[]string{}, 2, "Usage"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"key", "create"}, 2, "needs --points"},
		{[]string{"key", "create", "--points", "-5"}, 2, "negative"},
		{[]string{"key", "create", "--points", "many"}, 2, "Usage"},
		{[]string{"balance"}, 2, "needs --key"},
		{[]string{"balance", "--key", "k", "extra"}, 2, "argument"},
		{[]string{"balance", "--key", "k", "--points", "3"}, 2, "does not take --points"},
		{[]string{"points", "grant", "--key", "k"}, 2, "argument"},
		{[]string{"points", "grant", "--key", "k", "ten"}, 2, "not a positive"},
		{[]string{"points", "grant", "--key", "k", "0"}, 2, "not a positive"},
		{[]string{"price", "set", "x"}, 2, "Usage"},
		{[]string{"--bogus"}, 2, "not defined"},
	} {
		code, _, errs := admin(t, append([]string{"--data", dir}, c.args...)...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.msg)
		}
	}
	if code, _, errs := admin(t, "--data", filepath.Join(dir, "absent"), "balance", "--key", "k"); code != 1 || !strings.Contains(errs, "no Parley database") {
		t.Errorf("missing data dir: %d %s", code, errs)
	}
}

func TestServeMain_RefusesBadCommandLines(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--addr", "0.0.0.0:8780"}, "--insecure-bind"},
		{[]string{"--addr", ":8780"}, "--insecure-bind"},
		{[]string{"--addr", "192.168.1.5:8780"}, "--tls-cert"},
		{[]string{"--addr", "nonsense"}, "host:port"},
		{[]string{"--tls-cert", "c.pem"}, "go together"},
		{[]string{"--llm-url", "http://x"}, "--llm-model"},
		{[]string{"--llm-url", "ftp://x", "--llm-model", "m"}, "http://"},
		{[]string{"--max-body", "10"}, "--max-body"},
		{[]string{"--frob"}, "not defined"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		var out, errb bytes.Buffer
		code := ServeMain(t.Context(), append(c.args, "--data", t.TempDir()), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.msg)
		}
	}
}

// lockedBuffer lets the test read what ServeMain writes while it runs.
type lockedBuffer = syncBuffer

func TestServeMain_DemoRunsAndStops(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PARLEY_TEST_UPSTREAM_KEY", "up-secret-value")
	ctx, cancel := context.WithCancel(t.Context())
	out, errb := &lockedBuffer{}, &lockedBuffer{}
	done := make(chan int)
	go func() {
		done <- ServeMain(ctx, []string{"--addr", "127.0.0.1:0", "--data", dir, "--demo", "--stt-url", "http://127.0.0.1:1",
			"--stt-key-env", "PARLEY_TEST_UPSTREAM_KEY"}, out, errb)
	}()
	base, key := waitForDemo(t, out, done)
	if !strings.Contains(out.String(), "PARLEY_BASE_URL="+base+" PARLEY_API_KEY="+key+` parley chat "Hello"`) {
		t.Errorf("no ready-to-paste line:\n%s", out)
	}
	e := &env{t: t, base: base, client: &http.Client{Timeout: 10 * time.Second}, key: key}
	d := e.chat(map[string]any{"message": "hello there"})
	if d["balance"] != float64(demoPoints-1) {
		t.Errorf("demo balance %v", d["balance"])
	}
	if r := e.doKey("", "GET", "/v1/chat/conversations", nil); r.Status != 401 {
		t.Errorf("no key: %d", r.Status)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errb)
	}
	logs := errb.String()
	if !strings.Contains(logs, "path=/v1/chat/messages") || strings.Contains(logs, key) || strings.Contains(logs, "up-secret-value") {
		t.Errorf("log:\n%s", logs)
	}

	// A second --demo run finds the key and does not print one.
	ctx2, cancel2 := context.WithCancel(t.Context())
	out2 := &lockedBuffer{}
	go func() {
		done <- ServeMain(ctx2, []string{"--addr", "127.0.0.1:0", "--data", dir, "--demo"}, out2, &lockedBuffer{})
	}()
	waitFor(t, func() bool { return strings.Contains(out2.String(), "key create") }, done)
	cancel2()
	<-done
	if strings.Contains(out2.String(), "pk_") {
		t.Errorf("second run printed a key:\n%s", out2)
	}
}
