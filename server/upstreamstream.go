package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"
)

// StreamingChatModel is a ChatModel that hands its reply over as it is written.
type StreamingChatModel interface {
	ChatModel
	// CompleteStream is Complete, calling onDelta with each piece of the reply as it is written,
	// in order, on the calling goroutine. The reply it returns is the pieces joined and trimmed.
	// When ctx ends before the reply is whole, it returns the text written so far with the
	// error, so that a caller that stopped it can keep what there is.
	CompleteStream(ctx context.Context, req ChatRequest, onDelta func(string)) (string, error)
}

// Limits of a streamed upstream reply.
const (
	// maxStreamLine bounds one line of an upstream event stream: a chunk carries a few tokens,
	// so a longer line is not a chat stream.
	maxStreamLine = 1 << 20
)

// errStalled is the cause of a stream given up because its runtime wrote nothing for the
// stall time.
var errStalled = errors.New("the model wrote nothing for the stall time")

// errReplyTooLong is the failure of a reply that grew past maxReplyEncoded while it streamed.
type errReplyTooLong struct{ encoded int }

func (e *errReplyTooLong) Error() string {
	return fmt.Sprintf("the reply grew past %d bytes once encoded (%d)", maxReplyEncoded, e.encoded)
}

// stallTime is how long c's runtime may write nothing before the stream is given up: the chat
// timeout its client was made with.
func (c *openAIChat) stallTime() time.Duration {
	if c.hc.Timeout > 0 {
		return c.hc.Timeout
	}
	return DefaultChatTimeout
}

// CompleteStream asks the endpoint once for a streamed reply (stream: true) and reads its
// server-sent chat.completion.chunk events with bounded memory: a line over maxStreamLine, or
// a reply over maxReplyEncoded, ends it. A runtime that writes nothing for the chat timeout has
// failed; the whole stream has no time limit of its own (ctx has). A runtime that answers with
// one JSON reply instead is read as Complete reads it. Its errors are *ChatFailure, or ctx's
// error with the text so far when ctx ended.
func (c *openAIChat) CompleteStream(ctx context.Context, req ChatRequest, onDelta func(string)) (string, error) {
	stall := c.stallTime()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer timer.Stop()
	hreq, err := c.newRequest(ctx, req, true)
	if err != nil {
		return "", err
	}
	hc := *c.hc
	hc.Timeout = 0 // bounded by the stall timer and the caller's context instead
	resp, err := hc.Do(hreq)
	if err != nil {
		return "", c.streamFailure(ctx, "", err, stall)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return "", c.statusFailure(resp.StatusCode, raw)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		// A runtime that does not stream answers whole.
		raw, err := io.ReadAll(io.LimitReader(resp.Body, maxUpstreamBody+1))
		if err != nil {
			return "", c.streamFailure(ctx, "", err, stall)
		}
		if len(raw) > maxUpstreamBody {
			return "", c.fail(failTooLarge, "answered with more than 8 MB", fmt.Errorf("response larger than %d bytes", maxUpstreamBody))
		}
		reply, err := c.wholeReply(raw)
		if err == nil {
			onDelta(reply)
		}
		return reply, err
	}
	var text strings.Builder
	encoded := 0
	finished := false
	err = readEventStream(resp.Body, func(data []byte) error {
		timer.Reset(stall)
		ch, err := parseChunk(data, c.key)
		if err != nil {
			return err
		}
		finished = finished || ch.finished || ch.done
		d := ch.text
		if text.Len() == 0 {
			d = strings.TrimLeft(d, " \t\r\n")
		}
		if d != "" {
			encoded += encodedLen(d)
			if encoded > maxReplyEncoded {
				return &errReplyTooLong{encoded: encoded}
			}
			text.WriteString(d)
			onDelta(d)
		}
		if ch.done || ch.finished && text.Len() > 0 {
			return io.EOF // the reply is whole: what a runtime sends after it is not waited for
		}
		return nil
	})
	reply := strings.TrimSpace(text.String())
	var tooLong *errReplyTooLong
	var upstream *upstreamError
	switch {
	case errors.Is(err, io.EOF):
		err = nil
	case errors.As(err, &tooLong):
		return reply, err
	case errors.As(err, &upstream):
		f := c.fail(failWriting, fmt.Sprintf("failed while writing its reply (%s)", upstream.msg), upstream)
		f.detail = upstream.msg
		return reply, f
	case errors.Is(err, errBadChunk):
		return reply, c.fail(failNotChat, "answered with something that is not a chat reply: is this an OpenAI-compatible address?", err)
	case err != nil:
		return reply, c.streamFailure(ctx, reply, err, stall)
	}
	switch {
	case !finished:
		// The connection ended with no end of the reply: the runtime stopped mid-reply.
		f := c.fail(failStoppedMidReply, "stopped in the middle of its reply: is it still running?", io.ErrUnexpectedEOF)
		f.Unreachable = true
		return reply, f
	case reply == "":
		return "", c.fail(failEmpty, "answered with an empty reply", errors.New("the reply is empty"))
	}
	return reply, nil
}

// streamFailure says why a stream failed: the caller's context ended (returned as is, with
// the text so far), the runtime stalled, or the connection failed.
func (c *openAIChat) streamFailure(ctx context.Context, text string, err error, stall time.Duration) error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errStalled):
		f := c.fail(failStalled, fmt.Sprintf("wrote nothing for %s: try again, or a smaller model", stall.Round(time.Second)), errStalled)
		f.detail = stall.Round(time.Second).String()
		return f
	case cause != nil:
		return fmt.Errorf("the stream was given up: %w", cause)
	}
	return c.transportFailure(err)
}

// errBadChunk is an event of an upstream stream that is not a chat.completion.chunk.
var errBadChunk = errors.New("malformed stream event")

// upstreamError is an error event in an upstream stream.
type upstreamError struct{ msg string }

func (e *upstreamError) Error() string { return "error event: " + e.msg }

// chunk is what one upstream event says.
type chunk struct {
	text     string // the reply's next piece
	finished bool   // a finish_reason was given
	done     bool   // the [DONE] marker
}

// parseChunk reads one event's data: "[DONE]", a chat.completion.chunk, or an error object
// ({"error": {"message"}} or {"error": "…"}, as OpenAI-compatible runtimes send mid-stream).
// The key is blanked from any error message.
func parseChunk(data []byte, key string) (chunk, error) {
	data = bytes.TrimSpace(data)
	if string(data) == "[DONE]" {
		return chunk{done: true}, nil
	}
	var ev struct {
		Choices []struct {
			Delta struct {
				Content *string `json:"content"`
			} `json:"delta"`
			Message struct {
				Content *string `json:"content"`
			} `json:"message"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		return chunk{}, fmt.Errorf("%w: %v", errBadChunk, err)
	}
	if len(ev.Error) > 0 && string(ev.Error) != "null" {
		return chunk{}, &upstreamError{msg: upstreamMessage(data, key)}
	}
	var ch chunk
	if len(ev.Choices) > 0 {
		c := ev.Choices[0]
		switch {
		case c.Delta.Content != nil:
			ch.text = *c.Delta.Content
		case c.Message.Content != nil: // some runtimes put the last piece here
			ch.text = *c.Message.Content
		}
		ch.finished = c.FinishReason != nil && *c.FinishReason != ""
	}
	return ch, nil
}

// readEventStream reads server-sent events from r and calls onData with each event's data (its
// data lines joined by newlines); comments, other fields and events without data are skipped.
// It returns onData's first error, the reader's, or nil at the end of r. A line longer than
// maxStreamLine is an error.
func readEventStream(r io.Reader, onData func([]byte) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxStreamLine)
	var data []byte
	have := false
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if have {
				if err := onData(data); err != nil {
					return err
				}
			}
			data, have = data[:0], false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue // a comment (": …"), event:, id:, retry:
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if have {
			data = append(data, '\n')
		}
		if len(data)+len(value) > maxStreamLine {
			return bufio.ErrTooLong
		}
		data = append(data, value...)
		have = true
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if have {
		return onData(data)
	}
	return nil
}

// streamWith asks m for req's reply, handing its pieces to onDelta as they are written; a model
// that does not stream hands its whole reply over as one piece.
func streamWith(ctx context.Context, m ChatModel, req ChatRequest, onDelta func(string)) (string, error) {
	if sm, ok := m.(StreamingChatModel); ok {
		return sm.CompleteStream(ctx, req, onDelta)
	}
	reply, err := m.Complete(ctx, req)
	if err == nil && reply != "" {
		onDelta(reply)
	}
	return reply, err
}

// The managed and chosen engines stream when their model does.
var (
	_ StreamingChatModel = (*openAIChat)(nil)
	_ StreamingChatModel = (*Engines)(nil)
)
