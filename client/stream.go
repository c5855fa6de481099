package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Streamed replies are an extension of the reference service (docs/API.md, "Extension: streamed
// replies"). The client asks for one only from a service that said it streams: the
// Parley-Streams header on its last successful answer, or "streams" in its account. Any other
// service gets exactly the request SendMessage sends.

// Limits of a streamed reply.
const (
	// streamMax bounds a whole streamed call: the service ends one after 10 minutes.
	streamMax = 11 * time.Minute
	// maxStreamEvent bounds one event: a delta is a few words, the last event the whole reply.
	maxStreamEvent = 16 << 20
	// streamsHeader is the header by which a service says what it streams.
	streamsHeader = "Parley-Streams"
)

// StreamOptions are what SendMessageStream does as the reply comes.
type StreamOptions struct {
	// OnText, if not nil, is called with each piece of the reply as it arrives, in order, on
	// the goroutine that called SendMessageStream. From a service that does not stream it is
	// called once, with the whole reply.
	OnText func(piece string)
	// Stop, when closed, is a person's Stop: a service that streams is asked to stop the model
	// where it is, and the reply ends there, charged, with Stopped set (or, when the model had
	// written nothing, an *Error with Code CodeStopped, refunded). It is not a cancellation:
	// the call still ends with what the service says. From a service that does not stream it
	// changes nothing.
	Stop <-chan struct{}
}

// CodeStopped is the code of a streamed call stopped before the model wrote anything (refunded).
const CodeStopped = "stopped"

// CodeNarrowband is the code of a transcription refused because the audio has nothing above
// 4 kHz (an 8 kHz microphone's), which the reference service's built-in recogniser cannot hear.
const CodeNarrowband = "narrowband_audio"

// CodeUnsupportedLanguage is the code of a transcription refused because the recogniser cannot
// hear the language asked for (Parley's built-in one hears English only).
const CodeUnsupportedLanguage = "unsupported_language"

// Streams reports whether the service said it streams chat replies.
func (c *Client) Streams() bool { return c.streams.Load() }

// learnStreams notes from a successful answer's headers whether its service streams chat replies.
func (c *Client) learnStreams(h http.Header) {
	v := strings.ToLower(h.Get(streamsHeader))
	c.streams.Store(strings.Contains(v, "chat"))
}

// SendMessageStream is SendMessage that, from a service that streams, reads the reply as the
// model writes it (see StreamOptions). The call is charged like any other and never re-sent;
// a stream that breaks after the service answered is ErrReplyUnreadable (the service stores the
// reply, and it is in the conversation's history).
func (c *Client) SendMessageStream(ctx context.Context, req SendMessageRequest, opts StreamOptions) (*SendMessageResult, error) {
	if !c.Streams() {
		res, err := c.SendMessage(ctx, req)
		if err == nil && opts.OnText != nil {
			opts.OnText(res.Reply)
		}
		return res, err
	}
	return c.sendMessage(ctx, req, &opts)
}

// streamEvent is one server-sent event: its name and its data.
type streamEvent struct {
	name string
	data []byte
}

// readStreamEvents reads server-sent events from r, calling each with every event that has data
// (named "message" when it gave no name); comments and id/retry fields are skipped. It returns
// each's first error, the reader's error, or io.EOF at the end of r (never nil). An event over
// maxStreamEvent bytes is an error.
func readStreamEvents(r io.Reader, each func(streamEvent) error) error {
	br := bufio.NewReaderSize(r, 32<<10)
	var ev streamEvent
	have := false
	for {
		line, err := readLine(br, maxStreamEvent)
		if err != nil {
			if errors.Is(err, io.EOF) && have {
				// The last event without its blank line: a stream cut short. Its data may be
				// whole (the service wrote it and closed), so it is given.
				if ev.name == "" {
					ev.name = "message"
				}
				if eerr := each(ev); eerr != nil {
					return eerr
				}
			}
			return err
		}
		if len(line) == 0 {
			if have {
				if ev.name == "" {
					ev.name = "message"
				}
				if err := each(ev); err != nil {
					return err
				}
			}
			ev, have = streamEvent{}, false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.name = string(value)
		case "data":
			if have {
				ev.data = append(ev.data, '\n')
			}
			if len(ev.data)+len(value) > maxStreamEvent {
				return &sizeError{what: "a streamed event", size: -1, limit: maxStreamEvent}
			}
			ev.data = append(ev.data, value...)
			have = true
		}
	}
}

// readLine reads one line without its end (\n, \r\n or \r\n), at most limit bytes.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		part, err := br.ReadSlice('\n')
		line = append(line, part...)
		if len(line) > limit+2 {
			return nil, &sizeError{what: "a streamed event", size: -1, limit: int64(limit)}
		}
		switch {
		case err == nil:
			return bytes.TrimRight(line, "\r\n"), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return bytes.TrimRight(line, "\r"), nil
		default:
			return nil, err
		}
	}
}

// isEventStream reports whether a response is a server-sent event stream.
func isEventStream(resp *http.Response) bool {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return mt == "text/event-stream"
}

// readStream reads a streamed chat answer: the deltas go to r.stream.OnText, the last event is
// returned as the answer (done) or the refusal (error), as readResponse would give them for a
// plain answer. idle is reset by every read; stop asks the service to stop the call.
func (c *Client) readStream(ctx context.Context, r *request, resp *http.Response, idle *time.Timer) (*response, error) {
	body := &idleReader{r: resp.Body, idle: idle}
	// A person's Stop is sent once the call's ID is known, while the stream is read.
	callIDs := make(chan string, 1)
	quit := make(chan struct{})
	defer close(quit)
	if r.stream.Stop != nil {
		go func() {
			var id string
			select {
			case id = <-callIDs:
			case <-quit:
				return
			}
			select {
			case <-r.stream.Stop:
				c.stopCall(ctx, id)
			case <-quit:
			}
		}()
	}
	var last *streamEvent
	total := 0 // bytes of the reply's pieces
	err := readStreamEvents(body, func(ev streamEvent) error {
		switch ev.name {
		case "call":
			var d struct {
				CallID string `json:"call_id"`
			}
			if json.Unmarshal(ev.data, &d) == nil && d.CallID != "" {
				select {
				case callIDs <- d.CallID:
				default: // one call event is heeded
				}
			}
		case "delta":
			var d struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(ev.data, &d); err != nil {
				return fmt.Errorf("a streamed piece of the reply is not JSON: %w", err)
			}
			if total += len(d.Text); total > maxSuccessBody {
				return &sizeError{what: "the streamed reply", size: -1, limit: maxSuccessBody}
			}
			if r.stream.OnText != nil && d.Text != "" {
				r.stream.OnText(d.Text)
			}
		case "done", "error":
			last = &ev
			return io.EOF
		}
		return nil
	})
	if last == nil {
		if errors.Is(err, io.EOF) { // the stream ended before its last event
			err = io.ErrUnexpectedEOF
		}
		if ctx.Err() != nil && !errors.Is(context.Cause(ctx), errStreamSilent) {
			return nil, c.transportError(ctx, r, err, true) // the caller gave up
		}
		// The service answered (and so charged): the reply is stored once it is whole.
		return nil, unreadable(r, fmt.Errorf("%w: %w", ErrStreamBroken, err))
	}
	if last.name == "error" {
		return nil, c.streamError(r, last.data)
	}
	res := &response{status: http.StatusOK, header: resp.Header, body: last.data, streamed: true}
	res.top, res.payload, res.isJSON = parseAnswer(last.data)
	var d struct {
		Stopped bool `json:"stopped"`
	}
	if res.isJSON && json.Unmarshal(last.data, &d) == nil {
		res.stopped = d.Stopped
	}
	return res, nil
}

// streamError is the error an error event carries: what the plain answer's status and body
// would have been.
func (c *Client) streamError(r *request, data []byte) error {
	var d struct {
		Status int             `json:"status"`
		Error  json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(data, &d)
	if d.Status < 400 || d.Status > 599 {
		d.Status = http.StatusBadGateway
	}
	code, msg := errorDetails(data, "application/json")
	if msg == "" {
		msg = http.StatusText(d.Status)
	}
	e := &Error{StatusCode: d.Status, Code: c.redact(code), Message: c.redact(msg), Body: c.keptBody(data),
		Method: r.method, Path: r.path}
	switch {
	case e.Code == CodeReplyStored:
		return unreadable(r, e)
	case d.Status == http.StatusGatewayTimeout:
		return &replyLostError{method: r.method, path: r.path, cause: e}
	}
	return e
}

// stopCall asks the service to stop the streamed call id (a person's Stop). A failure is only
// logged: the stream then ends with the whole reply.
func (c *Client) stopCall(ctx context.Context, id string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := c.do(ctx, &request{method: http.MethodPost, path: "/v1/chat/calls/" + url.PathEscape(id) + "/stop", retry: true}); err != nil {
		c.log.Info("stopping a streamed reply failed", "error", c.redact(err.Error()))
	}
}

// idleReader resets a timer on every read that brings bytes.
type idleReader struct {
	r    io.Reader
	idle *time.Timer
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.idle.Reset(streamIdle)
	}
	return n, err
}

// streamIdle is how long a stream may bring nothing, not even the service's keep-alive (every
// 10 s), before the connection is taken for dead; tests shorten it.
var streamIdle = 60 * time.Second

// errStreamSilent is the cause of a stream given up after streamIdle without a byte.
var errStreamSilent = errors.New("the service sent nothing for a minute")

// errNoAnswer is the cause of a streamed call whose answer did not begin within the client's
// timeout.
var errNoAnswer = errors.New("no answer in time")
