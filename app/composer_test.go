package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
)

// composerWindow is the window as the composer sees it, recording what it was asked.
type composerWindow struct {
	sent    []string
	focused int
	escaped int
}

func (w *composerWindow) send(text string) { w.sent = append(w.sent, text) }
func (w *composerWindow) focusComposer()   { w.focused++ }
func (w *composerWindow) escape()          { w.escaped++ }

// composerVoice is push-to-talk as the composer's buttons see it.
type composerVoice struct{ toggled, finished, cancelled, stopped int }

func (v *composerVoice) toggle()          { v.toggled++ }
func (v *composerVoice) finishRecording() { v.finished++ }
func (v *composerVoice) cancelRecording() { v.cancelled++ }
func (v *composerVoice) stopSpeaking()    { v.stopped++ }

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
