package app

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"parley/app/chatview"
	"parley/client"
	"parley/conversation"
	"parley/conversation/conversationtest"
	"parley/internal/testenv"
)

// BenchmarkOpenConversation5000 opens a 5,000-message conversation and paints the first frame:
// the rows, their estimated heights, the list, the visible bubbles measured, and a frame drawn
// by the test driver's software painter.
func BenchmarkOpenConversation5000(b *testing.B) {
	svc := newFakeService()
	id := conversationtest.ID("long")
	svc.Histories["long"] = &client.History{ConversationID: id, Messages: conversationtest.LongConversation(5000)}
	h := start(b, svc)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.u.main.newConversation()
		h.u.main.sess.Close()
		h.u.main.sess = newSessionFor(h) // a fresh session: the history is read again, as on a first open
		h.u.main.open(id)
		h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 5000 })
		h.u.win.Canvas().Capture()
	}
}

// BenchmarkSidebar10000 builds the list of 10,000 conversations and paints it.
func BenchmarkSidebar10000(b *testing.B) {
	svc := newFakeService()
	for i := 0; i < 10000; i++ {
		svc.List = append(svc.List, client.Conversation{ID: conversationtest.ID(fmt.Sprintf("c%05d", i)), Title: fmt.Sprintf("Conversation number %d about the sea", i),
			UpdatedAt: time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Minute)})
	}
	h := start(b, svc)
	h.waitFor(func() bool { return len(h.u.main.sidebar.items) == 10000 })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := newSidebar(h.u.main, h.u.main.sess, h.u.win.Canvas(), h.u.deps.Now, h.u.do)
		s.refresh()
		w := test.NewWindow(s.object())
		w.Resize(fyne.NewSize(270, 700))
		w.Canvas().Capture()
		w.Close()
	}
}

// newSessionFor starts a fresh session on the harness's service, wired like attach wires one.
func newSessionFor(h *harness) *conversation.Session {
	return conversation.NewSession(h.svc, func(ch conversation.Change) { h.u.do(func() { h.u.main.apply(ch) }) })
}

// BenchmarkTwentyTurns sends 20 messages and renders each reply, as a person chatting would.
func BenchmarkTwentyTurns(b *testing.B) {
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		h := start(b, newFakeService())
		b.StartTimer()
		for turn := 1; turn <= 20; turn++ {
			h.typeAndSend(fmt.Sprintf("Turn number %d about the tides", turn))
			h.waitFor(func() bool { return h.shown(chatview.RowMessage) == 2*turn })
			h.u.win.Canvas().Capture()
		}
	}
}

// BenchmarkRichReply shows a conversation whose reply has 10,000 characters, 3 code blocks and
// a table of 50 rows in the window (1000×700): the reply parsed, laid out and drawn, first
// frame included (the test driver's software painter). Each round has a reply not seen before.
//
// The window's own first frame (sidebar, header, composer, a one-line reply) is measured beside
// it, as "window": the reply's share is the difference.
func BenchmarkRichReply(b *testing.B) {
	b.Run("window", func(b *testing.B) { benchmarkReply(b, "Aye.") })
	b.Run("reply", func(b *testing.B) { benchmarkReply(b, testenv.RichReply()) })
}

func benchmarkReply(b *testing.B, md string) {
	h := start(b, newFakeService())
	b.ReportMetric(float64(len(md)), "chars")
	t0 := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	var build, frame time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v := conversation.ThreadView{Messages: []conversation.Message{
			{Role: conversation.User, Text: "Plan the passage", At: t0},
			{Role: conversation.Assistant, Text: fmt.Sprintf("%s\n\nRound %d.", md, i), At: t0},
		}}
		start := time.Now()
		h.u.main.chat.ShowThread(v)
		h.drain()
		built := time.Now()
		h.u.win.Canvas().Capture()
		build += built.Sub(start)
		frame += time.Since(built)
	}
	b.ReportMetric(float64(build.Microseconds())/1000/float64(b.N), "build-ms")
	b.ReportMetric(float64(frame.Microseconds())/1000/float64(b.N), "frame-ms")
}

// drain runs the window's queued updates.
func (h *harness) drain() {
	for {
		select {
		case fn := <-h.queue:
			fn()
		default:
			return
		}
	}
}

// BenchmarkTypeInLongDraft types one character at the end of a 10,000-character draft of one
// paragraph and paints the frame, as a person typing a long message does.
func BenchmarkTypeInLongDraft(b *testing.B) {
	h := start(b, newFakeService())
	h.u.main.newConversation()
	var sb strings.Builder
	for sb.Len() < 10000 {
		sb.WriteString("the tide turns at six and the wind is from the west force four ")
	}
	h.u.main.composer.setText(sb.String())
	h.u.focusComposer()
	h.u.win.Canvas().Capture()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.u.main.composer.entry.TypedRune('a')
		h.u.win.Canvas().Capture()
	}
}

// BenchmarkComposer_KeyAt50KB types one character at the end of a 50,000-character draft in
// the message box of the 1000×700 window (the entry's work and every handler of its text; no
// frame drawn: the test driver's software painter is not the app's).
func BenchmarkComposer_KeyAt50KB(b *testing.B) {
	for _, shape := range []string{"paragraph", "lines"} {
		b.Run(shape, func(b *testing.B) {
			h := start(b, newFakeService())
			h.u.main.newConversation()
			h.u.main.composer.setText(prose(50000, shape == "lines"))
			h.u.focusComposer()
			h.u.win.Canvas().Capture()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h.u.main.composer.entry.TypedRune('a')
			}
		})
	}
}

// BenchmarkComposer_Paste50KB pastes 50,000 characters into the empty message box.
func BenchmarkComposer_Paste50KB(b *testing.B) {
	for _, shape := range []string{"paragraph", "lines"} {
		b.Run(shape, func(b *testing.B) {
			h := start(b, newFakeService())
			h.u.main.newConversation()
			h.u.focusComposer()
			text := prose(50000, shape == "lines")
			h.u.win.Canvas().Capture()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				h.u.main.composer.setText("")
				b.StartTimer()
				h.u.main.composer.entry.TypedShortcut(&fyne.ShortcutPaste{Clipboard: textClipboard(text)})
			}
		})
	}
}

// BenchmarkStreamedReplyFrames shows a reply of 10,000 characters (about 2,500 tokens), with 3
// code blocks and a table of 50 rows, growing as a streamed reply does in the window (1000×700):
// each step adds 20 tokens (what the window is told every 50 ms at 400 tokens a second) and is
// rendered (build: the rows, the Markdown, the layout) and painted by the test driver's software
// painter (paint, which is most of a step here and much less under a GPU or Xvfb's llvmpipe:
// BenchmarkApp_StreamedReply in e2e measures the window itself). It reports the median and 95th
// percentile of each.
func BenchmarkStreamedReplyFrames(b *testing.B) {
	h := start(b, newFakeService())
	reply := testenv.RichReply()
	var ends []int // where each step ends: 20 tokens of about 4 bytes
	for i := 80; i < len(reply); i += 80 {
		ends = append(ends, i)
	}
	ends = append(ends, len(reply))
	t0 := time.Date(2026, 11, 23, 14, 0, 0, 0, time.UTC)
	var builds, paints []time.Duration
	for b.Loop() {
		turn := conversation.Turn{Key: 1, Text: "Plan the passage", At: t0, State: conversation.Sending}
		h.u.main.chat.ShowThread(conversation.ThreadView{Turns: []conversation.Turn{turn}})
		h.drain()
		for _, end := range ends {
			turn.Partial = reply[:end]
			start := time.Now()
			h.u.main.chat.Render(conversation.ThreadView{Turns: []conversation.Turn{turn}})
			h.drain()
			built := time.Now()
			h.u.win.Canvas().Capture()
			builds = append(builds, built.Sub(start))
			paints = append(paints, time.Since(built))
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"build", builds}, {"paint", paints}} {
		slices.Sort(m.ds)
		b.ReportMetric(ms(m.ds[len(m.ds)/2]), m.name+"-median-ms")
		b.ReportMetric(ms(m.ds[len(m.ds)*95/100]), m.name+"-p95-ms")
	}
	b.ReportMetric(float64(len(ends)), "steps")
}
