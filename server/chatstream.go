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

// eventWriter writes server-sent events to one answer; after a failed write (the client went
// away) it writes nothing more.
type eventWriter struct {
	mu   sync.Mutex
	w    http.ResponseWriter
	rc   *http.ResponseController
	gone bool
}

// startEvents sends the headers of a streamed answer.
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
	e := &eventWriter{w: w, rc: http.NewResponseController(w)}
	e.flush()
	return e
}

// event writes one event whose data is v as JSON (one line: JSON escapes newlines).
func (e *eventWriter) event(name string, v any) {
	var buf bytes.Buffer
	buf.WriteString("event: " + name + "\ndata: ")
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // Encode ends the line
		return
	}
	buf.WriteByte('\n')
	e.write(buf.Bytes())
}

func (e *eventWriter) write(b []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.gone {
		return
	}
	if _, err := e.w.Write(b); err != nil {
		e.gone = true
		return
	}
	e.flushLocked()
}

func (e *eventWriter) flush() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.flushLocked()
}

func (e *eventWriter) flushLocked() {
	if err := e.rc.Flush(); err != nil {
		e.gone = true
	}
}

// keepAlive writes a comment every keepAliveEvery until stop is closed.
func (e *eventWriter) keepAlive(stop <-chan struct{}) {
	t := time.NewTicker(keepAliveEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			e.write([]byte(": keep-alive\n\n"))
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
	d := errorDetail{Code: e.Code, Message: e.Message, Balance: e.Balance}
	if e.Balance != nil {
		zero := int64(0)
		d.Charged = &zero
	}
	return streamedError{Status: e.Status, Error: d}
}

// streamChat answers a reserved call as a stream: the reply's pieces as the model writes them,
// then the settled call, as done or error. It runs to the end whether or not the client still
// reads (the call is charged), unless the person stops it.
func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, call *chatCall) {
	id := call.res.CallID
	base := context.WithoutCancel(r.Context())
	ctx, stop := context.WithCancelCause(base)
	defer stop(nil)
	s.live.add(id, call.acct.ID, stop) // before its ID is told, so that a Stop finds it
	defer s.live.remove(id)
	ev := startEvents(w)
	ev.event("call", struct {
		CallID string `json:"call_id"`
	}{id})
	quiet := make(chan struct{})
	go ev.keepAlive(quiet)

	reply, err := s.completeStream(ctx, call.req, func(d string) {
		ev.event("delta", struct {
			Text string `json:"text"`
		}{d})
	})
	close(quiet)
	stopped := errors.Is(context.Cause(ctx), errStoppedByPerson)
	if stopped {
		var tooLong *errReplyTooLong
		switch {
		case errors.As(err, &tooLong):
			// Too long is too long, stopped or not.
		case reply == "":
			s.log.Info("chat call stopped before the model wrote anything", "account", call.acct.ID, "call", id)
			e := s.refund(base, r, id, http.StatusConflict, codeStopped,
				"You stopped the reply before the model wrote anything; the points for this call were refunded.")
			ev.event("error", toStreamedError(e))
			return
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

// completeStream asks the model for a streamed reply under maxStreamTime; a panic in the model
// is a failure of the call like any other.
func (s *Server) completeStream(ctx context.Context, req ChatRequest, onDelta func(string)) (reply string, err error) {
	ctx, cancel := context.WithTimeout(ctx, maxStreamTime)
	defer cancel()
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
