package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"

	"parley/client"
)

// explain turns an error into one line a person can act on. It never prints the API key: the
// client's errors carry none, and any key the user gave is scrubbed as a last line of defence.
func explain(err error, g *globals) string {
	msg := explainError(err)
	for _, k := range []string{g.apiKey, g.getenv("PARLEY_API_KEY")} {
		if k = strings.TrimSpace(k); len(k) >= 4 {
			msg = strings.ReplaceAll(msg, k, "[REDACTED]")
		}
	}
	return oneLine(msg)
}

func explainError(err error) string {
	var ce *client.Error
	var re *client.RedirectError
	var de *client.DecodeError
	var opErr *net.OpError
	switch {
	case errors.Is(err, client.ErrReplyLost):
		return "The message was sent but the reply was lost (the connection broke or timed out); you may have been charged. Check the conversation with 'parley history' before sending it again."
	case errors.As(err, &ce):
		return explainStatus(ce)
	case errors.As(err, &re):
		return re.Error() + ". Parley does not follow redirects, so the key stays with the host you chose: use the final address as --base-url."
	case errors.As(err, &de):
		return de.Error() + ". The service answered in a shape Parley does not understand."
	case errors.Is(err, client.ErrInsecureURL):
		return err.Error()
	case errors.Is(err, context.Canceled):
		return "Cancelled."
	case errors.Is(err, context.DeadlineExceeded):
		return "The service did not answer in time. Try again; if it keeps happening, check the service."
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("Could not connect to the service (%v). Is it running? Start the reference service with 'parley serve', or set --base-url.", err)
	case errors.As(err, &opErr):
		return fmt.Sprintf("Network error: %v. Check the address and your connection.", err)
	}
	return err.Error()
}

// explainStatus says what a refusal by the service means and what to do about it.
func explainStatus(e *client.Error) string {
	what := e.Message
	if what == "" {
		what = e.Error()
	}
	what = strings.TrimRight(what, ". ")
	switch e.StatusCode {
	case 401:
		return fmt.Sprintf("The service refused the API key (401: %s). Run 'parley login' with a valid key, or set PARLEY_API_KEY.", what)
	case 402:
		return fmt.Sprintf("Not enough points (402: %s). Nothing was charged; ask the service's operator for more points.", what)
	case 403:
		return fmt.Sprintf("The key may not do this (403: %s).", what)
	case 404:
		return fmt.Sprintf("Not found (404: %s). List your conversations with 'parley conversations'.", what)
	case 413:
		return fmt.Sprintf("Too large for the service (413: %s). Send less: audio may be at most 10,000,000 bytes.", what)
	case 415:
		return fmt.Sprintf("The service cannot read this (415: %s). Send WAV, WebM/Opus or Ogg/Opus audio.", what)
	case 400, 422:
		return fmt.Sprintf("The service refused the request (%d: %s). Check the values you gave.", e.StatusCode, what)
	case 429:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("The service is busy (429: %s). Try again in %s.", what, e.RetryAfter.Round(1e9))
		}
		return fmt.Sprintf("The service is busy (429: %s). Try again in a moment.", what)
	case 502:
		return fmt.Sprintf("The service's model failed (502: %s). A chat call that fails this way is refunded; try again.", what)
	case 503:
		return fmt.Sprintf("The service is unavailable (503: %s). Try again later.", what)
	}
	if e.StatusCode >= 500 {
		return fmt.Sprintf("The service failed (%d: %s). Try again later.", e.StatusCode, what)
	}
	return fmt.Sprintf("The service refused the request (%d: %s).", e.StatusCode, what)
}
