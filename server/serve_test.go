package server

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/internal/testenv"
)

func TestServeOptions_CheckRefusesWhatCannotWork(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(*ServeOptions)
		option string
		msg    string
	}{
		{"all addresses", func(o *ServeOptions) { o.Addr = "0.0.0.0:8780" }, "--addr", "--insecure-bind"},
		{"empty host", func(o *ServeOptions) { o.Addr = ":8780" }, "--addr", "--insecure-bind"},
		{"LAN address", func(o *ServeOptions) { o.Addr = "192.168.1.5:8780" }, "--addr", "--tls-cert"},
		{"not host:port", func(o *ServeOptions) { o.Addr = "nonsense" }, "--addr", "host:port"},
		{"certificate alone", func(o *ServeOptions) { o.TLSCert = "c.pem" }, "--tls-cert", "go together"},
		{"model URL without a model", func(o *ServeOptions) { o.LLMURL = "http://x" }, "--llm-model", "--llm-model"},
		{"ftp model URL", func(o *ServeOptions) { o.LLMURL, o.LLMModel = "ftp://x", "m" }, "--llm-url", "http://"},
		{"ftp speech URL", func(o *ServeOptions) { o.TTSURL = "ftp://x" }, "--tts-url", "http://"},
		{"tiny body", func(o *ServeOptions) { o.MaxBody = 10 }, "--max-body", "--max-body"},
		{"no chat timeout", func(o *ServeOptions) { o.ChatTimeout = 0 }, "--chat-timeout", "between 1s and 10m"},
		{"long chat timeout", func(o *ServeOptions) { o.ChatTimeout = time.Hour }, "--chat-timeout", "between 1s and 10m"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := DefaultServeOptions()
			o.Data = t.TempDir()
			c.change(&o)
			err := o.Check()
			var oe *OptionError
			if !errors.As(err, &oe) || oe.Option != c.option || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Check: %v; want an OptionError for %s saying %q on one line", err, c.option, c.msg)
			}
			// Serve refuses them before it listens or creates anything.
			if err := Serve(t.Context(), o, &testenv.SyncBuffer{}, &testenv.SyncBuffer{}); !errors.As(err, &oe) {
				t.Errorf("Serve: %v, want the OptionError", err)
			}
		})
	}
	for _, change := range []func(*ServeOptions){
		func(*ServeOptions) {},
		func(o *ServeOptions) { o.Addr = "[::1]:0" },
		func(o *ServeOptions) { o.Addr = "localhost:0" },
		func(o *ServeOptions) { o.Addr, o.InsecureBind = "0.0.0.0:0", true },
		func(o *ServeOptions) { o.Addr, o.TLSCert, o.TLSKey = "192.168.1.5:8780", "c.pem", "k.pem" },
		func(o *ServeOptions) { o.LLMURL, o.LLMModel = "https://x/v1", "m" },
	} {
		o := DefaultServeOptions()
		change(&o)
		if err := o.Check(); err != nil {
			t.Errorf("Check(%+v): %v", o, err)
		}
	}
}

func TestServe_DemoRunsAndStops(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PARLEY_TEST_UPSTREAM_KEY", "up-secret-value")
	ctx, cancel := context.WithCancel(t.Context())
	out, errb := &testenv.SyncBuffer{}, &testenv.SyncBuffer{}
	done := make(chan error)
	o := DefaultServeOptions()
	o.Addr, o.Data, o.Demo = "127.0.0.1:0", dir, true
	o.STTURL, o.STTKeyEnv = "http://127.0.0.1:1", "PARLEY_TEST_UPSTREAM_KEY"
	go func() { done <- Serve(ctx, o, out, errb) }()
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
	if err := <-done; err != nil {
		t.Errorf("Serve after a clean stop: %v: %s", err, errb)
	}
	logs := errb.String()
	if !strings.Contains(logs, "path=/v1/chat/messages") || strings.Contains(logs, key) || strings.Contains(logs, "up-secret-value") {
		t.Errorf("log:\n%s", logs)
	}

	// A second --demo run finds the key and does not print one.
	ctx2, cancel2 := context.WithCancel(t.Context())
	out2 := &testenv.SyncBuffer{}
	o.STTURL, o.STTKeyEnv = "", ""
	go func() { done <- Serve(ctx2, o, out2, &testenv.SyncBuffer{}) }()
	waitFor(t, func() bool { return strings.Contains(out2.String(), "key create") }, done)
	cancel2()
	<-done
	if strings.Contains(out2.String(), "pk_") {
		t.Errorf("second run printed a key:\n%s", out2)
	}
}
