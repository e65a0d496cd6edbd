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
// library's reports (those stay until the retention drops them): each goes after the cache's time to live, or with
// the library's report of the same research when it is deleted (Delete).

// PutCached keeps value, the report of the research made, under key, cached at at, in place of what was kept under
// it, and drops what was cached before dropBefore. What cannot be kept is logged.
func (l *Library) PutCached(key string, made record.Identity, value []byte, at, dropBefore time.Time) {
	if l == nil {
		return
	}
	err := inTx(l.db, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM cache WHERE at < ?`, micros(dropBefore)); err != nil {
			return err
		}
		_, err := tx.Exec(`INSERT OR REPLACE INTO cache (key, at, started, tool, topic, took_ms, value)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, slices.Concat([]any{key, micros(at)}, identity(made), []any{value})...)
		return err
	})
	if err != nil {
		l.log.Warn("cannot keep a report of the result cache in the research library", "path", l.path, "err", err)
	}
}

// Cached is the value kept under key if it was cached at since or later, and when. What cannot be read is logged,
// and answered as not kept.
func (l *Library) Cached(key string, since time.Time) (value []byte, at time.Time, ok bool) {
	if l == nil {
		return nil, at, false
	}
	var us int64
	err := l.db.QueryRow(`SELECT value, at FROM cache WHERE key = ? AND at >= ?`, key, micros(since)).Scan(&value, &us)
	if err != nil {
		if !errors.Is(err, sql.ErrNoRows) {
			l.log.Warn("cannot read the result cache in the research library", "path", l.path, "err", err)
		}
		return nil, at, false
	}
	return value, fromMicros(us), true
}
