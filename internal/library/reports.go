package library

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// summaryColumns are the columns a Summary is read from, all before the long ones (scanSummary).
const summaryColumns = `reports.id, reports.tool, reports.topic, reports.depth, reports.model, reports.backend,
	reports.started, reports.took_ms, reports.partial, reports.size`

// Add keeps r as the newest report, then drops what is past the retention limits. The library gives r its id,
// which it returns. A report of the identity of one kept already (the same tool, topic, start and duration:
// identical calls that joined one run each get it) is not kept twice; its id is returned. With a limit of 0 reports nothing is
// kept and the id is "". A report larger than the size limit is refused.
func (l *Library) Add(r record.Report) (string, error) {
	if !l.ready() {
		return "", nil
	}
	ret := l.Retention()
	if ret.MaxReports <= 0 {
		return "", nil
	}
	sources, err := json.Marshal(nonNil(r.Sources))
	if err != nil {
		return "", err
	}
	size := int64(len(r.Topic) + len(r.Markdown) + len(sources) + len(r.Metadata))
	if ret.MaxBytes > 0 && size > ret.MaxBytes {
		return "", fmt.Errorf("keep the report in the research library: %d bytes, more than the library's %d", size,
			ret.MaxBytes)
	}
	var id string
	err = inTx(l.db, func(tx *sql.Tx) error {
		err := tx.QueryRow(`SELECT id FROM reports WHERE `+byIdentity, identity(r.Identity())...).Scan(&id)
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		now := l.now()
		for range 10 { // a fresh id: two reports kept in the same microsecond differ by their random part
			id = record.NewID(now)
			res, err := tx.Exec(`INSERT INTO reports (id, tool, topic, depth, model, backend, started, took_ms, partial,
				size, kept, markdown, sources, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO NOTHING`,
				id, r.Tool, r.Topic, r.Depth, r.Model, r.Backend, micros(r.Started), r.Duration.Milliseconds(),
				r.Partial, size, micros(now), r.Markdown, string(sources), string(r.Metadata))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				return nil
			}
		}
		return errors.New("no fresh id")
	})
	if err != nil {
		return "", fmt.Errorf("keep the report in the research library: %w", err)
	}
	l.changed.Notify()
	l.prune()
	return id, nil
}

// byIdentity is the term of the reports of one identity, whose values identity gives.
const byIdentity = `started = ? AND tool = ? AND topic = ? AND took_ms = ?`

// identity is the values of byIdentity for made.
func identity(made record.Identity) []any {
	return []any{micros(made.Started), made.Tool, made.Topic, made.Duration.Milliseconds()}
}

// Find returns the id of the report kept for the research made, the one Add kept for it; ErrNotFound when none is
// (it was never kept, or it has been deleted or dropped since).
func (l *Library) Find(made record.Identity) (string, error) {
	if !l.ready() {
		return "", record.ErrNotFound
	}
	var id string
	err := l.db.QueryRow(`SELECT id FROM reports WHERE `+byIdentity, identity(made)...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", record.ErrNotFound
	}
	if err != nil {
		return "", fmt.Errorf("find a report in the research library: %w", err)
	}
	return id, nil
}

// nonNil is s, or an empty slice for nil: sources are kept as a JSON array, never null.
func nonNil(s []record.Source) []record.Source {
	if s == nil {
		return []record.Source{}
	}
	return s
}

// List returns the n newest reports (every one when n <= 0), newest first, without their text. A library that
// cannot be read lists nothing, and logs why.
func (l *Library) List(n int) []record.Summary {
	if !l.ready() {
		return nil
	}
	if n <= 0 {
		n = -1
	}
	list, err := l.summaries(`SELECT `+summaryColumns+` FROM reports ORDER BY kept DESC, n DESC LIMIT ?`, n)
	if err != nil {
		l.log.Warn("cannot list the research library", "path", l.path, "err", err)
	}
	return list
}

// Len is how many reports are kept.
func (l *Library) Len() int {
	if !l.ready() {
		return 0
	}
	var n int
	if err := l.db.QueryRow(`SELECT count(*) FROM reports`).Scan(&n); err != nil {
		l.log.Warn("cannot count the reports of the research library", "path", l.path, "err", err)
	}
	return n
}

// Get returns the kept report id; ErrNotFound for an id that is malformed or not kept.
func (l *Library) Get(id string) (record.Report, error) {
	if !record.ValidID(id) || !l.ready() {
		return record.Report{}, record.ErrNotFound
	}
	var r record.Report
	var sources, metadata string
	err := l.db.QueryRow(`SELECT `+summaryColumns+`, markdown, sources, metadata FROM reports WHERE id = ?`, id).Scan(
		append(summaryFields(&r.Summary), &r.Markdown, &sources, &metadata)...)
	if errors.Is(err, sql.ErrNoRows) {
		return record.Report{}, record.ErrNotFound
	}
	if err != nil {
		return record.Report{}, fmt.Errorf("read report %s of the research library: %w", id, err)
	}
	if err := json.Unmarshal([]byte(sources), &r.Sources); err != nil {
		return record.Report{}, fmt.Errorf("read the sources of report %s: %w", id, err)
	}
	if len(r.Sources) == 0 {
		r.Sources = nil
	}
	if metadata != "" {
		r.Metadata = json.RawMessage(metadata)
	}
	return r, nil
}

// Delete drops the kept report id, and the result cache's entries of the same research (PutCached), so that no
// server answers an identical request with it from the library; ErrNotFound when it is not kept.
func (l *Library) Delete(id string) error {
	if !record.ValidID(id) || !l.ready() {
		return record.ErrNotFound
	}
	err := inTx(l.db, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`DELETE FROM cache WHERE (started, tool, topic, took_ms) IN (
			SELECT started, tool, topic, took_ms FROM reports WHERE id = ?)`, id); err != nil {
			return err
		}
		res, err := tx.Exec(`DELETE FROM reports WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return record.ErrNotFound
		}
		return nil
	})
	if errors.Is(err, record.ErrNotFound) {
		return err
	}
	if err != nil {
		return fmt.Errorf("delete report %s of the research library: %w", id, err)
	}
	l.changed.Notify()
	return nil
}

// Search returns the reports whose topic or text holds every word of query, kept since since (every one when
// zero), at most limit (every one when limit <= 0): the best matches first (SQLite FTS5's bm25, a word in the topic
// weighing more than one in the text), then the newest. Each comes with an excerpt on one line, as plain text (as
// Browse's): its text around the words. Only the letters and digits of query count: quotes, operators and other
// punctuation are no search syntax. A query without words lists the reports kept since since, newest first, each
// with the opening of its text.
func (l *Library) Search(query string, since time.Time, limit int) ([]record.Summary, error) {
	if !l.ready() {
		return nil, nil
	}
	if limit <= 0 {
		limit = -1
	}
	// Without a since, no term on started: SQLite would read the reports in reports_started, then sort them all.
	started, args := "true", []any{}
	if !since.IsZero() {
		started, args = "reports.started >= ?", []any{micros(since)}
	}
	match := ftsQuery(query)
	if match == "" {
		// The newest first, then their openings: a sort of the rows with their texts would read every text.
		return l.excerpts(`SELECT `+summaryColumns+`, substr(reports.markdown, 1, ?) FROM reports WHERE n IN (
			SELECT n FROM reports WHERE `+started+` ORDER BY kept DESC, n DESC LIMIT ?) ORDER BY kept DESC, n DESC`,
			opening, slices.Concat([]any{openingChars}, args, []any{limit})...)
	}
	list, err := l.excerpts(`SELECT `+summaryColumns+`, snippet(reports_fts, -1, '', '', '…', 16)
		FROM reports_fts JOIN reports ON reports.n = reports_fts.rowid WHERE reports_fts MATCH ? AND `+started+`
		ORDER BY bm25(reports_fts, 5.0, 1.0), reports.kept DESC, reports.n DESC LIMIT ?`, plain,
		slices.Concat([]any{match}, args, []any{limit})...)
	if err != nil {
		return nil, fmt.Errorf("search the research library: %w", err)
	}
	return list, nil
}

// ftsQuery is an FTS5 query for every word of query: each a quoted string, so that nothing in it is syntax; ""
// when it has no word.
func ftsQuery(query string) string {
	words := strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = `"` + w + `"`
	}
	return strings.Join(words, " ")
}

// summaries runs a query of summaryColumns.
func (l *Library) summaries(query string, args ...any) ([]record.Summary, error) {
	rows, err := l.db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []record.Summary
	for rows.Next() {
		var s record.Summary
		if err := rows.Scan(summaryFields(&s)...); err != nil {
			return nil, err
		}
		list = append(list, s)
	}
	return list, rows.Err()
}

// summaryFields are the destinations of summaryColumns.
func summaryFields(s *record.Summary) []any {
	return []any{&s.ID, &s.Tool, &s.Topic, &s.Depth, &s.Model, &s.Backend, (*microTime)(&s.Started),
		(*millis)(&s.Duration), &s.Partial, &s.Size}
}

// microTime scans Unix microseconds into a time.Time in UTC.
type microTime time.Time

func (t *microTime) Scan(v any) error {
	us, ok := v.(int64)
	if !ok {
		return fmt.Errorf("a time of %T", v)
	}
	*t = microTime(fromMicros(us))
	return nil
}

// millis scans milliseconds into a time.Duration.
type millis time.Duration

func (d *millis) Scan(v any) error {
	ms, ok := v.(int64)
	if !ok {
		return fmt.Errorf("a duration of %T", v)
	}
	*d = millis(time.Duration(ms) * time.Millisecond)
	return nil
}
