package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2/lang"

	"parley/app/talk"
	"parley/client"
	"parley/conversation"
	"parley/engine"
	"parley/keystore"
)

// connection is the service in use and how it was reached.
type connection struct {
	svc     Service
	baseURL string
	local   bool // the reference service running inside the app
	fromEnv bool // PARLEY_BASE_URL or PARLEY_API_KEY chose it
	// sessionKey is true when the key is kept for this session only (no keyring).
	sessionKey bool
	// warmSpeech, when not nil, has the service load its speech recogniser ahead of a question.
	warmSpeech func()
	// engine, for the built-in service, says which chat engine answers; engineNotice is what
	// to tell the person about it once the window shows (a runtime found, or gone).
	engine       engine.Status
	engineNotice string
}

// host is the service's host for the status bar.
func (c *connection) host() string {
	if u, err := url.Parse(c.baseURL); err == nil && u.Host != "" {
		return u.Host
	}
	return c.baseURL
}

// connectFromEnvironment uses PARLEY_BASE_URL and PARLEY_API_KEY, as the CLI does: an address
// without a key takes the key from the keyring, a key without an address goes to the address
// chosen before (else the reference service's default).
func (u *UI) connectFromEnvironment() {
	env := u.deps.Getenv
	base := strings.TrimSpace(env("PARLEY_BASE_URL"))
	if base == "" {
		base = u.prefs.baseURL()
	}
	key := strings.TrimSpace(env("PARLEY_API_KEY"))
	u.showConnecting(base)
	go func() {
		if key == "" {
			k, err := u.deps.Secrets.Get(base)
			if err != nil {
				u.do(func() { u.showAccountAfter(err, base) })
				return
			}
			key = k
		}
		u.connect(base, client.APIKey(key), &connection{fromEnv: true})
	}()
}

// connectStored reaches the remote service chosen before, with its key from the keyring.
func (u *UI) connectStored() {
	base := u.prefs.baseURL()
	u.showConnecting(base)
	go func() {
		key, err := u.deps.Secrets.Get(base)
		if err != nil {
			u.do(func() { u.showAccountAfter(err, base) })
			return
		}
		u.connect(base, client.APIKey(key), &connection{})
	}()
}

// useLocal starts the reference service inside the app, with the engines chosen (or found on
// this computer), and connects to it. From the welcome screen it shows that it is connecting,
// and the welcome screen again if the service cannot start; switching from another service, the
// window stays on that service until the built-in one answers, and stays there if it cannot.
func (u *UI) useLocal() {
	switching := u.conn() != nil
	if switching {
		u.flash(lang.L("Starting the local service…"))
	} else {
		u.showConnectingLocal()
	}
	firstRun := u.prefs.service() == ""
	local := u.deps.Local
	go func() {
		// Off the window's goroutine: the built-in service may still be stopping (a switch
		// away a moment ago), which holds it for a few seconds.
		local.OnEngineStatus(func(st engine.Status) { u.do(func() { u.engineChanged(st) }) })
		set, notice := u.localEngines(u.ctx, firstRun)
		st := local.SetEngines(u.ctx, set)
		if st.Notice != "" {
			notice = st.Notice
		}
		base, key, err := local.Start(u.ctx)
		if err != nil {
			u.do(func() {
				if switching && u.conn() != nil {
					u.flash(fmt.Sprintf(lang.L("The local service did not start. %s"), phrase(err).text))
					return
				}
				u.showWelcomeAfter(err)
			})
			return
		}
		u.prefs.useLocal()
		u.connect(base, key, &connection{local: true, warmSpeech: local.WarmSpeech, engine: st, engineNotice: notice})
	}()
}

// connect builds the service for base and key and attaches it; c says how it was reached.
// It runs off the UI goroutine.
func (u *UI) connect(base string, key client.APIKey, c *connection) {
	svc, err := u.deps.Connect(base, key)
	if err != nil {
		u.do(func() { u.showAccountAfter(err, base) })
		return
	}
	c.svc, c.baseURL = svc, svc.BaseURL()
	u.do(func() { u.attach(c) })
}

// attach makes c the service in use: a new session, the main window, a new conversation. The
// built-in service, left for another, is stopped (in the background: a call in flight may
// finish).
func (u *UI) attach(c *connection) {
	if old := u.main; old != nil {
		old.close() // what was written and not answered is kept for when this service is used again
		if old.conn.local && !c.local {
			u.stopLocal()
		}
	}
	u.onEnter = nil
	m := newMainWindow(u, c)
	u.main = m
	// Voice mode listens to the service it started on: it ends with it.
	u.talk.Attach(talk.Attached{Service: c.svc, Session: m.sess, Warm: c.warmSpeech, TakesLanguage: c.local})
	if c.local {
		m.parleyService()
	}
	m.sess.LoadMore()
	m.newConversation()
	m.restoreUnsentText()
	if c.engineNotice != "" {
		m.flash(c.engineNotice)
	}
	go refreshAccount(u.ctx, c.svc, m.sess, func() {
		u.do(func() {
			if u.main == m {
				m.parleyService()
			}
		})
	})
}

// parleyService takes the service in use as Parley's own: its limit on a message, and a speech
// language sent with each question.
func (m *mainWindow) parleyService() {
	m.parleys = true
	m.composer.setLimit(referenceMessageLimit)
	m.u.talk.TakeLanguages()
}

// refreshAccount reads the balance from svc, where the service reports it, into sess. It runs
// on a goroutine of its own, so it is given what it works with rather than reading the window's
// state, which another service attached meanwhile may change. A service that names its chat
// engine there is the reference service (the account endpoint and its chat_engine are its
// extensions, docs/API.md): reference is called, for its limit on a message.
func refreshAccount(ctx context.Context, svc Service, sess *conversation.Session, reference func()) {
	a, err := svc.Account(ctx)
	if err != nil {
		return
	}
	if a.Balance != nil {
		sess.SetBalance(*a.Balance)
	}
	if a.ChatEngine != "" {
		reference()
	}
}

// keyringMissing reports whether err means that no keyring can be used at all.
func keyringMissing(err error) bool {
	return errors.Is(err, keystore.ErrUnavailable)
}
