package e2e

import (
	"strings"
	"testing"

	"parley/internal/testenv"
)

// TestBaseURL_DoubledV1IsNamedWhereverTheKeyComesFrom gives the service's address with /v1, which
// Parley adds itself, with the key in the keyring (stored for the address without /v1) and in
// the environment: each time the line says to drop the /v1, not that no key is stored or that the
// service has no list of voices.
func TestBaseURL_DoubledV1IsNamedWhereverTheKeyComesFrom(t *testing.T) {
	testenv.StartKeyring(t)
	s := startService(t)
	key := s.newKey(t, 20)
	env := s.env()
	outputs := []result{mustRun(t, env, key+"\n", "login", "--base-url", s.url)}

	for _, args := range [][]string{
		{"--base-url", s.url + "/v1", "chat", "Hello"},
		{"--base-url", s.url + "/v1/", "conversations"},
		{"--base-url", s.url + "/v1", "status"},
	} {
		r := run(t, env, "", args...)
		outputs = append(outputs, r)
		if r.Code != 1 || !strings.Contains(r.Stdout+r.Stderr, "but there is one without the /v1: drop it from the base URL") {
			t.Errorf("parley %s with the key in the keyring: %s; want exit 1 saying to drop the /v1", strings.Join(args, " "), r)
		}
	}
	for _, cmd := range []string{"voices", "conversations"} {
		r := run(t, s.env("PARLEY_API_KEY="+key), "", "--base-url", s.url+"/v1", cmd)
		outputs = append(outputs, r)
		if r.Code != 1 || !strings.Contains(r.Stderr, "drop the /v1 from the base URL") || strings.Contains(r.Stderr, "does not list its voices") {
			t.Errorf("parley %s with /v1 and PARLEY_API_KEY: %s; want exit 1 saying to drop the /v1", cmd, r)
		}
	}
	for _, r := range outputs {
		if strings.Contains(r.Stdout+r.Stderr, key) {
			t.Errorf("the API key was printed: %s", r)
		}
	}
}
