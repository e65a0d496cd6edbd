package library

import (
	"database/sql"
	"errors"
	"slices"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// The result cache's reports (research.Cache's store): a report researched within GEMINI_CACHE_TTL answers an
// identical request at once, also after a restart and from another server sharing the library. They are not the
// library's reports (those stay until the retention drops them), and what they keep is as explicit: each goes once
// its time to live is over (when another is cached, and at the retention's every pass: Open, Add, SetRetention),
// when the cache's time to live is cut (DropCached), with the library's report of the same research when that is
// deleted (Delete), and, oldest first, when the library's size limit needs their room: they count in it with the
// reports, and go before any report does.

// PutCached keeps value, the report of the research made, under key, cached at at until expires, in place of what
// was kept under it; then it drops what is past its time at at, and past the size limit. What cannot be kept is
// logged.
func (l *Library) PutCached(key string, made record.Identity, value []byte, at, expires time.Time) {
	if !l.ready() {
		return
	}
	size := len(key) + len(made.Topic) + len(value)
	err := inTx(l.db, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`INSERT OR REPLACE INTO cache (key, at, expires, size, started, tool, topic, took_ms, value)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			slices.Concat([]any{key, micros(at), micros(expires), size}, identity(made), []any{value})...); err != nil {
			return err
		}
		_, err := trimCache(tx, l.Retention(), micros(at))
		return err
	})
	if err != nil {
		l.log.Warn("cannot keep a report of the result cache in the research library", "path", l.path, "err", err)
	}
}

// Cached is the value kept under key if it was cached at since or later, and its time is not over, and when it was
// cached. What cannot be read is logged, and answered as not kept.
func (l *Library) Cached(key string, since time.Time) (value []byte, at time.Time, ok bool) {
	if !l.ready() {
		return nil, at, false
	}
	var us int64
	err := l.db.QueryRow(`SELECT value, at FROM cache WHERE key = ? AND at >= ? AND expires > ?`, key, micros(since),
		micros(l.now())).Scan(&value, &us)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			l.log.Warn("cannot read the result cache in the research library", "path", l.path, "err", err)
		}
		return nil, at, false
	}
	return value, fromMicros(us), true
}

// DropCached drops the result cache's reports cached before before: the cache's time to live has been set, and
// what is older than it is to go (every one, for a time to live of 0). What cannot be dropped is logged. A library
// not opened yet stays shut, and drops them when it opens.
func (l *Library) DropCached(before time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	open := l.open
	if !open {
		l.dropped = before
	}
	l.mu.Unlock()
	if !open {
		return
	}
	if _, err := l.db.Exec(`DELETE FROM cache WHERE at < ?`, micros(before)); err != nil {
		l.log.Warn("cannot drop the result cache's reports from the research library", "path", l.path, "err", err)
	}
}

// trimCache drops the result cache's reports whose time is over at now (Unix microseconds), then the oldest while
// they take more than the reports leave of r's size limit. It returns how many it dropped.
func trimCache(tx *sql.Tx, r Retention, now int64) (int64, error) {
	res, err := tx.Exec(`DELETE FROM cache WHERE expires <= ?`, now)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if r.MaxBytes <= 0 {
		return n, nil
	}
	var cached, reports int64
	if err := tx.QueryRow(`SELECT coalesce(sum(size), 0) FROM cache`).Scan(&cached); err != nil || cached == 0 {
		return n, err
	}
	if err := tx.QueryRow(`SELECT coalesce(sum(size), 0) FROM reports`).Scan(&reports); err != nil ||
		cached+reports <= r.MaxBytes {
		return n, err
	}
	res, err = tx.Exec(`DELETE FROM cache WHERE key IN (SELECT key FROM (
		SELECT key, sum(size) OVER (ORDER BY at DESC, key DESC) AS newer FROM cache) WHERE newer > ?)`,
		r.MaxBytes-reports)
	if err != nil {
		return n, err
	}
	more, _ := res.RowsAffected()
	return n + more, nil
}
