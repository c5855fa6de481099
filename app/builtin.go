package app

import (
	"context"
	"errors"

	"fyne.io/fyne/v2/widget"

	"parley/engine"
	"parley/keystore"
)

// The built-in service's engines: which chat model answers it (the offline responder, a model
// of a runtime found on this computer, or an OpenAI-compatible service), and which speech
// engines it uses. The choice is kept in the preferences, the keys in the system keyring.

// installHint says how to get a real model, for a person who has none.
const installHint = "For real answers, install Ollama (ollama.com) and run \u201collama pull llama3.2\u201d, or connect to a service."

// localEngines works out the engines the built-in service starts with: the chosen ones with
// their keys; with none chosen, the first model found on this computer (kept as the choice on
// the first run, whose screen named it). notice says what the person should know. It runs off
// the UI goroutine: it asks the keyring.
func (u *UI) localEngines(ctx context.Context, firstRun bool) (set engine.Set, notice string) {
	found := u.deps.Local.Detect(ctx)
	set, chosen := u.prefs.engines()
	switch {
	case !chosen && len(found) > 0:
		set.Chat = found[0].Chat(found[0].Models[0])
		if firstRun {
			u.prefs.setEngines(set) // the welcome screen named it: using it chose it
		} else {
			notice = "Found " + set.Chat.Describe() + ": it answers now. Preferences → Built-in service to change."
		}
	case set.Chat.Kind == engine.Detected:
		// The runtime may say more about the model now (its context window).
		for _, r := range found {
			for _, m := range r.Models {
				if r.BaseURL == set.Chat.URL && m.ID == set.Chat.Model && m.ContextTokens > 0 {
					set.Chat.ContextTokens = m.ContextTokens
				}
			}
		}
	}
	u.addEngineKeys(&set)
	return set, notice
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

// engineKey is the key kept for an engine's address, "" when none is.
func (u *UI) engineKey(url string) string {
	u.engineKeysMu.Lock()
	k, ok := u.engineKeys[keystore.NormalizeBaseURL(url)]
	u.engineKeysMu.Unlock()
	if ok {
		return k
	}
	if u.deps.Secrets == nil {
		return ""
	}
	k, err := u.deps.Secrets.Get(url)
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
		err = u.deps.Secrets.Set(url, key)
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
		delete(u.engineKeys, keystore.NormalizeBaseURL(url))
		return false, nil
	case errors.Is(err, keystore.ErrUnavailable):
		u.engineKeys[keystore.NormalizeBaseURL(url)] = key
		return true, nil
	}
	return false, err
}

// engineChanged shows that the built-in service's chat engine changed by itself: a chosen
// runtime that went away (the offline responder answers meanwhile) or came back.
func (u *UI) engineChanged(st engine.Status) {
	if u.conn == nil || !u.conn.local || u.status == nil {
		return
	}
	u.conn.engine = st
	u.status.refresh()
	if st.Notice != "" {
		u.status.flash(st.Notice)
	}
}

// welcomeEngineHint is what the welcome screen says the local service answers with.
func welcomeEngineHint(chat *engine.Chat, searching bool) string {
	switch {
	case searching:
		return "Runs a service on this computer, with local voices. No account needed. Looking for a model on this computer…"
	case chat == nil || chat.Kind == engine.Offline:
		return "Runs a service on this computer, with an offline responder that cannot think, and local voices. No account needed. " + installHint
	}
	return "Runs a service on this computer that answers with " + chat.Describe() + ", and speaks with local voices. No account needed."
}

// builtInSummary says in a line which chat engine the built-in service answers with.
func (u *UI) builtInSummary() string {
	if u.conn != nil && u.conn.local && u.conn.engine.Short != "" {
		return "Answers with " + u.conn.engine.Short
	}
	set, chosen := u.prefs.engines()
	if !chosen {
		return "Answers with the first model found on this computer, else the offline responder"
	}
	return "Answers with " + set.Chat.Short()
}

// offerFoundModel looks for model runtimes on this computer and, when one is found while the
// offline responder answers, says so in summary.
func (u *UI) offerFoundModel(summary *widget.Label) {
	set, _ := u.prefs.engines()
	if set.Chat.Kind != engine.Offline {
		return
	}
	local := u.deps.Local
	go func() {
		found := local.Detect(u.ctx)
		if len(found) == 0 {
			return
		}
		c := found[0].Chat(found[0].Models[0])
		u.do(func() {
			summary.SetText(u.builtInSummary() + ". Found " + c.Short() + " on this computer: Change… to use it.")
		})
	}()
}
