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
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"parley/client"
	"parley/keystore"
)

// accountDialog sets the service's address and API key.
type accountDialog struct {
	u       *UI
	d       *dialog.CustomDialog
	base    *widget.Entry
	key     *widget.Entry
	result  *widget.Label
	saveBtn *widget.Button
	testBtn *widget.Button
}

// showAccount opens the account dialog.
func (u *UI) showAccount() { u.showAccountWith("") }

// showAccountAfter opens the account dialog saying why Parley could not connect to base.
func (u *UI) showAccountAfter(err error, base string) {
	if u.conn == nil && u.sidebar == nil {
		u.showWelcomeAfter(err)
	}
	msg := phrase(err).text
	if errors.Is(err, keystore.ErrNotFound) {
		msg = "Enter the API key for " + base + "."
	}
	u.showAccountWith(msg)
}

// showAccountWith opens the account dialog with a message at its top.
func (u *UI) showAccountWith(message string) {
	a := &accountDialog{u: u}
	env := u.deps.Getenv
	a.base = widget.NewEntry()
	a.base.SetPlaceHolder("https://api.example.com")
	a.base.SetText(u.prefs.savedBaseURL())
	if u.conn != nil && !u.conn.local {
		a.base.SetText(u.conn.baseURL)
	}
	a.key = widget.NewPasswordEntry()
	a.key.SetPlaceHolder("API key (kept in the system keyring, never shown)")
	a.result = widget.NewLabel(message)
	a.result.Wrapping = fyne.TextWrapWord
	if message != "" {
		a.result.Importance = widget.WarningImportance
	}
	var notes []string
	if env("PARLEY_BASE_URL") != "" {
		notes = append(notes, "PARLEY_BASE_URL is set: it overrides the address saved here while it is set.")
	}
	if env("PARLEY_API_KEY") != "" {
		notes = append(notes, "PARLEY_API_KEY is set: it overrides the key saved here while it is set.")
	}
	envNote := widget.NewLabel(strings.Join(notes, "\n"))
	envNote.Wrapping = fyne.TextWrapWord
	envNote.SizeName = theme.SizeNameCaptionText
	envNote.Hidden = len(notes) == 0

	a.testBtn = widget.NewButtonWithIcon("Test connection", theme.SearchIcon(), a.test)
	a.saveBtn = widget.NewButtonWithIcon("Connect", theme.ConfirmIcon(), a.save)
	a.saveBtn.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() { a.d.Hide() })
	buttons := []fyne.CanvasObject{a.testBtn}
	if u.deps.Local != nil && (u.conn == nil || !u.conn.local) {
		buttons = append(buttons, widget.NewButtonWithIcon("Use the local service", theme.ComputerIcon(), func() {
			a.d.Hide()
			u.useLocal()
		}))
	}
	form := widget.NewForm(widget.NewFormItem("Address", a.base), widget.NewFormItem("API key", a.key))
	a.key.OnSubmitted = func(string) { a.save() }
	a.base.OnSubmitted = func(string) { u.win.Canvas().Focus(a.key) }
	content := container.NewVBox(form, envNote, a.result,
		container.NewBorder(nil, nil, container.NewHBox(buttons...), container.NewHBox(cancel, a.saveBtn)))
	a.d = dialog.NewCustomWithoutButtons("Account", content, u.win)
	u.lastAccount = a
	a.d.Resize(fyne.NewSize(560, 0))
	u.showDialog(a.d, a.save)
	if a.base.Text == "" {
		u.win.Canvas().Focus(a.base)
	} else {
		u.win.Canvas().Focus(a.key)
	}
}

// values checks what was typed: an http(s) address, and a key (or one stored for it).
func (a *accountDialog) values() (string, string, error) {
	base := strings.TrimRight(strings.TrimSpace(a.base.Text), "/")
	p, err := url.Parse(base)
	if base == "" || err != nil || p.Host == "" || (p.Scheme != "http" && p.Scheme != "https") {
		if base != "" && !strings.Contains(base, "://") {
			return "", "", fmt.Errorf("The address needs its scheme: https://%s (or http:// for this computer).", base)
		}
		return "", "", errors.New("Enter the service's address, such as https://api.example.com.")
	}
	key := strings.TrimSpace(a.key.Text)
	if key != "" {
		if err := keystore.ValidateKey(key); err != nil {
			return "", "", fmt.Errorf("That is not a usable API key: %v.", err)
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
	a.show("Connecting…", false)
	a.saveBtn.Disable()
	a.testBtn.Disable()
	u := a.u
	go func() {
		k := key
		if k == "" {
			stored, err := u.deps.Secrets.Get(base)
			if err != nil {
				a.u.do(func() { done(nil, "", "Enter the API key: "+phrase(err).text, err) })
				return
			}
			k = stored
		}
		svc, err := u.deps.Connect(base, client.APIKey(k))
		if err == nil {
			ctx, cancel := context.WithTimeout(u.ctx, defaultCallTimeout)
			_, err = svc.ListConversations(ctx, client.ListConversationsRequest{Limit: 1})
			cancel()
		}
		if err != nil {
			a.u.do(func() { done(nil, "", phrase(err).text, err) })
			return
		}
		msg := "Connected to " + svc.BaseURL() + "."
		ctx, cancel := context.WithTimeout(u.ctx, defaultCallTimeout)
		if acc, aerr := svc.Account(ctx); aerr == nil && acc.Balance != nil {
			msg += " Balance: " + points(*acc.Balance) + "."
		}
		cancel()
		a.u.do(func() { done(svc, k, msg, nil) })
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
	u := a.u
	a.reach(func(svc Service, key, msg string, err error) {
		a.saveBtn.Enable()
		a.testBtn.Enable()
		if err != nil {
			a.show(msg, true)
			return
		}
		base := svc.BaseURL()
		go func() {
			serr := u.deps.Secrets.Set(base, key)
			a.u.do(func() {
				if serr != nil && keyringMissing(serr) {
					dialog.ShowConfirm("Keep the key for this session?",
						fmt.Sprintf("The system keyring is not available (%s), so the key cannot be stored. Keep it for this session only? You will be asked again next time.", reasonOf(serr)),
						func(ok bool) {
							if ok {
								a.d.Hide()
								u.rememberRemote(base)
								u.attach(&connection{svc: svc, baseURL: base, sessionKey: true})
							}
						}, u.win)
					return
				}
				if serr != nil {
					a.show("The key works but was not stored: "+phrase(serr).text, true)
					return
				}
				a.d.Hide()
				u.rememberRemote(base)
				u.attach(&connection{svc: svc, baseURL: base})
			})
		}()
	})
}

// rememberRemote makes base the service Parley opens next time.
func (u *UI) rememberRemote(base string) {
	u.prefs.useRemote(base)
}

// reasonOf says why the keyring is unavailable.
func reasonOf(err error) string {
	var ue *keystore.UnavailableError
	if errors.As(err, &ue) {
		return ue.Reason.String()
	}
	return "it failed"
}
