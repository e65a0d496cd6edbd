package library

import (
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// Browsing the library page by page: people on /history by the number of a page (Browse: an offset, and the count
// of what there is to go through), clients through resources/list by a cursor (Page: the place of the last report
// they were given). Both go in one stable order, newest first, the order of List.

// openingChars is how much of a report's text Browse reads for its opening line: enough for a heading or two and
// the first sentences, so that a list does not read whole reports.
const openingChars = 2000

// openingMax is how many characters of a report's opening line Browse keeps.
const openingMax = 240

// Browse returns one page of the reports kept, newest first (the order of List): with a query, those whose topic or
// text holds every word of it (as Search reads a query; one without words lists every report), skipping the first
// offset of them, at most limit (every one after offset when limit <= 0); and total, how many there are in all, so
// that a caller can count its pages. Each report comes with an excerpt on one line, as plain text (without
// Markdown's marks of headings, emphasis and links): for a query, its words in their context in the report's topic
// or text; without one, the opening of its text, past its headings. An offset past the end gives an empty page and
// the same total.
func (l *Library) Browse(query string, offset, limit int) (page []record.Summary, total int, err error) {
	if !l.ready() {
		return nil, 0, nil
	}
	offset = max(offset, 0)
	if limit <= 0 {
		limit = -1
	}
	match := ftsQuery(query)
	if match == "" {
		if err := l.db.QueryRow(`SELECT count(*) FROM reports`).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("browse the research library: %w", err)
		}
		// The page's rows first, then their openings: a sort of the rows with their texts would read every text.
		page, err = l.excerpts(`SELECT `+summaryColumns+`, substr(reports.markdown, 1, ?) FROM reports WHERE n IN (
			SELECT n FROM reports ORDER BY kept DESC, n DESC LIMIT ? OFFSET ?) ORDER BY kept DESC, n DESC`,
			opening, openingChars, limit, offset)
	} else {
		if err := l.db.QueryRow(`SELECT count(*) FROM reports_fts WHERE reports_fts MATCH ?`, match).Scan(&total); err != nil {
			return nil, 0, fmt.Errorf("search the research library: %w", err)
		}
		// The same for the matches: the snippets of the page's alone.
		page, err = l.excerpts(`SELECT `+summaryColumns+`, snippet(reports_fts, -1, '', '', '…', 16)
			FROM reports_fts JOIN reports ON reports.n = reports_fts.rowid WHERE reports_fts MATCH ? AND reports.n IN (
				SELECT reports.n FROM reports_fts JOIN reports ON reports.n = reports_fts.rowid WHERE reports_fts MATCH ?
				ORDER BY reports.kept DESC, reports.n DESC LIMIT ? OFFSET ?)
			ORDER BY reports.kept DESC, reports.n DESC`, plain, match, match, limit, offset)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("browse the research library: %w", err)
	}
	return page, total, nil
}

// Page returns the reports kept after the place after in the list of every report, newest first (the order of List
// and Browse), at most limit (every one when limit <= 0), each with the opening of its text as its excerpt; and
// next, the place after the last of them, where the next page begins: "" when no report is left after it. A place
// is a report's, not a count of reports before it, so that reports kept or dropped between two pages shift nothing:
// a page neither repeats a report nor skips one that was kept before the first. after is "" for the first page;
// a place the library never gave lists nothing.
func (l *Library) Page(after string, limit int) (page []record.Summary, next string, err error) {
	if !l.ready() {
		return nil, "", nil
	}
	from := place{kept: math.MaxInt64, n: math.MaxInt64} // before every report
	if after != "" {
		var ok bool
		if from, ok = parsePlace(after); !ok {
			return nil, "", nil
		}
	}
	// One report more than the page, to tell whether another page follows.
	more := -1
	if limit > 0 {
		more = limit + 1
	}
	// The page's rows first, then their openings, as Browse reads them.
	rows, err := l.db.Query(`SELECT `+summaryColumns+`, substr(reports.markdown, 1, ?), reports.kept, reports.n
		FROM reports WHERE n IN (
			SELECT n FROM reports WHERE (kept, n) < (?, ?) ORDER BY kept DESC, n DESC LIMIT ?)
		ORDER BY kept DESC, n DESC`, openingChars, from.kept, from.n, more)
	if err != nil {
		return nil, "", fmt.Errorf("list the research library: %w", err)
	}
	defer rows.Close()
	var last place
	for rows.Next() {
		if limit > 0 && len(page) == limit {
			return page, last.String(), nil
		}
		var s record.Summary
		var text string
		if err := rows.Scan(append(summaryFields(&s), &text, &last.kept, &last.n)...); err != nil {
			return nil, "", fmt.Errorf("list the research library: %w", err)
		}
		s.Excerpt = opening(text)
		page = append(page, s)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list the research library: %w", err)
	}
	return page, "", nil
}

// place is a report's place in the list of every report, newest first: when it was kept (Unix microseconds), and
// its row, which tells apart the reports kept in the same microsecond.
type place struct{ kept, n int64 }

// String is p as Page gives it: "<kept>.<n>".
func (p place) String() string {
	return strconv.FormatInt(p.kept, 10) + "." + strconv.FormatInt(p.n, 10)
}

// parsePlace reads a place that String wrote.
func parsePlace(s string) (place, bool) {
	kept, n, ok := strings.Cut(s, ".")
	if !ok {
		return place{}, false
	}
	var p place
	var errKept, errN error
	p.kept, errKept = strconv.ParseInt(kept, 10, 64)
	p.n, errN = strconv.ParseInt(n, 10, 64)
	return p, errKept == nil && errN == nil && p.String() == s
}

// excerpts runs a query of summaryColumns and one more column, which excerpt turns into each summary's Excerpt.
func (l *Library) excerpts(query string, excerpt func(string) string, args ...any) ([]record.Summary, error) {
	rows, err := l.db.Query(query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var list []record.Summary
	for rows.Next() {
		var s record.Summary
		var text string
		if err := rows.Scan(append(summaryFields(&s), &text)...); err != nil {
			return nil, err
		}
		s.Excerpt = excerpt(text)
		list = append(list, s)
	}
	return list, rows.Err()
}

// oneLine is s with its runs of white space, new lines among them, made one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Marks of Markdown that plain takes out: a link or image (its text stays), a heading's hashes, emphasis and code.
var (
	markdownLink    = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	markdownHeading = regexp.MustCompile(`(^|\s)#{1,6}\s`)
	markdownMarks   = strings.NewReplacer("**", "", "__", "", "`", "")
)

// plain is Markdown text md on one line, without the marks of its links, headings, emphasis and code.
func plain(md string) string {
	md = markdownLink.ReplaceAllString(md, "$1")
	md = markdownHeading.ReplaceAllString(md, "$1")
	return oneLine(markdownMarks.Replace(md))
}

// aside is a line opening skips: a link definition ("[1]: https://…"), or a line in brackets, the notices the
// research puts around a report ("[Partial response: …]").
var aside = regexp.MustCompile(`^\[[^\]]*\]:|^\[.*\]$`)

// opening is the first line of prose of md, the beginning of a report's text: past its headings, rules, tables,
// code, HTML and notices, without the marks of emphasis and links, cut to openingMax characters. "" when md has none.
func opening(md string) string {
	fenced := false
	for line := range strings.Lines(md) {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced || line == "" || strings.Trim(line, "-*_= ") == "" || aside.MatchString(line) {
			continue
		}
		switch line[0] {
		case '#', '|', '<': // a heading, a table, HTML
			continue
		}
		line = strings.TrimLeft(line, "> ")
		for _, bullet := range []string{"- ", "* ", "+ "} {
			line = strings.TrimPrefix(line, bullet)
		}
		if line = plain(line); line != "" {
			return shorten(line, openingMax)
		}
	}
	return ""
}

// shorten cuts s to at most n characters, ending in "…" when cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// ReportJob returns the research job whose report is the kept report id: the newest, when several are (identical
// calls answered from the cache point to the report researched first). ErrNotFound when no job kept is: a report
// imported from the history files of an earlier release, or one whose job retention has dropped.
func (l *Library) ReportJob(id string) (record.Job, error) {
	if !record.ValidID(id) || !l.ready() {
		return record.Job{}, record.ErrNotFound
	}
	j, err := scanJob(l.db.QueryRow(`SELECT `+jobColumns+` FROM jobs WHERE report_id = ?
		ORDER BY started DESC, rowid DESC LIMIT 1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return record.Job{}, record.ErrNotFound
	}
	if err != nil {
		return record.Job{}, fmt.Errorf("read the job of report %s: %w", id, err)
	}
	return j, nil
}
