package library

import (
	"fmt"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// usageKept is how long the usage meter keeps a call: its totals are by day and by month, and a year back says how
// a month compares.
const usageKept = 400 * 24 * time.Hour

// PutUsage keeps what one research call used, and forgets the calls older than usageKept.
func (l *Library) PutUsage(u record.Usage) error {
	if !l.ready() {
		return nil
	}
	if u.At.IsZero() {
		u.At = l.now()
	}
	_, err := l.db.Exec(`INSERT INTO usage (at, tool, backend, model, input_tokens, output_tokens, thought_tokens,
		total_tokens, searches, requests) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, micros(u.At), u.Tool, u.Backend,
		u.Model, u.InputTokens, u.OutputTokens, u.ThoughtTokens, u.TotalTokens, u.Searches, u.Requests)
	if err == nil {
		_, err = l.db.Exec(`DELETE FROM usage WHERE at < ?`, micros(u.At.Add(-usageKept)))
	}
	if err != nil {
		return fmt.Errorf("keep the usage of a call: %w", err)
	}
	l.changed.Notify()
	return nil
}

// UsageSince sums what the calls since then used, by backend and model, the most tokens first.
func (l *Library) UsageSince(since time.Time) ([]record.UsageTotal, error) {
	if !l.ready() {
		return nil, nil
	}
	rows, err := l.db.Query(`SELECT backend, model, COUNT(*), SUM(input_tokens), SUM(output_tokens),
		SUM(thought_tokens), SUM(total_tokens), SUM(searches), SUM(requests) FROM usage WHERE at >= ?
		GROUP BY backend, model ORDER BY SUM(total_tokens) DESC, backend, model`, micros(since))
	if err != nil {
		return nil, fmt.Errorf("read the usage: %w", err)
	}
	defer rows.Close()
	var out []record.UsageTotal
	for rows.Next() {
		var t record.UsageTotal
		if err := rows.Scan(&t.Backend, &t.Model, &t.Calls, &t.InputTokens, &t.OutputTokens, &t.ThoughtTokens,
			&t.TotalTokens, &t.Searches, &t.Requests); err != nil {
			return nil, fmt.Errorf("read the usage: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
