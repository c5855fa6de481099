package app

import (
	"context"
	"errors"
	"fmt"

	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/widget"

	"parley/engine"
	"parley/keystore"
)

// The built-in service's engines: which chat model answers it (the offline responder, a model
// of a runtime found on this computer, or an OpenAI-compatible service), and which speech
// engines it uses. The choice is kept in the preferences, the keys in the system keyring.

// installHint says how to get a real model, for a person who has none.
func installHint() string {
	return lang.L("For real answers, install Ollama (ollama.com) and run “ollama pull llama3.2”, or connect to a service.")
}

// localEngines works out the engines the built-in service starts with: the chosen ones with
// their keys. On the first run, whose screen named it, the first model found on this computer
// is used and kept as the choice, with the user who runs it. Later, with none chosen, the
// offline responder answers and a model found is only offered: nothing is sent to it until the
// person chooses it. A runtime chosen that now runs as another user is kept, and the person
// told; a port where another user's program listens is never offered. notice says what the
// person should know. It runs off the UI goroutine: it asks the keyring.
func (u *UI) localEngines(ctx context.Context, firstRun bool) (set engine.Set, notice string) {
	found := detectAll(ctx, u.deps.Local)
	set, chosen := u.prefs.engines()
	switch {
	case !chosen && len(found.Runtimes) > 0 && firstRun:
		set.Chat = found.Runtimes[0].Chat(found.Runtimes[0].Models[0])
		u.prefs.setEngines(set) // the welcome screen named it: using it chose it
	case !chosen && len(found.Runtimes) > 0:
		c := found.Runtimes[0].Chat(found.Runtimes[0].Models[0])
		notice = fmt.Sprintf(lang.L("Found %s: choose it in Parley → Built-in service to have real answers."), c.Describe())
	case set.Chat.Kind == engine.Detected:
		// The runtime may say more about the model now (its context window), and run as
		// another user than when it was chosen.
		for _, r := range found.Runtimes {
			for _, m := range r.Models {
				if r.BaseURL != set.Chat.URL || m.ID != set.Chat.Model {
					continue
				}
				if m.ContextTokens > 0 {
					set.Chat.ContextTokens = m.ContextTokens
				}
				if r.Owner.ID != "" && r.Owner.ID != set.Chat.Owner {
					notice = set.Chat.OwnerChanged(r.Owner) // "" when none was kept (an older Parley)
					set.Chat.Owner = r.Owner.ID
					u.prefs.setEngines(set) // told once
				}
			}
		}
	}
	if notice == "" && len(found.Refused) > 0 {
		notice = sentence(found.Refused[0].Error())
	}
	u.addEngineKeys(&set)
	return set, notice
}

// runtimeSearch is a LocalService that also says which ports it left alone, and why
// (server.Local is one).
type runtimeSearch interface {
	DetectAll(ctx context.Context) engine.Found
}

// recogniserSearch is a LocalService that also looks for speech recognition servers on this
// computer (server.Local is one).
type recogniserSearch interface {
	FindRecogniser(ctx context.Context) (engine.Recogniser, bool)
}

// findRecogniser is the speech recognition server on this computer that the built-in service
// hears with, looked for now (a few hundred milliseconds at most); ok is false when there is
// none, or local cannot say.
func findRecogniser(ctx context.Context, local LocalService) (engine.Recogniser, bool) {
	if s, ok := local.(recogniserSearch); ok {
		return s.FindRecogniser(ctx)
	}
	return engine.Recogniser{}, false
}

// detectAll looks for model runtimes on this computer with local, and for the ports it left
// alone when it can say.
func detectAll(ctx context.Context, local LocalService) engine.Found {
	if s, ok := local.(runtimeSearch); ok {
		return s.DetectAll(ctx)
	}
	return engine.Found{Runtimes: local.Detect(ctx)}
}

// addEngineKeys puts into set the keys of its remote engines: the keyring's, or one kept for
// this session when the keyring could not take it.
func (u *UI) addEngineKeys(set *engine.Set) {
	if set.Chat.Kind == engine.Remote {
		set.Chat.Key = u.engineKey(set.Chat.URL)
	}
	if set.STT.Remote {
		set.STT.Key = u.engineKey(set.STT.URL)
	}
	if set.TTS.Remote {
		set.TTS.Key = u.engineKey(set.TTS.URL)
	}
}

// engineAccount is the keyring entry of an engine's key: its address under a scheme of its own
// ("engine+https://api.openai.com/v1"), so that it never takes the place of the key of a Chat and
// Voice Service at the same address.
func engineAccount(url string) string { return "engine+" + keystore.NormalizeBaseURL(url) }

// engineKey is the key kept for an engine's address, "" when none is.
func (u *UI) engineKey(url string) string {
	u.engineKeysMu.Lock()
	k, ok := u.engineKeys[engineAccount(url)]
	u.engineKeysMu.Unlock()
	if ok {
		return k
	}
	if u.deps.Secrets == nil {
		return ""
	}
	k, err := u.deps.Secrets.Get(engineAccount(url))
	if err != nil {
		return ""
	}
	return k
}

// keepEngineKey stores key for an engine's address in the keyring; when the keyring cannot be
// used, the key is kept for this session only, and sessionOnly says so. It runs off the UI
// goroutine.
func (u *UI) keepEngineKey(url, key string) (sessionOnly bool, err error) {
	if err := keystore.ValidateKey(key); err != nil {
		return false, err
	}
	if u.deps.Secrets != nil {
		err = u.deps.Secrets.Set(engineAccount(url), key)
	} else {
		err = keystore.ErrUnavailable
	}
	u.engineKeysMu.Lock()
	defer u.engineKeysMu.Unlock()
	if u.engineKeys == nil {
		u.engineKeys = map[string]string{}
	}
	switch {
	case err == nil:
		delete(u.engineKeys, engineAccount(url))
		return false, nil
	case errors.Is(err, keystore.ErrUnavailable):
		u.engineKeys[engineAccount(url)] = key
		return true, nil
	}
	return false, err
}

// engineChanged shows that the built-in service's chat engine changed by itself: a chosen
// runtime that went away (chat calls fail, and cost nothing, meanwhile) or came back.
func (u *UI) engineChanged(st engine.Status) {
	m := u.main
	if m == nil || !m.conn.local {
		return
	}
	m.conn.engine = st
	m.status.refresh()
	if st.Notice != "" {
		u.flash(st.Notice)
	}
}

// welcomeEngineHint is what the welcome screen says the local service answers with.
func welcomeEngineHint(chat *engine.Chat, searching bool, hears *engine.Recogniser) string {
	heard := ""
	if hears != nil {
		r := *hears
		if m := []rune(r.Model); len(m) > 40 {
			r.Model = string(m[:39]) + "…"
		}
		heard = r.Short()
	}
	switch {
	case searching:
		return lang.L("Runs a service on this computer, with local voices. No account needed. Looking for a model on this computer…")
	case (chat == nil || chat.Kind == engine.Offline) && hears != nil:
		return fmt.Sprintf(lang.L("Runs a service on this computer, with an offline responder that cannot think, hears with %s, and local voices. No account needed."), heard) + " " + installHint()
	case chat == nil || chat.Kind == engine.Offline:
		return lang.L("Runs a service on this computer, with an offline responder that cannot think, and local voices. No account needed.") + " " + installHint()
	}
	c := *chat
	if r := []rune(c.Model); len(r) > 40 {
		c.Model = string(r[:39]) + "…" // the screen keeps room for three lines
	}
	if hears != nil {
		return fmt.Sprintf(lang.L("Runs a service on this computer that answers with %s, hears with %s, and speaks with local voices. No account needed."), c.Describe(), heard)
	}
	return fmt.Sprintf(lang.L("Runs a service on this computer that answers with %s, and speaks with local voices. No account needed."), c.Describe())
}

// builtInSummary says in a line which chat engine the built-in service answers with.
func (u *UI) builtInSummary() string {
	if u.conn() != nil && u.conn().local && u.conn().engine.Away {
		return fmt.Sprintf(lang.L("Chosen: %s. Chat calls fail, and cost nothing, until it answers"), u.conn().engine.Short)
	}
	if u.conn() != nil && u.conn().local && u.conn().engine.Short != "" {
		return fmt.Sprintf(lang.L("Answers with %s"), u.conn().engine.Short)
	}
	set, _ := u.prefs.engines()
	return fmt.Sprintf(lang.L("Answers with %s"), set.Chat.Short())
}

// offerFoundModel looks for model runtimes on this computer and, when one is found while the
// offline responder answers, says so in summary.
func (u *UI) offerFoundModel(summary *widget.Label) {
	set, _ := u.prefs.engines()
	if set.Chat.Kind != engine.Offline || u.conn() != nil && u.conn().local && u.conn().engine.Away {
		return // a model answers, or one chosen is away (the status bar says so)
	}
	local := u.deps.Local
	go func() {
		found := local.Detect(u.ctx)
		if len(found) == 0 {
			return
		}
		c := found[0].Chat(found[0].Models[0])
		u.do(func() {
			summary.SetText(fmt.Sprintf(lang.L("%s. Found %s on this computer: Change… to use it."), u.builtInSummary(), c.Short()))
		})
	}()
}
