package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
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
	if before.code != 1 || !strings.Contains(before.stderr, "parley login") {
		t.Fatalf("before login: %s; want exit 1 telling the person to run parley login", before)
	}

	var outputs []result
	outputs = append(outputs, mustRun(t, env, key+"\n", "login", "--base-url", s.url))
	outputs = append(outputs, mustRun(t, env, "", "chat", "Remember the word cobalt."))
	outputs = append(outputs, mustRun(t, env, "", "conversations", "--json"))
	outputs = append(outputs, mustRun(t, env, "", "logout"))
	after := run(t, env, "", "conversations")
	outputs = append(outputs, after)
	if after.code != 1 || !strings.Contains(after.stderr, "parley login") {
		t.Errorf("after logout: %s; want exit 1 telling the person to run parley login", after)
	}

	bad := run(t, env, "pk_not_a_real_key\n", "login", "--base-url", s.url)
	outputs = append(outputs, bad)
	if bad.code != 1 || !strings.Contains(strings.ToLower(bad.stderr), "key") {
		t.Errorf("login with a wrong key: %s; want exit 1 saying the key was refused", bad)
	}

	for _, r := range outputs {
		if strings.Contains(r.stdout+r.stderr, key) {
			t.Errorf("the API key was printed: %s", r)
		}
	}
	assertKeyInNoFile(t, key, s.home, s.data)
}

// assertKeyInNoFile fails the test if any file under the given directories holds the key in plaintext.
func assertKeyInNoFile(t *testing.T, key string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err == nil && strings.Contains(string(b), key) {
				t.Errorf("the API key is stored in plaintext in %s", path)
			}
			return nil
		})
	}
}
