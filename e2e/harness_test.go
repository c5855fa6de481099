// Package e2e runs the built parley binary the way a person would: the reference service started
// with `parley serve`, keys made with `parley admin`, and every CLI command against it, with the
// real keyring and a real audio server where a test needs them.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

// bin is the parley binary built once for the whole package.
var bin string

func TestMain(m *testing.M) {
	if os.Getenv(standInEnv) != "" {
		runStandIn()
		os.Exit(0)
	}
	b, cleanup, err := testenv.BuildParley()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = b
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// result is what one run of the binary printed and how it exited.
type result = testenv.Result

// service is one `parley serve` process on a private data directory.
type service struct {
	url  string
	data string
	home string              // HOME and XDG directories for CLI runs against this service
	logs *testenv.SyncBuffer // what the service printed
}

// env is the environment for a CLI run: private config directories, no inherited PARLEY_ variables;
// the locale is the test run's own (make test runs the suite in C.UTF-8 and in en_US.UTF-8).
func (s *service) env(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PARLEY_") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env,
		"PARLEY_CONFIG_DIR="+filepath.Join(s.home, "config"),
		"XDG_CONFIG_HOME="+filepath.Join(s.home, "config"),
		"XDG_DATA_HOME="+filepath.Join(s.home, "data"),
		"PARLEY_BASE_URL="+s.url,
	)
	return append(env, extra...)
}

// run runs the binary with args and env, stdin from input, and waits at most two minutes.
func run(t testing.TB, env []string, input string, args ...string) result {
	t.Helper()
	return testenv.Run(t, testenv.Cmd{Bin: bin, Env: env, Stdin: input}, args...)
}

// mustRun runs the binary and fails the test unless it exits 0.
func mustRun(t testing.TB, env []string, input string, args ...string) result {
	t.Helper()
	r := run(t, env, input, args...)
	if r.Code != 0 {
		t.Fatalf("parley %s: %s", strings.Join(args, " "), r)
	}
	return r
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// startService starts `parley serve` with extra flags on a fresh data directory, waits until it
// answers, and stops it (by its PID) when the test ends.
func startService(t testing.TB, extra ...string) *service {
	t.Helper()
	return startServiceEnv(t, nil, extra...)
}

// startServiceEnv is startService with env added to the service's environment.
func startServiceEnv(t testing.TB, env []string, extra ...string) *service {
	t.Helper()
	s := &service{data: t.TempDir(), home: t.TempDir(), logs: &testenv.SyncBuffer{}}
	addr := freeAddr(t)
	s.url = "http://" + addr
	args := append([]string{"serve", "--addr", addr, "--data", s.data}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Env = s.env(env...)
	logs := s.logs
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting parley serve: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		testenv.EndProcess(cmd, os.Interrupt, exited, 10*time.Second)
		if t.Failed() {
			t.Logf("service log:\n%s", logs.String())
		}
	})
	testenv.Poll(t, 30*time.Second, 50*time.Millisecond, func() error {
		resp, err := http.Get(s.url + "/v1/chat/conversations")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusUnauthorized {
				return nil
			}
			t.Fatalf("GET /v1/chat/conversations without a key: status %d, want 401", resp.StatusCode)
		}
		select {
		case <-exited:
			t.Fatalf("parley serve exited at start:\n%s", logs.String())
		default:
		}
		return fmt.Errorf("parley serve did not answer:\n%s", logs.String())
	})
	return s
}

// admin runs `parley admin --data DIR args...` on the service's database.
func (s *service) admin(t testing.TB, args ...string) result {
	t.Helper()
	return mustRun(t, s.env(), "", append([]string{"admin", "--data", s.data}, args...)...)
}

// newKey makes an account with the given points and returns its key (the last line admin prints).
func (s *service) newKey(t testing.TB, points int) string {
	t.Helper()
	r := s.admin(t, "key", "create", "--points", fmt.Sprint(points))
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	key := strings.TrimSpace(lines[len(lines)-1])
	if key == "" || strings.ContainsAny(key, " \t") {
		t.Fatalf("admin key create: last stdout line %q is not a key", key)
	}
	return key
}

// sendChat sends message to the chat endpoint over plain HTTP, continuing conv unless it is
// empty, and returns the conversation's ID; an error unless the service answered 200 with one.
func sendChat(ctx context.Context, baseURL, key, conv, message string) (string, error) {
	in := map[string]string{"message": message}
	if conv != "" {
		in["conversation_id"] = conv
	}
	body, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, "POST", baseURL+"/v1/chat/messages", bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ConversationID string `json:"conversation_id"`
		} `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	if err != nil || resp.StatusCode != 200 || out.Data.ConversationID == "" {
		return "", fmt.Errorf("chat: status %d, %v, conversation %q", resp.StatusCode, err, out.Data.ConversationID)
	}
	return out.Data.ConversationID, nil
}

// postChat is sendChat for a test that cannot go on without the reply.
func postChat(t testing.TB, baseURL, key, conv, message string) string {
	t.Helper()
	id, err := sendChat(context.Background(), baseURL, key, conv, message)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
