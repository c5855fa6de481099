package app

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"

	"parley/client"
	"parley/internal/explain"
	"parley/keystore"
)

// accountUI is the app with no service yet, its updates queued for the test to run, connecting
// with connect and keeping keys in secrets.
func accountUI(t *testing.T, connect func(string, client.APIKey) (Service, error), secrets SecretStore) (*UI, chan func()) {
	t.Helper()
	queue := make(chan func(), 100)
	u := New(test.NewTempApp(t), Deps{Connect: connect, Secrets: secrets,
		Getenv: func(string) string { return "" }, Now: fixedNow,
		run: func(fn func()) { queue <- fn }})
	u.win.Resize(fyne.NewSize(1000, 700))
	t.Cleanup(u.shutdown)
	return u, queue
}

// runUntil runs the window's queued updates until cond holds.
func runUntil(t *testing.T, queue chan func(), cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case fn := <-queue:
			fn()
		case <-deadline:
			t.Fatal("the window did not get there")
		}
	}
}

// realClient connects through the real client, as the app does.
func realClient(base string, key client.APIKey) (Service, error) {
	return client.New(client.Options{BaseURL: base, APIKey: key, MaxRetries: -1})
}

// testedIn types base and a key into a new Account dialog, presses Test connection, and returns
// what the dialog says.
func testedIn(t *testing.T, base string) string {
	t.Helper()
	u, queue := accountUI(t, realClient, &memSecrets{keys: map[string]string{}})
	u.showAccount()
	a := openDialogOf[*accountDialog](t, u)
	a.base.SetText(base)
	test.Type(a.key, "pk_test_0123456789abcdef")
	a.test()
	runUntil(t, queue, func() bool { return !a.testBtn.Disabled() })
	return a.result.Text
}

// factOf is what package explain says of the error a real client gets from base, the facts
// the CLI prints too, without the status code a window leaves out.
func factOf(t *testing.T, base string) string {
	t.Helper()
	c, err := client.New(client.Options{BaseURL: base, APIKey: "pk_test_0123456789abcdef", MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.ListConversations(t.Context(), client.ListConversationsRequest{Limit: 1})
	return explain.Error(err, explain.Scene{BaseURL: base}).Plain(maxServiceWords)
}

// TestAccount_SaysWhatTheCLISays checks that the Account dialog says what happened in the CLI's
// words, with an action that fits the dialog, for a self-signed certificate and a redirect.
func TestAccount_SaysWhatTheCLISays(t *testing.T) {
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(tlsServer.Close)
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://evil.example.net/v1/chat/conversations", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(redirecting.Close)
	cases := []struct {
		name, base, want string
	}{
		{"self-signed certificate", tlsServer.URL, "The TLS certificate of " + strings.TrimPrefix(tlsServer.URL, "https://") +
			" is not trusted (an unknown authority signed it). Check the address, or install the certificate's authority."},
		{"redirect", redirecting.URL, "The service redirected to evil.example.net; Parley does not follow redirects, so the key stays put. Use the final address."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := testedIn(t, tc.base)
			if got != tc.want {
				t.Errorf("the dialog says\n\t%q\nwant\n\t%q", got, tc.want)
			}
			if fact := factOf(t, tc.base); !strings.HasPrefix(got, fact+". ") {
				t.Errorf("the dialog says %q, not the CLI's %q", got, fact)
			}
			for _, raw := range []string{"x509", "tls:", "Open Account", "in Account"} {
				if strings.Contains(got, raw) {
					t.Errorf("the dialog says %q: %q", raw, got)
				}
			}
		})
	}
}

// TestPhrase_RefundSaidOnce checks that a failed chat call whose service says it refunded the
// points is not told a second time that it is refunded, and that one whose service does not
// say so is told once.
func TestPhrase_RefundSaidOnce(t *testing.T) {
	for _, msg := range []string{"The chat model failed to answer; the points for this call were refunded.", "upstream timeout"} {
		got := phrase(&client.Error{StatusCode: 502, Code: "upstream_error", Message: msg, Method: "POST", Path: "/v1/chat/messages"})
		if n := strings.Count(strings.ToLower(got.text), "refund"); n != 1 || got.action != actionRetry {
			t.Errorf("%q: says refund %d times (action %v): %q", msg, n, got.action, got.text)
		}
	}
}

// TestAccount_RefusedKeyDoesNotSendToAccount checks that the dialog a refused key opens does not
// tell the person to open the dialog they are in.
func TestAccount_RefusedKeyDoesNotSendToAccount(t *testing.T) {
	svc := newFakeService()
	svc.ChatErrs = []error{&client.Error{StatusCode: 401, Message: "Unknown API key.", Method: "POST", Path: "/v1/chat/messages"}}
	h := start(t, svc)
	h.typeAndSend("hi")
	h.waitFor(func() bool { return isOpen[*accountDialog](h.u) })
	got := openDialogOf[*accountDialog](t, h.u).result.Text
	if want := "The service refused the API key in PARLEY_API_KEY: Unknown API key. Check the key."; got != want {
		t.Errorf("the dialog says\n\t%q\nwant\n\t%q", got, want)
	}
}

// flakyKeyring fails every read and store, each time for a different reason, as a desktop
// whose session bus appears after the first call does.
type flakyKeyring struct {
	mu      sync.Mutex
	reasons []keystore.Reason
}

func (k *flakyKeyring) fail(op string) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	r := k.reasons[0]
	if len(k.reasons) > 1 {
		k.reasons = k.reasons[1:]
	}
	return &keystore.UnavailableError{Op: op, BaseURL: "https://api.example.com", Reason: r, Err: errors.New("dbus says no")}
}

func (k *flakyKeyring) Get(string) (string, error) { return "", k.fail("read") }
func (k *flakyKeyring) Set(string, string) error   { return k.fail("store") }
func (k *flakyKeyring) Delete(string) error        { return k.fail("delete") }

// dialogText is the text the dialogs over the window show, their wrapped lines joined.
func dialogText(u *UI) string {
	var lines []string
	for _, o := range u.win.Canvas().Overlays().List() {
		for _, obj := range test.LaidOutObjects(o) {
			if txt, ok := obj.(*canvas.Text); ok && txt.Visible() && txt.Text != "" {
				lines = append(lines, txt.Text)
			}
		}
	}
	return strings.Join(lines, " ")
}

// TestAccount_NoKeyringSaidOnce checks that without a keyring the Account dialog says so in one
// sentence, the same after the keyring fails again another way, and that the key field does not
// promise the keyring.
func TestAccount_NoKeyringSaidOnce(t *testing.T) {
	keyring := &flakyKeyring{reasons: []keystore.Reason{keystore.ReasonNoSessionBus, keystore.ReasonTimeout}}
	svc := newFakeService()
	u, queue := accountUI(t, func(string, client.APIKey) (Service, error) { return svc, nil }, keyring)
	const base = "https://api.example.com"
	u.app.Preferences().SetString(prefBaseURL, base)
	u.connectStored()
	runUntil(t, queue, func() bool { return isOpen[*accountDialog](u) })
	a := openDialogOf[*accountDialog](t, u)
	const said = "The system keyring is not available (no D-Bus session bus is running). You can keep the key for this session only."
	if a.result.Text != said {
		t.Errorf("the dialog opens saying\n\t%q\nwant\n\t%q", a.result.Text, said)
	}
	if !strings.Contains(a.key.PlaceHolder, "this session only") || strings.Contains(a.key.PlaceHolder, "keyring") {
		t.Errorf("the key field says %q", a.key.PlaceHolder)
	}
	test.Type(a.key, "pk_test_0123456789abcdef")
	a.save()
	runUntil(t, queue, func() bool { return strings.Contains(dialogText(u), "Keep it for this session only?") })
	markup := dialogText(u)
	if a.result.Text != said {
		t.Errorf("after the keyring failed again the dialog says\n\t%q\nwant still\n\t%q", a.result.Text, said)
	}
	for _, other := range []string{"did not answer", "kept in the system keyring"} {
		if strings.Contains(markup, other) {
			t.Errorf("the dialog says %q", other)
		}
	}
	if n := strings.Count(markup, "keyring is not available"); n != 1 {
		t.Errorf("the dialog says the keyring is not available %d times, want once", n)
	}
}

// TestPhrase_NoStatusCodes checks that what a person reads of a refusal holds no HTTP status
// code or machine code, and says what happened and what to do.
func TestPhrase_NoStatusCodes(t *testing.T) {
	cases := []struct {
		name     string
		err      error
		turn     string // the sentence, whole
		sayAlso  string
		shownNot []string
	}{
		{"the model died mid-reply", &client.Error{StatusCode: 502, Code: "upstream_error", Method: "POST", Path: "/v1/chat/messages",
			Message: "Ollama (llama3.2) did not answer: is it still running? The points for this call were refunded."},
			"The model gave no reply: Ollama (llama3.2) did not answer: is it still running? The points for this call were refunded. Try again.",
			"", []string{"502", "upstream_error"}},
		{"an unknown voice", &client.Error{StatusCode: 422, Code: "unknown_voice", Method: "POST", Path: "/v1/chat/speech",
			Message: "There is no voice \"99999999\". Voices include flite-slt, en-us; GET /v1/chat/voices lists them all."},
			"", "Pick another voice.", []string{"422", "unknown_voice"}},
		{"settings out of range", &client.Error{StatusCode: 422, Code: "out_of_range", Method: "POST", Path: "/v1/chat/messages",
			Message: "temperature must be between 0 and 2"},
			"The service refused the request: temperature must be between 0 and 2. Check the conversation's settings.",
			"", []string{"422", "out_of_range"}},
		{"unavailable", &client.Error{StatusCode: 503, Message: "Service Unavailable", Method: "POST", Path: "/v1/chat/messages"},
			"The service is unavailable. Try again later.", "", []string{"503"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := phrase(tc.err).text
			if tc.turn != "" && got != tc.turn {
				t.Errorf("the sentence:\n got %q\nwant %q", got, tc.turn)
			}
			if tc.sayAlso != "" && !strings.HasSuffix(got, tc.sayAlso) {
				t.Errorf("%q does not end with %q", got, tc.sayAlso)
			}
			for _, raw := range tc.shownNot {
				if strings.Contains(got, raw) {
					t.Errorf("%q shows %q", got, raw)
				}
			}
		})
	}
}

// TestSentence_EngineFailures: the engines dialog says a runtime's failure as a sentence,
// without the status codes the service's words carry.
func TestSentence_EngineFailures(t *testing.T) {
	for in, want := range map[string]string{
		"OpenAI refused the API key (401): check the key":              "OpenAI refused the API key: check the key.",
		"ollama on this computer did not answer: is it still running?": "Ollama on this computer did not answer: is it still running?",
		"élan failed (500: model crashed).":                            "Élan failed (model crashed).",
		"":                                                             "",
	} {
		if got := sentence(in); got != want {
			t.Errorf("sentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPhrase_AdviceByKind: the window's advice follows the error's kind, never its words; the
// client's refusals before anything is sent, whose words carry no advice, get it here.
func TestPhrase_AdviceByKind(t *testing.T) {
	cases := []struct {
		name  string
		err   error
		where place
		want  string
		act   action
	}{
		{"audio over the service's limit", fmt.Errorf("POST /v1/chat/transcribe: %w", client.ErrAudioTooLarge), inWindow,
			"The audio is larger than the service's limit of 10,000,000 bytes. Record a shorter message.", actionNone},
		{"413", &client.Error{StatusCode: 413, Message: "The request body is too large.", Method: "POST", Path: "/v1/chat/messages"}, inWindow,
			"Too large for the service: The request body is too large. Send something shorter.", actionNone},
		{"a user name in the address", &client.BaseURLError{Problem: client.URLWithUser}, inWindow,
			"The base URL must not contain a user name or password. Give the API key separately, in Account.", actionAccount},
		{"a user name in the address, in Account", &client.BaseURLError{Problem: client.URLWithUser}, inAccount,
			"The base URL must not contain a user name or password. Give the API key separately.", actionAccount},
		{"an address without a host", &client.BaseURLError{Problem: client.URLNoHost, URL: "api.example.com"}, inAccount,
			`The base URL "api.example.com" has no host. Write it like https://api.example.com.`, actionAccount},
		{"a key with spaces", client.ErrInvalidKey, inAccount,
			"That is not a usable API key: the API key contains spaces or control characters. Check that the whole key was pasted, and nothing else.", actionAccount},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := phraseIn(tc.err, explain.Scene{}, tc.where)
			if got.text != tc.want || got.action != tc.act {
				t.Errorf("got %q (%q)\nwant %q (%q)", got.text, got.action.label(), tc.want, tc.act.label())
			}
		})
	}
}
