package library

import (
	"database/sql"
	"fmt"
	"time"
)

// Retention is what the library keeps: past any limit the oldest reports go first, and every report dropped is
// logged. A report that a running job points to is never dropped. The result cache's reports count in the size
// limit too, and go before any report does (trimCache).
type Retention struct {
	MaxReports int           // reports kept at most; 0 keeps none (and drops every report kept)
	MaxAge     time.Duration // reports kept longer ago are dropped; 0: no limit by age
	MaxBytes   int64         // the reports' sizes together (record.Summary.Size) and the cache's; 0: no limit by size
}

// maxJobs is how many finished jobs are kept at most, besides the age limit: a job's row is small, and its report
// follows the reports' limits.
const maxJobs = 10_000

// Retention is the retention in force.
func (l *Library) Retention() Retention {
	if l == nil {
		return Retention{}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.retention
}

// SetRetention puts r in force, and drops at once what is past it; a library not open yet drops it when it opens.
func (l *Library) SetRetention(r Retention) {
	if l == nil {
		return
	}
	l.mu.Lock()
	changed := l.retention != r
	l.retention = r
	l.mu.Unlock()
	if changed && l.isOpen() {
		l.prune()
	}
}

// pinned are the reports running jobs point to, which no limit drops.
const pinned = `id NOT IN (SELECT report_id FROM jobs WHERE state = 'running' AND report_id IS NOT NULL)`

// victim is a report the retention drops.
type victim struct {
	n           int64
	id, topic   string
	kept        int64
	size        int64
	limitReason string
}

// prune drops the oldest reports past the retention's limits, the finished jobs past theirs, and the result
// cache's reports past their time or the size limit, and logs what it dropped. A failure is logged: they stay until
// the next try.
func (l *Library) prune() {
	r := l.Retention()
	var dropped []victim
	var jobs, cached int64
	err := inTx(l.db, func(tx *sql.Tx) error {
		dropped = nil
		var err error
		if dropped, err = victims(tx, r, micros(l.now())); err != nil {
			return err
		}
		for _, v := range dropped {
			if _, err := tx.Exec(`DELETE FROM reports WHERE n = ?`, v.n); err != nil {
				return err
			}
		}
		if jobs, err = pruneJobs(tx, r, micros(l.now())); err != nil {
			return err
		}
		cached, err = trimCache(tx, r, micros(l.now()))
		return err
	})
	if err != nil {
		l.log.Warn("cannot apply the research library's retention", "path", l.path, "err", err)
		return
	}
	byReason := map[string][]victim{}
	var reasons []string
	for _, v := range dropped {
		if byReason[v.limitReason] == nil {
			reasons = append(reasons, v.limitReason)
		}
		byReason[v.limitReason] = append(byReason[v.limitReason], v)
		l.log.Debug("dropped a report from the research library", "id", v.id, "topic", v.topic,
			"kept", fromMicros(v.kept), "reason", v.limitReason)
	}
	for _, reason := range reasons {
		vs := byReason[reason]
		oldest, newest := vs[0], vs[len(vs)-1]
		l.log.Info("dropped reports from the research library", "reports", len(vs), "reason", reason,
			"oldest", fmt.Sprintf("%s %q", fromMicros(oldest.kept).Format(time.DateOnly), oldest.topic),
			"newest", fmt.Sprintf("%s %q", fromMicros(newest.kept).Format(time.DateOnly), newest.topic))
	}
	if jobs > 0 {
		l.log.Info("dropped finished jobs from the research library", "jobs", jobs, "reason",
			fmt.Sprintf("ended more than %s ago, or more than %d finished", days(r.MaxAge), maxJobs))
	}
	if cached > 0 {
		l.log.Debug("dropped reports of the result cache from the research library", "reports", cached, "reason",
			"past their time to live, or past the size limit")
	}
	if len(dropped) > 0 || jobs > 0 {
		l.changed.Notify()
	}
}

// victims are the reports past r's limits at now (Unix microseconds), oldest first: those kept before the age
// limit, then the oldest past the count, then the oldest past the size.
func victims(tx *sql.Tx, r Retention, now int64) ([]victim, error) {
	var out []victim
	gone := map[int64]bool{}
	add := func(query, reason string, args ...any) (count, size int64, err error) {
		rows, err := tx.Query(`SELECT n, id, topic, kept, size FROM reports WHERE `+pinned+` `+query, args...)
		if err != nil {
			return 0, 0, err
		}
		defer rows.Close()
		for rows.Next() {
			v := victim{limitReason: reason}
			if err := rows.Scan(&v.n, &v.id, &v.topic, &v.kept, &v.size); err != nil {
				return 0, 0, err
			}
			if !gone[v.n] {
				gone[v.n] = true
				out = append(out, v)
				count++
				size += v.size
			}
		}
		return count, size, rows.Err()
	}
	if r.MaxAge > 0 {
		if _, _, err := add(`AND kept < ? ORDER BY kept, n`, "kept more than "+days(r.MaxAge)+" ago",
			now-r.MaxAge.Microseconds()); err != nil {
			return nil, err
		}
	}
	var count, total int64
	if err := tx.QueryRow(`SELECT count(*), coalesce(sum(size), 0) FROM reports`).Scan(&count, &total); err != nil {
		return nil, err
	}
	for _, v := range out {
		count, total = count-1, total-v.size
	}
	if over := count - int64(r.MaxReports); over > 0 {
		n, size, err := add(`ORDER BY kept, n LIMIT ?`, fmt.Sprintf("more than %d reports", r.MaxReports),
			over+int64(len(out)))
		if err != nil {
			return nil, err
		}
		count, total = count-n, total-size
	}
	if r.MaxBytes > 0 && total > r.MaxBytes {
		rows, err := tx.Query(`SELECT n, id, topic, kept, size FROM reports WHERE ` + pinned + ` ORDER BY kept, n`)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		reason := fmt.Sprintf("more than %d MB together", r.MaxBytes>>20)
		for total > r.MaxBytes && rows.Next() {
			v := victim{limitReason: reason}
			if err := rows.Scan(&v.n, &v.id, &v.topic, &v.kept, &v.size); err != nil {
				return nil, err
			}
			if !gone[v.n] {
				gone[v.n] = true
				out = append(out, v)
				total -= v.size
			}
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// pruneJobs deletes the finished jobs that ended before r's age limit, and the oldest past maxJobs.
func pruneJobs(tx *sql.Tx, r Retention, now int64) (int64, error) {
	var n int64
	if r.MaxAge > 0 {
		res, err := tx.Exec(`DELETE FROM jobs WHERE state != 'running' AND ended < ?`, now-r.MaxAge.Microseconds())
		if err != nil {
			return 0, err
		}
		n, _ = res.RowsAffected()
	}
	res, err := tx.Exec(`DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE state != 'running'
		ORDER BY ended DESC LIMIT -1 OFFSET ?)`, maxJobs)
	if err != nil {
		return 0, err
	}
	more, _ := res.RowsAffected()
	return n + more, nil
}

// days is d in days, as the retention's age limit is set: "365 days".
func days(d time.Duration) string {
	if d <= 0 {
		return "no limit"
	}
	n := d.Round(time.Hour).Hours() / 24
	if n == float64(int64(n)) {
		return fmt.Sprintf("%d days", int64(n))
	}
	return d.String()
}
