package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"parley/internal/testenv"
)

// TestLogin_KeyLivesInTheKeyring logs in with a key on stdin, uses it from the real keyring with no
// key in the environment, logs out, and checks that the key was never printed or written to a file.
func TestLogin_KeyLivesInTheKeyring(t *testing.T) {
	testenv.StartKeyring(t)
	s := startService(t)
	key := s.newKey(t, 20)
	env := s.env() // no PARLEY_API_KEY: the key must come from the keyring

	before := run(t, env, "", "conversations")
	if before.Code != 1 || !strings.Contains(before.Stderr, "parley login") {
		t.Fatalf("before login: %s; want exit 1 telling the person to run parley login", before)
	}

	var outputs []result
	outputs = append(outputs, mustRun(t, env, key+"\n", "login", "--base-url", s.url))
	outputs = append(outputs, mustRun(t, env, "", "chat", "Remember the word cobalt."))
	outputs = append(outputs, mustRun(t, env, "", "conversations", "--json"))
	outputs = append(outputs, mustRun(t, env, "", "logout"))
	after := run(t, env, "", "conversations")
	outputs = append(outputs, after)
	if after.Code != 1 || !strings.Contains(after.Stderr, "parley login") {
		t.Errorf("after logout: %s; want exit 1 telling the person to run parley login", after)
	}

	bad := run(t, env, "pk_not_a_real_key\n", "login", "--base-url", s.url)
	outputs = append(outputs, bad)
	if bad.Code != 1 || !strings.Contains(strings.ToLower(bad.Stderr), "key") {
		t.Errorf("login with a wrong key: %s; want exit 1 saying the key was refused", bad)
	}

	for _, r := range outputs {
		if strings.Contains(r.Stdout+r.Stderr, key) {
			t.Errorf("the API key was printed: %s", r)
		}
	}
	testenv.AssertSecretInNoFile(t, key, s.home, s.data)
}

// TestLogin_APIKeyFlagJSONAndStatus logs in with --api-key and --json, checks that status names the
// keyring as the key's source and reports the balance, and that logout --json says what it removed.
func TestLogin_APIKeyFlagJSONAndStatus(t *testing.T) {
	testenv.StartKeyring(t)
	s := startService(t)
	key := s.newKey(t, 20)
	env := s.env()

	var outputs []result
	in := mustRun(t, env, "", "--json", "login", "--api-key", key)
	outputs = append(outputs, in)
	var login struct {
		BaseURL string `json:"base_url"`
		Stored  bool   `json:"stored"`
	}
	if err := json.Unmarshal([]byte(in.Stdout), &login); err != nil || !login.Stored || login.BaseURL != s.url {
		t.Errorf("login --json printed %q (%v)", in.Stdout, err)
	}
	if !strings.Contains(in.Stderr, "shell history") {
		t.Errorf("login --api-key gave no warning about shell history: %s", in)
	}

	st := mustRun(t, env, "", "status")
	outputs = append(outputs, st)
	for _, want := range []string{s.url, "this machine", "the system keyring", "yes, in", "20 points", "costs 1 point)", "Chat engine:  the offline responder"} {
		if !strings.Contains(st.Stdout, want) {
			t.Errorf("status does not say %q: %s", want, st)
		}
	}

	out := mustRun(t, env, "", "--json", "logout")
	outputs = append(outputs, out)
	var logout struct {
		Removed bool `json:"removed"`
	}
	if err := json.Unmarshal([]byte(out.Stdout), &logout); err != nil || !logout.Removed {
		t.Errorf("logout --json printed %q (%v)", out.Stdout, err)
	}
	again := mustRun(t, env, "", "--json", "logout")
	outputs = append(outputs, again)
	if err := json.Unmarshal([]byte(again.Stdout), &logout); err != nil || logout.Removed {
		t.Errorf("a second logout --json printed %q (%v); want removed false", again.Stdout, err)
	}
	for _, r := range outputs {
		if strings.Contains(r.Stdout+r.Stderr, key) {
			t.Errorf("the API key was printed: %s", r)
		}
	}
	testenv.AssertSecretInNoFile(t, key, s.home, s.data)
}
