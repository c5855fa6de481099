package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/media"
	"parley/server/speech"
	"parley/server/store"
)

// bulkTurns appends turns (a user message and a reply, both text) to a
// conversation with one SQL statement on the database file, much faster than
// a chat call each; the ledger does not see them.
func bulkTurns(t testing.TB, path, conv string, turns int, text string) {
	t.Helper()
	db := openRaw(t, path, 10*time.Second)
	_, err := db.ExecContext(t.Context(), `
		WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
		INSERT INTO messages (conversation_id, role, content, created_at)
		SELECT ?, CASE i % 2 WHEN 1 THEN 'user' ELSE 'assistant' END, ?, ? FROM n`,
		2*turns, conv, text, time.Now().UnixMilli())
	if err != nil {
		t.Fatal(err)
	}
	// Move the pages into the database file now, not in the first write
	// of what is measured.
	if _, err := db.ExecContext(t.Context(), "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
}

// loadFixture is a service over a real SQLite file, one account with a huge
// conversation in it, and the HTTP client of the load.
type loadFixture struct {
	st      *store.Store
	base    string
	hc      *http.Client
	bigKey  string
	bigConv string
}

// newLoadFixture starts a service (offline responder, stt as its speech
// engine) whose database holds a conversation of turns turns of text.
func newLoadFixture(b *testing.B, turns int, text string, stt speech.Transcriber, conns int) *loadFixture {
	b.Helper()
	path := filepath.Join(b.TempDir(), "parley.db")
	st, err := store.Open(b.Context(), path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	s, err := New(Config{Store: st, STT: stt, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	b.Cleanup(hs.Close)
	key, acct, err := st.CreateKey(b.Context(), 1<<40)
	if err != nil {
		b.Fatal(err)
	}
	conv := addTurns(b, st, acct.ID, "", 1, "The start of a long conversation.")
	bulkTurns(b, path, conv, turns, text)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	b.Cleanup(hc.CloseIdleConnections)
	return &loadFixture{st: st, base: hs.URL, hc: hc, bigKey: key, bigConv: conv}
}

// newKey makes a funded key.
func (f *loadFixture) newKey(b *testing.B) string {
	b.Helper()
	key, _, err := f.st.CreateKey(b.Context(), 1<<40)
	if err != nil {
		b.Fatal(err)
	}
	return key
}

// latencies collects the durations of one kind of call.
type latencies struct {
	mu  sync.Mutex
	all []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.all = append(l.all, d)
	l.mu.Unlock()
}

// report adds p50 and p99 (in ms) of the calls to the benchmark's metrics,
// named after what.
func (l *latencies) report(b *testing.B, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.all) == 0 {
		return
	}
	slices.Sort(l.all)
	b.ReportMetric(ms(l.all[len(l.all)/2]), what+"_p50_ms")
	b.ReportMetric(ms(l.all[min(len(l.all)-1, len(l.all)*99/100)]), what+"_p99_ms")
}

// post sends a JSON body and fails the benchmark unless the answer is 200.
func (f *loadFixture) post(b *testing.B, key, path string, body []byte) []byte {
	req, _ := http.NewRequest("POST", f.base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	return f.send(b, req)
}

func (f *loadFixture) send(b *testing.B, req *http.Request) []byte {
	resp, err := f.hc.Do(req)
	if err != nil {
		b.Error(err)
		return nil
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		b.Errorf("%s %s: status %d %v: %s", req.Method, req.URL.Path, resp.StatusCode, err, truncate(string(raw), 200))
	}
	return raw
}

// chatTurn sends one chat turn and returns the conversation ID.
func (f *loadFixture) chatTurn(b *testing.B, key, conv string, turn int) string {
	body := map[string]any{"message": fmt.Sprintf("Turn %d: tell me about the harbour lights", turn)}
	if conv != "" {
		body["conversation_id"] = conv
	}
	j, _ := json.Marshal(body)
	var out struct {
		Data struct {
			ConversationID string `json:"conversation_id"`
		} `json:"data"`
	}
	json.Unmarshal(f.post(b, key, "/v1/chat/messages", j), &out)
	return out.Data.ConversationID
}

// readHistory reads a conversation's history page by page, to its first
// message, timing each page.
func (f *loadFixture) readHistory(b *testing.B, key, conv string, pages *latencies) {
	query := ""
	for {
		req, _ := http.NewRequest("GET", f.base+"/v1/chat/conversations/"+conv+"/messages"+query, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		t0 := time.Now()
		raw := f.send(b, req)
		pages.add(time.Since(t0))
		// next_before is the page's last member, and cannot appear unescaped
		// in a message: find it without decoding a megabyte of JSON here,
		// which would load the machine more than the service does.
		i := bytes.LastIndex(raw, []byte(`"next_before":`))
		if i < 0 {
			return // a service that does not page sent it all
		}
		next := raw[i+len(`"next_before":`):]
		next = next[:bytes.IndexAny(next, "},")]
		if string(next) == "null" {
			return
		}
		query = "?before=" + string(next)
	}
}

// resetPeakRSS starts a new peak of resident memory for VmHWM (Linux).
func resetPeakRSS() { os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// decodingSTT is a speech engine that decodes the audio as a real one does
// and hears the same words every time, so that a benchmark measures the
// service, not a recogniser.
type decodingSTT struct{}

func (decodingSTT) Transcribe(ctx context.Context, audio []byte, _ string) (speech.Transcript, error) {
	p, err := media.Decode(audio)
	if err != nil {
		return speech.Transcript{}, err
	}
	media.To16kMono(p)
	return speech.Transcript{Text: "hello world", Language: "en"}, nil
}

// spokenTake is a transcribe body: five seconds of speech as WebM/Opus.
func spokenTake(b *testing.B) []byte {
	b.Helper()
	f, err := os.Open(filepath.Join("..", "media", "testdata", "hello.wav"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p, err := media.ReadWAV(f)
	if err != nil {
		b.Fatal(err)
	}
	one := p.Samples
	for time.Duration(len(p.Samples)/p.Channels)*time.Second/time.Duration(p.Rate) < 5*time.Second {
		p.Samples = append(p.Samples, one...)
	}
	webm, err := media.EncodeWebMOpus(p, 16000)
	if err != nil {
		b.Fatal(err)
	}
	j, _ := json.Marshal(map[string]string{"audio": "data:audio/webm;base64," + base64.StdEncoding.EncodeToString(webm)})
	return j
}

// BenchmarkServiceUnderMixedLoad runs 64 chat clients (10 turns a
// conversation, then a new one) beside 4 clients transcribing five-second
// takes one after another and 2 clients reading the whole history of a
// conversation of 1,000 turns of 32,000-character messages (64 MB) page by
// page, over real HTTP on loopback and a real SQLite file. b.N is the number
// of chat calls. It reports p50 and p99 per endpoint (the history per page),
// chat calls/s, and the peak resident memory of the process (service and
// clients) during the load.
func BenchmarkServiceUnderMixedLoad(b *testing.B) {
	const chatters, transcribers, readers = 64, 4, 2
	f := newLoadFixture(b, 1000, strings.Repeat("<b>Fish & chips</b> ", 1600), decodingSTT{}, chatters+transcribers+readers)
	take := spokenTake(b)
	chatKey := f.newKey(b)
	var sttKeys []string
	for range transcribers {
		sttKeys = append(sttKeys, f.newKey(b))
	}
	var chat, stt, pages latencies
	var fullReads atomic.Int64
	stop := make(chan struct{})
	var bg sync.WaitGroup
	resetPeakRSS()
	b.ResetTimer()
	start := time.Now()
	for i := range transcribers {
		bg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				f.post(b, sttKeys[i], "/v1/chat/transcribe", take)
				stt.add(time.Since(t0))
			}
		})
	}
	for range readers {
		bg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				f.readHistory(b, f.bigKey, f.bigConv, &pages)
				fullReads.Add(1)
			}
		})
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range chatters {
		wg.Go(func() {
			conv := ""
			for turn := 0; next.Add(1) <= int64(b.N); turn++ {
				if turn%10 == 0 {
					conv = ""
				}
				t0 := time.Now()
				conv = f.chatTurn(b, chatKey, conv, turn)
				chat.add(time.Since(t0))
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	bg.Wait()
	b.StopTimer()
	chat.report(b, "chat")
	stt.report(b, "transcribe")
	pages.report(b, "history_page")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "chats/s")
	b.ReportMetric(float64(fullReads.Load()), "full_history_reads")
	if peak := peakRSSSelf(); peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak_rss_MB")
	}
}

// BenchmarkChatBesideLongConversation measures one account's chat calls (one
// client, 10 turns a conversation) while 10 clients of another account chat
// on one conversation of 1,000 turns of 32,000-character messages. It
// reports the first account's p50 and p99.
func BenchmarkChatBesideLongConversation(b *testing.B) {
	const busy = 10
	f := newLoadFixture(b, 1000, strings.Repeat("x", 32_000), nil, busy+1)
	key := f.newKey(b)
	stop := make(chan struct{})
	var bg sync.WaitGroup
	var busyCalls atomic.Int64
	for range busy {
		bg.Go(func() {
			for turn := 0; ; turn++ {
				select {
				case <-stop:
					return
				default:
				}
				f.chatTurn(b, f.bigKey, f.bigConv, turn)
				busyCalls.Add(1)
			}
		})
	}
	var lat latencies
	b.ResetTimer()
	start := time.Now()
	conv := ""
	for turn := 0; turn < b.N; turn++ {
		if turn%10 == 0 {
			conv = ""
		}
		t0 := time.Now()
		conv = f.chatTurn(b, key, conv, turn)
		lat.add(time.Since(t0))
	}
	elapsed := time.Since(start)
	close(stop)
	bg.Wait()
	b.StopTimer()
	lat.report(b, "chat")
	b.ReportMetric(float64(busyCalls.Load())/elapsed.Seconds(), "long_conv_chats/s")
}

// peakRSSSelf returns this process's peak resident memory since the last
// resetPeakRSS, in bytes, or 0 where /proc is missing.
func peakRSSSelf() int64 { return readVmHWM("/proc/self/status") }

// readVmHWM reads the peak resident set size (VmHWM) from a /proc status
// file, in bytes; 0 if it cannot.
func readVmHWM(status string) int64 {
	b, err := os.ReadFile(status)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
