package cli_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestServe_HelpListsEveryOption(t *testing.T) {
	h := newHome(t)
	r := h.run(t, "", "serve", "--help")
	if r.Code != 0 || r.Stderr != "" {
		t.Fatalf("serve --help: %s", r)
	}
	for _, want := range []string{
		"--addr host:port", `(default "127.0.0.1:8780")`, "--data directory", filepath.Join(h.dir, "data", "parley"), "--demo",
		"--llm-url URL", "--llm-model name", "--llm-key-env variable",
		"--stt-url URL", "--stt-model name", `(default "whisper-1")`, "--stt-key-env variable",
		"--tts-url URL", "--tts-model name", `(default "tts-1")`, "--tts-key-env variable",
		"--tls-cert file", "--tls-key file", "--insecure-bind", "--max-body bytes", "(default 16777216)",
		"--chat-timeout duration", "(default 2m0s)",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("serve --help lacks %q:\n%s", want, r.Stdout)
		}
	}
}

func TestServe_RefusesBadCommandLinesOnOneLine(t *testing.T) {
	h := newHome(t)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--addr", "0.0.0.0:8780"}, "give --tls-cert and --tls-key, or --insecure-bind if you mean it"},
		{[]string{"--addr", "192.168.1.5:8780"}, "--addr 192.168.1.5:8780 would let API keys cross the network in clear"},
		{[]string{"--addr", "nonsense"}, `--addr "nonsense" is not host:port`},
		{[]string{"--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--llm-url", "http://x"}, "--llm-url needs --llm-model NAME"},
		{[]string{"--llm-url", "ftp://x", "--llm-model", "m"}, "--llm-url must be an http:// or https:// URL"},
		{[]string{"--max-body", "10"}, "--max-body must be at least 1024 bytes, not 10"},
		{[]string{"--max-body", "lots"}, `--max-body wants a whole number, not "lots"`},
		{[]string{"--chat-timeout", "1h"}, "--chat-timeout must be between 1s and 10m, not 1h0m0s"},
		{[]string{"--frob"}, "unknown flag: --frob"},
		{[]string{"-5"}, "unknown shorthand flag: '5' in -5"},
		{[]string{"extra"}, `serve takes no arguments, but was given "extra"`},
	} {
		data := filepath.Join(h.dir, "data-"+strings.Trim(c.args[0], "-"))
		r := h.run(t, "", append([]string{"serve", "--data", data}, c.args...)...)
		if r.Code != 2 || !strings.Contains(strings.SplitN(r.Stderr, "\n", 2)[0], c.msg) || r.Stdout != "" {
			t.Errorf("serve %v: %s\nwant exit 2 and %q on the first line", c.args, r, c.msg)
			continue
		}
		assertOneLineError(t, c.args, r.Stderr)
		if _, err := os.Stat(data); err == nil {
			t.Errorf("serve %v created its data directory before refusing", c.args)
		}
	}
}

func TestServe_RunsUntilInterrupted(t *testing.T) {
	h := newHome(t)
	data := filepath.Join(h.dir, "service")
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data", data, "--demo")
	cmd.Env = h.env
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	keys := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		demo := regexp.MustCompile(`^Demo key: (pk_\S+)`)
		for sc.Scan() {
			if m := demo.FindStringSubmatch(sc.Text()); m != nil {
				keys <- m[1]
			}
		}
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })

	var key string
	select {
	case key = <-keys:
	case err := <-exited:
		t.Fatalf("serve exited at start (%v):\n%s", err, errb.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve printed no demo key within 30 s:\n%s", errb.String())
	}
	r := h.run(t, "", "admin", "--data", data, "balance", "--key", key)
	if r.Code != 0 || r.Stdout != "1000000\n" {
		t.Errorf("admin balance of the demo key while serve runs: %s", r)
	}

	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil || !strings.Contains(errb.String(), "Parley service stopped.") {
			t.Errorf("serve after an interrupt: %v\n%s", err, errb.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop within 30 s of an interrupt:\n%s", errb.String())
	}
}
