// Package client talks to the Chat and Voice Service: chat with persistent conversations,
// speech-to-text and text-to-speech.
//
// The service's response shapes are not fixed by its specification, so the client reads every
// body tolerantly (bare, under "data", or under {code, msg, data}) and decides from the body alone.
// It never follows redirects, refuses plain http except to loopback, caps what it reads, and
// never re-sends a chat message once it may have reached the service, since chat calls are charged.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"parley/internal/backoff"
	"parley/internal/loopback"
)

// DefaultTimeout bounds a whole call, retries included, when Options.Timeout is zero.
const DefaultTimeout = 120 * time.Second

// DefaultMaxRetries is how often a retryable call is retried when Options.MaxRetries is zero.
const DefaultMaxRetries = 2

const (
	connectTimeout   = 10 * time.Second // bounds dialing and the TLS handshake
	defaultUserAgent = "parley-client/1"
	maxRetryAfter    = 30 * time.Second // a longer Retry-After is returned to the caller instead of waited
)

// Options configures a Client.
type Options struct {
	// BaseURL is the service's address, such as https://api.example.com or http://127.0.0.1:8780; a trailing slash is fine.
	BaseURL string
	// APIKey is sent as a bearer token on every request; empty sends no Authorization header.
	APIKey APIKey
	// HTTPClient is optional; the client still refuses redirects when it is given.
	HTTPClient *http.Client
	// UserAgent is optional.
	UserAgent string
	// Logger is optional; it receives method, path, status and duration of each request, never the key or bodies.
	Logger *slog.Logger
	// MaxRetries is how often a retryable call is retried: 0 means DefaultMaxRetries, negative means never.
	MaxRetries int
	// Timeout bounds a whole call, retries included: 0 means DefaultTimeout.
	Timeout time.Duration
}

// Client calls the Chat and Voice Service; it is safe for concurrent use.
type Client struct {
	baseURL    string // scheme://host/path without a trailing slash
	key        APIKey
	hc         *http.Client // pooled connections
	chatHC     *http.Client // a fresh connection per chat call, so a stale one can't make it ambiguous
	userAgent  string
	log        *slog.Logger
	maxRetries int
	timeout    time.Duration

	// Retry pacing; tests replace them.
	pace  backoff.Policy
	sleep func(ctx context.Context, d time.Duration) error

	streams       atomic.Bool   // the service's last successful answer said it streams chat replies
	idForm        atomic.Uint32 // the idForm of the service's conversation IDs, once one has been seen
	listedForForm atomic.Bool   // the list was read once to learn idForm
}

// New checks opts and returns a Client; it sends no request.
func New(opts Options) (*Client, error) {
	base, err := checkBaseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	key := APIKey(strings.TrimSpace(string(opts.APIKey)))
	for _, r := range string(key) {
		if r <= ' ' || r == 0x7f {
			return nil, ErrInvalidKey
		}
	}
	c := &Client{
		baseURL:    base,
		key:        key,
		userAgent:  opts.UserAgent,
		log:        opts.Logger,
		maxRetries: opts.MaxRetries,
		timeout:    opts.Timeout,
		pace:       backoff.Policy{Base: 500 * time.Millisecond, Max: 8 * time.Second},
		sleep:      backoff.Sleep,
	}
	if c.userAgent == "" {
		c.userAgent = defaultUserAgent
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	switch {
	case c.maxRetries == 0:
		c.maxRetries = DefaultMaxRetries
	case c.maxRetries < 0:
		c.maxRetries = 0
	}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	c.hc, c.chatHC = httpClients(opts.HTTPClient)
	return c, nil
}

// BaseURL returns the normalised base URL, without a trailing slash.
func (c *Client) BaseURL() string { return c.baseURL }

// CloseIdleConnections closes pooled connections that are not in use.
func (c *Client) CloseIdleConnections() {
	c.hc.CloseIdleConnections()
	c.chatHC.CloseIdleConnections()
}

func checkBaseURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", &BaseURLError{Problem: URLEmpty}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", &BaseURLError{Problem: URLUnparsable, Err: err}
	}
	if u.User != nil {
		return "", &BaseURLError{Problem: URLWithUser}
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", &BaseURLError{Problem: URLWithQuery, URL: u.Scheme + "://" + u.Host + u.Path}
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", &BaseURLError{Problem: URLNoHost, URL: raw}
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !loopback.Host(u.Hostname()) {
			return "", &BaseURLError{Problem: URLPlainHTTP, URL: u.Scheme + "://" + u.Host + u.EscapedPath(), Host: u.Hostname()}
		}
	default:
		return "", &BaseURLError{Problem: URLScheme, URL: u.Scheme}
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"), nil
}

func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// httpClients returns the pooled client and the chat client; both refuse redirects.
func httpClients(given *http.Client) (pooled, chat *http.Client) {
	if given == nil {
		t := newTransport()
		ct := t.Clone()
		ct.DisableKeepAlives = true
		return &http.Client{Transport: t, CheckRedirect: refuseRedirect},
			&http.Client{Transport: ct, CheckRedirect: refuseRedirect}
	}
	p := *given
	p.CheckRedirect = refuseRedirect
	ch := p
	rt := p.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if t, ok := rt.(*http.Transport); ok {
		ct := t.Clone()
		ct.DisableKeepAlives = true
		ch.Transport = ct
	}
	return &p, &ch
}

func newTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = connectTimeout
	t.MaxIdleConnsPerHost = 4
	return t
}

// request describes one call to the service.
type request struct {
	method string
	path   string // escaped, relative to the base URL, starting with "/"
	query  url.Values
	body   func() io.Reader // nil for no body; called once per attempt
	length int64            // exact length of what body returns
	accept string
	retry  bool // safe to send again: retried on connection errors, 429 and 503
	chat   bool // charged: never re-sent once it may have reached the service
	// stream, for a chat call to a service that streams, asks for the reply as it is written.
	stream *StreamOptions
	// silent ends a stream that brought nothing for streamIdle.
	silent func()
}

// jsonBody prepares r to send v as JSON.
func (r *request) jsonBody(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s %s: encoding the request: %w", r.method, r.path, err)
	}
	r.body = func() io.Reader { return strings.NewReader(string(b)) }
	r.length = int64(len(b))
	return nil
}

// response is a successful answer, read whole.
type response struct {
	status int
	header http.Header
	body   []byte
	isJSON bool // whether body is one JSON value

	top     map[string]json.RawMessage // the members of an object body; nil for any other body
	payload []byte                     // what the JSON body carries: the data of an envelope, else the body
	// refusal, for a chat call, is the error a 2xx envelope's code or status reported: a 2xx to
	// a chat call was charged, so it is kept to explain a reply that cannot be found, not
	// returned as a refusal that may be sent again.
	refusal *Error
	// stopped: a streamed reply a person stopped (it is what the model wrote until then).
	stopped bool
	// streamed: the answer came as a stream (its pieces went to StreamOptions.OnText).
	streamed bool
}

// decodeError reports a required field missing from this response.
func (c *Client) decodeError(res *response, field string) error {
	return &DecodeError{Field: field, BodyStart: c.redact(bodyStart(res.body))}
}

// connError is a failure to reach the service or to read its answer; it may be retried when the call allows it.
type connError struct {
	method, path string
	host         string // the service's host, for the sentence that names it
	err          error
}

func (e *connError) Error() string {
	return fmt.Sprintf("the connection to the service failed [%s %s]: %v", e.method, e.path, e.err)
}

func (e *connError) Unwrap() error { return e.err }

// Host is the host the connection was to, so a sentence about the failure can name it.
func (e *connError) Host() string { return e.host }

// do sends r, retrying as its kind allows, and returns the successful answer.
func (c *Client) do(ctx context.Context, r *request) (*response, error) {
	timeout := c.timeout
	if r.stream != nil {
		timeout = max(timeout, streamMax) // a stream is bounded by its silences instead
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for attempt := 0; ; attempt++ {
		res, reached, err := c.attempt(ctx, r, attempt)
		if err == nil {
			return res, nil
		}
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			return nil, fmt.Errorf("%s %s: %w (last attempt: %w)", r.method, r.path, cerr, err)
		}
		if attempt >= c.maxRetries {
			return nil, err
		}
		wait, ok := c.retryWait(ctx, r, attempt, reached, err)
		if !ok {
			return nil, err
		}
		c.log.LogAttrs(ctx, slog.LevelWarn, "retrying request",
			slog.String("method", r.method), slog.String("path", r.path),
			slog.Int("attempt", attempt+1), slog.Duration("wait", wait))
		if serr := c.sleep(ctx, wait); serr != nil {
			return nil, fmt.Errorf("%s %s: stopped waiting to retry: %w (last attempt: %w)", r.method, r.path, serr, err)
		}
	}
}

// retryWait decides whether a failed attempt may be retried, and after how long.
func (c *Client) retryWait(ctx context.Context, r *request, attempt int, reached bool, err error) (time.Duration, bool) {
	if ctx.Err() != nil {
		return 0, false
	}
	var ce *connError
	isConn := errors.As(err, &ce)
	var wait time.Duration
	switch {
	case r.chat:
		if !isConn || reached {
			return 0, false
		}
	case !r.retry:
		return 0, false
	case isConn:
	default:
		var e *Error
		if !errors.As(err, &e) || (e.StatusCode != http.StatusTooManyRequests && e.StatusCode != http.StatusServiceUnavailable) {
			return 0, false
		}
		if e.RetryAfter > maxRetryAfter {
			return 0, false
		}
		wait = e.RetryAfter
	}
	wait = c.pace.Delay(attempt, wait)
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
		return 0, false
	}
	return wait, true
}

// attempt sends r once. reached reports whether a connection to the service was made,
// after which a chat message may have been received.
func (c *Client) attempt(ctx context.Context, r *request, n int) (res *response, reached bool, err error) {
	target := c.baseURL + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var gotConn atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { gotConn.Store(true) }}
	var body io.Reader
	if r.body != nil {
		body = r.body()
	}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), r.method, target, body)
	if err != nil {
		return nil, false, fmt.Errorf("%s %s: building the request: %w", r.method, r.path, err)
	}
	if r.body != nil {
		req.ContentLength = r.length
		req.Header.Set("Content-Type", "application/json")
		if r.chat {
			req.GetBody = nil // the transport must never replay a chat message
		} else {
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(r.body()), nil }
		}
	}
	accept := r.accept
	if accept == "" {
		accept = "application/json"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set("User-Agent", c.userAgent)
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key.Reveal())
	}
	hc := c.hc
	if r.chat {
		hc = c.chatHC
	}

	var idle *time.Timer
	if r.stream != nil {
		// A stream may last minutes; what bounds it is a silence (the service writes a
		// keep-alive every 10 s), once it has begun. Its answer is waited for as any call's.
		sctx, cancel := context.WithCancelCause(req.Context())
		defer cancel(nil)
		idle = time.AfterFunc(c.timeout, func() { cancel(errNoAnswer) })
		defer idle.Stop()
		req = req.WithContext(sctx)
		ctx = sctx
		silent := func() { cancel(errStreamSilent) }
		r.silent = silent
	}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		reached = gotConn.Load()
		err = c.transportError(ctx, r, err, reached)
		c.logAttempt(ctx, r, n, 0, start, err)
		return nil, reached, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 == 2 {
		c.learnStreams(resp.Header)
	}
	switch {
	case r.stream != nil && resp.StatusCode/100 == 2 && isEventStream(resp):
		idle.Stop()
		idle = time.AfterFunc(streamIdle, r.silent)
		defer idle.Stop()
		res, err = c.readStream(ctx, r, resp, idle)
	case r.stream != nil:
		idle.Stop() // a whole answer: read as any call's
		res, err = c.readResponse(ctx, r, resp)
	default:
		res, err = c.readResponse(ctx, r, resp)
	}
	c.logAttempt(ctx, r, n, resp.StatusCode, start, err)
	return res, true, err
}

func (c *Client) logAttempt(ctx context.Context, r *request, n, status int, start time.Time, err error) {
	attrs := []slog.Attr{
		slog.String("method", r.method), slog.String("path", r.path),
		slog.Int("status", status), slog.Duration("duration", time.Since(start)),
	}
	if n > 0 {
		attrs = append(attrs, slog.Int("attempt", n+1))
	}
	level := slog.LevelDebug
	if err != nil {
		level = slog.LevelInfo
		// Only the kind of failure: an *Error's message comes from the body, which is never logged.
		var e *Error
		var re *RedirectError
		switch {
		case errors.As(err, &e):
			attrs = append(attrs, slog.String("code", e.Code))
		case errors.As(err, &re):
			attrs = append(attrs, slog.String("redirect_host", re.Location))
		default:
			attrs = append(attrs, slog.String("error", c.redact(err.Error())))
		}
	}
	c.log.LogAttrs(ctx, level, "service request", attrs...)
}

// transportError turns a failure of the round trip into the error the caller sees.
func (c *Client) transportError(ctx context.Context, r *request, err error, reached bool) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err // the URL is already named by method and path
	}
	if cerr := ctx.Err(); cerr != nil {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, errStreamSilent), errors.Is(cause, errNoAnswer):
			err = cause
		case errors.Is(cerr, context.DeadlineExceeded):
			err = fmt.Errorf("no answer in time: %w", cerr)
		default:
			err = cerr
		}
		if r.chat && reached {
			return &replyLostError{method: r.method, path: r.path, cause: err}
		}
		return fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	if r.chat && reached {
		return &replyLostError{method: r.method, path: r.path, cause: err}
	}
	return &connError{method: r.method, path: r.path, host: hostOf(c.baseURL), err: err}
}

// readResponse reads and classifies an answer: 3xx, error status, over-size, or success.
func (c *Client) readResponse(ctx context.Context, r *request, resp *http.Response) (*response, error) {
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, &RedirectError{StatusCode: resp.StatusCode, Location: redirectHost(resp), Method: r.method, Path: r.path}
	}
	ok := resp.StatusCode >= 200 && resp.StatusCode < 300
	limit := int64(maxErrorBody)
	if ok {
		limit = maxSuccessBody
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		switch {
		case !ok && len(body) > 0:
			// An error answer cut short is still an error answer.
			return nil, c.statusError(r, resp, body, nil)
		case ok && ctx.Err() == nil && isJSONish(resp.Header.Get("Content-Type"), body) && json.Valid(body):
			// The whole JSON answer arrived before the connection failed: keep it (a chat reply
			// is not lost when all of it is here).
		case ok && r.chat:
			return nil, unreadable(r, fmt.Errorf("reading the answer: %w", err))
		default:
			return nil, c.transportError(ctx, r, fmt.Errorf("reading the answer: %w", err), true)
		}
	}
	over := int64(len(body)) > limit
	if over {
		body = body[:limit]
	}
	if !ok {
		var cause error
		if over {
			cause = &sizeError{what: "the error body", size: -1, limit: limit}
		}
		e := c.statusError(r, resp, body, cause)
		switch {
		case r.chat && e.Code == CodeReplyStored:
			// The reference service failed after it stored and charged the reply.
			return nil, unreadable(r, e)
		case r.chat && resp.StatusCode == http.StatusGatewayTimeout:
			return nil, &replyLostError{method: r.method, path: r.path, cause: e}
		}
		return nil, e
	}
	if over {
		err := &sizeError{what: "the response body", size: -1, limit: limit}
		if r.chat {
			return nil, unreadable(r, err)
		}
		return nil, fmt.Errorf("%s %s: %w", r.method, r.path, err)
	}
	res := &response{status: resp.StatusCode, header: resp.Header, body: body}
	if len(body) > 0 && isJSONish(resp.Header.Get("Content-Type"), body) {
		res.top, res.payload, res.isJSON = parseAnswer(body)
	}
	if res.isJSON {
		if code, msg, failed := envelopeFailure(res.top); failed {
			if msg == "" {
				msg = "the service reported a failure"
			}
			e := &Error{StatusCode: resp.StatusCode, Code: c.redact(code), Message: c.redact(cleanMessage(msg)),
				Body: c.keptBody(body), Method: r.method, Path: r.path}
			if !r.chat {
				return nil, e
			}
			res.refusal = e
		}
	}
	return res, nil
}

// unreadable is the error of a chat call the service answered with success (and so charged)
// whose answer cannot be used.
func unreadable(r *request, cause error) error {
	return &replyLostError{method: r.method, path: r.path, cause: cause, answered: true}
}

// isJSONish reports whether a body should be read as JSON: a JSON content type, or none and a
// body that starts like JSON.
func isJSONish(contentType string, body []byte) bool {
	ct := strings.ToLower(contentType)
	if strings.HasPrefix(ct, "audio/") || strings.HasPrefix(ct, "application/octet-stream") {
		return false
	}
	for _, b := range body {
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[', '"':
			return true
		}
		return strings.Contains(ct, "json")
	}
	return false
}

// statusError builds the *Error for a non-2xx answer.
func (c *Client) statusError(r *request, resp *http.Response, body []byte, cause error) *Error {
	code, msg := errorDetails(body, resp.Header.Get("Content-Type"))
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	if msg == "" {
		msg = "unexpected status"
	}
	return &Error{
		StatusCode: resp.StatusCode,
		Code:       c.redact(code),
		Message:    c.redact(msg),
		Body:       c.keptBody(body),
		RetryAfter: retryAfter(resp.Header.Get("Retry-After"), time.Now()),
		Method:     r.method,
		Path:       r.path,
		cause:      cause,
	}
}

// keptBody is at most 1 KiB of body with the key removed.
func (c *Client) keptBody(body []byte) []byte {
	s := c.redact(string(body))
	if len(s) > maxKeptBody {
		s = s[:maxKeptBody]
	}
	if s == "" {
		return nil
	}
	return []byte(s)
}

// redact removes the API key from text that came from the service (which might echo it).
func (c *Client) redact(s string) string {
	if k := c.key.Reveal(); len(k) >= 4 && strings.Contains(s, k) {
		s = strings.ReplaceAll(s, k, redacted)
	}
	return s
}

// retryAfter reads Retry-After as seconds or an HTTP date; zero when absent or unreadable.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(min(secs, 86400)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return min(d, 24*time.Hour)
		}
	}
	return 0
}

// redirectHost names where a 3xx pointed: the host only, so nothing else from the URL is repeated.
func redirectHost(resp *http.Response) string {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return ""
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return "an unreadable location"
	}
	return u.Host
}

// hostOf is the host of a base URL, or "" when it has none.
func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil {
		return u.Host
	}
	return ""
}

// pathID escapes a conversation ID for use in a path, refusing an empty one.
func pathID(method, route string, id ConversationID) (string, error) {
	text := strings.TrimSpace(id.String())
	if text == "" {
		return "", fmt.Errorf("%s %s: no conversation ID given", method, route)
	}
	return url.PathEscape(text), nil
}

// String describes the client by its base URL; the key is never printed.
func (c *Client) String() string { return "client.Client{" + c.baseURL + "}" }

// GoString describes the client for %#v without the key.
func (c *Client) GoString() string { return c.String() }

// Format prints the client's description for every verb, so not even %+v reaches the key.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }
