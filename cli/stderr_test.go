package cli

import (
	"bytes"
	"log/slog"
	"runtime"
	"strings"
	"testing"

	"parley/internal/testenv"
)

func TestStderrPrinter_Redacts(t *testing.T) {
	var out bytes.Buffer
	p := &stderrPrinter{w: &out}
	p.addSecret("  plain-secret-without-prefix  ", false)
	p.addSecret("ab", true)       // too short to redact safely: ignored
	p.addSecret("service", false) // short and not the key in use: ignored
	p.addSecret("Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2", true)
	p.allow("k3J9x2M7q8P4w1Z6r5T0y8U3i2O7p6A5s4D1f2G9")
	for _, tc := range []struct{ in, want string }{
		{`unknown command "pk_0123456789abcdef" for "parley login"`, `unknown command "[REDACTED]" for "parley login"`},
		{"Authorization: Bearer abc.def-ghi", "Authorization: [REDACTED]"},
		{"key sk-proj-AbCdEf0123456789 refused", "key [REDACTED] refused"},
		{"got plain-secret-without-prefix back", "got [REDACTED] back"},
		{"conversation c_0123456789abcdef0123 and 550e8400-e29b-41d4-a716-446655440000", "conversation c_0123456789abcdef0123 and 550e8400-e29b-41d4-a716-446655440000"},
		{"the --api-key flag", "the --api-key flag"},
		// A prefix without a digit is a word: a file name, not a key.
		{"open api_interview.wav: no such file", "open api_interview.wav: no such file"},
		{"The service refused", "The service refused"},
		// A long random token without a prefix is a key; words, dates and numbers are not.
		{"unknown command Xy4Jq8Lm2Np6Rt0Vw3Zb7Cd1Fg5Hk9Mn", "unknown command [REDACTED]"},
		{"open /tmp/TestPlay_NotAudioFailsBeforeOpeningTheDevice2345678901/001/x.mp3", "open /tmp/TestPlay_NotAudioFailsBeforeOpeningTheDevice2345678901/001/x.mp3"},
		{"recording_2024_01_05_meeting_with_the_whole_team.wav", "recording_2024_01_05_meeting_with_the_whole_team.wav"},
		// The key in use, and what is left of it when a service cuts it short.
		{"Unknown API key Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2.", "Unknown API key [REDACTED]."},
		{"Unknown API key Zq7LmN3pX9vB2kT8w….", "Unknown API key [REDACTED]…."},
		{"key ending …jD1sF5gA0cE3uI8oP2 refused", "key ending …[REDACTED] refused"},
		// An ID the service gave is printed, though it looks random.
		{"conversation k3J9x2M7q8P4w1Z6r5T0y8U3i2O7p6A5s4D1f2G9", "conversation k3J9x2M7q8P4w1Z6r5T0y8U3i2O7p6A5s4D1f2G9"},
	} {
		out.Reset()
		if _, err := p.Write([]byte(tc.in)); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.want {
			t.Errorf("printed %q, want %q", out.String(), tc.want)
		}
	}
}

// The service's log names the chat call that failed by the ID its ledger row holds: the ID is
// printed whole, and a key beside it is not.
func TestStderrPrinter_ServiceLogKeepsCallIDsAndHidesKeys(t *testing.T) {
	var out bytes.Buffer
	p := &stderrPrinter{w: &out}
	const call = "call_0123456789abcdef0123456789abcdef"
	log := slog.New(slog.NewTextHandler(p, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
	for _, key := range []string{
		"pk_4f9a0c2e7b1d4e6a8c0f2b4d6e8a0c2e", // as the service issues them
		"pk_abcdefabcdefabcdefabcdefabcdefab", // no digit in its hex
		"PK_ABCDEFABCDEFABCDEFABCDEFABCDEF01",
		"sk-proj-4f9a0c2e7b1d4e6a8c0f2b4d", // an upstream model's key
	} {
		out.Reset()
		log.Warn("chat model failed", "account", 3, "call", call, "err", "status 401: Incorrect API key provided: "+key)
		got := out.String()
		if !strings.Contains(got, "call="+call+" ") {
			t.Errorf("the call ID is not in the log whole: %q", got)
		}
		if strings.Contains(got, key) || strings.Contains(got, key[3:]) || !strings.Contains(got, "provided: [REDACTED]") {
			t.Errorf("the key %s is in the log: %q", key, got)
		}
	}
	// Only the service's own call IDs are kept: another long random token after "call_" is not.
	out.Reset()
	p.Write([]byte("call=call_Xy4Jq8Lm2Np6Rt0Vw3Zb7Cd1Fg5Hk9Mn and call_0123456789abcdef0123456789abcdef0"))
	if got := out.String(); got != "call=[REDACTED] and [REDACTED]" {
		t.Errorf("printed %q", got)
	}
}

func TestStderrPrinter_ShortKeyInUseIsRedactedAsAWord(t *testing.T) {
	var out bytes.Buffer
	p := &stderrPrinter{w: &out}
	p.addSecret("service", true)
	p.Write([]byte("The service refused; services and self-service stay."))
	if want := "The [REDACTED] refused; services and self-service stay."; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
}

func TestWaitFor_SpinnerOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	var out testenv.SyncBuffer
	g := &globals{stderr: &out, stderrTTY: true, spinnerDelay: 0}
	stop := g.waitFor("the reply")
	for !strings.Contains(out.String(), "Waiting for the reply") {
		// With no delay the spinner draws at once; wait for its first frame.
		runtime.Gosched()
	}
	stop()
	stop() // a second stop is harmless
	s := out.String()
	if !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("the spinner did not erase its line: %q", s)
	}

	out = testenv.SyncBuffer{}
	g = &globals{stderr: &out, stderrTTY: false}
	g.waitFor("the reply")()
	if out.String() != "" {
		t.Errorf("off a terminal the spinner printed %q", out.String())
	}
}

func TestShowURL_RedactsWhatStderrWould(t *testing.T) {
	g := newGlobals(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	g.printer.addSecret("plain-secret-without-prefix", true)
	for in, want := range map[string]string{
		"https://api.example.com/v1":                        "https://api.example.com/v1",
		"https://h.example.com/plain-secret-without-prefix": "https://h.example.com/[REDACTED]",
		"https://h.example.com/pk_live_0123456789abcdef":    "https://h.example.com/[REDACTED]",
	} {
		if got := g.showURL(in); got != want {
			t.Errorf("showURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestURLHoldsKey_HostsThatAreAddresses(t *testing.T) {
	g := newGlobals(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}, func(string) string { return "" })
	for u, want := range map[string]bool{
		"https://api-production1.example.com":                          false, // a host name, though key-shaped
		"https://api.example.com/tenants/acme-2024/v2":                 false,
		"https://pk_live_0123456789abcdef.example.com":                 true, // no host name has an underscore
		"https://api.example.com/pk_live_0123456789abcdef":             true,
		"https://Zq7LmN3pX9vB2kT8wR4yH6jD1sF5gA0cE3uI8oP2.example.com": true,
		"https://api.example.com/?key=sk-0123456789abcdef":             true,
	} {
		if got := g.urlHoldsKey(u); got != want {
			t.Errorf("urlHoldsKey(%q) = %v, want %v", u, got, want)
		}
	}
}
