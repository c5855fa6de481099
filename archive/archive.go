// Package archive keeps, on this computer, what Parley knows of conversations beyond what the
// Chat and Voice Service keeps: the names and pins a person gives them, and a full-text index
// of the messages Parley has read, so that a search finds words in conversations not opened
// since the app started. The service has no rename, pin or search operation; this is where they
// live. It holds no key: only conversation IDs, titles and message texts, by service.
//
// One SQLite database (modernc.org/sqlite, with FTS5) in the data folder holds it all. Every
// method is safe for concurrent use; writes are short transactions, so a search never waits
// long for the background filling.
package archive

import (
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"parley/internal/sqlitefile"
)

// FileName is the archive's file in the data folder.
const FileName = "conversations.db"

// Archive is the open database.
type Archive struct {
	db *sql.DB
}

// Label is what a person gave a conversation here: a name, and whether it is pinned.
type Label struct {
	// Name is the person's title for it ("" none: the service's title is shown).
	Name string
	// Pinned conversations come first in the list.
	Pinned bool
}

// Message is one message to index.
type Message struct {
	// ID is the service's ID of the message ("" when it gives none).
	ID string
	// Role is "user" or "assistant".
	Role string
	// Text is its content.
	Text string
	// At is when it was written (zero when unknown).
	At time.Time
}

// Open opens (creating it when missing) the archive at path, a private file; "" opens one in
// memory, kept until Close.
func Open(path string) (*Archive, error) {
	name := "file::memory:"
	if path != "" {
		abs, err := sqlitefile.Create(path)
		if err != nil {
			return nil, fmt.Errorf("archive: %w", err)
		}
		name = sqlitefile.URI(abs)
	}
	db, err := sql.Open("sqlite", name+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	// One connection: the archive is written by one process (Parley runs once), and an
	// in-memory database is one per connection.
	db.SetMaxOpenConns(1)
	a := &Archive{db: db}
	if err := a.migrate(); err != nil {
		db.Close()
		return nil, fmt.Errorf("archive: %s: %w", path, err)
	}
	return a, nil
}

// Close closes the database.
func (a *Archive) Close() error { return a.db.Close() }

// schema is the archive's tables.
//
// services names the services (s); conversations holds one row per conversation known here (k):
// the person's label, the service's title, and the service's time of its last change (unix
// nanoseconds, 0 unknown) as listed, and as it was when its messages were indexed (NULL never).
// messages are the indexed messages; each one's n is s<<48 | k<<16 | seq (seq its place in its
// conversation), so that a search keeps to one service by a range of rowids and tells a
// message's conversation from its rowid, with no lookup per message found. messages_fts indexes
// their text (external content: the text is kept once).
const schema = `
CREATE TABLE IF NOT EXISTS services (
	s INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);
CREATE TABLE IF NOT EXISTS conversations (
	k INTEGER PRIMARY KEY,
	service TEXT NOT NULL,
	id TEXT NOT NULL,
	name TEXT NOT NULL DEFAULT '',
	pinned INTEGER NOT NULL DEFAULT 0,
	title TEXT NOT NULL DEFAULT '',
	updated INTEGER NOT NULL DEFAULT 0,
	indexed INTEGER,
	UNIQUE (service, id)
);
CREATE TABLE IF NOT EXISTS messages (
	n INTEGER PRIMARY KEY,
	message_id TEXT NOT NULL,
	role TEXT NOT NULL,
	at INTEGER NOT NULL,
	body TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(
	body, content='messages', content_rowid='n', tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
	INSERT INTO messages_fts(rowid, body) VALUES (new.n, new.body);
END;
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
	INSERT INTO messages_fts(messages_fts, rowid, body) VALUES ('delete', old.n, old.body);
END;
`

// version is the schema's: 1 the tables above; 2 adds each conversation's voice and speech
// language (voice, speech_language).
const version = 2

// The bits of a message's n: the service's s above serviceShift, the conversation's k above
// conversationShift, its place below.
const (
	serviceShift      = 48
	conversationShift = 16
	maxServices       = 1<<(63-serviceShift) - 1
	maxConversations  = 1<<(serviceShift-conversationShift) - 1
	// MaxMessages is how many messages of one conversation are indexed (its first).
	MaxMessages = 1 << conversationShift
)

// migrate makes the tables, or brings an archive of an earlier version to this one. Each step
// looks at what the tables hold rather than trusting user_version alone: a Parley of version 1
// opened after this one sets it back to 1 (its schema ends so), the columns already added.
func (a *Archive) migrate() error {
	tx, err := a.db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v >= version {
		return nil
	}
	if _, err := tx.Exec(schema); err != nil {
		return err
	}
	for _, col := range []string{"voice", "speech_language"} {
		var n int
		if err := tx.QueryRow(`SELECT count(*) FROM pragma_table_info('conversations') WHERE name = ?`, col).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.Exec(`ALTER TABLE conversations ADD COLUMN ` + col + ` TEXT NOT NULL DEFAULT ''`); err != nil {
				return err
			}
		}
	}
	if _, err := tx.Exec(`PRAGMA user_version = ` + strconv.Itoa(version)); err != nil {
		return err
	}
	return tx.Commit()
}

// serviceNo is service's s, made when it has none.
func serviceNo(tx *sql.Tx, service string) (int64, error) {
	var s int64
	err := tx.QueryRow(`INSERT INTO services (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = name RETURNING s`, service).Scan(&s)
	if err == nil && s > maxServices {
		err = errors.New("too many services")
	}
	return s, err
}

// messageRange is the first n of conversation k of service s; its messages are below first+MaxMessages.
func messageRange(s, k int64) int64 { return s<<serviceShift | k<<conversationShift }

// Labels returns the labels of service's conversations that have one, by conversation ID.
func (a *Archive) Labels(service string) (map[string]Label, error) {
	rows, err := a.db.Query(`SELECT id, name, pinned FROM conversations WHERE service = ? AND (name != '' OR pinned != 0)`, service)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := map[string]Label{}
	for rows.Next() {
		var id string
		var l Label
		if err := rows.Scan(&id, &l.Name, &l.Pinned); err != nil {
			return nil, wrap(err)
		}
		out[id] = l
	}
	return out, wrap(rows.Err())
}

// Pinned is a pinned conversation, with the title the service gave it when it was last listed
// or read here.
type Pinned struct {
	ID    string
	Label Label
	Title string
}

// PinnedOf returns service's pinned conversations, so that a list whose later pages are not
// read yet can show them first.
func (a *Archive) PinnedOf(service string) ([]Pinned, error) {
	rows, err := a.db.Query(`SELECT id, name, title FROM conversations WHERE service = ? AND pinned != 0 ORDER BY updated DESC, k DESC`, service)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	var out []Pinned
	for rows.Next() {
		p := Pinned{Label: Label{Pinned: true}}
		if err := rows.Scan(&p.ID, &p.Label.Name, &p.Title); err != nil {
			return nil, wrap(err)
		}
		out = append(out, p)
	}
	return out, wrap(rows.Err())
}

// SetLabel gives service's conversation id the label l (the zero Label removes it).
func (a *Archive) SetLabel(service, id string, l Label) error {
	_, err := a.db.Exec(`INSERT INTO conversations (service, id, name, pinned) VALUES (?, ?, ?, ?)
		ON CONFLICT (service, id) DO UPDATE SET name = excluded.name, pinned = excluded.pinned`,
		service, id, oneLine(l.Name, maxName), l.Pinned)
	return wrap(err)
}

// Speech is how a conversation is heard and spoken here, chosen by the person: the service
// keeps neither.
type Speech struct {
	// Voice is the voice its replies are spoken in ("" the default one).
	Voice string
	// Language is the language its questions are spoken in ("" told by the recogniser).
	Language string
}

// SpeechOf returns the speech settings of service's conversations that have some, by
// conversation ID.
func (a *Archive) SpeechOf(service string) (map[string]Speech, error) {
	rows, err := a.db.Query(`SELECT id, voice, speech_language FROM conversations WHERE service = ? AND (voice != '' OR speech_language != '')`, service)
	if err != nil {
		return nil, wrap(err)
	}
	defer rows.Close()
	out := map[string]Speech{}
	for rows.Next() {
		var id string
		var sp Speech
		if err := rows.Scan(&id, &sp.Voice, &sp.Language); err != nil {
			return nil, wrap(err)
		}
		out[id] = sp
	}
	return out, wrap(rows.Err())
}

// SetSpeech gives service's conversation id the speech settings sp (its label is kept).
func (a *Archive) SetSpeech(service, id string, sp Speech) error {
	_, err := a.db.Exec(`INSERT INTO conversations (service, id, voice, speech_language) VALUES (?, ?, ?, ?)
		ON CONFLICT (service, id) DO UPDATE SET voice = excluded.voice, speech_language = excluded.speech_language`,
		service, id, oneLine(sp.Voice, maxName), oneLine(sp.Language, maxName))
	return wrap(err)
}

// maxName and maxTitle bound the names and titles kept (in bytes).
const (
	maxName  = 200
	maxTitle = 400
)

// conversationNo records service's conversation id as listed (title "" keeps the one known;
// updated 0 when unknown) and returns its k and when it was indexed (nil never).
func conversationNo(tx *sql.Tx, service, id, title string, updated int64) (k int64, indexed *int64, err error) {
	err = tx.QueryRow(`INSERT INTO conversations (service, id, title, updated) VALUES (?, ?, ?, ?)
		ON CONFLICT (service, id) DO UPDATE SET title = CASE excluded.title WHEN '' THEN title ELSE excluded.title END,
		updated = excluded.updated
		RETURNING k, indexed`, service, id, oneLine(title, maxTitle), updated).Scan(&k, &indexed)
	if err == nil && k > maxConversations {
		err = errors.New("too many conversations")
	}
	return k, indexed, err
}

// Index replaces the indexed messages of service's conversation id with msgs, in their
// conversation's order (the first MaxMessages); title is the service's title ("" keeps the one
// known), updated the service's time of its last change (zero when it gave none).
func (a *Archive) Index(service, id, title string, updated time.Time, msgs []Message) error {
	tx, err := a.db.Begin()
	if err != nil {
		return wrap(err)
	}
	defer tx.Rollback()
	s, err := serviceNo(tx, service)
	if err != nil {
		return wrap(err)
	}
	k, _, err := conversationNo(tx, service, id, title, nanos(updated))
	if err != nil {
		return wrap(err)
	}
	if _, err := tx.Exec(`UPDATE conversations SET indexed = updated WHERE k = ?`, k); err != nil {
		return wrap(err)
	}
	first := messageRange(s, k)
	// Keep the rows of the messages that did not change (a reply appends two messages to a
	// conversation of fifty: two rows are written, not fifty-two).
	old := map[int64]string{}
	rows, err := tx.Query(`SELECT n, message_id || char(1) || role || char(1) || at || char(1) || body FROM messages WHERE n BETWEEN ? AND ?`, first, first+MaxMessages-1)
	if err != nil {
		return wrap(err)
	}
	for rows.Next() {
		var n int64
		var key string
		if err := rows.Scan(&n, &key); err != nil {
			rows.Close()
			return wrap(err)
		}
		old[n] = key
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return wrap(err)
	}
	ins, err := tx.Prepare(`INSERT INTO messages (n, message_id, role, at, body) VALUES (?, ?, ?, ?, ?)`)
	if err != nil {
		return wrap(err)
	}
	defer ins.Close()
	for seq, m := range msgs[:min(len(msgs), MaxMessages)] {
		n := first + int64(seq)
		body := cleanBody(m.Text)
		at := int64(0)
		if !m.At.IsZero() {
			at = m.At.UnixMilli()
		}
		key := m.ID + "\x01" + m.Role + "\x01" + strconv.FormatInt(at, 10) + "\x01" + body
		if k, ok := old[n]; ok {
			delete(old, n)
			if k == key {
				continue
			}
			if _, err := tx.Exec(`DELETE FROM messages WHERE n = ?`, n); err != nil {
				return wrap(err)
			}
		}
		if _, err := ins.Exec(n, m.ID, m.Role, at, body); err != nil {
			return wrap(err)
		}
	}
	for n := range old { // the conversation has fewer messages than before
		if _, err := tx.Exec(`DELETE FROM messages WHERE n = ?`, n); err != nil {
			return wrap(err)
		}
	}
	return wrap(tx.Commit())
}

// maxBody bounds the text of one message that is indexed (in bytes).
const maxBody = 256 << 10

// cleanBody is a message's text as indexed: within maxBody.
func cleanBody(s string) string {
	if len(s) > maxBody {
		s = strings.ToValidUTF8(s[:maxBody], "")
	}
	return s
}

// oneLine is s on one line, trimmed, within max bytes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = strings.ToValidUTF8(s[:max], "")
	}
	return s
}

// nanos is a service's time of change as kept: unix nanoseconds, 0 unknown.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// Listed records that service's list shows conversation id with title and updated, and reports
// whether its messages must be read to be indexed: never indexed, or changed since.
func (a *Archive) Listed(service, id, title string, updated time.Time) (stale bool, err error) {
	tx, err := a.db.Begin()
	if err != nil {
		return false, wrap(err)
	}
	defer tx.Rollback()
	_, indexed, err := conversationNo(tx, service, id, title, nanos(updated))
	if err != nil {
		return false, wrap(err)
	}
	return indexed == nil || nanos(updated) != 0 && *indexed != nanos(updated), wrap(tx.Commit())
}

// Forget drops everything kept of service's conversation id: it was deleted.
func (a *Archive) Forget(service, id string) error {
	tx, err := a.db.Begin()
	if err != nil {
		return wrap(err)
	}
	defer tx.Rollback()
	if _, err := forget(tx, `SELECT coalesce(s, 0), k FROM conversations LEFT JOIN services ON services.name = conversations.service
		WHERE service = ? AND id = ?`, service, id); err != nil {
		return wrap(err)
	}
	return wrap(tx.Commit())
}

// forget drops the conversations that query selects (by their s and k), and their messages.
func forget(tx *sql.Tx, query string, args ...any) (int, error) {
	rows, err := tx.Query(query, args...)
	if err != nil {
		return 0, err
	}
	var sk [][2]int64
	for rows.Next() {
		var s, k int64
		if err := rows.Scan(&s, &k); err != nil {
			rows.Close()
			return 0, err
		}
		sk = append(sk, [2]int64{s, k})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	for _, c := range sk {
		first := messageRange(c[0], c[1])
		if _, err := tx.Exec(`DELETE FROM messages WHERE n BETWEEN ? AND ?`, first, first+MaxMessages-1); err != nil {
			return 0, err
		}
		if _, err := tx.Exec(`DELETE FROM conversations WHERE k = ?`, c[1]); err != nil {
			return 0, err
		}
	}
	return len(sk), nil
}

// Mark is where the archive stands before a list is read, for KeepOnly: the conversations
// recorded after it (made while the list was read) are not in the list, and are kept.
func (a *Archive) Mark() (int64, error) {
	var k int64
	err := a.db.QueryRow(`SELECT coalesce(max(k), 0) FROM conversations`).Scan(&k)
	return k, wrap(err)
}

// KeepOnly drops every conversation of service that is not in ids and was recorded by mark
// (Mark, taken before the list was read): the whole list was read, and the others were deleted
// elsewhere. It returns how many were dropped.
func (a *Archive) KeepOnly(service string, ids []string, mark int64) (int, error) {
	tx, err := a.db.Begin()
	if err != nil {
		return 0, wrap(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`CREATE TEMP TABLE IF NOT EXISTS listed (id TEXT PRIMARY KEY) WITHOUT ROWID`); err != nil {
		return 0, wrap(err)
	}
	if _, err := tx.Exec(`DELETE FROM temp.listed`); err != nil {
		return 0, wrap(err)
	}
	ins, err := tx.Prepare(`INSERT OR IGNORE INTO temp.listed (id) VALUES (?)`)
	if err != nil {
		return 0, wrap(err)
	}
	for _, id := range ids {
		if _, err := ins.Exec(id); err != nil {
			ins.Close()
			return 0, wrap(err)
		}
	}
	ins.Close()
	n, err := forget(tx, `SELECT coalesce(s, 0), k FROM conversations LEFT JOIN services ON services.name = conversations.service
		WHERE service = ? AND k <= ? AND id NOT IN (SELECT id FROM temp.listed)`, service, mark)
	if err != nil {
		return 0, wrap(err)
	}
	if _, err := tx.Exec(`DELETE FROM temp.listed`); err != nil {
		return 0, wrap(err)
	}
	return n, wrap(tx.Commit())
}

// ErrClosed is the error of a call on a closed archive.
var ErrClosed = errors.New("archive: closed")

func wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), "database is closed"):
		return ErrClosed
	case strings.HasPrefix(err.Error(), "archive:"):
		return err
	}
	return fmt.Errorf("archive: %w", err)
}
