package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/lang"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
	"parley/internal/explain"
	"parley/keystore"
)

// accountHost is what the account dialog needs from the window.
type accountHost interface {
	// useRemote makes svc, reached at base, the service in use and the one Parley opens next
	// time; sessionKey says that its key is kept for this session only.
	useRemote(svc Service, base string, sessionKey bool)
	// keyForSessionOnly reports whether the key of the service in use is kept for this session
	// only.
	keyForSessionOnly() bool
	// confirm asks a question in a dialog over this one.
	confirm(title, msg, yes string, danger bool, done func(ok bool))
}

// accountDialog sets the service's address and API key.
type accountDialog struct {
	host accountHost
	ctx  context.Context
	deps *Deps
	do   func(func())
	// keyring is the first keyring failure the dialog met, or nil: the dialog says it once,
	// and in the same words each time, however the keyring fails next.
	keyring *keystore.UnavailableError
	d       *dialog.CustomDialog
	keys    *dialogKeys
	base    *field
	key     *field
	result  *widget.Label
	saveBtn *button
	testBtn *button
}

// showAccount opens the account dialog.
func (u *UI) showAccount() { u.showAccountWith("") }

// showAccountAfter opens the account dialog saying why Parley could not connect to base.
func (u *UI) showAccountAfter(err error, base string) {
	if u.main == nil {
		u.showWelcomeAfter(err)
	}
	msg := phraseIn(err, explain.Scene{BaseURL: base, Key: explain.KeyStored}, inAccount).text
	if errors.Is(err, keystore.ErrNotFound) {
		msg = fmt.Sprintf(lang.L("Enter the API key for %s."), base)
	}
	u.showAccountWith(msg).noteKeyring(err)
}

// showAccountFor opens the account dialog saying what went wrong with the service in use, in
// words that fit the dialog.
func (u *UI) showAccountFor(err error) {
	s := explain.Scene{}
	if c := u.conn(); c != nil {
		s.BaseURL = c.baseURL
		switch {
		case c.fromEnv && strings.TrimSpace(u.deps.Getenv("PARLEY_API_KEY")) != "":
			s.Key = explain.KeyEnv
		case !c.local && !c.sessionKey:
			s.Key = explain.KeyStored
		}
	}
	u.showAccountWith(phraseIn(err, s, inAccount).text)
}

// serviceInUse says which service Parley uses and where its key is, never the key ("" on the
// welcome screen).
func (u *UI) serviceInUse() string {
	c := u.conn()
	switch {
	case c == nil:
		return ""
	case c.local:
		return lang.L("In use: the built-in service on this computer. Its account is its own, with a million points and a key made anew at each start: no key is stored, and nothing is paid.")
	case c.fromEnv && strings.TrimSpace(u.deps.Getenv("PARLEY_API_KEY")) != "":
		return fmt.Sprintf(lang.L("In use: %s, with the key in PARLEY_API_KEY."), c.baseURL)
	case c.sessionKey:
		return fmt.Sprintf(lang.L("In use: %s, with a key kept for this session only (there is no keyring)."), c.baseURL)
	}
	return fmt.Sprintf(lang.L("In use: %s, with a key stored in the system keyring."), c.baseURL)
}

// showAccountWith opens the account dialog with a message at its top.
func (u *UI) showAccountWith(message string) *accountDialog {
	a := &accountDialog{host: u, ctx: u.ctx, deps: &u.deps, do: u.do}
	env := u.deps.Getenv
	// Enter in the address goes on to the key; anywhere else it connects.
	a.keys = &dialogKeys{submit: a.save, cancel: func() { a.d.Hide() }}
	a.base = newField(&dialogKeys{submit: func() { u.win.Canvas().Focus(a.key) }, cancel: a.keys.cancel}, false)
	a.base.SetPlaceHolder("https://api.example.com")
	a.base.SetText(u.prefs.savedBaseURL())
	if u.conn() != nil && !u.conn().local {
		a.base.SetText(u.conn().baseURL)
	}
	a.key = newPasswordField(a.keys)
	a.key.setPlaceholders(a.keyPlaceholders()...)
	a.result = widget.NewLabel(message)
	a.result.Wrapping = fyne.TextWrapWord
	if message != "" {
		a.result.Importance = widget.WarningImportance
	}
	var notes []string
	if env("PARLEY_BASE_URL") != "" {
		notes = append(notes, lang.L("PARLEY_BASE_URL is set: it overrides the address saved here while it is set."))
	}
	if env("PARLEY_API_KEY") != "" {
		notes = append(notes, lang.L("PARLEY_API_KEY is set: it overrides the key saved here while it is set."))
	}
	envNote := widget.NewLabel(strings.Join(notes, "\n"))
	envNote.Wrapping = fyne.TextWrapWord
	envNote.SizeName = theme.SizeNameCaptionText
	envNote.Hidden = len(notes) == 0

	a.testBtn = newButton(a.keys, lang.L("Test connection"), theme.SearchIcon(), a.test)
	a.saveBtn = newButton(a.keys, lang.L("Connect"), theme.ConfirmIcon(), a.save)
	a.saveBtn.Importance = widget.HighImportance
	cancel := newButton(a.keys, lang.L("Cancel"), theme.CancelIcon(), a.keys.cancel)
	buttons := []fyne.CanvasObject{a.testBtn}
	if u.deps.Local != nil && (u.conn() == nil || !u.conn().local) {
		buttons = append(buttons, newButton(a.keys, lang.L("Use the local service"), theme.ComputerIcon(), func() {
			a.d.Hide()
			u.useLocal()
		}))
	}
	form := newForm(widget.NewFormItem(lang.L("Address"), a.base), widget.NewFormItem(lang.L("API key"), a.key))
	inUse := widget.NewLabel(u.serviceInUse())
	inUse.Wrapping = fyne.TextWrapWord
	inUse.Hidden = inUse.Text == ""
	content := container.NewVBox(inUse, form, envNote, a.result,
		border(nil, nil, container.NewHBox(buttons...), container.NewHBox(cancel, a.saveBtn)))
	a.d = dialog.NewCustomWithoutButtons(lang.L("Account"), content, u.win)
	a.d.Resize(fyne.NewSize(560, 0))
	first := a.key
	if a.base.Text == "" {
		first = a.base
	}
	u.showDialogOf(a, a.d, a.keys, first)
	return a
}

// values checks what was typed: an http(s) address, and a key (or one stored for it).
func (a *accountDialog) values() (string, string, error) {
	base := strings.TrimRight(strings.TrimSpace(a.base.Text), "/")
	p, err := url.Parse(base)
	if base == "" || err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
		if base != "" && !strings.Contains(base, "://") {
			return "", "", formError(fmt.Sprintf(lang.L("The address needs its scheme: https://%s (or http:// for this computer)."), base))
		}
		return "", "", formError(lang.L("Enter the service's address, such as https://api.example.com."))
	}
	key := strings.TrimSpace(a.key.Text)
	if key != "" {
		if err := keystore.ValidateKey(key); err != nil {
			return "", "", formError(phraseIn(err, explain.Scene{BaseURL: base, Key: explain.KeyTyped}, inAccount).text)
		}
	}
	return base, key, nil
}

// reach connects with the values typed and asks the service for one conversation, off the UI
// goroutine; done gets the service (nil on failure), the key used and a sentence.
func (a *accountDialog) reach(done func(svc Service, key string, msg string, err error)) {
	base, key, err := a.values()
	if err != nil {
		a.show(err.Error(), true)
		return
	}
	a.show(lang.L("Connecting…"), false)
	a.saveBtn.Disable()
	a.testBtn.Disable()
	go func() {
		k, scene := key, explain.Scene{BaseURL: base, Key: explain.KeyTyped}
		if k == "" {
			stored, err := a.deps.Secrets.Get(base)
			if err != nil {
				a.do(func() { done(nil, "", a.enterKey(err, base), err) })
				return
			}
			k, scene.Key = stored, explain.KeyStored
		}
		svc, err := a.deps.Connect(base, client.APIKey(k))
		if err == nil {
			ctx, cancel := context.WithTimeout(a.ctx, defaultCallTimeout)
			_, err = svc.ListConversations(ctx, client.ListConversationsRequest{Limit: 1})
			cancel()
		}
		if err != nil {
			a.do(func() { done(nil, "", phraseIn(err, scene, inAccount).text, err) })
			return
		}
		msg := fmt.Sprintf(lang.L("Connected to %s."), svc.BaseURL())
		ctx, cancel := context.WithTimeout(a.ctx, defaultCallTimeout)
		if acc, aerr := svc.Account(ctx); aerr == nil && acc.Balance != nil {
			msg = fmt.Sprintf(lang.L("Connected to %s. Balance: %s."), svc.BaseURL(), points(*acc.Balance))
		}
		cancel()
		a.do(func() { done(svc, k, msg, nil) })
	}()
}

// show puts a sentence under the fields.
func (a *accountDialog) show(msg string, bad bool) {
	a.result.SetText(msg)
	a.result.Importance = widget.MediumImportance
	if bad {
		a.result.Importance = widget.DangerImportance
	}
	a.result.Refresh()
}

func (a *accountDialog) test() {
	a.reach(func(_ Service, _ string, msg string, err error) {
		a.saveBtn.Enable()
		a.testBtn.Enable()
		a.show(msg, err != nil)
	})
}

// save connects, stores the key in the keyring (or, when there is none, offers to keep it for
// this session only), and makes the service the one in use.
func (a *accountDialog) save() {
	a.reach(func(svc Service, key, msg string, err error) {
		a.saveBtn.Enable()
		a.testBtn.Enable()
		if err != nil {
			a.show(msg, true)
			return
		}
		base := svc.BaseURL()
		go func() {
			serr := a.deps.Secrets.Set(base, key)
			a.do(func() {
				if serr != nil && keyringMissing(serr) {
					a.noteKeyring(serr)
					a.warn(a.keyringSentence())
					a.host.confirm(lang.L("Keep the key for this session?"),
						lang.L("The key works, but it cannot be stored without the system keyring. Keep it for this session only? You will be asked again next time."),
						lang.L("Keep for this session"), false, func(ok bool) {
							if ok {
								a.d.Hide()
								a.host.useRemote(svc, base, true)
							}
						})
					return
				}
				if serr != nil {
					a.show(fmt.Sprintf(lang.L("The key works but was not stored. %s"), phraseIn(serr, explain.Scene{BaseURL: base}, inAccount).text), true)
					return
				}
				a.d.Hide()
				a.host.useRemote(svc, base, false)
			})
		}()
	})
}

// useRemote makes svc, reached at base, the service in use and the one Parley opens next time;
// sessionKey says that its key is kept for this session only.
func (u *UI) useRemote(svc Service, base string, sessionKey bool) {
	u.prefs.useRemote(base)
	u.attach(&connection{svc: svc, baseURL: base, sessionKey: sessionKey})
}

// keyForSessionOnly reports whether the key of the service in use is kept for this session only.
func (u *UI) keyForSessionOnly() bool { return u.conn() != nil && u.conn().sessionKey }

// noteKeyring remembers err when it is the dialog's first keyring failure, and makes the key
// field say where the key will be kept.
func (a *accountDialog) noteKeyring(err error) {
	var ue *keystore.UnavailableError
	if a.keyring != nil || !errors.As(err, &ue) {
		return
	}
	a.keyring = ue
	a.key.setPlaceholders(a.keyPlaceholders()...)
}

// keyringSentence says, in the same words each time, that the keyring is not available.
func (a *accountDialog) keyringSentence() string {
	return phraseIn(a.keyring, explain.Scene{}, inAccount).text
}

// keyPlaceholders say where the key will be kept, as the field's width allows: the system
// keyring, or this session only when the dialog or the connection found no keyring.
func (a *accountDialog) keyPlaceholders() []string {
	if a.keyring != nil || a.host.keyForSessionOnly() {
		return []string{lang.L("API key (kept for this session only, never shown)"), lang.L("API key (this session only)"), lang.L("API key")}
	}
	return []string{lang.L("API key (kept in the system keyring, never shown)"), lang.L("API key (kept in the keyring)"), lang.L("API key")}
}

// enterKey is the sentence for a key that could not be read from the keyring for base.
func (a *accountDialog) enterKey(err error, base string) string {
	switch {
	case errors.Is(err, keystore.ErrNotFound):
		return fmt.Sprintf(lang.L("Enter the API key for %s."), base)
	case keyringMissing(err):
		a.noteKeyring(err)
		return fmt.Sprintf(lang.L("Enter the API key. %s"), a.keyringSentence())
	}
	return phraseIn(err, explain.Scene{BaseURL: base}, inAccount).text
}

// warn puts a sentence under the fields that is a warning, not a failure.
func (a *accountDialog) warn(msg string) {
	a.result.SetText(msg)
	a.result.Importance = widget.WarningImportance
	a.result.Refresh()
}
