package explain_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"parley/client"
	"parley/internal/explain"
	"parley/internal/testenv"
	"parley/keystore"
)

// key is the API key every call sends; no sentence may hold it.
const key = "pk_test_Zq7LmN3pX9vB2kT8wR4yH6jD"

// serve starts a server answering every request with h and returns its address.
func serve(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// answer is a handler that answers with status and the service's JSON error.
func answer(status int, code, message string, header ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		fmt.Fprintf(w, `{"error":{"code":%q,"message":%q}}`, code, message)
	}
}

// call is a call through a real client, returning its error.
type call func(ctx context.Context, c *client.Client) error

func list(ctx context.Context, c *client.Client) error {
	_, err := c.ListConversations(ctx, client.ListConversationsRequest{Limit: 1})
	return err
}

func chat(ctx context.Context, c *client.Client) error {
	_, err := c.SendMessage(ctx, client.SendMessageRequest{Message: "Hello"})
	return err
}

// transcribe is a call that sends n bytes of audio to be transcribed.
func transcribe(n int) call {
	return func(ctx context.Context, c *client.Client) error {
		_, err := c.Transcribe(ctx, client.TranscribeRequest{Audio: make([]byte, n), MIMEType: "audio/wav"})
		return err
	}
}

// clientError makes a real client for base and returns the error of do.
func clientError(t *testing.T, base string, timeout time.Duration, do call) error {
	t.Helper()
	c, err := client.New(client.Options{BaseURL: base, APIKey: key, MaxRetries: -1, Timeout: timeout})
	if err != nil {
		return err
	}
	err = do(t.Context(), c)
	if err == nil {
		t.Fatal("the call did not fail")
	}
	return err
}

// refusedAddress is a loopback address where nothing listens.
func refusedAddress(t *testing.T) string {
	t.Helper()
	return fmt.Sprintf("127.0.0.1:%d", testenv.ClosedPort(t)) // held by the test: nothing else gets it
}

// TestError_RealClientErrors checks the sentence for each kind of failure, produced by a real
// client against a real server, and that none holds the key.
func TestError_RealClientErrors(t *testing.T) {
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsServer.Close)
	tlsHost := strings.TrimPrefix(tlsServer.URL, "https://")
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	slow := serve(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hold:
		case <-r.Context().Done():
		}
	})
	refused := refusedAddress(t)

	cases := []struct {
		name    string
		base    string // the server's address; the scene's too unless noScene
		noScene bool
		scene   explain.Scene
		timeout time.Duration
		do      call
		kind    explain.Kind
		want    string
	}{
		{name: "self-signed certificate", base: tlsServer.URL, do: list, kind: explain.Certificate,
			want: "The TLS certificate of " + tlsHost + " is not trusted (an unknown authority signed it)"},
		{name: "self-signed certificate, address unknown to the caller", base: tlsServer.URL, noScene: true, do: list, kind: explain.Certificate,
			want: "The TLS certificate of " + tlsHost + " is not trusted (an unknown authority signed it)"},
		{name: "redirect", base: serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://evil.example.net/v1/chat/conversations", http.StatusTemporaryRedirect)
		}), do: list, kind: explain.Redirect,
			want: "The service redirected to evil.example.net (307); Parley does not follow redirects, so the key stays put"},
		{name: "502 from the model, refunded by the service", base: serve(t, answer(502, "upstream_error",
			"The chat model failed to answer; the points for this call were refunded.")), do: chat, kind: explain.UpstreamFailed,
			want: "The service's model failed (502: The chat model failed to answer; the points for this call were refunded)"},
		{name: "502 from the model, the service says nothing of the points", base: serve(t, answer(502, "upstream_error", "upstream timeout")),
			do: chat, kind: explain.UpstreamFailed,
			want: "The service's model failed (502: upstream timeout); a failed chat call is refunded"},
		{name: "401 with the stored key", base: serve(t, answer(401, "invalid_api_key", "Unknown API key.")),
			scene: explain.Scene{Key: explain.KeyStored}, do: list, kind: explain.KeyRefused,
			want: "The service refused the stored API key (401: Unknown API key)"},
		{name: "401 with a key just typed", base: serve(t, answer(401, "invalid_api_key", "Unknown API key.")),
			scene: explain.Scene{Key: explain.KeyTyped}, do: list, kind: explain.KeyRefused,
			want: "The service refused this API key (401: Unknown API key)"},
		{name: "401 that echoes the key", base: serve(t, answer(401, "invalid_api_key", "Unknown API key "+key+".")),
			do: list, kind: explain.KeyRefused, want: "The service refused the API key (401: Unknown API key [REDACTED])"},
		{name: "402", base: serve(t, answer(402, "insufficient_points", "Balance 0, price 1.")), do: chat, kind: explain.NoPoints,
			want: "Not enough points for this call (402: Balance 0, price 1)"},
		{name: "404 conversation", base: serve(t, answer(404, "not_found", "No such conversation.")), do: func(ctx context.Context, c *client.Client) error {
			id, err := client.ParseConversationID("7")
			if err != nil {
				return err
			}
			_, err = c.History(ctx, id)
			return err
		}, scene: explain.Scene{Conversation: "7"}, kind: explain.NoConversation,
			want: "No conversation 7 on this service (404: No such conversation)"},
		{name: "429 with Retry-After", base: serve(t, answer(429, "rate_limited", "Slow down.", "Retry-After", "40")), do: list, kind: explain.Busy,
			want: "The service is busy (429: Slow down)"},
		{name: "503", base: serve(t, answer(503, "unavailable", "")), do: list, kind: explain.ServiceDown,
			want: "The service is unavailable (503: unavailable)"},
		{name: "timeout", base: slow, timeout: 50 * time.Millisecond, scene: explain.Scene{Timeout: 50 * time.Millisecond}, do: list, kind: explain.Timeout,
			want: "The service did not answer within 50ms"},
		{name: "timeout, limit unknown to the caller", base: slow, timeout: 50 * time.Millisecond, do: list, kind: explain.Timeout,
			want: "The service did not answer in time"},
		{name: "nothing listening on this machine", base: "http://" + refused, do: list, kind: explain.NotListening,
			want: "Nothing is listening at http://" + refused},
		{name: "plain http to another host", base: "http://example.com", do: list, kind: explain.Insecure,
			want: "Parley sends the API key only over https to example.com (plain http is for this machine only)"},
		{name: "audio over the service's limit, refused before it is sent", base: "http://" + refused, do: transcribe(client.MaxAudioBytes + 1),
			kind: explain.AudioTooLarge, want: "The audio is larger than the service's limit of 10,000,000 bytes"},
		{name: "413", base: serve(t, answer(413, "body_too_large", "The request body is too large.")), do: transcribe(1000),
			kind: explain.TooLarge, want: "Too large for the service (413: The request body is too large)"},
		{name: "422 telephone-quality audio", base: serve(t, answer(422, client.CodeNarrowband, "The audio has nothing above 4 kHz.")), do: transcribe(1000),
			kind: explain.NarrowbandAudio, want: "The audio has nothing above 4 kHz (telephone quality), which the service's recogniser cannot hear"},
		{name: "422 of another kind", base: serve(t, answer(422, "out_of_range", "Too long.")), do: transcribe(1000),
			kind: explain.BadRequest, want: "The service refused the request (422: Too long)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := clientError(t, tc.base, tc.timeout, tc.do)
			s := tc.scene
			if !tc.noScene {
				s.BaseURL = tc.base
			}
			f := explain.Error(err, s)
			if f.Kind != tc.kind || f.String() != tc.want {
				t.Errorf("for %v:\n got %v %q\nwant %v %q", err, f.Kind, f, tc.kind, tc.want)
			}
			if strings.Contains(f.String(), key) {
				t.Errorf("the sentence holds the key: %q", f)
			}
		})
	}
}

// TestError_CertificateForAnotherHost tells a trusted certificate made out to another host from
// one no authority vouches for.
func TestError_CertificateForAnotherHost(t *testing.T) {
	ts := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(ts.Close)
	// The test certificate names 127.0.0.1 and example.com, not localhost.
	base := strings.Replace(ts.URL, "127.0.0.1", "localhost", 1)
	c, err := client.New(client.Options{BaseURL: base, APIKey: key, MaxRetries: -1, HTTPClient: ts.Client()})
	if err != nil {
		t.Fatal(err)
	}
	err = list(t.Context(), c)
	f := explain.Error(err, explain.Scene{BaseURL: base})
	want := "The TLS certificate of " + strings.TrimPrefix(base, "https://") + " is not trusted (it is made out to another host)"
	if f.Kind != explain.Certificate || !f.OtherHost || f.String() != want {
		t.Errorf("for %v:\n got %v (other host %v) %q\nwant %q", err, f.Kind, f.OtherHost, f, want)
	}
}

// TestError_Busy keeps the wait the service asked for, for the caller's action.
func TestError_Busy(t *testing.T) {
	err := clientError(t, serve(t, answer(429, "rate_limited", "", "Retry-After", "40")), 0, list)
	if f := explain.Error(err, explain.Scene{}); f.Kind != explain.Busy || f.RetryAfter != 40*time.Second {
		t.Errorf("got %v after %v, want Busy after 40s", f.Kind, f.RetryAfter)
	}
}

// failing is a keyring backend whose every call fails with err, or waits on block.
type failing struct {
	err   error
	block chan struct{}
}

func (f failing) Get(string, string) (string, error) {
	if f.block != nil {
		<-f.block
	}
	return "", f.err
}
func (f failing) Set(string, string, string) error { _, err := f.Get("", ""); return err }
func (f failing) Delete(string, string) error      { _, err := f.Get("", ""); return err }

// TestError_KeystoreErrors checks the sentences for a keyring that has no key, none running, a
// locked one, one that does not answer, and a key that cannot be stored; none holds the key.
func TestError_KeystoreErrors(t *testing.T) {
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	const base = "https://api.example.com"
	cases := []struct {
		name string
		err  func() error
		kind explain.Kind
		want string
	}{
		{"no key stored", func() error {
			_, err := keystore.NewWithBackend(failing{err: keyring.ErrNotFound}, time.Second).Get(base)
			return err
		}, explain.NoKey, "No API key is stored for " + base},
		{"no Secret Service", func() error {
			return keystore.NewWithBackend(failing{err: errors.New("The name org.freedesktop.secrets was not provided by any .service files")}, time.Second).Set(base, key)
		}, explain.KeyringUnavailable, "The system keyring is not available (no Secret Service is running)"},
		{"locked", func() error {
			_, err := keystore.NewWithBackend(failing{err: errors.New("failed to unlock correct collection '/org/freedesktop/secrets/aliases/default'")}, time.Second).Get(base)
			return err
		}, explain.KeyringUnavailable, "The system keyring is not available (it is locked)"},
		{"no answer", func() error {
			return keystore.NewWithBackend(failing{block: block}, 20*time.Millisecond).Set(base, key)
		}, explain.KeyringUnavailable, "The system keyring is not available (it did not answer in time)"},
		{"key with a space", func() error {
			return keystore.NewWithBackend(failing{}, time.Second).Set(base, key+" x")
		}, explain.InvalidKey, "That is not a usable API key: the API key contains a space"},
		{"key that echoes in the keyring's error", func() error {
			return keystore.NewWithBackend(failing{err: errors.New("cannot store " + key)}, time.Second).Set(base, key)
		}, explain.KeyringUnavailable, "The system keyring is not available (it failed)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			f := explain.Error(err, explain.Scene{BaseURL: base})
			if f.Kind != tc.kind || f.String() != tc.want {
				t.Errorf("for %v:\n got %v %q\nwant %v %q", err, f.Kind, f, tc.kind, tc.want)
			}
			if strings.Contains(f.String(), key) {
				t.Errorf("the sentence holds the key: %q", f)
			}
		})
	}
}

// TestError_RefusedBeforeSending gives the client's refusals of an address or a key, whose
// words carry no advice, a kind the app and the CLI pick their advice by.
func TestError_RefusedBeforeSending(t *testing.T) {
	cases := []struct {
		base string
		key  client.APIKey
		kind explain.Kind
		want string
	}{
		{"https://ann:pw@api.example.com", key, explain.UserInBaseURL, "The base URL must not contain a user name or password"},
		{"https://api.example.com/v1?x=1", key, explain.BadBaseURL, `The base URL "https://api.example.com/v1" must not have a query or fragment`},
		{"api.example.com", key, explain.BadBaseURL, `The base URL "api.example.com" has no host`},
		{"", key, explain.BadBaseURL, "No base URL given"},
		{"ftp://api.example.com", key, explain.Insecure, "Parley sends the API key only over https to api.example.com (plain http is for this machine only)"},
		{"https://api.example.com", key + " x", explain.InvalidKey, "That is not a usable API key: the API key contains spaces or control characters"},
	}
	for _, tc := range cases {
		_, err := client.New(client.Options{BaseURL: tc.base, APIKey: tc.key})
		f := explain.Error(err, explain.Scene{BaseURL: tc.base})
		if f.Kind != tc.kind || f.String() != tc.want {
			t.Errorf("for %v:\n got %v %q\nwant %v %q", err, f.Kind, f, tc.kind, tc.want)
		}
		if strings.Contains(f.String(), string(key)) {
			t.Errorf("the sentence holds the key: %q", f)
		}
	}
}

// TestError_WithoutAddress names the service plainly when the caller does not know its address.
func TestError_WithoutAddress(t *testing.T) {
	cases := []struct {
		err  error
		want string
	}{
		{keystore.ErrNotFound, "No API key is stored for this service"},
		{&client.Error{StatusCode: 404, Message: "No such route.", Method: "GET", Path: "/v1/chat/conversations"},
			"The service has no GET /v1/chat/conversations (404: No such route)"},
		{&client.Error{StatusCode: 404, Message: "No such conversation.", Method: "POST", Path: "/v1/chat/messages"},
			"No conversation with that ID on this service (404: No such conversation)"},
		{&client.RedirectError{StatusCode: 302, Method: "GET", Path: "/v1/chat/conversations"},
			"The service redirected to another address (302); Parley does not follow redirects, so the key stays put"},
		{errors.New("something else."), "Something else"},
	}
	for _, tc := range cases {
		if got := explain.Error(tc.err, explain.Scene{}).String(); got != tc.want {
			t.Errorf("%v:\n got %q\nwant %q", tc.err, got, tc.want)
		}
	}
}

func TestPoints_ThousandsSeparated(t *testing.T) {
	for n, want := range map[int64]string{0: "0 points", 1: "1 point", -1: "-1 point", 999: "999 points",
		1000: "1,000 points", -1000: "-1,000 points", 1000000: "1,000,000 points", 123456789: "123,456,789 points",
		-9223372036854775808: "-9,223,372,036,854,775,808 points"} {
		if got := explain.Points(n); got != want {
			t.Errorf("Points(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFact_PlainHasNoStatusCode checks that the sentence for a window says the same facts as
// the CLI's without the HTTP status code or the service's machine code: a person reading
// "(502: upstream_error)" learns nothing from the numbers.
func TestFact_PlainHasNoStatusCode(t *testing.T) {
	chatPath := func(code int, machine, msg string) *client.Error {
		return &client.Error{StatusCode: code, Code: machine, Message: msg, Method: "POST", Path: "/v1/chat/messages"}
	}
	cases := []struct {
		name  string
		err   error
		scene explain.Scene
		want  string
	}{
		{"model died mid-reply, refunded", chatPath(502, "upstream_error", "Ollama (llama3.2) did not answer: is it still running? The points for this call were refunded."),
			explain.Scene{}, "The model gave no reply: Ollama (llama3.2) did not answer: is it still running? The points for this call were refunded"},
		{"model failed, nothing said of the points", chatPath(502, "upstream_error", ""),
			explain.Scene{}, "The model gave no reply; a failed chat call is refunded"},
		{"upstream status inside the service's words", chatPath(502, "upstream_error", "The model server failed (500: out of memory). The points for this call were refunded."),
			explain.Scene{}, "The model gave no reply: The model server failed (out of memory). The points for this call were refunded"},
		{"unknown voice", &client.Error{StatusCode: 422, Code: "unknown_voice", Message: "There is no voice \"99999999\".", Method: "POST", Path: "/v1/chat/speech"},
			explain.Scene{}, "The service refused the voice: There is no voice \"99999999\""},
		{"settings refused", chatPath(422, "out_of_range", "temperature must be between 0 and 2"),
			explain.Scene{}, "The service refused the request: temperature must be between 0 and 2"},
		{"key refused", chatPath(401, "invalid_api_key", "Unknown API key."),
			explain.Scene{Key: explain.KeyStored}, "The service refused the stored API key: Unknown API key"},
		{"busy, machine code only", &client.Error{StatusCode: 429, Code: "rate_limited", Method: "GET", Path: "/v1/chat/conversations"},
			explain.Scene{}, "The service is busy"},
		{"unavailable", &client.Error{StatusCode: 503, Message: "Service Unavailable", Method: "GET", Path: "/v1/chat/conversations"},
			explain.Scene{}, "The service is unavailable"},
		{"no conversation", chatPath(404, "not_found", "No such conversation."),
			explain.Scene{Conversation: "7"}, "No conversation 7 on this service: No such conversation"},
		{"base URL ends in /v1", &client.Error{StatusCode: 404, Method: "GET", Path: "/v1/v1/chat/conversations"},
			explain.Scene{BaseURL: "http://127.0.0.1:8780/v1"}, "Nothing was found at http://127.0.0.1:8780/v1"},
		{"redirect", &client.RedirectError{StatusCode: 307, Location: "https://evil.example.net/v1", Method: "GET", Path: "/v1/chat/conversations"},
			explain.Scene{}, "The service redirected to https://evil.example.net/v1; Parley does not follow redirects, so the key stays put"},
		{"not a status: unchanged", keystore.ErrNotFound, explain.Scene{}, "No API key is stored for this service"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := explain.Error(tc.err, tc.scene)
			if got := f.Plain(300); got != tc.want {
				t.Errorf("plain:\n got %q\nwant %q", got, tc.want)
			}
			var ce *client.Error
			if errors.As(tc.err, &ce) && !strings.Contains(f.String(), fmt.Sprint(ce.StatusCode)) {
				t.Errorf("the CLI's sentence lost its status code: %q", f)
			}
		})
	}
}

// TestWords_Clip cuts the service's words after a whole word, never mid-word unless one word
// fills most of the room, and never past n characters.
func TestWords_Clip(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly ten", 11, "exactly ten"},
		{"Ollama is not running: start it. The points for this call were refunded.", 40, "Ollama is not running: start it. The…"},
		{"Ollama is not running: start it, or choose another.", 27, "Ollama is not running…"},
		{"Supercalifragilisticexpialidocious words", 12, "Supercalifr…"},
		{"ünïcödé wörds hërë", 10, "ünïcödé…"},
		{"abc", 0, ""},
	} {
		got := string(explain.Words(c.in).Clip(c.n))
		if got != c.want || len([]rune(got)) > max(c.n, 0) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// TestError_StoppedBeforeAnyText: a streamed reply stopped before the model wrote anything says
// so, and that nothing was charged, whatever the service's words.
func TestError_StoppedBeforeAnyText(t *testing.T) {
	f := explain.Error(&client.Error{StatusCode: 409, Code: client.CodeStopped, Message: "Stopped."}, explain.Scene{})
	if f.Kind != explain.StoppedUnwritten || f.String() != "You stopped the reply before the model wrote anything; nothing was charged" {
		t.Errorf("%v: %q", f.Kind, f.String())
	}
}

// TestError_StreamBrokeOff: a streamed reply whose stream ended before its last event is not
// said to be charged for sure: Parley's service keeps and charges it when only the connection
// broke and the model finished, and refunds it when the model failed or the service stopped.
func TestError_StreamBrokeOff(t *testing.T) {
	err := fmt.Errorf("%w [POST /v1/chat/messages]: %w", client.ErrReplyUnreadable, fmt.Errorf("%w: %w", client.ErrStreamBroken, io.ErrUnexpectedEOF))
	f := explain.Error(err, explain.Scene{})
	if f.Kind != explain.ReplyUnreadable || f.String() != "The streamed reply broke off; it is charged only if the model finished it" {
		t.Errorf("%v: %q", f.Kind, f.String())
	}
}
