package server

import (
	"context"
	"net/http"
	"runtime"
	"strconv"
	"sync"
	"time"
)

// Limits bound the work and the memory that requests may take when the service is under load.
// A zero field takes its default.
type Limits struct {
	// SpeechSlots is how many transcriptions, and separately how many syntheses, run at once
	// (decoding included); default: the number of CPUs.
	SpeechSlots int
	// SpeechQueue is how many more of each may wait for a slot; default: 2 × SpeechSlots for
	// transcribe, 4 × SpeechSlots for speech. A call beyond it is answered 503 busy at once.
	SpeechQueue int
	// SpeechWait is the longest wait for a slot before 503 busy; default 30 s.
	SpeechWait time.Duration
	// PerKey is how many transcribe calls (and, twice as many, speech calls) one API key may
	// have in flight; default 2. One more is answered 429 too_many_requests.
	PerKey int
	// WriteGrace is how long a client may take to start reading an answer; default 30 s.
	WriteGrace time.Duration
	// MinWriteRate is the slowest average rate, in bytes per second, at which a client must read
	// an answer after WriteGrace; default 64 KiB/s. A slower client's connection is closed.
	MinWriteRate int64
}

// Defaults of Limits.
const (
	defaultSpeechWait   = 30 * time.Second
	defaultPerKey       = 2
	defaultWriteGrace   = 30 * time.Second
	defaultMinWriteRate = 64 << 10
	// retryAfterBusy is the Retry-After of a 503 busy and a 429 too_many_requests, in seconds.
	retryAfterBusy = 5
)

func (l Limits) withDefaults() Limits {
	if l.SpeechSlots <= 0 {
		l.SpeechSlots = runtime.NumCPU()
	}
	if l.SpeechWait <= 0 {
		l.SpeechWait = defaultSpeechWait
	}
	if l.PerKey <= 0 {
		l.PerKey = defaultPerKey
	}
	if l.WriteGrace <= 0 {
		l.WriteGrace = defaultWriteGrace
	}
	if l.MinWriteRate <= 0 {
		l.MinWriteRate = defaultMinWriteRate
	}
	return l
}

// Codes of the answers below; docs/API.md lists them.
const (
	codeBusy            = "busy"
	codeTooManyRequests = "too_many_requests"
	codeClientClosed    = "client_closed_request"
)

// gate admits the calls of one kind of costly work (transcription, synthesis). A call is first
// admitted, before its body is read, if fewer than slots+queue calls are in flight and its
// account has fewer than perKey; it then waits, at most wait, for one of slots to run in. So
// at most slots calls decode and run at once, and at most slots+queue bodies are held.
type gate struct {
	what    string        // "transcriptions", "syntheses": for messages
	tickets chan struct{} // one per call admitted, of slots+queue
	slots   chan struct{} // one per call running
	wait    time.Duration
	perKey  int

	mu     sync.Mutex
	perAcc map[int64]int // calls in flight per account
}

func newGate(what string, slots, queue, perKey int, wait time.Duration) *gate {
	return &gate{
		what:    what,
		tickets: make(chan struct{}, slots+queue),
		slots:   make(chan struct{}, slots),
		wait:    wait,
		perKey:  perKey,
		perAcc:  map[int64]int{},
	}
}

// admit takes a place in the queue for account, or answers 429 (the account has perKey calls
// in flight) or 503 (the queue is full), with Retry-After set on w. release gives the place
// back.
func (g *gate) admit(w http.ResponseWriter, account int64) (release func(), e *apiError) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.perAcc[account] >= g.perKey {
		setRetryAfter(w)
		return nil, errorf(http.StatusTooManyRequests, codeTooManyRequests,
			"This API key has %d %s in progress, the most it may have at once; send the next when one is done.", g.perKey, g.what)
	}
	select {
	case g.tickets <- struct{}{}:
	default:
		setRetryAfter(w)
		return nil, errBusy(g.what)
	}
	g.perAcc[account]++
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.perAcc[account]--; g.perAcc[account] <= 0 {
			delete(g.perAcc, account)
		}
		<-g.tickets
	}, nil
}

// run waits for a slot to run in: at most g.wait (then 503 busy, with Retry-After set on w),
// or until ctx is done (the client went away: 499). done gives the slot back.
func (g *gate) run(ctx context.Context, w http.ResponseWriter) (done func(), e *apiError) {
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, errClientClosed()
	case <-t.C:
		setRetryAfter(w)
		return nil, errBusy(g.what)
	}
}

// errBusy is the 503 of a full queue.
func errBusy(what string) *apiError {
	return errorf(http.StatusServiceUnavailable, codeBusy,
		"The service is busy with other %s; try again in a few seconds.", what)
}

func setRetryAfter(w http.ResponseWriter) {
	w.Header().Set("Retry-After", strconv.Itoa(retryAfterBusy))
}

// statusClientClosed is the status logged for a request whose client went away before its
// answer: nginx's 499, which no client sees.
const statusClientClosed = 499

// errClientClosed is what a handler returns when its client went away: logged as 499 at INFO,
// and written to a connection nobody reads.
func errClientClosed() *apiError {
	return &apiError{Status: statusClientClosed, Code: codeClientClosed, Message: "The client closed the request."}
}

// clientGone reports whether the client of r went away: its connection closed.
func clientGone(r *http.Request) bool { return r.Context().Err() != nil }
