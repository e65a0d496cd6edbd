package library

// migrations are the library's schema, one step per version: migrations[i] takes a database from version i
// (PRAGMA user_version) to i+1, in one transaction. A step, once released, never changes; a change is a new step.
var migrations = []string{
	// v1: reports with their full-text index, research jobs, and the library's own facts.
	`
CREATE TABLE reports (
	n        INTEGER PRIMARY KEY,       -- the FTS index's rowid
	id       TEXT NOT NULL UNIQUE,      -- record.ValidID
	tool     TEXT NOT NULL,
	topic    TEXT NOT NULL,
	depth    TEXT NOT NULL DEFAULT '',
	model    TEXT NOT NULL DEFAULT '',
	backend  TEXT NOT NULL DEFAULT '',
	started  INTEGER NOT NULL,          -- Unix microseconds
	took_ms  INTEGER NOT NULL,
	partial  INTEGER NOT NULL DEFAULT 0,
	size     INTEGER NOT NULL,          -- bytes of the topic, markdown and sources: what the size limit counts
	kept     INTEGER NOT NULL,          -- Unix microseconds: when it was kept; lists and retention go by it
	-- The long columns come last: a list reads the columns above without following a report's overflow pages.
	markdown TEXT NOT NULL,
	sources  TEXT NOT NULL DEFAULT '[]' -- JSON: [{"url": …, "title": …}], in the report's order
) STRICT;
CREATE INDEX reports_kept ON reports(kept, size); -- covers the retention's sums
CREATE INDEX reports_started ON reports(started);

CREATE VIRTUAL TABLE reports_fts USING fts5(topic, markdown, content='reports', content_rowid='n',
	tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER reports_fts_insert AFTER INSERT ON reports BEGIN
	INSERT INTO reports_fts(rowid, topic, markdown) VALUES (new.n, new.topic, new.markdown);
END;
CREATE TRIGGER reports_fts_delete AFTER DELETE ON reports BEGIN
	INSERT INTO reports_fts(reports_fts, rowid, topic, markdown) VALUES ('delete', old.n, old.topic, old.markdown);
END;
CREATE TRIGGER reports_fts_update AFTER UPDATE OF topic, markdown ON reports BEGIN
	INSERT INTO reports_fts(reports_fts, rowid, topic, markdown) VALUES ('delete', old.n, old.topic, old.markdown);
	INSERT INTO reports_fts(rowid, topic, markdown) VALUES (new.n, new.topic, new.markdown);
END;

CREATE TABLE jobs (
	id            TEXT PRIMARY KEY,     -- record.ValidJobID
	tool          TEXT NOT NULL,
	topic         TEXT NOT NULL,
	args          TEXT,                 -- JSON, or NULL
	state         TEXT NOT NULL CHECK (state IN ('running', 'done', 'failed', 'cancelled', 'interrupted')),
	stage         TEXT NOT NULL DEFAULT '',
	started       INTEGER NOT NULL,     -- Unix microseconds
	ended         INTEGER,              -- Unix microseconds; NULL while it runs
	report_id     TEXT REFERENCES reports(id) ON DELETE SET NULL,
	error_code    TEXT NOT NULL DEFAULT '',
	error_message TEXT NOT NULL DEFAULT '',
	error_details TEXT NOT NULL DEFAULT '',
	owner         TEXT NOT NULL         -- the library (one per server process) that runs it: see owners.go
) STRICT;
CREATE INDEX jobs_state ON jobs(state, owner);
CREATE INDEX jobs_report ON jobs(report_id);
CREATE INDEX jobs_ended ON jobs(ended);

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
`,
	// v2: the result cache's reports (research.Cache), shared by the servers of a config dir and kept across restarts.
	`
CREATE TABLE cache (
	key   TEXT PRIMARY KEY, -- the request's identity
	at    INTEGER NOT NULL, -- Unix microseconds: when it was cached
	value BLOB NOT NULL     -- the cache's encoding of the report
) STRICT;
CREATE INDEX cache_at ON cache(at);
`,
	// v3: each report's metadata, as the research engine told it (JSON; '' for the reports kept before).
	`ALTER TABLE reports ADD COLUMN metadata TEXT NOT NULL DEFAULT '';`,
	// v4: the cache's entries with their time to live, their size (the library's size limit counts them) and their
	// report's identity (deleting a report drops them), made anew: a cached answer can be researched again. And
	// the reports in the order every list reads them, newest first (ORDER BY kept DESC, n DESC), so that a page of
	// them is read in that order, not sorted.
	`
DROP TABLE cache;
CREATE TABLE cache (
	key     TEXT PRIMARY KEY, -- the request's identity
	at      INTEGER NOT NULL, -- Unix microseconds: when it was cached
	expires INTEGER NOT NULL, -- Unix microseconds: when its time to live is over
	size    INTEGER NOT NULL, -- bytes of the key, topic and value: what the library's size limit counts
	-- The report's identity, as the reports' columns keep it (record.Identity).
	tool    TEXT NOT NULL,
	topic   TEXT NOT NULL,
	started INTEGER NOT NULL, -- Unix microseconds
	took_ms INTEGER NOT NULL,
	value   BLOB NOT NULL     -- the cache's encoding of the report
) STRICT;
CREATE INDEX cache_at ON cache(at, size); -- covers the sums of the size limit
CREATE INDEX cache_expires ON cache(expires);
CREATE INDEX cache_started ON cache(started);
CREATE INDEX reports_newest ON reports(kept, n);
`,
	// v5: the remote run a job follows (Google's Deep Research agent's), as JSON: a server that starts follows the
	// runs of jobs interrupted by a stop again; '' for none.
	`ALTER TABLE jobs ADD COLUMN remote TEXT NOT NULL DEFAULT '';`,
	// v6: the usage meter: what each research call used, as its backend told it (record.Usage).
	`
CREATE TABLE usage (
	at             INTEGER NOT NULL, -- Unix microseconds: when the call's research ended
	tool           TEXT NOT NULL,
	backend        TEXT NOT NULL,
	model          TEXT NOT NULL,
	input_tokens   INTEGER NOT NULL,
	output_tokens  INTEGER NOT NULL,
	thought_tokens INTEGER NOT NULL,
	total_tokens   INTEGER NOT NULL,
	searches       INTEGER NOT NULL,
	requests       INTEGER NOT NULL
) STRICT;
CREATE INDEX usage_at ON usage(at);
`,
}
