package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/internal/backoff"
	"parley/internal/testenv"
)

func TestNew_BaseURL(t *testing.T) {
	tests := []struct {
		in       string
		want     string // normalised; empty means refused
		insecure bool   // refused with ErrInsecureURL
	}{
		{"https://api.example.com", "https://api.example.com", false},
		{"https://api.example.com/", "https://api.example.com", false},
		{"https://api.example.com/prefix/", "https://api.example.com/prefix", false},
		{"HTTPS://api.example.com", "https://api.example.com", false},
		{"http://127.0.0.1:8780", "http://127.0.0.1:8780", false},
		{"http://127.10.20.30:8780/", "http://127.10.20.30:8780", false},
		{"http://[::1]:8780", "http://[::1]:8780", false},
		{"http://localhost:8780", "http://localhost:8780", false},
		{"http://LOCALHOST", "http://LOCALHOST", false},
		{" http://localhost:1 ", "http://localhost:1", false},
		{"http://api.example.com", "", true},
		{"http://192.168.1.10:8780", "", true},
		{"http://0.0.0.0:8780", "", true},
		{"http://localhost.evil.example", "", true},
		{"http://[::2]:80", "", true},
		{"ftp://api.example.com", "", true},
		{"", "", false},
		{"api.example.com", "", false},
		{"https://user:pw@api.example.com", "", false},
		{"https://api.example.com/?x=1", "", false},
		{"https://", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var trips atomic.Int32
			hc := &http.Client{Transport: roundTripFunc(func(*http.Request) (*http.Response, error) {
				trips.Add(1)
				return nil, errors.New("no")
			})}
			c, err := New(Options{BaseURL: tt.in, APIKey: canaryKey, HTTPClient: hc})
			if tt.want != "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				if got := c.BaseURL(); got != tt.want {
					t.Errorf("BaseURL() = %q, want %q", got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("New(%q) accepted it", tt.in)
			}
			if c != nil {
				t.Error("New returned a client with its error")
			}
			if got := errors.Is(err, ErrInsecureURL); got != tt.insecure {
				t.Errorf("errors.Is(err, ErrInsecureURL) = %v, want %v (err: %v)", got, tt.insecure, err)
			}
			if tt.insecure && tt.in != "ftp://api.example.com" && !strings.Contains(err.Error(), "https") {
				t.Errorf("the refusal does not say why: %v", err)
			}
			checkErrorText(t, err)
			if trips.Load() != 0 {
				t.Error("a request was sent")
			}
		})
	}
}

// A refused base URL comes back as a *BaseURLError whose Problem the CLI and the app phrase,
// each with its own advice: its text says what is wrong and gives none, and never repeats a
// user name or password, which may be the key.
func TestNew_BaseURLErrorSaysWhatIsWrong(t *testing.T) {
	for in, want := range map[string]URLProblem{
		"":            URLEmpty,
		"   ":         URLEmpty,
		"http://[::1": URLUnparsable,
		"https://ann:" + canaryKey + "@api.example.com": URLWithUser,
		"https://api.example.com/?x=1":                  URLWithQuery,
		"https://api.example.com/#top":                  URLWithQuery,
		"api.example.com":                               URLNoHost,
		"https://":                                      URLNoHost,
		"http://api.example.com":                        URLPlainHTTP,
		"ftp://api.example.com":                         URLScheme,
	} {
		_, err := New(Options{BaseURL: in, APIKey: "pk_test"})
		var be *BaseURLError
		if !errors.As(err, &be) || be.Problem != want {
			t.Errorf("New(%q) = %v, want a BaseURLError with problem %d", in, err, want)
			continue
		}
		text := strings.ToLower(err.Error())
		for _, advice := range []string{"check", "use https", "write it", "give the", "separately", "try again"} {
			if strings.Contains(text, advice) {
				t.Errorf("New(%q): %q gives advice (%q)", in, err, advice)
			}
		}
		if strings.Contains(err.Error(), canaryKey) || strings.Contains(err.Error(), "ann") {
			t.Errorf("New(%q): %q repeats the user name or password", in, err)
		}
	}
}

// A key the client cannot put in a header is refused as ErrInvalidKey, without repeating it.
func TestNew_KeyWithSpacesIsRefused(t *testing.T) {
	for _, k := range []APIKey{"sk-canary 7f3a", "sk-canary\n7f3a", "sk-canary\x7f"} {
		_, err := New(Options{BaseURL: "https://api.example.com", APIKey: k})
		if !errors.Is(err, ErrInvalidKey) || strings.Contains(err.Error(), "canary") {
			t.Errorf("New with key %q = %v, want ErrInvalidKey without the key", k, err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// An http base URL to a host that is not loopback is refused before anything reaches the network.
func TestNew_InsecureSendsNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan struct{}, 1)
	go func() {
		if conn, err := ln.Accept(); err == nil {
			accepted <- struct{}{}
			_ = conn.Close()
		}
	}()
	// A dialer that would route any host to the listener: it must never be called.
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		dials.Add(1)
		var d net.Dialer
		return d.DialContext(ctx, network, ln.Addr().String())
	}}
	t.Cleanup(tr.CloseIdleConnections)
	_, err = New(Options{BaseURL: "http://api.example.com", APIKey: canaryKey, HTTPClient: &http.Client{Transport: tr}})
	if !errors.Is(err, ErrInsecureURL) {
		t.Fatalf("err = %v, want ErrInsecureURL", err)
	}
	_ = ln.Close()
	select {
	case <-accepted:
		t.Error("a connection was made")
	default:
	}
	if dials.Load() != 0 {
		t.Error("the dialer was called")
	}
}

func TestNew_RejectsMalformedKey(t *testing.T) {
	for _, k := range []APIKey{"sk-abc def", "sk-abc\x00", "sk\nabc"} {
		_, err := New(Options{BaseURL: "https://api.example.com", APIKey: k})
		if err == nil {
			t.Errorf("key %q accepted", k.Reveal())
			continue
		}
		if strings.Contains(err.Error(), k.Reveal()) {
			t.Errorf("error reveals the key: %v", err)
		}
	}
	c, err := New(Options{BaseURL: "https://api.example.com", APIKey: " sk-trimmed\n"})
	if err != nil || c.key.Reveal() != "sk-trimmed" {
		t.Errorf("surrounding space not trimmed: %v", err)
	}
}

func TestClient_NeverPrintsKey(t *testing.T) {
	c, err := New(Options{BaseURL: "https://api.example.com", APIKey: canaryKey})
	if err != nil {
		t.Fatal(err)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		if s := fmt.Sprintf(verb, c); strings.Contains(s, canaryKey) || strings.Contains(s, fmt.Sprintf("%x", canaryKey)) {
			t.Errorf("Sprintf(%s, client) = %q reveals the key", verb, s)
		}
	}
}

// A 3xx is refused, names the target host, and the target never sees the key.
func TestRedirectsRefused(t *testing.T) {
	for _, status := range []int{301, 302, 303, 307, 308} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			other := testenv.NewRecordingServer(t, reply(200, `{"conversation_id":"x","reply":"stolen"}`))
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, other.URL+r.URL.Path+"?leak=1", status)
			})
			c := newTestClient(t, ts.URL)
			u, _ := url.Parse(other.URL)
			calls := []func() error{
				func() error { _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); return err },
				func() error { _, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"}); return err },
				func() error { _, err := c.Speak(t.Context(), SpeechRequest{Text: "hi"}); return err },
			}
			for _, call := range calls {
				err := call()
				var re *RedirectError
				if !errors.As(err, &re) {
					t.Fatalf("err = %v, want *RedirectError", err)
				}
				if re.StatusCode != status || re.Location != u.Host {
					t.Errorf("RedirectError = %+v, want status %d to %s", re, status, u.Host)
				}
				if !strings.Contains(err.Error(), u.Host) {
					t.Errorf("error does not name the target host: %v", err)
				}
				checkErrorText(t, err)
			}
			if n := len(other.Requests()); n != 0 {
				t.Errorf("the redirect target saw %d requests", n)
			}
			if n := len(ts.Requests()); n != len(calls) {
				t.Errorf("server saw %d requests, want %d (no retries)", n, len(calls))
			}
		})
	}
}

// A user-supplied http.Client with its own redirect policy still refuses redirects.
func TestRedirectsRefused_GivenHTTPClient(t *testing.T) {
	other := testenv.NewRecordingServer(t, reply(200, `[]`))
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	hc := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return nil }, Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	c := newTestClient(t, ts.URL, func(o *Options) { o.HTTPClient = hc })
	_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
	var re *RedirectError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want *RedirectError", err)
	}
	if n := len(other.Requests()); n != 0 {
		t.Errorf("the redirect target saw %d requests", n)
	}
}

// The error matrix: every status with JSON, HTML, empty and truncated bodies becomes one *Error.
func TestErrorMatrix(t *testing.T) {
	statuses := []int{400, 401, 402, 403, 404, 413, 422, 429, 500, 502, 503}
	bodies := []struct {
		name, contentType, body string
		wantMessage             string // "" means the status text
		wantCode                string
	}{
		{"json error object", "application/json", `{"error":{"code":"bad_thing","message":"Something bad happened"}}`, "Something bad happened", "bad_thing"},
		{"json message", "application/json", `{"message":"Plain message","code":1234}`, "Plain message", "1234"},
		{"json msg", "application/json", `{"code":40001,"msg":"msg style"}`, "msg style", "40001"},
		{"json detail", "application/json", `{"detail":"FastAPI style"}`, "FastAPI style", ""},
		{"json detail list", "application/json", `{"detail":[{"loc":["body","message"],"msg":"field required","type":"value_error.missing"}]}`, "field required", "value_error.missing"},
		{"html", "text/html", "<!DOCTYPE html><html><head><title>Nginx &amp; friends</title></head><body><h1>Oops</h1></body></html>", "Nginx & friends", ""},
		{"html without title", "text/html", "<html><body><center><h1>Service down</h1></center><script>var x=1;</script></body></html>", "Service down", ""},
		{"plain text", "text/plain", "upstream connect error\nor disconnect", "upstream connect error or disconnect", ""},
		{"empty", "", "", "", ""},
		{"truncated json", "application/json", `{"error":{"code":"trunc","message":"Cut short"},"details":{"a":`, "Cut short", "trunc"},
		{"truncated mid-string", "application/json", `{"error":{"code":"x9","message":"Never fini`, "", "x9"},
	}
	for _, status := range statuses {
		for _, b := range bodies {
			t.Run(fmt.Sprintf("%d/%s", status, b.name), func(t *testing.T) {
				ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
					if b.contentType != "" {
						w.Header().Set("Content-Type", b.contentType)
					}
					if status == 429 || status == 503 {
						w.Header().Set("Retry-After", "7")
					}
					w.WriteHeader(status)
					_, _ = io.WriteString(w, b.body)
				})
				c := newTestClient(t, ts.URL, func(o *Options) { o.MaxRetries = -1 })
				_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v (%T), want *Error", err, err)
				}
				want := b.wantMessage
				if want == "" {
					want = http.StatusText(status)
				}
				if e.StatusCode != status || e.Message != want || e.Code != b.wantCode {
					t.Errorf("Error = {status %d, message %q, code %q}, want {%d, %q, %q}", e.StatusCode, e.Message, e.Code, status, want, b.wantCode)
				}
				if string(e.Body) != b.body {
					t.Errorf("Body = %q, want %q", e.Body, b.body)
				}
				if e.Method != http.MethodGet || e.Path != "/v1/chat/conversations" {
					t.Errorf("Method, Path = %q, %q", e.Method, e.Path)
				}
				wantRetry := time.Duration(0)
				if status == 429 || status == 503 {
					wantRetry = 7 * time.Second
				}
				if e.RetryAfter != wantRetry {
					t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, wantRetry)
				}
				msg := err.Error()
				if !strings.Contains(msg, fmt.Sprint(status)) || !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
					t.Errorf("Error() = %q, want one line with the status and message", msg)
				}
			})
		}
	}
}

// A 200 whose envelope carries a non-zero code is an error: a refusal for a free call, and for
// a chat call (a 2xx, so maybe charged) a reply that could not be read, with the service's
// words kept.
func TestEnvelopeFailure(t *testing.T) {
	tests := []struct {
		name, body, code, message string
	}{
		{"code and msg", `{"code":1001,"msg":"insufficient balance","data":null}`, "1001", "insufficient balance"},
		{"string code and message", `{"code":"E_QUOTA","message":"quota exceeded"}`, "E_QUOTA", "quota exceeded"},
		{"success false", `{"success":false,"error":"nope"}`, "", "nope"},
		{"error object without data", `{"error":{"type":"invalid_request","message":"bad"}}`, "invalid_request", "bad"},
		{"status error", `{"status":"error","message":"failed"}`, "", "failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, reply(200, tt.body))
			c := newTestClient(t, ts.URL)
			_, listErr := c.ListConversations(t.Context(), ListConversationsRequest{})
			_, chatErr := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
			for _, err := range []error{listErr, chatErr} {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("err = %v, want *Error", err)
				}
				if e.StatusCode != 200 || e.Code != tt.code || e.Message != tt.message {
					t.Errorf("Error = {%d %q %q}, want {200 %q %q}", e.StatusCode, e.Code, e.Message, tt.code, tt.message)
				}
			}
			if errors.Is(listErr, ErrReplyLost) {
				t.Error("a clear refusal of a free call matched ErrReplyLost")
			}
			if !errors.Is(chatErr, ErrReplyUnreadable) {
				t.Errorf("chat: %v, want ErrReplyUnreadable: a 2xx to a chat call may have been charged", chatErr)
			}
		})
	}
}

// GET, PATCH, DELETE, transcribe and speech retry on 429 and 503, honouring Retry-After.
func TestRetries(t *testing.T) {
	calls := []struct {
		name string
		call func(*Client, context.Context) error
	}{
		{"list", func(c *Client, ctx context.Context) error {
			_, err := c.ListConversations(ctx, ListConversationsRequest{})
			return err
		}},
		{"history", func(c *Client, ctx context.Context) error {
			_, err := c.History(ctx, strID("1"))
			return err
		}},
		{"save config", func(c *Client, ctx context.Context) error {
			_, err := c.SaveConfig(ctx, strID("1"), Config{MaxTokens: ptr(3)})
			return err
		}},
		{"delete", func(c *Client, ctx context.Context) error {
			return c.DeleteConversation(ctx, strID("1"))
		}},
		{"transcribe", func(c *Client, ctx context.Context) error {
			_, err := c.Transcribe(ctx, TranscribeRequest{Audio: []byte("abc"), MIMEType: "audio/webm"})
			return err
		}},
		{"speech", func(c *Client, ctx context.Context) error {
			_, err := c.Speak(ctx, SpeechRequest{Text: "hi"})
			return err
		}},
	}
	const okBody = `{"messages":[],"text":"t","language":"en","audio":"data:audio/mpeg;base64,AAAA","conversations":[]}`
	for _, call := range calls {
		t.Run(call.name, func(t *testing.T) {
			var n atomic.Int32
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
				switch n.Add(1) {
				case 1:
					w.Header().Set("Retry-After", "3")
					reply(429, `{"message":"slow down"}`)(w, r)
				case 2:
					reply(503, `{"message":"busy"}`)(w, r)
				default:
					reply(200, okBody)(w, r)
				}
			})
			c := newTestClient(t, ts.URL)
			if err := call.call(c.Client, t.Context()); err != nil {
				t.Fatalf("call: %v", err)
			}
			reqs := ts.Requests()
			if len(reqs) != 3 {
				t.Fatalf("server saw %d requests, want 3", len(reqs))
			}
			for _, r := range reqs[1:] {
				if string(r.Body) != string(reqs[0].Body) || r.Path != reqs[0].Path {
					t.Errorf("retry differs from the first attempt: %s %q vs %s %q", r.Path, r.Body, reqs[0].Path, reqs[0].Body)
				}
			}
			waits := c.retryWaits()
			if len(waits) != 2 || waits[0] != 3*time.Second || waits[1] <= 0 {
				t.Errorf("retry waits = %v, want [3s, backoff]", waits)
			}
		})
	}
}

func TestRetries_GiveUp(t *testing.T) {
	tests := []struct {
		name       string
		maxRetries int
		header     string
		want       int // requests
	}{
		{"default is two retries", 0, "", 3},
		{"negative means none", -1, "", 1},
		{"five", 5, "", 6},
		{"long Retry-After is returned, not waited", 0, "3600", 1},
		{"http date", 1, time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tt.header != "" {
					w.Header().Set("Retry-After", tt.header)
				}
				reply(503, `{"message":"down"}`)(w, r)
			})
			c := newTestClient(t, ts.URL, func(o *Options) { o.MaxRetries = tt.maxRetries })
			_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
			var e *Error
			if !errors.As(err, &e) || e.StatusCode != 503 {
				t.Fatalf("err = %v, want *Error 503", err)
			}
			if n := len(ts.Requests()); n != tt.want {
				t.Errorf("server saw %d requests, want %d", n, tt.want)
			}
			for _, w := range c.retryWaits() {
				if w <= 0 || w > 3*time.Second {
					t.Errorf("retry wait %v out of range", w)
				}
			}
		})
	}
}

// Other statuses are not retried.
func TestRetries_NotOnOtherStatus(t *testing.T) {
	for _, status := range []int{400, 401, 404, 500, 502} {
		ts := testenv.NewRecordingServer(t, reply(status, `{}`))
		c := newTestClient(t, ts.URL)
		if _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); err == nil {
			t.Fatal("no error")
		}
		if n := len(ts.Requests()); n != 1 {
			t.Errorf("%d: server saw %d requests, want 1", status, n)
		}
	}
}

// A GET whose connection drops before the answer is retried.
func TestRetries_ConnectionDropped(t *testing.T) {
	var n atomic.Int32
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			conn, _, err := http.NewResponseController(w).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		reply(200, `[{"id":"a"}]`)(w, r)
	})
	c := newTestClient(t, ts.URL)
	got, err := c.ListConversations(t.Context(), ListConversationsRequest{})
	if err != nil {
		t.Fatalf("ListConversations: %v", err)
	}
	if len(got.Conversations) != 1 || len(ts.Requests()) != 2 {
		t.Errorf("got %v after %d requests, want 1 item after 2", got, len(ts.Requests()))
	}
}

// A connection refused on every attempt ends in a connection error after the retries.
func TestRetries_ConnectionRefused(t *testing.T) {
	addr := fmt.Sprintf("127.0.0.1:%d", testenv.ClosedPort(t))
	c := newTestClient(t, "http://"+addr)
	_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
	var ce *connError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a connection error", err)
	}
	if w := c.retryWaits(); len(w) != 2 {
		t.Errorf("retry waits = %v, want 2", w)
	}
	checkErrorText(t, err)
	_, err = c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	if err == nil || errors.Is(err, ErrReplyLost) {
		t.Errorf("chat to a closed port: err = %v, want a connection error that is not ErrReplyLost", err)
	}
}

// endless writes to w until the client goes away or the test ends.
func endless(ts **testenv.RecordingServer, status int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		chunk := []byte(`{"message":"` + strings.Repeat("x", 32<<10))
		for {
			select {
			case <-r.Context().Done():
				return
			case <-(*ts).Done:
				return
			default:
			}
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

func TestCaps_EndlessBody(t *testing.T) {
	t.Run("success", func(t *testing.T) {
		var ts *testenv.RecordingServer
		ts = testenv.NewRecordingServer(t, endless(&ts, 200))
		c := newTestClient(t, ts.URL)
		_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
		if n := len(ts.Requests()); n != 1 {
			t.Errorf("server saw %d requests, want 1", n)
		}
	})
	t.Run("error", func(t *testing.T) {
		var ts *testenv.RecordingServer
		ts = testenv.NewRecordingServer(t, endless(&ts, 500))
		c := newTestClient(t, ts.URL)
		_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
		var e *Error
		if !errors.Is(err, ErrTooLarge) || !errors.As(err, &e) || e.StatusCode != 500 {
			t.Fatalf("err = %v, want *Error 500 matching ErrTooLarge", err)
		}
		if len(e.Body) != maxKeptBody {
			t.Errorf("kept %d bytes of body, want %d", len(e.Body), maxKeptBody)
		}
	})
	t.Run("chat", func(t *testing.T) {
		var ts *testenv.RecordingServer
		ts = testenv.NewRecordingServer(t, endless(&ts, 200))
		c := newTestClient(t, ts.URL)
		_, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v, want ErrTooLarge", err)
		}
	})
}

// A success body exactly at the cap is read; one byte over is refused.
func TestCaps_Boundary(t *testing.T) {
	for _, tt := range []struct {
		size   int
		tooBig bool
	}{{maxSuccessBody, false}, {maxSuccessBody + 1, true}} {
		audio := make([]byte, tt.size)
		ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "audio/mpeg")
			_, _ = w.Write(audio)
		})
		c := newTestClient(t, ts.URL)
		sp, err := c.Speak(t.Context(), SpeechRequest{Text: "long"})
		if got := errors.Is(err, ErrTooLarge); got != tt.tooBig {
			t.Errorf("size %d: err = %v, want too large = %v", tt.size, err, tt.tooBig)
		}
		if err == nil && len(sp.Audio) != tt.size {
			t.Errorf("size %d: got %d bytes of audio", tt.size, len(sp.Audio))
		}
	}
}

// Cancelling the context stops a call at any point, within 500 ms.
func TestCancellation(t *testing.T) {
	tests := []struct {
		name    string
		handler func(ts **testenv.RecordingServer, arrived chan<- struct{}) http.HandlerFunc
		call    func(*Client, context.Context) error
		retries bool // uses real retry waits
	}{
		{"waiting for the answer", func(ts **testenv.RecordingServer, arrived chan<- struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				select {
				case <-r.Context().Done():
				case <-(*ts).Done:
				}
			}
		}, listCall, false},
		{"reading the body", func(ts **testenv.RecordingServer, arrived chan<- struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(200)
				_, _ = io.WriteString(w, `{"conversations":[`)
				_ = http.NewResponseController(w).Flush()
				arrived <- struct{}{}
				select {
				case <-r.Context().Done():
				case <-(*ts).Done:
				}
			}
		}, listCall, false},
		{"uploading audio", func(ts **testenv.RecordingServer, arrived chan<- struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{} // never reads the body, so the upload stalls
				select {
				case <-r.Context().Done():
				case <-(*ts).Done:
				}
			}
		}, func(c *Client, ctx context.Context) error {
			_, err := c.Transcribe(ctx, TranscribeRequest{Audio: make([]byte, MaxAudioBytes), MIMEType: "audio/wav"})
			return err
		}, false},
		{"waiting to retry", func(ts **testenv.RecordingServer, arrived chan<- struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "20")
				reply(503, `{}`)(w, r)
				arrived <- struct{}{}
			}
		}, listCall, true},
		{"chat waiting", func(ts **testenv.RecordingServer, arrived chan<- struct{}) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				arrived <- struct{}{}
				select {
				case <-r.Context().Done():
				case <-(*ts).Done:
				}
			}
		}, func(c *Client, ctx context.Context) error {
			_, err := c.SendMessage(ctx, SendMessageRequest{Message: "hi"})
			return err
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			arrived := make(chan struct{}, 4)
			var ts *testenv.RecordingServer
			ts = testenv.NewStreamingServer(t, tt.handler(&ts, arrived))
			c := newTestClient(t, ts.URL)
			if tt.retries {
				c.sleep = backoff.Sleep
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- tt.call(c.Client, ctx) }()
			select {
			case <-arrived:
			case err := <-done:
				t.Fatalf("call ended before the server saw it: %v", err)
			}
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("err = %v, want context.Canceled", err)
				}
				checkErrorText(t, err)
			case <-time.After(500 * time.Millisecond):
				t.Fatal("the call did not return within 500 ms of cancellation")
			}
		})
	}
}

func listCall(c *Client, ctx context.Context) error {
	_, err := c.ListConversations(ctx, ListConversationsRequest{})
	return err
}

// The key never appears in error text or logs, even when the service echoes it back.
func TestCanaryKeyNeverLeaks(t *testing.T) {
	echo := func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/v1/chat/conversations":
			reply(401, `{"error":{"code":"`+auth+`","message":"invalid key `+auth+`"}}`)(w, r)
		case "/v1/chat/messages":
			reply(200, `{"code":1,"msg":"bad key `+auth+`"}`)(w, r)
		case "/v1/chat/speech":
			reply(200, `{"unexpected":"`+auth+`"}`)(w, r)
		case "/v1/chat/transcribe":
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			_, _ = io.WriteString(w, "<html><title>Error for "+auth+"</title></html>")
		default:
			http.Redirect(w, r, "https://evil.example/?k="+auth, http.StatusFound)
		}
	}
	ts := testenv.NewRecordingServer(t, echo)
	c := newTestClient(t, ts.URL, func(o *Options) { o.MaxRetries = -1 })
	ctx := t.Context()
	var errs []error
	_, err := c.ListConversations(ctx, ListConversationsRequest{})
	errs = append(errs, err)
	_, err = c.SendMessage(ctx, SendMessageRequest{Message: "x"})
	errs = append(errs, err)
	_, err = c.Speak(ctx, SpeechRequest{Text: "x"})
	errs = append(errs, err)
	_, err = c.Transcribe(ctx, TranscribeRequest{Audio: []byte{1}})
	errs = append(errs, err)
	_, err = c.History(ctx, strID("1"))
	errs = append(errs, err)
	for i, err := range errs {
		if err == nil {
			t.Fatalf("call %d: no error", i)
		}
		for _, s := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err)} {
			if strings.Contains(s, canaryKey) {
				t.Errorf("call %d: error reveals the key: %s", i, s)
			}
		}
		var e *Error
		if errors.As(err, &e) && (strings.Contains(string(e.Body), canaryKey) || strings.Contains(e.Code, canaryKey)) {
			t.Errorf("call %d: Error.Body or Code holds the key", i)
		}
		var de *DecodeError
		if errors.As(err, &de) && strings.Contains(de.BodyStart, canaryKey) {
			t.Errorf("call %d: DecodeError.BodyStart holds the key", i)
		}
	}
	if !strings.Contains(c.logs.String(), "status=401") {
		t.Errorf("the log lacks the request lines:\n%s", c.logs.String())
	}
}

// Each request is logged with method, path, status and duration.
func TestLogging(t *testing.T) {
	ts := testenv.NewRecordingServer(t, reply(200, `[]`))
	c := newTestClient(t, ts.URL)
	if _, err := c.ListConversations(t.Context(), ListConversationsRequest{Limit: 3}); err != nil {
		t.Fatal(err)
	}
	line := c.logs.String()
	for _, want := range []string{"method=GET", "path=/v1/chat/conversations", "status=200", "duration="} {
		if !strings.Contains(line, want) {
			t.Errorf("log %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "Bearer") || strings.Contains(line, "[]") {
		t.Errorf("log holds headers or bodies: %q", line)
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{"-3", 0},
		{"12", 12 * time.Second},
		{"999999999", 24 * time.Hour},
		{now.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second},
		{now.Add(-time.Minute).Format(http.TimeFormat), 0},
		{"soon", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestBackoff(t *testing.T) {
	c, err := New(Options{BaseURL: "https://api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if c.pace != (backoff.Policy{Base: 500 * time.Millisecond, Max: 8 * time.Second}) {
		t.Errorf("retry pace %+v, want 0.5 s doubling to at most 8 s", c.pace)
	}
}

// Over https with the caller's http.Client (here trusting the test certificate), every kind of
// call works, the user agent is sent, and the chat call gets its own transport built from it.
func TestHTTPS_GivenHTTPClient(t *testing.T) {
	var wrongAgent atomic.Int32
	srv := httptestTLS(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("User-Agent") != "parley-test/9" {
			wrongAgent.Add(1)
		}
		if r.Header.Get("Authorization") != "Bearer "+canaryKey {
			w.WriteHeader(401)
			return
		}
		reply(200, `{"conversation_id":"c1","reply":"secure","conversations":[]}`)(w, r)
	})
	c := newTestClient(t, srv.URL, func(o *Options) {
		o.HTTPClient = srv.Client()
		o.UserAgent = "parley-test/9"
	})
	if _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); err != nil {
		t.Fatalf("list over https: %v", err)
	}
	got, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"})
	if err != nil || got.Reply != "secure" {
		t.Fatalf("chat over https: %v, %v", got, err)
	}
	if n := wrongAgent.Load(); n != 0 {
		t.Errorf("%d requests without the given User-Agent", n)
	}
}

// Each chat call gets a fresh connection, so a stale pooled one can never make it ambiguous;
// other calls share pooled connections.
func TestChatUsesFreshConnections(t *testing.T) {
	var conns atomic.Int32
	ts := httptestUnstarted(t, reply(200, `{"conversation_id":"c1","reply":"hi","conversations":[]}`))
	ts.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	ts.Start()
	c := newTestClient(t, ts.URL)
	for range 3 {
		if _, err := c.ListConversations(t.Context(), ListConversationsRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("3 list calls used %d connections, want 1 pooled", n)
	}
	for range 3 {
		if _, err := c.SendMessage(t.Context(), SendMessageRequest{Message: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 4 {
		t.Errorf("3 chat calls opened %d new connections, want 3", n-1)
	}
}

// Cancelling while the connection is still being made stops the call too.
func TestCancellation_WhileDialing(t *testing.T) {
	dialing := make(chan struct{})
	var once sync.Once
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		once.Do(func() { close(dialing) })
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	c := newTestClient(t, "https://api.example.com", func(o *Options) { o.HTTPClient = &http.Client{Transport: tr} })
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.SendMessage(ctx, SendMessageRequest{Message: "hi"})
		done <- err
	}()
	<-dialing
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || errors.Is(err, ErrReplyLost) {
			t.Errorf("err = %v, want context.Canceled and not ErrReplyLost (nothing was sent)", err)
		}
	case <-time.After(500 * time.Millisecond):
		t.Fatal("the call did not return within 500 ms of cancellation")
	}
}

// A Retry-After that would outlast the call's deadline is not waited for.
func TestRetries_RetryAfterPastDeadline(t *testing.T) {
	ts := testenv.NewRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "20")
		reply(429, `{"message":"later"}`)(w, r)
	})
	c := newTestClient(t, ts.URL, func(o *Options) { o.Timeout = 5 * time.Second })
	_, err := c.ListConversations(t.Context(), ListConversationsRequest{})
	var e *Error
	if !errors.As(err, &e) || e.StatusCode != 429 || e.RetryAfter != 20*time.Second {
		t.Fatalf("err = %v, want *Error 429 with RetryAfter 20s", err)
	}
	if n := len(ts.Requests()); n != 1 || len(c.retryWaits()) != 0 {
		t.Errorf("%d requests and waits %v, want 1 request and no wait", n, c.retryWaits())
	}
}

func TestTransportDefaults(t *testing.T) {
	c, err := New(Options{BaseURL: "https://api.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	pooled, chat := c.hc.Transport.(*http.Transport), c.chatHC.Transport.(*http.Transport)
	if pooled.TLSHandshakeTimeout != connectTimeout || chat.TLSHandshakeTimeout != connectTimeout {
		t.Errorf("TLS handshake timeouts %v, %v, want %v", pooled.TLSHandshakeTimeout, chat.TLSHandshakeTimeout, connectTimeout)
	}
	if pooled.DisableKeepAlives || !chat.DisableKeepAlives {
		t.Error("want pooled connections for most calls and none for chat")
	}
	if c.timeout != DefaultTimeout || c.maxRetries != DefaultMaxRetries {
		t.Errorf("timeout %v, retries %d", c.timeout, c.maxRetries)
	}
}
