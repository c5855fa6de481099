package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	parleyapp "parley/app"
	"parley/internal/testenv"
)

// newStreamingModel is an OpenAI-compatible model that writes reply in pieces of about four
// bytes (a token), the first after first, then tps a second: streamed when asked to stream, else
// whole once written.
func newStreamingModel(tb testing.TB, reply string, first time.Duration, tps float64) string {
	tb.Helper()
	var pieces []string
	for i := 0; i < len(reply); i += 4 {
		pieces = append(pieces, reply[i:min(i+4, len(reply))])
	}
	every := time.Duration(float64(time.Second) / tps)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Stream bool `json:"stream"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		// A fast model's pieces are sent together, at most every 5 ms, as a runtime's are.
		sleepUntil := func(at time.Time) bool {
			select {
			case <-time.After(time.Until(at)):
				return true
			case <-r.Context().Done():
				return false
			}
		}
		start := time.Now().Add(first)
		if !body.Stream {
			if !sleepUntil(start.Add(every * time.Duration(len(pieces)-1))) {
				return
			}
			b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": reply}}}})
			w.Header().Set("Content-Type", "application/json")
			w.Write(b)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := 0; i < len(pieces); {
			due := start.Add(every * time.Duration(i))
			if !sleepUntil(due) {
				return
			}
			for ; i < len(pieces) && !start.Add(every*time.Duration(i)).After(time.Now().Add(5*time.Millisecond)); i++ {
				d, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"delta": map[string]string{"content": pieces[i]}}}})
				fmt.Fprintf(w, "data: %s\n\n", d)
			}
			rc.Flush()
		}
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	tb.Cleanup(hs.Close)
	return hs.URL
}

// probeLine is a line of the app's probe file (parleyapp.ProbeEnv).
type probeLine struct {
	TimeMS float64 `json:"t_ms"`
	Event  string  `json:"event"`
	MS     float64 `json:"ms"`
}

func readProbe(tb testing.TB, path string) []probeLine {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []probeLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l probeLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// BenchmarkApp_StreamedReply measures, under Xvfb, the app with `parley serve` in front of a model
// that streams its reply, over 3 turns: from Enter to the first text of the reply on screen
// (first-text-ms, the median; first-text-max-ms), and how long the window kept a call waiting
// from Enter until a second after the reply was whole (the window's frame time, near enough:
// ui-wait-p95-ms, ui-wait-max-ms). "laptop" writes 150 tokens at 20 a second after 300 ms, as a
// 3B model on a laptop's CPU; "rich" writes a reply of 10,000 characters (about 2,500 tokens,
// with code blocks and a table of 50 rows) at 400 a second; "rich-at-once" answers with that
// reply whole, as the floor. Run: go test -run '^$' -bench App_StreamedReply -benchtime 1x ./e2e/
func BenchmarkApp_StreamedReply(b *testing.B) {
	short := strings.Join(standInLong(150), " ")
	b.Run("laptop", func(b *testing.B) { benchStreamedReply(b, short, 300*time.Millisecond, 20) })
	b.Run("rich", func(b *testing.B) { benchStreamedReply(b, testenv.RichReply(), 300*time.Millisecond, 400) })
	b.Run("rich-at-once", func(b *testing.B) { benchStreamedReply(b, testenv.RichReply(), 0, 1e9) })
}

func benchStreamedReply(b *testing.B, reply string, first time.Duration, tps float64) {
	testenv.RequireCommands(b, "xdotool", "tesseract")
	d := testenv.StartDisplay(b)
	testenv.StartSessionBus(b)
	var firsts, waits []float64
	for range b.N {
		s := startService(b, "--llm-url", newStreamingModel(b, reply, first, tps), "--llm-model", "m")
		key := s.newKey(b, 1000)
		probe := filepath.Join(b.TempDir(), "probe.jsonl")
		env := s.env("PARLEY_API_KEY="+key, parleyapp.ProbeEnv+"="+probe)
		cmd, _ := launch(b, d, bin, "Parley", env)
		d.WaitForText(b, "What's on your mind?", 30*time.Second)
		typeTurns(b, d, env, "Plan passage %d", 3, []int{1, 2, 3}, time.Second, nil) // a second for the last frame's waits
		stop(cmd)
		// Each turn: from its "sent" to its first "grew" (or "replied"), and the waits until its
		// reply was whole.
		lines := readProbe(b, probe)
		sent, until := -1.0, -1.0
		for _, l := range lines {
			switch l.Event {
			case "sent":
				sent, until = l.TimeMS, 1e18
			case "grew", "replied":
				if sent >= 0 {
					firsts = append(firsts, l.TimeMS-sent)
					sent = -1
				}
				if l.Event == "replied" {
					until = l.TimeMS + 1000
				}
			case "ui_wait":
				if l.TimeMS <= until {
					waits = append(waits, l.MS)
				}
			}
		}
	}
	slices.Sort(firsts)
	slices.Sort(waits)
	if len(firsts) == 0 || len(waits) == 0 {
		b.Fatalf("the probe measured %d turns and %d waits", len(firsts), len(waits))
	}
	b.ReportMetric(firsts[len(firsts)/2], "first-text-ms")
	b.ReportMetric(firsts[len(firsts)-1], "first-text-max-ms")
	b.ReportMetric(waits[len(waits)*95/100], "ui-wait-p95-ms")
	b.ReportMetric(waits[len(waits)-1], "ui-wait-max-ms")
	b.ReportMetric(float64(len(waits)), "waits")
}
