package app

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"parley/client"
	"parley/conversation/conversationtest"
	"parley/internal/explain"
)

// composerWindow is the window as the composer sees it, recording what it was asked.
type composerWindow struct {
	sent    []string
	focused int
	escaped int
}

func (w *composerWindow) send(text string) int64 {
	w.sent = append(w.sent, text)
	return int64(len(w.sent))
}
func (w *composerWindow) focusComposer() { w.focused++ }
func (w *composerWindow) escape()        { w.escaped++ }

// composerVoice is push-to-talk as the composer's buttons see it.
type composerVoice struct{ toggled, finished, cancelled, stopped int }

func (v *composerVoice) Toggle()          { v.toggled++ }
func (v *composerVoice) FinishRecording() { v.finished++ }
func (v *composerVoice) CancelRecording() { v.cancelled++ }
func (v *composerVoice) StopSpeaking()    { v.stopped++ }

// The composer on its own, over fakes of the window and push-to-talk: Enter sends the text
// trimmed and empties the entry, a blank message is not sent, Escape goes to the window, and
// the microphone and Stop buttons drive push-to-talk.
func TestComposer_SendsTrimmedTextAndDrivesPushToTalk(t *testing.T) {
	test.NewTempApp(t)
	w, v := &composerWindow{}, &composerVoice{}
	c := newComposer(w, v)
	test.NewTempWindow(t, c.object())

	test.Type(c.entry, "  ahoy  ")
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) // nothing left to send
	if len(w.sent) != 1 || w.sent[0] != "ahoy" || c.text() != "" || w.focused == 0 {
		t.Errorf("sent %q, composer %q, focused %d times; want one \"ahoy\", an empty entry and the focus kept", w.sent, c.text(), w.focused)
	}
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.escaped != 1 {
		t.Errorf("Escape reached the window %d times, want 1", w.escaped)
	}
	test.Tap(c.mic)
	c.showStop(true)
	test.Tap(c.stop)
	if v.toggled != 1 || v.stopped != 1 {
		t.Errorf("microphone toggled push-to-talk %d times, Stop stopped speech %d times; want 1 and 1", v.toggled, v.stopped)
	}
}

// countingApp is a test app whose driver keeps every text measured, by the composer and by
// Fyne's Entry alike (fyne.MeasureText asks the driver).
type countingApp struct {
	fyne.App
	driver *countingDriver
}

func (a *countingApp) Driver() fyne.Driver { return a.driver }

type countingDriver struct {
	fyne.Driver
	measured []string
}

func (d *countingDriver) RenderedTextSize(text string, size float32, style fyne.TextStyle, source fyne.Resource) (fyne.Size, float32) {
	d.measured = append(d.measured, text)
	return d.Driver.RenderedTextSize(text, size, style, source)
}

// newCountingApp makes a counting test app the current one.
func newCountingApp(t *testing.T) *countingDriver {
	t.Helper()
	a := test.NewTempApp(t)
	d := &countingDriver{Driver: a.Driver()}
	fyne.SetCurrentApp(&countingApp{App: a, driver: d})
	return d
}

// prose is n characters of one paragraph (lines: of lines of about 64 characters).
func prose(n int, lines bool) string {
	sep := " "
	if lines {
		sep = ".\n"
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("the tide turns at six and the wind is from the west force four" + sep)
	}
	return b.String()[:n]
}

// A key typed at the end of a 50,000-character paragraph in the message box, or at the start
// of its last row, wraps the text near the key only: what is measured, besides the sizes of the
// rows laid out (which Fyne keeps), is a few rows' worth. Fyne's Entry wrapped all of it again
// three times a key (its update, its renderer's refresh and its text's refresh: 4.4 million
// characters measured), and the composer converted and measured the paragraph to count its
// rows. (Among short lines a row is a line, measured whole, so only a paragraph tells.)
func TestComposer_KeyIn50KBWrapsNotTheWholeText(t *testing.T) {
	d := newCountingApp(t)
	c := newComposer(&composerWindow{}, &composerVoice{})
	w := test.NewTempWindow(t, c.object())
	w.Resize(fyne.NewSize(700, 400))
	c.setText(prose(50000, false))
	w.Canvas().Focus(c.entry)
	for _, at := range []struct {
		name string
		move func()
	}{
		{"end", func() {}},
		{"start of the last row", func() { c.entry.CursorColumn = 0 }},
		{"end again", func() { c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd}) }},
	} {
		at.move()
		d.measured = nil
		c.entry.TypedRune('x')
		rows := map[string]bool{}
		for _, o := range test.LaidOutObjects(c.entry) {
			if tx, ok := o.(*canvas.Text); ok {
				rows[tx.Text] = true
			}
		}
		wrapped := 0
		for _, s := range d.measured {
			if !rows[s] {
				wrapped += utf8.RuneCountInString(s)
			}
		}
		if limit := 5000; wrapped > limit {
			t.Errorf("a key at the %s: %d characters measured to wrap, want at most %d", at.name, wrapped, limit)
		}
	}
	if n := utf8.RuneCountInString(c.text()); n != 50003 || c.rows != maxComposerRows {
		t.Errorf("the box holds %d characters in %d rows, want 50,003 in %d", n, c.rows, maxComposerRows)
	}
}

// The rows of a long line are counted as the entry wraps it, measuring its beginning only: up
// to the 8 rows the box grows to, and a paragraph typed on keeps them without measuring again.
func TestComposer_CountsTheRowsOfLongLines(t *testing.T) {
	test.NewTempApp(t)
	c := newComposer(&composerWindow{}, &composerVoice{})
	w := test.NewTempWindow(t, c.object())
	w.Resize(fyne.NewSize(700, 400))
	for _, n := range []int{900, 1030, 2100, 50000} {
		text := prose(n, false)
		var rc rowCounter
		got := rc.count(text, c.entry.wrapWidth(), 40)
		c.entry.SetMinRowsVisible(40)
		c.entry.SetText(text)
		if want := min(textRows(t, c.entry), 40); got != want {
			t.Errorf("%d characters: counted %d rows, the entry has %d", n, got, want)
		}
		measured := 0
		rc.measure = func(r []rune) float32 {
			measured += len(r)
			return fyne.MeasureText(string(r), theme.TextSize(), fyne.TextStyle{}).Width
		}
		rc.count(text+" and more", c.entry.wrapWidth(), 40)
		if got >= 40 && measured > 0 {
			t.Errorf("%d characters: typing on measured %d characters again", n, measured)
		}
	}
}

// Over the service's limit, the line under the box says by how much, in characters as the
// service counts them (code points of the trimmed text: é is one), Send is disabled, and Enter
// sends nothing but says why; back under it, the line goes and the message is sent.
func TestComposer_OverTheLimitSaysSoAndDoesNotSend(t *testing.T) {
	test.NewTempApp(t)
	win := &composerWindow{}
	c := newComposer(win, &composerVoice{})
	test.NewTempWindow(t, c.object())
	c.setLimit(referenceMessageLimit)

	c.setText(strings.Repeat("é", 32000) + "  \n ")
	if c.length.Visible() || c.send.Disabled() {
		t.Errorf("32,000 characters and blanks: the line shows %q, Send disabled %v; want neither", c.length.Text, c.send.Disabled())
	}
	c.setText(prose(32411, false) + ".")
	if want := "32,412 characters: 412 over the service's limit of 32,000"; !c.length.Visible() || c.length.Text != want || !c.send.Disabled() {
		t.Errorf("32,412 characters: the line shows %v %q, Send disabled %v; want %q and Send disabled", c.length.Visible(), c.length.Text, c.send.Disabled(), want)
	}
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	test.Tap(c.send)
	if len(win.sent) != 0 || c.notice.Hidden || !strings.Contains(c.noticeText.Text, "412 characters over the service's limit") {
		t.Errorf("Enter and Send over the limit: sent %d, notice %q; want nothing sent and why", len(win.sent), c.noticeText.Text)
	}
	c.entry.TypedRune('x')
	if want := "32,413 characters: 413 over the service's limit of 32,000"; c.length.Text != want {
		t.Errorf("a key typed: the line shows %q, want %q", c.length.Text, want)
	}
	c.setText(prose(31999, false) + ".")
	if c.length.Visible() || c.send.Disabled() {
		t.Errorf("shortened to 32,000: the line shows %q, Send disabled %v", c.length.Text, c.send.Disabled())
	}
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(win.sent) != 1 || messageLength(win.sent[0]) != 32000 {
		t.Errorf("shortened: sent %d messages, want the one of 32,000 characters", len(win.sent))
	}
}

// The limit is known for the built-in service and for a service whose account answer names its
// chat engine (the reference service's extension); another service's is not, and a long
// message goes to it (its refusal may then name its limit).
func TestComposer_LimitOfTheServiceInUse(t *testing.T) {
	h := start(t, newFakeService())
	if h.u.main.composer.limit != 0 {
		t.Errorf("a service that says nothing of itself: limit %d, want none", h.u.main.composer.limit)
	}
	h.u.attach(&connection{svc: newFakeService(), baseURL: "http://127.0.0.1:1", local: true})
	if h.u.main.composer.limit != referenceMessageLimit {
		t.Errorf("the built-in service: limit %d, want %d", h.u.main.composer.limit, referenceMessageLimit)
	}
	ref := &namedEngine{Service: newFakeService()}
	h.u.attach(&connection{svc: ref, baseURL: ref.BaseURL()})
	h.waitFor(func() bool { return h.u.main.composer.limit == referenceMessageLimit })
}

// namedEngine is the scripted service with an account answer that names its chat engine, as
// the reference service's does.
type namedEngine struct{ *conversationtest.Service }

func (s *namedEngine) Account(ctx context.Context) (*client.Account, error) {
	a, err := s.Service.Account(ctx)
	if a != nil {
		a.ChatEngine = "the offline responder"
	}
	return a, err
}

// The limit used is the reference service's, as docs/API.md states it.
func TestComposer_ReferenceLimitIsTheDocumentedOne(t *testing.T) {
	doc, err := os.ReadFile("../docs/API.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("| `message` | 1 to %s characters (Unicode code points), not blank |", explain.Number(referenceMessageLimit))
	if !strings.Contains(string(doc), want) {
		t.Errorf("docs/API.md does not say %q", want)
	}
}

// tooLongRefusal is the reference service's answer to a message over its limit.
var tooLongRefusal = &client.Error{StatusCode: http.StatusUnprocessableEntity, Code: "out_of_range", Message: "The message is longer than 32000 characters."}

func TestRefusedAsTooLong(t *testing.T) {
	for _, c := range []struct {
		err   error
		limit int
		ok    bool
	}{
		{tooLongRefusal, 32000, true},
		{fmt.Errorf("POST /v1/chat/messages: %w", &client.Error{StatusCode: 400, Message: "Message too long: 50,000 characters, at most 4,096 characters"}), 4096, true},
		{&client.Error{StatusCode: http.StatusRequestEntityTooLarge, Code: "body_too_large", Message: "The request body is larger than the service accepts (16777216 bytes)."}, 0, true},
		{&client.Error{StatusCode: 422, Code: "out_of_range", Message: "The message is empty."}, 0, false},
		{&client.Error{StatusCode: 422, Code: "out_of_range", Message: "max_tokens is out of range (1 to 32768)."}, 0, false},
		{&client.Error{StatusCode: 500, Message: "The message is longer than 32000 characters."}, 0, false},
		{errors.New("The message is longer than 32000 characters."), 0, false},
	} {
		limit, ok := refusedAsTooLong(c.err)
		if limit != c.limit || ok != c.ok {
			t.Errorf("%v: %d %v, want %d %v", c.err, limit, ok, c.limit, c.ok)
		}
	}
}

// A message the service refuses as too long is back in the message box as soon as the refusal
// arrives, in one change, and nothing is sent: what was typed while it was on its way follows on
// a line of its own (never glued to it), a message sent behind it comes back too, the refusal's
// limit is shown under the box, and Enter sends nothing. A conversation not on screen gets it
// as its draft.
func TestComposer_RefusedDraftIsRestoredWithoutGluing(t *testing.T) {
	svc := newFakeService()
	svc.Gate = make(chan struct{})
	svc.ChatErrs = []error{tooLongRefusal}
	h := start(t, svc)
	long := prose(50000, false)
	h.u.main.composer.setText(long)
	h.u.main.composer.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	<-svc.Entered
	h.typeAndSend("and the tide tables")
	test.Type(h.u.main.composer.entry, "typed meanwhile")
	svc.Gate <- struct{}{}
	h.waitFor(func() bool { return h.u.main.composer.text() != "typed meanwhile" })

	if want := long + "\nand the tide tables\ntyped meanwhile"; h.u.main.composer.text() != want {
		got := h.u.main.composer.text()
		t.Errorf("the box holds %d characters ending %q, want %d ending %q", len(got), got[max(0, len(got)-40):], len(want), want[len(want)-40:])
	}
	if h.failedShown() || len(h.view().Turns) != 0 {
		t.Errorf("the refused message is still in the conversation: %+v", h.view().Turns)
	}
	c := h.u.main.composer
	if !c.length.Visible() || !strings.Contains(c.length.Text, "over the service's limit of 32,000") || !c.send.Disabled() ||
		c.notice.Hidden || !strings.Contains(c.noticeText.Text, "longer than the service's limit of 32,000 characters") {
		t.Errorf("the line says %q (shown %v), Send disabled %v, the notice %q; want the limit said and Send disabled",
			c.length.Text, c.length.Visible(), c.send.Disabled(), c.noticeText.Text)
	}
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	h.drain()
	if n := len(svc.ChatRequests()); n != 1 {
		t.Errorf("%d chat calls, want the refused one only", n)
	}

	// The same in a conversation left while its message was on its way.
	svc.ChatErrs = []error{tooLongRefusal}
	c.setText(long)
	c.setLimit(0) // as a service whose limit is not known
	c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	<-svc.Entered
	left := h.u.main.current
	h.u.main.newConversation()
	svc.Gate <- struct{}{}
	h.waitFor(func() bool { return h.u.main.drafts[left] != "" })
	if h.u.main.drafts[left] != long || len(h.u.main.sess.Snapshot(left).Turns) != 0 {
		t.Errorf("the conversation left has a draft of %d characters and turns %+v, want the refused message", len(h.u.main.drafts[left]), h.u.main.sess.Snapshot(left).Turns)
	}
}

// shownRows are the rows an entry shows, top to bottom: each row's text (a blank row is "").
func shownRows(e fyne.Widget) []string {
	type row struct {
		y    float32
		text string
	}
	var rows []row
	for _, o := range test.LaidOutObjects(e) {
		if tx, ok := o.(*canvas.Text); ok && tx.Visible() && tx.Color != theme.Color(theme.ColorNamePlaceHolder) {
			rows = append(rows, row{tx.Position().Y, tx.Text})
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].y < rows[j].y })
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.text
	}
	return out
}

// A key typed keeps the rows before it as they were wrapped (third_party/fyne.patch), and the
// rows it shows are those of the whole text wrapped again: a blank line before the paragraph
// being typed stays (it was dropped, and came back at every other key), and so does a long
// paragraph's wrapping before the change.
func TestComposer_KeysKeepTheRowsOfTheWholeText(t *testing.T) {
	test.NewTempApp(t)
	for _, tc := range []struct{ name, text, typed string }{
		{"after a blank line", "Hi,\n\n", "Thanks"},
		{"after two blank lines", "Hi,\n\n\n", "T"},
		{"in a long paragraph", prose(2000, false) + "\n\n" + prose(600, false), " and more"},
	} {
		c := newComposer(&composerWindow{}, &composerVoice{})
		w := test.NewTempWindow(t, c.object())
		w.Resize(fyne.NewSize(700, 400))
		c.setText(tc.text)
		w.Canvas().Focus(c.entry)
		c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
		c.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
		for _, r := range tc.typed {
			c.entry.TypedRune(r)
		}
		typed := shownRows(c.entry)

		fresh := newComposer(&composerWindow{}, &composerVoice{})
		fw := test.NewTempWindow(t, fresh.object())
		fw.Resize(fyne.NewSize(700, 400))
		fresh.setText(c.text())
		want := shownRows(fresh.entry)
		if c.text() != tc.text+tc.typed || strings.Join(typed, "|") != strings.Join(want, "|") {
			t.Errorf("%s: typed %q into %q, the box shows the rows\n%q\nwhere the text wrapped anew shows\n%q", tc.name, tc.typed, tc.text, typed, want)
		}
	}
}
