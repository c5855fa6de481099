package chatview

import (
	"image/color"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"parley/conversation"
	"parley/conversation/conversationtest"
)

// askingHost notes what the rows' Edit and Regenerate asked for.
type askingHost struct {
	nopHost
	edited, regenerated []string
}

func (h *askingHost) EditMessage(text string)    { h.edited = append(h.edited, text) }
func (h *askingHost) Regenerate(question string) { h.regenerated = append(h.regenerated, question) }

func exchange(turns ...conversation.Turn) conversation.ThreadView {
	t0 := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	return conversation.ThreadView{ID: conversationtest.ID("c1"), Messages: []conversation.Message{
		{Role: conversation.User, Text: "What is the tide at Dover?", At: t0},
		{Role: conversation.Assistant, Text: "High water at 14:02.", At: t0},
		{Role: conversation.User, Text: "And at Calais?", At: t0},
		{Role: conversation.Assistant, Text: "High water at 15:10.", At: t0},
	}, Turns: turns}
}

// TestChatView_EditAndRegenerate: every message of the person's offers Edit, with its own text;
// only the last reply offers Regenerate, with the question it answers, and not while a message
// waits after it.
func TestChatView_EditAndRegenerate(t *testing.T) {
	h := newViewHarness(t)
	host := &askingHost{}
	h.v.host = host
	h.v.ShowThread(exchange())
	h.drain()
	for i, want := range []struct{ edit, regen bool }{{true, false}, {false, false}, {true, false}, {false, true}} {
		b := h.v.Draw(i)
		if b.Revise().Hidden == want.edit || b.Regenerate().Hidden == want.regen {
			t.Errorf("row %d: Edit shown %v, Regenerate shown %v; want %v, %v", i, !b.Revise().Hidden, !b.Regenerate().Hidden, want.edit, want.regen)
		}
	}
	test.Tap(h.v.Draw(0).Revise())
	test.Tap(h.v.Draw(3).Regenerate())
	if len(host.edited) != 1 || host.edited[0] != "What is the tide at Dover?" || len(host.regenerated) != 1 || host.regenerated[0] != "And at Calais?" {
		t.Fatalf("edited %q, regenerated %q", host.edited, host.regenerated)
	}

	// A message waiting after the last reply: no Regenerate.
	h.v.Render(exchange(conversation.Turn{Key: 1, Text: "And at Ostend?", State: conversation.Sending}))
	h.drain()
	if !h.v.Draw(3).Regenerate().Hidden {
		t.Error("Regenerate is offered while a message waits for its reply")
	}
}

// TestChatView_ReadingColumn: in a wide view the rows are a column in its middle; in a narrow
// one they take its width.
func TestChatView_ReadingColumn(t *testing.T) {
	h := newViewHarness(t)
	h.v.ShowThread(exchange())
	h.drain()
	col := h.v.columnWidth()
	for _, w := range []float32{col - 100, col + 600} {
		b := h.v.Draw(1) // a reply, on the left
		g := b.computeLayout(w)
		left := g.bubble.Pos.X
		want := sidePad + max(0, (w-col)/2)
		if abs32(left-want) > 0.5 {
			t.Errorf("at a width of %v (column %v) the reply starts at %v, want %v", w, col, left, want)
		}
		u := h.v.Draw(2).computeLayout(w) // the person's, on the right
		if right, want := u.bubble.Pos.X+u.bubble.Size.Width, w-sidePad-max(0, (w-col)/2); abs32(right-want) > 0.5 {
			t.Errorf("at a width of %v the person's message ends at %v, want %v", w, right, want)
		}
	}
}

// TestChatView_RestyleMeasuresAgain: after a larger text size, the rows are measured again, and
// taller.
func TestChatView_RestyleMeasuresAgain(t *testing.T) {
	h := newViewHarness(t)
	h.win.Resize(fyne.NewSize(600, 700))
	v := exchange()
	v.Messages[1].Text = strings.Repeat("High water at Dover is at two minutes past two in the afternoon. ", 30)
	h.v.ShowThread(v)
	h.drain()
	before, listed := h.v.Draw(1).heightFor(600), h.v.heights[1]
	col := h.v.columnWidth()
	test.ApplyTheme(t, scaledTheme{1.5})
	h.v.Restyle()
	h.drain()
	if after := h.v.Draw(1).heightFor(600); after < before*1.3 {
		t.Errorf("a reply %v high at 100%% is %v high at 150%%", before, after)
	}
	if h.v.heights[1] < listed*1.3 {
		t.Errorf("the list has the reply %v high at 150%%, as at 100%% (%v)", h.v.heights[1], listed)
	}
	if h.v.columnWidth() < col*1.3 {
		t.Errorf("the reading column stayed %v wide (was %v)", h.v.columnWidth(), col)
	}
}

// scaledTheme is Fyne's theme with its text sizes scaled.
type scaledTheme struct{ scale float32 }

func (s scaledTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	return theme.DefaultTheme().Color(n, v)
}
func (s scaledTheme) Font(st fyne.TextStyle) fyne.Resource    { return theme.DefaultTheme().Font(st) }
func (s scaledTheme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }
func (s scaledTheme) Size(n fyne.ThemeSizeName) float32 {
	if n == theme.SizeNameText || n == theme.SizeNameCaptionText {
		return theme.DefaultTheme().Size(n) * s.scale
	}
	return theme.DefaultTheme().Size(n)
}
