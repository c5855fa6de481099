package archive

import (
	"cmp"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Hit is a message that has the words searched for.
type Hit struct {
	// Conversation is its conversation's ID.
	Conversation string
	// Title is the conversation's title: the person's name for it, else the service's ("" when
	// neither is known).
	Title string
	// Seq is the message's place in its conversation (0 the first), and MessageID its ID at
	// the service ("" when it gives none).
	Seq       int
	MessageID string
	// Role is "user" or "assistant".
	Role string
	// At is when it was written (zero when unknown).
	At time.Time
	// Snippet is the words around what was found, in pieces; the pieces that matched have
	// Match set. An ellipsis marks where the text was cut.
	Snippet []Piece

	n int64 // the message's row
}

// Piece is a piece of a snippet.
type Piece struct {
	Text  string
	Match bool
}

// Query is a person's search as an FTS5 query: each word a quoted term (so that nothing they
// type is taken for FTS5's syntax: quotes, AND, NEAR, a column name, a star), the last a prefix
// (the word being typed). It is "" when the search has no word to look for.
func Query(search string) string {
	words, prefix := terms(search)
	if len(words) == 0 {
		return ""
	}
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = `"` + w + `"` // a word has no quote to double
	}
	if prefix {
		q[len(q)-1] += "*"
	}
	return strings.Join(q, " ")
}

// terms are the words of a person's search, folded (see fold), and whether the last is a
// prefix: two characters or more (one is too wide to help).
func terms(search string) (words []string, prefix bool) {
	words = strings.FieldsFunc(search, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
	})
	for i, w := range words {
		words[i] = fold(w)
	}
	return words, len(words) > 0 && utf8.RuneCountInString(words[len(words)-1]) >= 2
}

// snippetTokens is how many words a snippet shows around what was found.
const snippetTokens = 14

// Search returns, for service, the conversations with a message that has every word of search
// (a person's words: see Query), the most recently changed first, at most limit; each hit is the
// conversation's last message found.
func (a *Archive) Search(service, search string, limit int) ([]Hit, error) {
	q := Query(search)
	if q == "" || limit <= 0 {
		return nil, nil
	}
	var s int64
	switch err := a.db.QueryRow(`SELECT s FROM services WHERE name = ?`, service).Scan(&s); {
	case errors.Is(err, sql.ErrNoRows):
		return nil, nil
	case err != nil:
		return nil, wrap(err)
	}
	// The last message found of each conversation, by rowid alone: the conversation is in it
	// (see schema). Ranking the messages (bm25) costs 80 ms for 50,000 found; this costs 5.
	rows, err := a.db.Query(`SELECT max(rowid) FROM messages_fts WHERE messages_fts MATCH ? AND rowid BETWEEN ? AND ? GROUP BY rowid >> ?`,
		q, s<<serviceShift, (s+1)<<serviceShift-1, conversationShift)
	if err != nil {
		return nil, wrap(err)
	}
	last := map[int64]int64{} // k → the last message found
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, wrap(err)
		}
		k := n >> conversationShift & maxConversations
		if n > last[k] {
			last[k] = n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(last) == 0 {
		return nil, wrap(err)
	}
	out, err := a.hits(service, last, limit)
	if err != nil {
		return nil, err
	}
	return out, a.snippets(search, out)
}

// hits are the conversations of service among those found (k → its message found), the most
// recently changed first, at most limit, with their titles.
func (a *Archive) hits(service string, found map[int64]int64, limit int) ([]Hit, error) {
	type conv struct {
		k, updated int64
		id, title  string
	}
	rows, err := a.db.Query(`SELECT k, updated, id, coalesce(nullif(name, ''), title) FROM conversations WHERE service = ?`, service)
	if err != nil {
		return nil, wrap(err)
	}
	var convs []conv
	for rows.Next() {
		var c conv
		if err := rows.Scan(&c.k, &c.updated, &c.id, &c.title); err != nil {
			rows.Close()
			return nil, wrap(err)
		}
		if _, ok := found[c.k]; ok {
			convs = append(convs, c)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap(err)
	}
	slices.SortFunc(convs, func(a, b conv) int {
		if a.updated != b.updated {
			return cmp.Compare(b.updated, a.updated)
		}
		return cmp.Compare(b.k, a.k)
	})
	out := make([]Hit, 0, min(limit, len(convs)))
	for _, c := range convs[:min(limit, len(convs))] {
		n := found[c.k]
		out = append(out, Hit{Conversation: c.id, Title: c.title, Seq: int(n & (MaxMessages - 1)), n: n})
	}
	return out, nil
}

// snippets fills in the hits' messages: their IDs, roles, times and snippets. The snippets are
// made here, not by FTS5's snippet(): that sets up the search again for each message, which
// for a word as typed (a prefix of many words) costs milliseconds each.
func (a *Archive) snippets(search string, hits []Hit) error {
	st, err := a.db.Prepare(`SELECT message_id, role, at, body FROM messages WHERE n = ?`)
	if err != nil {
		return wrap(err)
	}
	defer st.Close()
	words, prefix := terms(search)
	for i := range hits {
		h := &hits[i]
		var at int64
		var body string
		if err := st.QueryRow(h.n).Scan(&h.MessageID, &h.Role, &at, &body); err != nil {
			return wrap(err)
		}
		h.Snippet = snippet(body, words, prefix)
		if at != 0 {
			h.At = time.UnixMilli(at)
		}
	}
	return nil
}

// snippet is the words of body around the first of words found (folded as fold does; the last
// a prefix when prefix is set), about snippetTokens of them, with the words found marked.
func snippet(body string, words []string, prefix bool) []Piece {
	type span struct{ from, to int } // a word's bytes in body
	var spans []span
	from := -1
	for i, r := range body {
		inWord := unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
		switch {
		case inWord && from < 0:
			from = i
		case !inWord && from >= 0:
			spans = append(spans, span{from, i})
			from = -1
		}
	}
	if from >= 0 {
		spans = append(spans, span{from, len(body)})
	}
	matches := func(w string) bool {
		f := fold(w)
		for i, q := range words {
			if f == q || prefix && i == len(words)-1 && strings.HasPrefix(f, q) {
				return true
			}
		}
		return false
	}
	first := 0
	for i, sp := range spans {
		if matches(body[sp.from:sp.to]) {
			first = i
			break
		}
	}
	start := max(0, first-snippetTokens/4)
	end := min(len(spans), start+snippetTokens)
	start = max(0, end-snippetTokens)
	if len(spans) == 0 {
		return nil
	}
	var out []Piece
	add := func(text string, match bool) {
		if text == "" && !match {
			return
		}
		if n := len(out); n > 0 && out[n-1].Match == match && !match {
			out[n-1].Text += text
			return
		}
		out = append(out, Piece{Text: text, Match: match})
	}
	if start > 0 {
		add("…", false)
	}
	at := spans[start].from
	for _, sp := range spans[start:end] {
		if w := body[sp.from:sp.to]; matches(w) {
			if gap := body[at:sp.from]; gap != "" {
				add(spaced(gap), false)
			}
			add(w, true)
			at = sp.to
		}
	}
	tail := body[at:spans[end-1].to]
	if end == len(spans) {
		tail = body[at:]
	}
	add(spaced(tail), false)
	if end < len(spans) {
		add("…", false)
	}
	return out
}

// spaced is s on one line, keeping a space at either end that it had (between a word marked
// and the text around it).
func spaced(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	t := strings.Join(strings.Fields(s), " ")
	if t == "" {
		if s != "" {
			return " "
		}
		return ""
	}
	if unicode.IsSpace(rune(s[0])) {
		t = " " + t
	}
	if unicode.IsSpace(rune(s[len(s)-1])) {
		t += " "
	}
	return t
}

// fold is a word as the index compares it (unicode61 with remove_diacritics): lower case,
// without accents.
func fold(w string) string {
	w = norm.NFD.String(strings.ToLower(w))
	return strings.Map(func(r rune) rune {
		if unicode.IsMark(r) {
			return -1
		}
		return r
	}, w)
}
