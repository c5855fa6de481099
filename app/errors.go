package app

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2/lang"

	"parley/audio"
	"parley/audio/playback"
	"parley/internal/explain"
)

// This file is where the window phrases errors: package explain says what happened, in the
// words the CLI uses too, and the window adds the action that helps where the sentence is
// shown (the CLI adds its own for a terminal, in package cli).

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
		return lang.L("Try again")
	case actionAccount:
		return lang.L("Account…")
	case actionReload:
		return lang.L("Reload")
	case actionPreferences:
		return lang.L("Preferences…")
	}
	return ""
}

// phrased is an error as the window shows it.
type phrased struct {
	text   string
	action action
}

// place is where a sentence is shown, which decides what its action may say: the Account
// dialog does not send the person to the Account dialog.
type place int

const (
	inWindow  place = iota // the status bar, a failed message, the sidebar, the welcome screen
	inAccount              // the Account dialog
)

// phrase turns an error into a sentence and an action, for the window.
func phrase(err error) phrased { return phraseIn(err, explain.Scene{}, inWindow) }

// phraseIn turns an error into a sentence and an action for where it is shown; the facts come
// from package explain, in the words the CLI uses, and the action is the window's.
func phraseIn(err error, s explain.Scene, where place) phrased {
	switch {
	case errors.Is(err, audio.ErrSilentDevice):
		return phrased{lang.L("The microphone delivers only silence. Check that it is not muted, or pick another in Preferences."), actionPreferences}
	case errors.Is(err, audio.ErrDeviceFailed):
		return phrased{lang.L("The microphone stopped working. Check its connection and try again."), actionRetry}
	case errors.Is(err, audio.ErrNoDevice):
		return phrased{lang.L("No microphone was found. Connect one, or pick another in Preferences; you can still type."), actionPreferences}
	case errors.Is(err, playback.ErrNoDevice):
		return phrased{lang.L("No audio output was found, so replies cannot be spoken. Connect speakers or headphones, or turn spoken replies off in Preferences."), actionPreferences}
	}
	f := explain.Error(err, s)
	if f.Kind == explain.Unknown {
		return phrased{explain.Capitalize(strings.TrimSuffix(err.Error(), ".")) + ".", actionRetry}
	}
	then, act := next(f, where)
	text := f.Plain(maxServiceWords) + "." // no status codes: the CLI's sentence has them
	if then != "" {
		text += " " + then
	}
	return phrased{text, act}
}

// maxServiceWords is the most of the service's own words a sentence quotes, in characters: two
// sentences of a service that says what failed and what to do, and that the points were
// refunded (the window wraps them).
const maxServiceWords = 240

// next is what the window says to do about f, shown where, and the button that does it.
func next(f explain.Fact, where place) (string, action) {
	// account is the sentence that sends the person to the Account dialog, or the one to say
	// inside it.
	account := func(window, dialog string) string {
		if where == inAccount {
			return dialog
		}
		return window
	}
	switch f.Kind {
	case explain.ReplyLost:
		return lang.L("The conversation was read again to show what the service kept."), actionReload
	case explain.ReplyUnreadable:
		return lang.L("It is not sent again: the conversation was read again to show what the service kept."), actionReload
	case explain.KeyRefused:
		return account(lang.L("Open Account to change it."), lang.L("Check the key.")), actionAccount
	case explain.NoKey:
		return account(lang.L("Enter it in Account."), lang.L("Enter it above.")), actionAccount
	case explain.InvalidKey:
		return lang.L("Check that the whole key was pasted, and nothing else."), actionAccount
	case explain.KeyringUnavailable:
		return lang.L("You can keep the key for this session only."), actionAccount
	case explain.Redirect:
		return account(lang.L("Use the final address in Account."), lang.L("Use the final address.")), actionAccount
	case explain.Undecodable, explain.NoEndpoint:
		return account(lang.L("Check the address in Account."), lang.L("Check the address.")), actionAccount
	case explain.DoubledV1:
		return account(lang.L("Parley adds /v1 itself, so drop it from the address in Account."), lang.L("Parley adds /v1 itself, so drop it from the address.")), actionAccount
	case explain.Insecure:
		return account(lang.L("Use an https:// address in Account."), lang.L("Use an https:// address.")), actionAccount
	case explain.BadBaseURL:
		return account(lang.L("Write it like https://api.example.com in Account."), lang.L("Write it like https://api.example.com.")), actionAccount
	case explain.UserInBaseURL:
		return account(lang.L("Give the API key separately, in Account."), lang.L("Give the API key separately.")), actionAccount
	case explain.Certificate:
		if f.OtherHost {
			return account(lang.L("Check the address in Account."), lang.L("Check the address.")), actionAccount
		}
		return account(lang.L("Check the address in Account, or install the certificate's authority."), lang.L("Check the address, or install the certificate's authority.")), actionAccount
	case explain.NotListening:
		return account(lang.L("Check that it is running, or change the address in Account."), lang.L("Check that it is running, or change the address.")), actionRetry
	case explain.HostNotFound:
		return account(lang.L("Check the address in Account, and your connection."), lang.L("Check the address, and your connection.")), actionRetry
	}
	return nextForWork(f)
}

// nextForWork is next for the failures of the work itself (a call, audio, the service), which
// read the same wherever they are shown.
func nextForWork(f explain.Fact) (string, action) {
	switch f.Kind {
	case explain.ConnectionFailed:
		return lang.L("Check your connection and try again."), actionRetry
	case explain.Timeout, explain.UpstreamFailed:
		return lang.L("Try again."), actionRetry
	case explain.ServiceDown:
		return lang.L("Try again later."), actionRetry
	case explain.Busy:
		if f.RetryAfter > 0 {
			return fmt.Sprintf(lang.L("Try again in %s."), explain.Round(f.RetryAfter)), actionRetry
		}
		return lang.L("Try again in a moment."), actionRetry
	case explain.NoPoints:
		return lang.L("Ask the service's operator for more."), actionNone
	case explain.NoConversation:
		return lang.L("It may have been deleted elsewhere."), actionNone
	case explain.AudioTooLarge:
		return lang.L("Record a shorter message."), actionNone
	case explain.TooLarge:
		return lang.L("Send something shorter."), actionNone
	case explain.BadRequest:
		return lang.L("Check the conversation's settings."), actionNone
	case explain.VoiceRefused:
		return lang.L("Pick another voice."), actionNone
	case explain.NarrowbandAudio:
		return lang.L("Choose another microphone in Preferences: a headset's hands-free mode sends this."), actionNone
	case explain.LanguageUnheard:
		return lang.L("If you spoke English, choose English as the speech language in Preferences or in the conversation's Settings; to be heard in other languages, run a Whisper server on this computer (see the README)."), actionNone
	}
	return "", actionNone
}
