package app

import (
	"net/url"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
)

// openableSchemes are the links a reply may open: web pages and e-mail. Others (file:, a
// program's own scheme, javascript:) are shown but never opened: a reply is text from a model,
// and a click should not run anything.
var openableSchemes = map[string]bool{"http": true, "https": true, "mailto": true}

// openLink opens a reply's link in the system's browser or mail program.
func (u *UI) openLink(link string) {
	parsed, err := url.Parse(strings.TrimSpace(link))
	if err != nil || !openableSchemes[strings.ToLower(parsed.Scheme)] || parsed.Opaque == "" && parsed.Host == "" && parsed.Scheme != "mailto" {
		u.flash("Parley opens only web and e-mail links (http, https, mailto); this one was not opened: " + shorten(link, 80))
		return
	}
	if err := u.deps.openURL(parsed); err != nil {
		u.flash("The link could not be opened: " + err.Error() + ". Copy it and paste it into your browser.")
		return
	}
	u.flash("Opened " + shorten(link, 80))
}

// hoverLink shows where the link under the pointer leads.
func (u *UI) hoverLink(link, title string) {
	if u.status == nil {
		return
	}
	if link == "" {
		u.status.showLink("")
		return
	}
	where := "Link: " + shorten(link, 120)
	if title != "" {
		where = title + " – " + where
	}
	u.status.showLink(where)
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
		if u.chat == nil {
			return
		}
		if text := u.chat.selectedText(); text != "" {
			u.copyText(text)
		}
	})
	c.AddShortcut(&fyne.ShortcutSelectAll{}, func(fyne.Shortcut) {
		if u.chat != nil {
			u.chat.selectAll()
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
		if u.composer == nil || u.closeDialog != nil {
			return
		}
		u.focusComposer()
		u.composer.entry.TypedRune(r)
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
