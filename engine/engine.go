// Package engine describes the engines of the built-in service (its chat model, speech
// recognition and voices), finds the model runtimes that run on this computer (Ollama, LM
// Studio, llama.cpp's server, vLLM), and says in words which engine answers. It imports no
// Fyne and does no chatting itself: the server runs the engines, the app and the CLI choose them.
package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"parley/internal/i18n"
	"parley/internal/loopback"
)

// Kind is where a chat engine runs.
type Kind string

// The kinds of chat engine.
const (
	// Offline is the built-in offline responder: instant, honest, and unable to think.
	Offline Kind = "offline"
	// Detected is a model of a runtime found on this computer.
	Detected Kind = "detected"
	// Remote is an OpenAI-compatible service at an address the person gave.
	Remote Kind = "remote"
)

// Chat is a choice of chat engine.
type Chat struct {
	Kind Kind
	// URL is the OpenAI-compatible base URL, ending in /v1 ("http://127.0.0.1:11434/v1");
	// empty for Offline.
	URL string
	// Model is the model's name as the runtime lists it ("llama3.2:latest").
	Model string
	// Key is the API key sent as a bearer token; "" sends none. It is never logged, shown or
	// written to a file: the app keeps it in the system keyring.
	Key string
	// Runtime names the runtime of a Detected model ("Ollama").
	Runtime string
	// ContextTokens is how many tokens the model takes in; 0 uses DefaultContextTokens.
	ContextTokens int
	// Owner is the user whose program listened at a Detected model's port when it was chosen
	// (Owner.ID: a uid on Linux); "" when not known. A change is worth telling the person.
	Owner string
}

// Speech is a choice of speech engine: the local one (pocketsphinx for recognition; flite or
// espeak-ng, and lame, for voices), or an OpenAI-compatible endpoint.
type Speech struct {
	// Remote is true for an OpenAI-compatible endpoint.
	Remote bool
	// URL is its base URL, ending in /v1.
	URL string
	// Model is the model's name ("whisper-1", "tts-1").
	Model string
	// Key is its API key; "" sends none. Kept as Chat.Key is.
	Key string
}

// Set is the three engines of the built-in service.
type Set struct {
	Chat Chat
	STT  Speech
	TTS  Speech
}

// Status says which chat engine answers now, whether it is away, and what changed by itself.
type Status struct {
	// Chat describes the engine chosen ("llama3.2, from Ollama on this computer"), and says
	// when it is away ("llama3.2, from Ollama on this computer (not running)").
	Chat string
	// Short is Chat in a few words, for a status bar ("llama3.2 from Ollama (not running)").
	Short string
	// Away is true while the runtime chosen does not answer (not running, or refused as another
	// user's): chat calls fail, and cost nothing, until it is back. Nothing answers in its place.
	Away bool
	// Notice says what happened, for the person, when the engine changed by itself; "" otherwise.
	Notice string
}

// Context windows assumed when a runtime does not say how many tokens its model takes in.
const (
	// DefaultLocalContextTokens is Ollama's and LM Studio's context unless the person set one.
	DefaultLocalContextTokens = 4096
	// DefaultRemoteContextTokens is a floor of today's hosted models.
	DefaultRemoteContextTokens = 16384
)

// String is c without its key, for logs and messages ("[key]" stands for one).
func (c Chat) String() string {
	return fmt.Sprintf("{%s %s %s runtime=%q owner=%q context=%d key=%s}", c.Kind, c.URL, c.Model, c.Runtime, c.Owner, c.ContextTokens, hidden(c.Key))
}

// GoString is String: %#v never shows the key either.
func (c Chat) GoString() string { return "engine.Chat" + c.String() }

// LogValue is c without its key, for log/slog.
func (c Chat) LogValue() slog.Value { return slog.StringValue(c.String()) }

// String is s without its key.
func (s Speech) String() string {
	return fmt.Sprintf("{remote=%v %s %s key=%s}", s.Remote, s.URL, s.Model, hidden(s.Key))
}

// GoString is String.
func (s Speech) GoString() string { return "engine.Speech" + s.String() }

// LogValue is s without its key, for log/slog.
func (s Speech) LogValue() slog.Value { return slog.StringValue(s.String()) }

// hidden stands for a key in text: whether there is one, never what it is.
func hidden(key string) string {
	if key == "" {
		return "none"
	}
	return "[key]"
}

// ContextWindow is how many tokens c's model takes in.
func (c Chat) ContextWindow() int {
	switch {
	case c.ContextTokens > 0:
		return c.ContextTokens
	case loopback.URL(c.URL):
		return DefaultLocalContextTokens
	}
	return DefaultRemoteContextTokens
}

// Where names where c runs, for people: "Ollama on this computer", "api.openai.com", "the model
// server at 127.0.0.1:8081".
func (c Chat) Where() string {
	switch {
	case c.Kind == Offline || c.Kind == "":
		return i18n.T("the offline responder")
	case c.Runtime != "":
		return fmt.Sprintf(i18n.T("%s on this computer"), c.Runtime)
	}
	return WhereURL(c.URL)
}

// WhereURL names the service at a base URL, for people.
func WhereURL(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return i18n.T("the model server")
	}
	if loopback.URL(base) {
		return fmt.Sprintf(i18n.T("the model server at %s on this computer"), u.Host)
	}
	return u.Hostname()
}

// fromURL says which model of the service at base answers, for people: "gpt-4o-mini, from
// api.openai.com".
func fromURL(model, base string) string {
	u, err := url.Parse(base)
	switch {
	case err != nil || u.Host == "":
		return fmt.Sprintf(i18n.T("%s, from the model server"), model)
	case loopback.URL(base):
		return fmt.Sprintf(i18n.T("%s, from the model server at %s on this computer"), model, u.Host)
	}
	return fmt.Sprintf(i18n.T("%s, from %s"), model, u.Hostname())
}

// Describe says which engine c is: "the offline responder", "llama3.2, from Ollama on this
// computer", "gpt-4o-mini, from api.openai.com".
func (c Chat) Describe() string {
	switch {
	case c.Kind == Offline || c.Kind == "":
		return i18n.T("the offline responder")
	case c.Runtime != "":
		return fmt.Sprintf(i18n.T("%s, from %s on this computer"), ModelName(c.Model), c.Runtime)
	}
	return fromURL(ModelName(c.Model), c.URL)
}

// Short says which engine c is in a few words: "offline responder", "llama3.2 from Ollama".
func (c Chat) Short() string {
	switch {
	case c.Kind == Offline || c.Kind == "":
		return i18n.T("offline responder")
	case c.Runtime != "":
		return fmt.Sprintf(i18n.T("%s from %s"), ModelName(c.Model), c.Runtime)
	case loopback.URL(c.URL):
		return fmt.Sprintf(i18n.T("%s on this computer"), ModelName(c.Model))
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return fmt.Sprintf(i18n.T("%s from the model server"), ModelName(c.Model))
	}
	return fmt.Sprintf(i18n.T("%s from %s"), ModelName(c.Model), u.Hostname())
}

// ModelName is a model's name as people write it: Ollama's ":latest" tag dropped.
func ModelName(id string) string { return strings.TrimSuffix(id, ":latest") }

// Describe says which engine s is for the given part ("speech recognition" or "voices").
func (s Speech) Describe(local string) string {
	if !s.Remote {
		return local
	}
	return fromURL(s.Model, s.URL)
}

// Check reports what is wrong with c, as a sentence a person can act on; nil when nothing is.
func (c Chat) Check() error {
	switch c.Kind {
	case Offline, "":
		return nil
	case Detected, Remote:
	default:
		return fmt.Errorf(i18n.T("%q is not a kind of chat engine"), c.Kind)
	}
	if err := CheckURL(c.URL); err != nil {
		return err
	}
	if u, _ := url.Parse(c.URL); c.Kind == Detected && u.Hostname() != "127.0.0.1" {
		return fmt.Errorf(i18n.T("a model found on this computer is at 127.0.0.1, not %s"), u.Hostname())
	}
	if strings.TrimSpace(c.Model) == "" {
		return errors.New(i18n.T("give the name of the model to use, such as llama3.2 or gpt-4o-mini"))
	}
	return nil
}

// Check reports what is wrong with s, as Chat.Check does.
func (s Speech) Check() error {
	if !s.Remote {
		return nil
	}
	if err := CheckURL(s.URL); err != nil {
		return err
	}
	if strings.TrimSpace(s.Model) == "" {
		return errors.New(i18n.T("give the name of the model to use, such as whisper-1 or tts-1"))
	}
	return nil
}

// CheckURL reports whether base is an address an engine may be reached at: https, or plain http
// to this computer only (a key sent in clear elsewhere could be read on the way).
func CheckURL(base string) error {
	base = strings.TrimSpace(base)
	if base == "" {
		return errors.New(i18n.T("give the service's address, such as https://api.openai.com/v1 or http://127.0.0.1:11434/v1"))
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return errors.New(i18n.T("the address must look like https://api.openai.com/v1 or http://127.0.0.1:11434/v1"))
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return errors.New(i18n.T("the address must have no user name, query or fragment: put the key in the key field"))
	}
	if u.Scheme == "http" && !loopback.URL(base) {
		return fmt.Errorf(i18n.T("plain http is allowed only to this computer (127.0.0.1, localhost): use https for %s"), u.Hostname())
	}
	return nil
}
