package archive_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"parley/archive"
	"parley/conversation/conversationtest"
)

// benchArchive is an archive of 1,000 conversations of 50 messages (LongConversation's: 5 to
// 125 words each), as the index of a person with a year of use holds them, and its size on disk.
func benchArchive(b *testing.B) (*archive.Archive, int64) {
	b.Helper()
	path := filepath.Join(b.TempDir(), archive.FileName)
	a, err := archive.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	long := archive.MessagesOf(conversationtest.LongConversation(50))
	for i := range 1000 {
		ms := append([]archive.Message(nil), long...)
		ms[i%50].Text += fmt.Sprintf(" marker%04d", i) // a word in one conversation only
		if err := a.Index("svc", fmt.Sprintf("c%04d", i), fmt.Sprintf("Conversation %d", i), time.Time{}, ms); err != nil {
			b.Fatal(err)
		}
	}
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			size += fi.Size()
		}
	}
	return a, size
}

// BenchmarkSearch is a search of the index of 1,000 conversations of 50 messages: a word in one
// conversation, a word in every message (the worst: every message matches, 20 shown), and two
// words as typed (the last a prefix). Goal: p50 under 50 ms for the worst, on an idle machine.
// index-MB is the archive's size on disk.
func BenchmarkSearch(b *testing.B) {
	a, size := benchArchive(b)
	for _, q := range []string{"marker0500", "tide", "wind fer"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				hits, err := a.Search("svc", q, 20)
				if err != nil || len(hits) == 0 {
					b.Fatal(hits, err)
				}
			}
			b.ReportMetric(float64(size)/1e6, "index-MB")
		})
	}
}

// BenchmarkIndex_Reply is what the index does when a reply arrives in a conversation of 50
// messages: the conversation's 52 messages are given again, two of them new.
func BenchmarkIndex_Reply(b *testing.B) {
	a, _ := benchArchive(b)
	long := archive.MessagesOf(conversationtest.LongConversation(52))
	a.Index("svc", "c0001", "", time.Time{}, long[:50])
	i := 0
	for b.Loop() {
		i++
		n := 50 + 2*(i%2) // 50 then 52 messages, and again
		if err := a.Index("svc", "c0001", "", time.Time{}, long[:n]); err != nil {
			b.Fatal(err)
		}
	}
}
