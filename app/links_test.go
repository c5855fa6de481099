package app

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"parley/app/chatview"
)

// TestOpenLink_OnlyWebAndMail checks which links the window opens: web pages and e-mail, and
// never a file, a script or a program's own scheme; the status bar says which.
func TestOpenLink_OnlyWebAndMail(t *testing.T) {
	h := start(t, newFakeService())
	var opened []string
	h.u.deps.openURL = func(u *url.URL) error { opened = append(opened, u.String()); return nil }
	for link, open := range map[string]bool{
		"https://parley.example/a": true, "http://localhost:8080/": true, "mailto:help@parley.example": true,
		"HTTPS://parley.example/b": true, "file:///etc/passwd": false, "javascript:alert(1)": false,
		"parley://x": false, "ftp://x.example/": false, "https:": false, "not a link": false, "": false,
		"mailto:a@parley.example?subject=Hi&attach=/home/me/.ssh/id_rsa": true, "mailto:?attach=/etc/passwd": false,
	} {
		opened = nil
		h.u.openLink(link)
		if got := len(opened) == 1; got != open {
			t.Errorf("openLink(%q) opened %q; want opened=%v", link, opened, open)
		}
		if len(opened) == 1 && strings.Contains(strings.ToLower(opened[0]), "attach") {
			t.Errorf("openLink(%q) opened %q, with its attachment", link, opened[0])
		}
		msg := h.u.main.status.message.Text
		if open && !strings.HasPrefix(msg, "Opened ") || !open && !strings.Contains(msg, "opens only web and e-mail links") {
			t.Errorf("after openLink(%q) the status bar says %q", link, msg)
		}
	}
}

// TestLinkLabel_ShowsTheRealSite: the status bar names a link's site first, in ASCII, and never
// the reply's own title for it.
func TestLinkLabel_ShowsTheRealSite(t *testing.T) {
	for link, want := range map[string]string{
		"https://docs.python.org.evil.example/" + strings.Repeat("a", 300): "Opens docs.python.org.evil.example – ",
		"https://pаypal.example/login":                                     "Opens xn--pypal-4ve.example – ",
		"mailto:help@parley.example?attach=/etc/passwd":                    "E-mail to help@parley.example",
		"javascript:alert(1)":                                              "Not opened by Parley: javascript:alert(1)",
	} {
		if got := linkLabel(link); !strings.HasPrefix(got, want) {
			t.Errorf("linkLabel(%q) = %q, want it to start with %q", link, got, want)
		}
	}
}

// TestApp_SelectionFromTheKeyboard selects in a reply with the mouse, extends it with Shift and
// the arrows, End and Home, copies it with Ctrl+C, and types on: the typing goes to the
// composer.
func TestApp_SelectionFromTheKeyboard(t *testing.T) {
	svc := newFakeService()
	reply := "First line of the answer.\nSecond line, longer than the first one."
	svc.Reply = func(string) string { return reply }
	h := start(t, svc)
	h.typeAndSend("Two lines please")
	h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2 })
	dragOnFirstLine(h.replyShown(reply), reply, 0, 5) // "First"
	if h.u.win.Canvas().Focused() != nil {
		t.Errorf("selecting in a reply left %v with the keyboard", h.u.win.Canvas().Focused())
	}
	h.u.shiftHeld = true
	for _, k := range []fyne.KeyName{fyne.KeyRight, fyne.KeyRight} {
		h.u.typedKey(&fyne.KeyEvent{Name: k})
	}
	if got := h.u.main.chat.SelectedText(); got != "First l" {
		t.Errorf("after Shift+Right twice the selection is %q", got)
	}
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyDown})
	if got := h.u.main.chat.SelectedText(); !strings.HasPrefix(got, "First line of the answer.\nSec") {
		t.Errorf("after Shift+Down the selection is %q", got)
	}
	h.u.typedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
	if got := h.u.main.chat.SelectedText(); got != reply {
		t.Errorf("after Shift+End the selection is %q", got)
	}
	h.u.shiftHeld = false
	typeShortcutOnCanvas(t, h.u.win.Canvas(), &fyne.ShortcutCopy{})
	if got := h.u.app.Clipboard().Content(); got != reply {
		t.Errorf("Ctrl+C copied %q", got)
	}
	test.TypeOnCanvas(h.u.win.Canvas(), "ok")
	if h.u.win.Canvas().Focused() != h.u.main.composer.entry || h.u.main.composer.text() != "ok" {
		t.Errorf("typing after the selection: focus %v, composer %q", h.u.win.Canvas().Focused(), h.u.main.composer.text())
	}
}

// mouseText is text a person selects with the mouse: a reply's, in the chat view.
type mouseText interface {
	fyne.CanvasObject
	desktop.Mouseable
	fyne.Draggable
}

// replyShown is the text of the chat view's row showing text, on screen: what a press and a
// drag of the mouse over it go to.
func (h *harness) replyShown(text string) mouseText {
	h.t.Helper()
	var found mouseText
	eachObject(h.u.win.Content(), func(o fyne.CanvasObject) {
		if x, ok := o.(*chatview.Bubble); ok && x.Row().Text == text {
			eachObject(x, func(o fyne.CanvasObject) {
				if m, ok := o.(mouseText); ok && m.Visible() {
					found = m
				}
			})
		}
	})
	if found == nil {
		h.t.Fatalf("no row shows %q", text)
	}
	return found
}

// dragOnFirstLine selects with the mouse from byte a to byte b of the first line of r, line
// drawn in the body's text style from r's left edge: pressed on the middle of the line, just
// after the edge of each character.
func dragOnFirstLine(r mouseText, line string, a, b int) {
	at := func(i int) fyne.Position {
		size := theme.TextSize()
		return fyne.NewPos(fyne.MeasureText(line[:i], size, fyne.TextStyle{}).Width+0.5, fyne.MeasureText("Hg", size, fyne.TextStyle{}).Height/2)
	}
	from, to := at(a), at(b)
	r.MouseDown(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: from}, Button: desktop.MouseButtonPrimary})
	r.Dragged(&fyne.DragEvent{PointEvent: fyne.PointEvent{Position: to}})
	r.DragEnd()
	r.MouseUp(&desktop.MouseEvent{PointEvent: fyne.PointEvent{Position: to}, Button: desktop.MouseButtonPrimary})
}

// typeShortcutOnCanvas types s on c as the window does when no widget takes it, which runs what
// c.AddShortcut registered. Fyne 2.8's test canvas keeps its shortcuts in the software canvas it
// wraps (its WindowlessCanvas field) and no longer has TypedShortcut itself.
func typeShortcutOnCanvas(t *testing.T, c fyne.Canvas, s fyne.Shortcut) {
	t.Helper()
	if h, ok := c.(fyne.Shortcutable); ok {
		h.TypedShortcut(s)
		return
	}
	v := reflect.ValueOf(c)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("WindowlessCanvas"); f.IsValid() && f.CanInterface() {
			if h, ok := f.Interface().(fyne.Shortcutable); ok {
				h.TypedShortcut(s)
				return
			}
		}
	}
	t.Fatalf("the canvas %T takes no shortcuts", c)
}
