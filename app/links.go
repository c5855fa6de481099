package app

import (
	"fmt"
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/lang"
	"golang.org/x/net/idna"
)

// openLink opens a reply's link in the system's browser or mail program. Only web pages and
// e-mail are opened: a reply is text from a model, and a click should not run anything (file:,
// javascript:, a program's own scheme).
func (u *UI) openLink(link string) {
	target, ok := safeLink(link)
	if !ok {
		u.flash(fmt.Sprintf(lang.L("Parley opens only web and e-mail links (http, https, mailto); this one was not opened: %s"), shorten(link, 80)))
		return
	}
	if err := u.deps.openURL(target); err != nil {
		u.flash(fmt.Sprintf(lang.L("The link could not be opened: %s. Copy it and paste it into your browser."), err.Error()))
		return
	}
	u.flash(fmt.Sprintf(lang.L("Opened %s"), shorten(target.String(), 80)))
}

// safeLink is what a reply's link may open: an http or https address with a host, or a mailto
// address with only a subject, a body and copies (an "attach=" in a mailto link asks some mail
// programs to attach a file of this computer).
func safeLink(link string) (*url.URL, bool) {
	parsed, err := url.Parse(strings.TrimSpace(link))
	if err != nil {
		return nil, false
	}
	switch strings.ToLower(parsed.Scheme) {
	case "http", "https":
		return parsed, parsed.Host != ""
	case "mailto":
		to := parsed.Opaque
		if to == "" || strings.ContainsAny(to, "?&") {
			return nil, false
		}
		q := url.Values{}
		for k, v := range parsed.Query() {
			switch strings.ToLower(k) {
			case "subject", "body", "cc", "bcc":
				q[strings.ToLower(k)] = v
			}
		}
		return &url.URL{Scheme: "mailto", Opaque: to, RawQuery: q.Encode()}, true
	}
	return nil, false
}

// hoverLink shows where the link under the pointer leads: its site first (in ASCII, so that a
// look-alike letter shows), then the address. A link's title is the reply's text, not shown.
func (m *mainWindow) hoverLink(link, _ string) {
	m.status.showLink(linkLabel(link))
}

// linkLabel says where a link leads, for the status bar ("" for none).
func linkLabel(link string) string {
	if link == "" {
		return ""
	}
	target, ok := safeLink(link)
	if !ok {
		return fmt.Sprintf(lang.L("Not opened by Parley: %s"), shorten(link, 100))
	}
	if target.Scheme == "mailto" {
		return fmt.Sprintf(lang.L("E-mail to %s"), shorten(target.Opaque, 100))
	}
	host := target.Hostname()
	if a, err := idna.ToASCII(host); err == nil {
		host = a
	}
	return fmt.Sprintf(lang.L("Opens %s – %s"), host, shorten(target.String(), 100))
}

// selecting gives the keyboard to the chat view's selection: nothing keeps the focus, so
// Ctrl+C and Ctrl+A reach the window's shortcuts, and typing goes back to the composer.
func (u *UI) selecting() {
	if f := u.win.Canvas().Focused(); f != nil {
		u.win.Canvas().Unfocus()
	}
}

// watchSelectionKeys makes Ctrl+C copy the chat view's selection, Ctrl+A select the whole
// message and Shift with the arrows, Home and End extend it, when no field has the keyboard;
// typing then goes to the composer.
func (u *UI) watchSelectionKeys() {
	c := u.win.Canvas()
	c.AddShortcut(&fyne.ShortcutCopy{}, func(fyne.Shortcut) {
		if u.main == nil || u.topDialog() != nil {
			return
		}
		if text := u.main.chat.SelectedText(); text != "" {
			u.copyText(text)
		}
	})
	c.AddShortcut(&fyne.ShortcutSelectAll{}, func(fyne.Shortcut) {
		if u.main != nil && u.topDialog() == nil {
			u.main.chat.SelectAll()
		}
	})
	if dc, ok := c.(desktop.Canvas); ok {
		dc.SetOnKeyDown(func(ev *fyne.KeyEvent) {
			if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
				u.shiftHeld = true
			}
		})
		dc.SetOnKeyUp(func(ev *fyne.KeyEvent) {
			if ev.Name == desktop.KeyShiftLeft || ev.Name == desktop.KeyShiftRight {
				u.shiftHeld = false
			}
		})
	}
	c.SetOnTypedRune(func(r rune) {
		m := u.main
		if m == nil || u.closeDialog != nil || u.dialogClosing {
			return
		}
		m.focusComposer()
		m.composer.entry.Entry.TypedRune(r) // its key went down with no widget focused: a real character
	})
}

// shorten cuts s to at most n runes, with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
