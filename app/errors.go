package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"

	"parley/audio"
	"parley/audio/playback"
	"parley/client"
	"parley/keystore"
)

// This file is where the window phrases errors: each kind the lower layers return becomes one
// short sentence and, where there is one, the action that helps (the CLI phrases the same kinds
// for a terminal, in package cli).

// action is what the window offers beside an error.
type action int

const (
	actionNone        action = iota
	actionRetry              // send again: the call failed before anything was charged
	actionAccount            // open the account dialog: the key or the address is wrong
	actionReload             // read the conversation again: a reply may have been stored
	actionPreferences        // open the preferences: pick another microphone, or turn spoken replies off
)

// label is what the button that takes the action says.
func (a action) label() string {
	switch a {
	case actionRetry:
		return "Try again"
	case actionAccount:
		return "Account…"
	case actionReload:
		return "Reload"
	case actionPreferences:
		return "Preferences…"
	}
	return ""
}

// phrased is an error as the window shows it.
type phrased struct {
	text   string
	action action
}

// phrase turns an error into a sentence and an action.
func phrase(err error) phrased {
	var (
		ce *client.Error
		re *client.RedirectError
		de *client.DecodeError
		ue *keystore.UnavailableError
		op *net.OpError
	)
	switch {
	case errors.Is(err, client.ErrReplyLost):
		return phrased{"The reply was lost after the message was sent, so you may have been charged. The conversation was read again to show what the service kept.", actionReload}
	case errors.As(err, &ce):
		return phraseStatus(ce)
	case errors.As(err, &re):
		return phrased{"The service redirected elsewhere; Parley does not follow redirects, so your key stays put. Use the final address in Account.", actionAccount}
	case errors.As(err, &de):
		return phrased{fmt.Sprintf("The service answered in a form Parley does not understand (no %s). Check the address in Account.", de.Field), actionAccount}
	case errors.Is(err, client.ErrInsecureURL):
		return phrased{"Parley sends your key only over https to another machine. Use an https:// address in Account.", actionAccount}
	case errors.Is(err, client.ErrAudioTooLarge):
		return phrased{"The recording is larger than the service's limit of 10 MB. Record a shorter message.", actionNone}
	case errors.Is(err, keystore.ErrNotFound):
		return phrased{"No API key is stored for this service. Enter it in Account.", actionAccount}
	case errors.As(err, &ue):
		return phrased{fmt.Sprintf("The system keyring is not available (%s). You can keep the key for this session only.", ue.Reason), actionAccount}
	case errors.Is(err, audio.ErrSilentDevice):
		return phrased{"The microphone delivers only silence. Check that it is not muted, or pick another in Preferences.", actionPreferences}
	case errors.Is(err, audio.ErrDeviceFailed):
		return phrased{"The microphone stopped working. Check its connection and try again.", actionRetry}
	case errors.Is(err, audio.ErrNoDevice):
		return phrased{"No microphone was found. Connect one, or pick another in Preferences; you can still type.", actionPreferences}
	case errors.Is(err, playback.ErrNoDevice):
		return phrased{"No audio output was found, so replies cannot be spoken. Connect speakers or headphones, or turn spoken replies off in Preferences.", actionPreferences}
	case errors.Is(err, context.DeadlineExceeded):
		return phrased{"The service did not answer in time. Try again.", actionRetry}
	case errors.Is(err, context.Canceled):
		return phrased{"Cancelled.", actionNone}
	case errors.Is(err, syscall.ECONNREFUSED):
		return phrased{"The service is not reachable (connection refused). Check that it is running, or change the address in Account.", actionRetry}
	case errors.As(err, &op):
		return phrased{"The network connection to the service failed. Check your connection and try again.", actionRetry}
	}
	return phrased{capitalize(strings.TrimSuffix(err.Error(), ".")) + ".", actionRetry}
}

// phraseStatus says what a refusal by the service means in the window.
func phraseStatus(e *client.Error) phrased {
	what := ""
	if m := strings.TrimRight(strings.Join(strings.Fields(e.Message), " "), ". "); m != "" && !strings.EqualFold(m, http.StatusText(e.StatusCode)) {
		what = ": " + clip(m, 80)
	}
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return phrased{"The service refused the API key" + what + ". Open Account to change it.", actionAccount}
	case http.StatusPaymentRequired:
		return phrased{"Not enough points for this message" + what + ". Ask the service's operator for more.", actionNone}
	case http.StatusForbidden:
		return phrased{"The service does not let this key do that" + what + ".", actionNone}
	case http.StatusNotFound:
		return phrased{"The service has no such conversation" + what + ". It may have been deleted elsewhere.", actionNone}
	case http.StatusRequestEntityTooLarge:
		return phrased{"Too large for the service" + what + ". Send something shorter.", actionNone}
	case http.StatusUnsupportedMediaType:
		return phrased{"The service cannot read this audio" + what + ".", actionNone}
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return phrased{"The service refused the request" + what + ". Check the conversation's settings.", actionNone}
	case http.StatusTooManyRequests:
		return phrased{"The service is busy" + what + ". Try again in a moment.", actionRetry}
	case http.StatusBadGateway:
		return phrased{"The service's model failed" + what + ". A failed message is refunded; try again.", actionRetry}
	case http.StatusServiceUnavailable:
		return phrased{"The service is unavailable" + what + ". Try again later.", actionRetry}
	}
	if e.StatusCode >= 500 {
		return phrased{fmt.Sprintf("The service failed (%d%s). Try again later.", e.StatusCode, what), actionRetry}
	}
	return phrased{fmt.Sprintf("The service refused the request (%d%s).", e.StatusCode, what), actionNone}
}

// clip cuts s to n characters with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
