package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/server/store"
)

// A streamed chat answer (docs/API.md, "Streamed replies"): a client that sends
// Accept: text/event-stream to POST /v1/chat/messages gets the reply as the model writes it.
// Everything before the price is reserved (the body, the conversation, the balance) is answered
// as a plain JSON error; from the reservation on the answer is 200 text/event-stream:
//
//	event: call   data: {"call_id": "call_…"}              once, first
//	event: delta  data: {"text": "…"}                       each piece of the reply, in order
//	event: done   data: {…today's answer…, "stopped": bool} the end: charged, the turn stored
//	event: error  data: {"status": 502, "error": {…}}       the end: as the plain answer's error
//
// with ": keep-alive" comments while the model is silent. The call is settled exactly as a plain
// one is, before done or error is written; a client that goes away changes nothing (the reply is
// stored and charged). POST /v1/chat/calls/{id}/stop is a person's Stop: the model is stopped,
// and the text written so far is stored and charged as the reply (nothing written: refunded).

// Streamed calls' limits.
const (
	// maxStreamTime bounds a streamed call, well inside the 15 minutes after which another
	// process's crash recovery refunds a call still pending. The model's silences are bounded
	// by the chat timeout (its stall time).
	maxStreamTime = 10 * time.Minute
	// keepAliveEvery is how often a comment is written while the model writes nothing, so that
	// a client (and any proxy) can tell a silent model from a dead connection.
	keepAliveEvery = 10 * time.Second
	// StreamHeader names the header on every authenticated answer of a service that streams
	// chat replies; its value lists what streams ("chat").
	StreamHeader = "Parley-Streams"
)

// errStoppedByPerson is the cause of a streamed call a person stopped.
var errStoppedByPerson = errors.New("stopped by the person")

// errStreamTimeLimit is the cause of a streamed call that reached maxStreamTime.
var errStreamTimeLimit = errors.New("the streamed reply reached its time limit")

// codeStopped: a streamed call was stopped before the model wrote anything; it was refunded.
const codeStopped = "stopped"

// wantsStream reports whether r accepts text/event-stream (with a quality above zero).
func wantsStream(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || mt != "text/event-stream" {
				continue
			}
			if q, err := strconv.ParseFloat(params["q"], 64); err == nil && q <= 0 {
				continue
			}
			return true
		}
	}
	return false
}

// liveCalls are the streamed calls in progress, by call ID, so that a person's Stop finds them.
type liveCalls struct {
	mu    sync.Mutex
	calls map[string]liveCall
}

type liveCall struct {
	account int64
	stop    context.CancelCauseFunc
}

func (l *liveCalls) add(id string, account int64, stop context.CancelCauseFunc) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.calls == nil {
		l.calls = map[string]liveCall{}
	}
	l.calls[id] = liveCall{account: account, stop: stop}
}

func (l *liveCalls) remove(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.calls, id)
}

// stop stops the account's call id, and reports whether there was one.
func (l *liveCalls) stop(id string, account int64) bool {
	l.mu.Lock()
	c, ok := l.calls[id]
	l.mu.Unlock()
	if !ok || c.account != account {
		return false
	}
	c.stop(errStoppedByPerson)
	return true
}

// eventWriter writes server-sent events to one answer from a goroutine of its own, so that a
// client that reads slowly never slows the model's stream (which would end it as stalled, or at
// maxStreamTime, and refund a reply the client has read): events wait in a queue bounded by
// maxQueued bytes, and a client that lets it fill, or whose connection fails, gets nothing more.
type eventWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController

	mu     sync.Mutex
	queue  [][]byte
	queued int
	gone   bool
	closed bool
	more   chan struct{} // signalled when an event is queued
	done   chan struct{} // closed when the writer has ended
}

// maxQueued bounds the bytes of events waiting for a slow client: more than a whole reply.
const maxQueued = 2*maxReplyEncoded + 64<<10

// startEvents sends the headers of a streamed answer and starts its writer.
func startEvents(w http.ResponseWriter) *eventWriter {
	if sw, ok := w.(*statusWriter); ok {
		sw.streaming = true
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	e := &eventWriter{w: w, rc: http.NewResponseController(w), more: make(chan struct{}, 1), done: make(chan struct{})}
	_ = e.rc.Flush()
	go e.run()
	return e
}

// event queues one event whose data is v as JSON (one line: JSON escapes newlines).
func (e *eventWriter) event(name string, v any) {
	var buf bytes.Buffer
	buf.WriteString("event: " + name + "\ndata: ")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode ends the line
		return
	}
	buf.WriteByte('\n')
	e.send(buf.Bytes())
}

// send queues b, unless the client is gone or lets the queue fill.
func (e *eventWriter) send(b []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gone || e.closed {
		return
	}
	if e.queued+len(b) > maxQueued {
		e.gone, e.queue, e.queued = true, nil, 0 // too slow a reader: it reads the history instead
		return
	}
	e.queue = append(e.queue, b)
	e.queued += len(b)
	select {
	case e.more <- struct{}{}:
	default:
	}
}

// run writes what is queued until close, flushing after each batch.
func (e *eventWriter) run() {
	defer close(e.done)
	for {
		e.mu.Lock()
		batch, closed := e.queue, e.closed
		e.queue, e.queued = nil, 0
		e.mu.Unlock()
		for _, b := range batch {
			if _, err := e.w.Write(b); err != nil {
				e.fail()
				return
			}
		}
		if len(batch) > 0 && e.rc.Flush() != nil {
			e.fail()
			return
		}
		if closed {
			return
		}
		<-e.more
	}
}

func (e *eventWriter) fail() {
	e.mu.Lock()
	e.gone, e.queue, e.queued = true, nil, 0
	e.mu.Unlock()
}

// close writes what is queued, then ends the writer, and waits for it: the handler returns only
// after (a slow client is bounded by the write deadlines).
func (e *eventWriter) close() {
	e.mu.Lock()
	e.closed = true
	e.mu.Unlock()
	select {
	case e.more <- struct{}{}:
	default:
	}
	<-e.done
}

// keepAlive queues a comment every keepAliveEvery until stop is closed; done is closed when it
// has ended.
func (e *eventWriter) keepAlive(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(keepAliveEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			e.send([]byte(": keep-alive\n\n"))
		}
	}
}

// streamedDone is the done event: today's answer, and whether a person stopped the reply.
type streamedDone struct {
	*chatResponse
	Stopped bool `json:"stopped"`
}

// streamedError is the error event: the plain answer's status and error.
type streamedError struct {
	Status int         `json:"status"`
	Error  errorDetail `json:"error"`
}

func toStreamedError(e *apiError) streamedError {
	return streamedError{Status: e.Status, Error: e.detail()}
}

// streamChat answers a reserved call as a stream: the reply's pieces as the model writes them,
// then the settled call, as done or error. It runs to the end whether or not the client still
// reads (the call is charged), unless the person stops it.
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, call *chatCall) {
	id := call.res.CallID
	base := context.WithoutCancel(r.Context())
	// The stream's time limit ends it as a Stop does: what was written is the reply.
	limited, cancelLimit := context.WithTimeoutCause(base, maxStreamTime, errStreamTimeLimit)
	defer cancelLimit()
	ctx, stop := context.WithCancelCause(limited)
	defer stop(nil)
	s.live.add(id, call.acct.ID, stop) // before its ID is told, so that a Stop finds it
	ev := startEvents(w)
	defer ev.close()
	ev.event("call", struct {
		CallID string `json:"call_id"`
	}{id})
	quiet, keptAlive := make(chan struct{}), make(chan struct{})
	go ev.keepAlive(quiet, keptAlive)

	reply, err := s.completeStream(ctx, call.req, func(d string) {
		ev.event("delta", struct {
			Text string `json:"text"`
		}{d})
	})
	s.live.remove(id) // a Stop from now on finds nothing to stop
	close(quiet)
	<-keptAlive
	cause := context.Cause(ctx)
	stopped := errors.Is(cause, errStoppedByPerson) || errors.Is(cause, errStreamTimeLimit)
	if stopped {
		var tooLong *errReplyTooLong
		switch {
		case errors.As(err, &tooLong):
			// Too long is too long, stopped or not.
		case reply == "" && errors.Is(cause, errStoppedByPerson):
			s.log.Info("chat call stopped before the model wrote anything", "account", call.acct.ID, "call", id)
			e := s.refund(base, r, id, http.StatusConflict, codeStopped,
				"You stopped the reply before the model wrote anything; the points for this call were refunded.")
			ev.event("error", toStreamedError(e))
			return
		case reply == "":
			stopped = false // nothing written in 10 minutes: the model failed
		default:
			err = nil // what was written is the reply
		}
	}
	answer, e := s.settle(base, r, call, reply, err)
	if e != nil {
		ev.event("error", toStreamedError(e))
		return
	}
	ev.event("done", streamedDone{chatResponse: answer, Stopped: stopped})
}

// completeStream asks the model for a streamed reply (ctx carries maxStreamTime); a panic in the
// model is a failure of the call like any other.
func (s *Server) completeStream(ctx context.Context, req ChatRequest, onDelta func(string)) (reply string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = errPanicked(p)
		}
	}()
	if _, ok := s.llm.(StreamingChatModel); !ok {
		// A model that cannot stream answers whole, within the chat timeout as a plain call.
		reply, err = s.complete(ctx, req)
		if err == nil && reply != "" {
			onDelta(reply)
		}
		return reply, err
	}
	return streamWith(ctx, s.llm, req, onDelta)
}

// handleStop is POST /v1/chat/calls/{id}/stop: a person's Stop of a streamed call of theirs.
func (s *Server) handleStop(w http.ResponseWriter, r *http.Request, acct store.Account) *apiError {
	if !s.live.stop(r.PathValue("id"), acct.ID) {
		return errorf(http.StatusNotFound, codeNotFound, "There is no streamed chat call of yours with that ID in progress.")
	}
	writeData(w, struct {
		Stopping bool `json:"stopping"`
	}{true})
	return nil
}
