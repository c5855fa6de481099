package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"parley/server/store"
)

// BenchmarkChatRoundTrip measures POST /v1/chat/messages with the offline
// responder over real HTTP on loopback and a real SQLite file, at 1, 8 and
// 64 concurrent clients. Each client continues its conversation for 10 turns
// and then starts a new one. It reports p50_ms, p99_ms and calls/s.
func BenchmarkChatRoundTrip(b *testing.B) {
	for _, clients := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			st, err := store.Open(b.Context(), filepath.Join(b.TempDir(), "parley.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			s, err := New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				b.Fatal(err)
			}
			hs := httptest.NewServer(s.Handler())
			defer hs.Close()
			key, _, err := st.CreateKey(b.Context(), 1<<40)
			if err != nil {
				b.Fatal(err)
			}
			hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
			defer hc.CloseIdleConnections()

			var next atomic.Int64
			lat := make([][]time.Duration, clients)
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for c := range clients {
				wg.Go(func() {
					conv := ""
					for turn := 0; next.Add(1) <= int64(b.N); turn++ {
						if turn%10 == 0 {
							conv = ""
						}
						t0 := time.Now()
						conv = chatOnce(b, hc, hs.URL, key, conv, turn)
						lat[c] = append(lat[c], time.Since(t0))
					}
				})
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			all := slices.Concat(lat...)
			slices.Sort(all)
			if len(all) > 0 {
				b.ReportMetric(ms(all[len(all)/2]), "p50_ms")
				b.ReportMetric(ms(all[min(len(all)-1, len(all)*99/100)]), "p99_ms")
				b.ReportMetric(float64(len(all))/elapsed.Seconds(), "calls/s")
			}
		})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// chatOnce sends one chat turn and returns the conversation ID.
func chatOnce(b *testing.B, hc *http.Client, base, key, conv string, turn int) string {
	body := map[string]any{"message": fmt.Sprintf("Turn %d: tell me about the harbour lights", turn)}
	if conv != "" {
		body["conversation_id"] = conv
	}
	j, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+"/v1/chat/messages", bytes.NewReader(j))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		b.Error(err)
		return ""
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ConversationID string `json:"conversation_id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		b.Errorf("status %d: %v", resp.StatusCode, err)
	}
	return out.Data.ConversationID
}
