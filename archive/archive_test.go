package archive_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"parley/archive"
)

func openArchive(t testing.TB) *archive.Archive {
	t.Helper()
	a, err := archive.Open(filepath.Join(t.TempDir(), archive.FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

func msgs(texts ...string) []archive.Message {
	out := make([]archive.Message, len(texts))
	for i, s := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		out[i] = archive.Message{ID: "m" + string(rune('a'+i)), Role: role, Text: s, At: time.Unix(int64(1000+i), 0)}
	}
	return out
}

// marked is a hit's snippet with the matched words in [brackets].
func marked(h archive.Hit) string {
	var b strings.Builder
	for _, p := range h.Snippet {
		if p.Match {
			b.WriteString("[" + p.Text + "]")
		} else {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestArchive_SearchFindsWordsWithTheirMessage(t *testing.T) {
	a := openArchive(t)
	if err := a.Index("svc", "c1", "Sailing", time.Time{}, msgs("When does the tide turn at Ebbsfleet?", "The tide turns at six; the wind is from the west.")); err != nil {
		t.Fatal(err)
	}
	if err := a.Index("svc", "c2", "Bread", time.Time{}, msgs("How long do I knead dough?", "Ten minutes, until it is smooth. Café-style loaves rest overnight.")); err != nil {
		t.Fatal(err)
	}
	if err := a.Index("other", "c3", "Elsewhere", time.Time{}, msgs("Ebbsfleet again")); err != nil {
		t.Fatal(err)
	}

	hits, err := a.Search("svc", "ebbsfleet", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].Conversation != "c1" || hits[0].Seq != 0 || hits[0].Title != "Sailing" || hits[0].Role != "user" || hits[0].MessageID != "ma" {
		t.Fatalf("hits = %+v, want c1's first message only (the other service's is not this one's)", hits)
	}
	if got := marked(hits[0]); !strings.Contains(got, "[Ebbsfleet]") {
		t.Errorf("snippet = %q, want the word marked", got)
	}
	// Words in any order, a prefix as typed, accents folded.
	for _, q := range []string{"west tide", "wes", "cafe", "CAFÉ loaves", "smooth."} {
		hits, err := a.Search("svc", q, 10)
		if err != nil || len(hits) != 1 {
			t.Errorf("Search(%q) = %+v, %v; want one hit", q, hits, err)
		}
	}
	for _, q := range []string{"", "   ", "!!!", "tide knead", "w"} {
		if hits, err := a.Search("svc", q, 10); err != nil || len(hits) != 0 {
			t.Errorf("Search(%q) = %+v, %v; want nothing", q, hits, err)
		}
	}
}

func TestArchive_OneHitPerConversation(t *testing.T) {
	a := openArchive(t)
	a.Index("svc", "c1", "", time.Time{}, msgs("tide", "tide tide", "no"))
	a.Index("svc", "c2", "", time.Time{}, msgs("the tide"))
	hits, err := a.Search("svc", "tide", 10)
	if err != nil || len(hits) != 2 || hits[0].Conversation == hits[1].Conversation {
		t.Fatalf("hits = %+v, %v; want one per conversation", hits, err)
	}
	if hits, _ := a.Search("svc", "tide", 1); len(hits) != 1 {
		t.Errorf("limit 1 gave %d hits", len(hits))
	}
}

func TestArchive_IndexAgainReplacesTheMessages(t *testing.T) {
	a := openArchive(t)
	a.Index("svc", "c1", "", time.Time{}, msgs("alpha", "bravo", "charlie"))
	a.Index("svc", "c1", "", time.Time{}, msgs("alpha", "delta"))
	for q, want := range map[string]int{"alpha": 1, "bravo": 0, "charlie": 0, "delta": 1} {
		if hits, err := a.Search("svc", q, 10); err != nil || len(hits) != want {
			t.Errorf("Search(%q) = %d hits, %v; want %d", q, len(hits), err, want)
		}
	}
}

func TestArchive_LabelsAndForget(t *testing.T) {
	a := openArchive(t)
	if err := a.SetLabel("svc", "c1", archive.Label{Name: "  Boat\nplans ", Pinned: true}); err != nil {
		t.Fatal(err)
	}
	a.SetLabel("svc", "c2", archive.Label{Name: "Bread"})
	a.SetLabel("other", "c1", archive.Label{Pinned: true})
	a.Index("svc", "c1", "Service title", time.Time{}, msgs("tide"))

	labels, err := a.Labels("svc")
	if err != nil {
		t.Fatal(err)
	}
	if labels["c1"] != (archive.Label{Name: "Boat plans", Pinned: true}) || labels["c2"] != (archive.Label{Name: "Bread"}) || len(labels) != 2 {
		t.Fatalf("labels = %+v", labels)
	}
	if hits, _ := a.Search("svc", "tide", 10); len(hits) != 1 || hits[0].Title != "Boat plans" {
		t.Errorf("a hit's title is the person's name: %+v", hits)
	}
	pinned, _ := a.PinnedOf("svc")
	if len(pinned) != 1 || pinned[0].ID != "c1" || pinned[0].Title != "Service title" {
		t.Errorf("pinned = %+v", pinned)
	}
	a.SetLabel("svc", "c2", archive.Label{})
	if err := a.Forget("svc", "c1"); err != nil {
		t.Fatal(err)
	}
	if labels, _ := a.Labels("svc"); len(labels) != 0 {
		t.Errorf("labels after forget = %+v", labels)
	}
	if hits, _ := a.Search("svc", "tide", 10); len(hits) != 0 {
		t.Errorf("a forgotten conversation is still found: %+v", hits)
	}
	if labels, _ := a.Labels("other"); len(labels) != 1 {
		t.Errorf("another service's labels went too: %+v", labels)
	}
}

func TestArchive_ListedSaysWhatToRead(t *testing.T) {
	a := openArchive(t)
	t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	t2 := t1.Add(time.Minute)
	if stale, _ := a.Listed("svc", "c1", "T", t1); !stale {
		t.Error("a conversation never indexed is not stale")
	}
	a.Index("svc", "c1", "T", t1, msgs("x"))
	if stale, _ := a.Listed("svc", "c1", "T", t1); stale {
		t.Error("an indexed conversation that did not change is stale")
	}
	if stale, _ := a.Listed("svc", "c1", "T", t2); !stale {
		t.Error("a conversation changed since it was indexed is not stale")
	}
	// A service that gives no times: indexed once.
	a.Index("svc", "c2", "", time.Time{}, msgs("x"))
	if stale, _ := a.Listed("svc", "c2", "", time.Time{}); stale {
		t.Error("a conversation with no time is read again at every run")
	}
}

func TestArchive_KeepOnlyDropsWhatTheListLost(t *testing.T) {
	a := openArchive(t)
	for _, id := range []string{"c1", "c2", "c3"} {
		a.Index("svc", id, "", time.Time{}, msgs("tide "+id))
	}
	a.SetLabel("svc", "c2", archive.Label{Pinned: true})
	a.Index("other", "c2", "", time.Time{}, msgs("tide"))
	mark, err := a.Mark()
	if err != nil {
		t.Fatal(err)
	}
	// Made while the list was read: not in it, and kept.
	a.SetSpeech("svc", "c4", archive.Speech{Language: "de"})
	n, err := a.KeepOnly("svc", []string{"c1", "c3", "c9"}, mark)
	if err != nil || n != 1 {
		t.Fatalf("KeepOnly = %d, %v; want 1 dropped", n, err)
	}
	if sp, _ := a.SpeechOf("svc"); sp["c4"].Language != "de" {
		t.Errorf("a conversation made while the list was read was dropped: %+v", sp)
	}
	hits, _ := a.Search("svc", "tide", 10)
	if len(hits) != 2 {
		t.Errorf("hits = %+v", hits)
	}
	if l, _ := a.Labels("svc"); len(l) != 0 {
		t.Errorf("the pin of a conversation deleted elsewhere stayed: %+v", l)
	}
	if hits, _ := a.Search("other", "tide", 10); len(hits) != 1 {
		t.Error("another service's conversation went too")
	}
}

func TestArchive_SnippetsMarkOnlyTheWordsFound(t *testing.T) {
	a := openArchive(t)
	a.Index("svc", "c1", "", time.Time{}, msgs("a \x02fake\x03 mark,\n\nand the Tides. "+strings.Repeat("More words here. ", 20)))
	hits, _ := a.Search("svc", "tide", 10)
	if len(hits) != 1 {
		t.Fatal(hits)
	}
	if got, want := marked(hits[0]), "…mark, and the [Tides]. More words here. More words here. More words here. More…"; got != want {
		t.Errorf("snippet = %q, want %q", got, want)
	}
	a.Index("svc", "c2", "", time.Time{}, msgs(strings.Repeat("Before. ", 30)+"the café’s naïve tide"))
	hits, _ = a.Search("svc", "naive CAFE", 10)
	if len(hits) != 1 {
		t.Fatal(hits)
	}
	if got, want := marked(hits[0]), "…Before. Before. Before. Before. Before. Before. Before. Before. Before. the [café]’s [naïve] tide"; got != want {
		t.Errorf("snippet = %q, want %q", got, want)
	}
}

func TestArchive_KeptAcrossOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", archive.FileName)
	a, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	a.Index("svc", "c1", "", time.Time{}, msgs("tide"))
	a.SetLabel("svc", "c1", archive.Label{Name: "Sea"})
	a.Close()
	if _, err := a.Search("svc", "tide", 1); err != archive.ErrClosed {
		t.Errorf("a closed archive's search: %v", err)
	}
	b, err := archive.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if hits, _ := b.Search("svc", "tide", 10); len(hits) != 1 || hits[0].Title != "Sea" {
		t.Errorf("after reopening: %+v", hits)
	}
}

func TestQuery_EscapesWhatThePersonTypes(t *testing.T) {
	for in, want := range map[string]string{
		"tide":                 `"tide"*`,
		"tide turns":           `"tide" "turns"*`,
		`"tide" OR NEAR(x)`:    `"tide" "or" "near" "x"`,
		"body:tide*":           `"body" "tide"*`,
		"a":                    `"a"`,
		"  ":                   "",
		"-^()":                 "",
		"naïve Café":           `"naive" "cafe"*`,
		"größe x":              `"große" "x"`,
		"x'; DROP TABLE m; --": `"x" "drop" "table" "m"`,
	} {
		if got := archive.Query(in); got != want {
			t.Errorf("Query(%q) = %q, want %q", in, got, want)
		}
	}
}

func FuzzSearch(f *testing.F) {
	a := openArchive(f)
	a.Index("svc", "c1", "", time.Time{}, msgs("the tide turns at six", "naïve café"))
	for _, s := range []string{"tide", `"`, `"*`, "NEAR(a b)", "a:b", "*", "^x", "x OR", "AND", "(", "{a b}:c", "\x00", "é*"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := a.Search("svc", q, 5); err != nil {
			t.Fatalf("Search(%q): %v", q, err)
		}
	})
}

func TestArchive_SpeechKeptApartFromTheLabel(t *testing.T) {
	a := openArchive(t)
	if err := a.SetSpeech("svc", "c1", archive.Speech{Voice: "flite-awb", Language: "de"}); err != nil {
		t.Fatal(err)
	}
	a.SetLabel("svc", "c1", archive.Label{Name: "Trip"})
	a.SetSpeech("other", "c1", archive.Speech{Language: "fr"})
	sp, err := a.SpeechOf("svc")
	if err != nil || len(sp) != 1 || sp["c1"] != (archive.Speech{Voice: "flite-awb", Language: "de"}) {
		t.Fatalf("SpeechOf = %+v, %v", sp, err)
	}
	if labels, _ := a.Labels("svc"); labels["c1"] != (archive.Label{Name: "Trip"}) || len(labels) != 1 {
		t.Errorf("a label set after the speech: %+v", labels)
	}
	a.SetSpeech("svc", "c1", archive.Speech{})
	if sp, _ := a.SpeechOf("svc"); len(sp) != 0 {
		t.Errorf("speech cleared: %+v", sp)
	}
	if labels, _ := a.Labels("svc"); labels["c1"].Name != "Trip" {
		t.Errorf("clearing the speech took the name: %+v", labels)
	}
	if sp, _ := a.SpeechOf("other"); sp["c1"].Language != "fr" {
		t.Errorf("another service's: %+v", sp)
	}
}

// An archive written by a Parley before speech settings were kept opens with its names, pins
// and messages, and takes speech settings.
func TestArchive_OpensAnArchiveOfVersionOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), archive.FileName)
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`CREATE TABLE services (s INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE conversations (k INTEGER PRIMARY KEY, service TEXT NOT NULL, id TEXT NOT NULL,
	name TEXT NOT NULL DEFAULT '', pinned INTEGER NOT NULL DEFAULT 0, title TEXT NOT NULL DEFAULT '',
	updated INTEGER NOT NULL DEFAULT 0, indexed INTEGER, UNIQUE (service, id));
INSERT INTO conversations (service, id, name, pinned) VALUES ('svc', 'c1', 'Boat', 1);
PRAGMA user_version = 1;`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 { // once more at version 2; then after a Parley of version 1 set it back
		if i == 2 {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = db.Exec(`PRAGMA user_version = 1`)
			db.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		a, err := archive.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if labels, _ := a.Labels("svc"); labels["c1"] != (archive.Label{Name: "Boat", Pinned: true}) {
			t.Errorf("labels = %+v", labels)
		}
		if err := a.SetSpeech("svc", "c1", archive.Speech{Language: "pl"}); err != nil {
			t.Fatal(err)
		}
		if sp, _ := a.SpeechOf("svc"); sp["c1"].Language != "pl" {
			t.Errorf("speech = %+v", sp)
		}
		a.Index("svc", "c1", "", time.Time{}, msgs("harbour"))
		if hits, _ := a.Search("svc", "harbour", 10); len(hits) != 1 {
			t.Errorf("search after the upgrade: %+v", hits)
		}
		a.Close()
	}
}
