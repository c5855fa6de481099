package store

// migrations are applied in order, each in its own BEGIN IMMEDIATE transaction;
// PRAGMA user_version records how many have been applied. Never edit a
// migration that has shipped: append a new one.
var migrations = []string{
	// 1: accounts, the points ledger, conversations and their messages.
	`
CREATE TABLE settings (
	name  TEXT PRIMARY KEY,
	value INTEGER NOT NULL
) STRICT;
INSERT INTO settings (name, value) VALUES ('price', 1);

CREATE TABLE accounts (
	id         INTEGER PRIMARY KEY,
	key_hash   TEXT NOT NULL UNIQUE,          -- SHA-256 hex of the key; the key itself is never stored
	balance    INTEGER NOT NULL CHECK (balance >= 0),
	revoked    INTEGER NOT NULL DEFAULT 0 CHECK (revoked IN (0, 1)),
	created_at INTEGER NOT NULL               -- Unix milliseconds
) STRICT;

CREATE TABLE ledger (
	id              INTEGER PRIMARY KEY,
	account_id      INTEGER NOT NULL REFERENCES accounts (id),
	call_id         TEXT,                     -- NULL for grants
	kind            TEXT NOT NULL CHECK (kind IN ('grant', 'charge', 'refund')),
	amount          INTEGER NOT NULL,
	balance_after   INTEGER NOT NULL CHECK (balance_after >= 0),
	status          TEXT NOT NULL DEFAULT '' CHECK (
		(kind = 'charge' AND status IN ('pending', 'posted', 'voided')) OR
		(kind <> 'charge' AND status = '')),
	note            TEXT NOT NULL DEFAULT '',
	conversation_id TEXT NOT NULL DEFAULT '', -- charges: the conversation reserved against, '' for a new one
	pid             INTEGER,                  -- charges: the process that reserved it
	instance        TEXT,                     -- charges: that process's random instance token
	created_at      INTEGER NOT NULL,
	CHECK ((kind = 'grant') = (call_id IS NULL)),
	UNIQUE (call_id, kind)                    -- one charge and at most one refund per call
) STRICT;
CREATE INDEX ledger_by_account ON ledger (account_id, id);
CREATE INDEX ledger_pending ON ledger (created_at) WHERE status = 'pending';

CREATE TABLE conversations (
	id          TEXT PRIMARY KEY,
	account_id  INTEGER NOT NULL REFERENCES accounts (id),
	persona     TEXT,                         -- NULL: not set
	temperature REAL,
	top_p       REAL,
	max_tokens  INTEGER,
	title       TEXT NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) STRICT;
CREATE INDEX conversations_by_account ON conversations (account_id, updated_at DESC, id DESC);

CREATE TABLE messages (
	id              INTEGER PRIMARY KEY AUTOINCREMENT, -- never reused, so IDs only increase
	conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
	role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
	content         TEXT NOT NULL,
	created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX messages_by_conversation ON messages (conversation_id, id);
`,
}
