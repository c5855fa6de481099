package app

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// drawnSpan is where a label's text is drawn on the canvas, left and right.
func drawnSpan(l *widget.Label) (left, right float32) {
	d := fyne.CurrentApp().Driver()
	left = d.AbsolutePositionForObject(l).X
	right = left
	for _, o := range test.LaidOutObjects(l) {
		if txt, ok := o.(*canvas.Text); ok && txt.Visible() && txt.Text != "" {
			x := d.AbsolutePositionForObject(txt).X
			right = max(right, x+fyne.MeasureText(txt.Text, txt.TextSize, txt.TextStyle).Width)
		}
	}
	return left, right
}

// TestStatusBar_LongNoticeIsCutNotOverlapped checks that a notice too long for the status bar
// ends in an ellipsis before the voice state, and that the points, which grow after it is
// shown, are never drawn over it.
func TestStatusBar_LongNoticeIsCutNotOverlapped(t *testing.T) {
	h := start(t, newFakeService())
	s := h.u.main.status
	long := "Saved: persona “You are the navigator of a sailing ship, practical and calm”, temperature 1.15, top p 0.87, max tokens 512, and a few more words than fit"
	h.u.flash(long)
	s.setVoice("Voice mode: Listening")
	h.typeAndSend("Where are we?") // the points grow: "Last message: 1 point · Balance: 99 points"
	h.waitFor(func() bool { return strings.Contains(s.points.Text, "Last message") })

	_, pointsEnd := drawnSpan(s.points)
	msgStart, msgEnd := drawnSpan(s.message)
	voiceStart, _ := drawnSpan(s.voice)
	if msgStart < pointsEnd {
		t.Errorf("the notice starts at %v, under the points, which end at %v", msgStart, pointsEnd)
	}
	if msgEnd > voiceStart {
		t.Errorf("the notice ends at %v, under the voice state, which starts at %v", msgEnd, voiceStart)
	}
	var shown string
	for _, o := range test.LaidOutObjects(s.message) {
		if txt, ok := o.(*canvas.Text); ok && txt.Text != "" {
			shown = txt.Text
		}
	}
	if !strings.HasSuffix(shown, "…") || !strings.HasPrefix(long, strings.TrimSuffix(shown, "…")) {
		t.Errorf("the notice shows %q: want its start, cut with an ellipsis", shown)
	}
}
