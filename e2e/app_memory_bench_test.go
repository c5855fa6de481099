package e2e

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"parley/internal/testenv"
)

// BenchmarkApp_Memory measures, under Xvfb against the real service, the app's resident memory
// after 20, 100 and 200 turns typed into one conversation (rss-N-MB; anon-N-MB is the part that
// is not a file mapped, which varies less between runs), beside a bare Fyne window (Fyne as
// published, a label) measured in the same run; and what the turns from 100 to 200 cost each
// (per-turn-KB), beside the text those turns hold (text-per-turn-B: question and reply). Every
// reading is taken after the app has been left alone for settle, so that what Fyne keeps for a
// minute after drawing it (textures, measured strings) has had time to go; the bare window is
// read after as long. Run it with -benchtime 1x; it types 200 turns and takes about 6 minutes.
func BenchmarkApp_Memory(b *testing.B) {
	testenv.RequireCommands(b, "xdotool", "tesseract")
	d := testenv.StartDisplay(b)
	testenv.StartSessionBus(b)
	s := startService(b)
	key := s.newKey(b, 100000)
	env := s.env("PARLEY_API_KEY=" + key)
	stock := stockBareWindow(b)
	const settle = 70 * time.Second
	thisBin, beforeBin, beforeFyne := beforeBuilds(b)
	var beforeStock string
	if beforeFyne != "" {
		beforeStock = stockBareWindowOn(b, beforeFyne)
	}
	for i := 0; i < b.N; i++ {
		bare := func(stock string) int {
			cmd, _ := launch(b, d, stock, "Bare", os.Environ())
			time.Sleep(settle) // as long alone as the app before each reading
			kb := residentKB(b, cmd.Process.Pid)
			stop(cmd)
			return kb
		}
		bareKB := bare(stock)
		b.ReportMetric(float64(bareKB)/1024, "bare-rss-MB")
		beforeBareKB := bareKB
		if beforeStock != "" {
			beforeBareKB = bare(beforeStock)
			b.ReportMetric(float64(beforeBareKB)/1024, "before-bare-rss-MB")
		}
		memoryTurns(b, d, thisBin, env, bareKB, settle, "")
		if beforeBin != "" {
			// An account of its own, so that its turns are counted in its own conversation.
			env := s.env("PARLEY_API_KEY=" + s.newKey(b, 100000))
			memoryTurns(b, d, beforeBin, env, beforeBareKB, settle, "before-")
		}
	}
}

// memoryTurns types the 200 turns of BenchmarkApp_Memory into the app built as bin, its metrics
// named with prefix.
func memoryTurns(b *testing.B, d *testenv.Display, bin string, env []string, bareKB int, settle time.Duration, prefix string) {
	b.Helper()
	app, _ := launch(b, d, bin, "Parley", env)
	d.WaitForText(b, "What's on your mind?", 30*time.Second)
	at, anon := map[int]int{}, map[int]int{}
	typeTurns(b, d, env, tidesTurn, 200, []int{20, 100, 200}, settle, func(turn int) {
		at[turn] = residentKB(b, app.Process.Pid)
		anon[turn] = statusKB(b, app.Process.Pid, "RssAnon")
	})
	text := 0
	r := run(b, env, "", "conversations", "--json")
	for _, m := range history(b, env, firstID(r.Stdout)).Messages[200:] {
		text += len(m.Content)
	}
	stop(app)
	for _, turn := range []int{20, 100, 200} {
		b.ReportMetric(float64(at[turn])/1024, prefix+"rss-"+strconv.Itoa(turn)+"-MB")
		// The binary's pages count in the resident figure as the page cache holds them: the same
		// binary, used the same way, was 23.0 or 26.3 MB of it in two runs. The process's own
		// memory does not vary so.
		b.ReportMetric(float64(anon[turn])/1024, prefix+"anon-"+strconv.Itoa(turn)+"-MB")
	}
	b.ReportMetric(float64(at[200])/float64(bareKB), prefix+"rss-200-ratio")
	b.ReportMetric(float64(at[200]-at[100])/100, prefix+"per-turn-KB")
	b.ReportMetric(float64(text)/100, prefix+"text-per-turn-B")
}

// tidesTurn is the question typeTurns types at each turn when nothing else is asked for.
const tidesTurn = "Turn number %d about the tides"

// typeTurns types turns 1 to last into the app shown on d (question, with the turn's number for
// its %d), each one's reply waited for in the service's history; after each turn of marks it
// leaves the app alone for settle, then calls read (when not nil).
func typeTurns(b *testing.B, d *testenv.Display, env []string, question string, last int, marks []int, settle time.Duration, read func(turn int)) {
	b.Helper()
	for turn := 1; turn <= last; turn++ {
		d.Type(b, fmt.Sprintf(question, turn))
		d.Key(b, "Return")
		waitMessages(b, env, 2*turn)
		if slices.Contains(marks, turn) {
			time.Sleep(settle)
			if read != nil {
				read(turn)
			}
		}
	}
}
