package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServe_HelpListsEveryOption(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
