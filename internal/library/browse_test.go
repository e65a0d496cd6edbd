package library

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// TestBrowse: pages go through the reports newest first, with the count of all of them; a query keeps those that
// hold each of its words, and an offset past the end is an empty page.
func TestBrowse(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	var all []string // newest first
	for i := range 7 {
		topic := fmt.Sprintf("report %d", i)
		r := report(topic, time.Date(2026, 11, 22, 9, 0, i, 0, time.UTC))
		if i%2 == 0 {
			r.Markdown = "# " + topic + "\n\nThe **even** one, see [the notes](https://example.com/n)."
		}
		if _, err := l.Add(r); err != nil {
			t.Fatal(err)
		}
		all = append([]string{topic}, all...)
	}
	for _, tt := range []struct {
		query         string
		offset, limit int
		want          []string
		total         int
	}{
		{"", 0, 3, all[:3], 7},
		{"", 3, 3, all[3:6], 7},
		{"", 6, 3, all[6:], 7},
		{"", 9, 3, nil, 7},
		{"", -1, 0, all, 7},
		{"even", 0, 2, []string{"report 6", "report 4"}, 4},
		{"EVEN notes", 2, 2, []string{"report 2", "report 0"}, 4},
		{"zebra", 0, 2, nil, 0},
	} {
		t.Run(fmt.Sprintf("%q from %d", tt.query, tt.offset), func(t *testing.T) {
			page, total, err := l.Browse(tt.query, tt.offset, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := topics(page); !slices.Equal(got, tt.want) || total != tt.total {
				t.Errorf("Browse(%q, %d, %d) = %q of %d, want %q of %d", tt.query, tt.offset, tt.limit, got, total,
					tt.want, tt.total)
			}
		})
	}

	page, _, err := l.Browse("", 0, 2)
	if err != nil || len(page) != 2 || page[0].Excerpt != "The even one, see the notes." ||
		page[1].Excerpt != "See https://example.com/a." {
		t.Errorf("the openings of a plain page: %+v (%v), want each report's first line of prose", page, err)
	}
	page, _, err = l.Browse("notes", 0, 1)
	if err != nil || len(page) != 1 || page[0].Excerpt != "report 6 The even one, see the notes." {
		t.Errorf("the excerpt of a match: %+v (%v), want its words in their context, as plain text", page, err)
	}
}

// TestOpening: a report's opening line is its first line of prose, without Markdown's marks.
func TestOpening(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ md, want string }{
		{"# Title\n\n## Summary\n\nGo 1.26 ships **green tea**.\nMore.", "Go 1.26 ships green tea."},
		{"[Partial response: the answer was cut short.]\n\n# T\n\nWhat was found.", "What was found."},
		{"---\n| a | b |\n|---|---|\n```\ncode\n```\n<div>x</div>\n> A *quote* with `code`", "A *quote* with code"},
		{"- first   point\n- second", "first point"},
		{"[1]: https://example.com\n![logo](x.png) Logo and [link](https://e.com)", "logo Logo and link"},
		{"# Only a heading", ""},
		{"", ""},
	} {
		if got := opening(tt.md); got != tt.want {
			t.Errorf("opening(%q) = %q, want %q", tt.md, got, tt.want)
		}
	}
	long := opening(string(slices.Repeat([]byte("word "), 100)))
	if r := []rune(long); len(r) != openingMax || r[len(r)-1] != '…' {
		t.Errorf("a long opening is %d characters (%q), want %d ending in …", len(r), long, openingMax)
	}
}

// TestReportJob: the job of a report is the newest that points to it; a report no job points to has none.
func TestReportJob(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	ids := add(t, l, "with jobs", "imported")
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	researched, cached := record.NewJobID(), record.NewJobID()
	for i, id := range []string{researched, cached} {
		if err := l.PutJob(record.Job{ID: id, Tool: "search", Topic: "with jobs", Started: start.Add(time.Duration(i) * time.Minute),
			Args: []byte(fmt.Sprintf(`{"query":"with jobs","n":%d}`, i))}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.UpdateJob(id, func(j *record.Job) { j.State, j.ReportID = record.JobDone, ids[0] }); err != nil {
			t.Fatal(err)
		}
	}
	j, err := l.ReportJob(ids[0])
	if err != nil || j.ID != cached || string(j.Args) != `{"query":"with jobs","n":1}` {
		t.Errorf("ReportJob = %+v, %v; want the newest job, %s, with its arguments", j, err, cached)
	}
	for _, id := range []string{ids[1], "not-an-id", "20261122T100000.000000-0a1b2c3d"} {
		if _, err := l.ReportJob(id); !errors.Is(err, record.ErrNotFound) {
			t.Errorf("ReportJob(%q): %v, want ErrNotFound", id, err)
		}
	}
	var none *Library
	if page, total, err := none.Browse("x", 0, 10); page != nil || total != 0 || err != nil {
		t.Errorf("a nil library browses %v, %d, %v; want nothing", page, total, err)
	}
	if _, err := none.ReportJob(ids[0]); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("a nil library's ReportJob: %v, want ErrNotFound", err)
	}
}

// TestPage: pages go through the reports in the order they were kept, newest first (not the order they started
// in); reports kept and dropped between two pages neither repeat nor skip one kept before the first; the last page
// says none follows, and a place the library never gave lists nothing.
func TestPage(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	start := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	keep := func(topic string, i int) string {
		t.Helper()
		// Each report started before the one kept before it: started and kept go in opposite orders.
		id, err := l.Add(report(topic, start.Add(-time.Duration(i)*time.Minute)))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	var ids []string
	var want []string // newest first
	for i := range 7 {
		topic := fmt.Sprintf("report %d", i)
		ids = append(ids, keep(topic, i))
		want = append([]string{topic}, want...)
	}

	var got []string
	after := ""
	for page := 0; page == 0 || after != ""; page++ {
		found, next, err := l.Page(after, 3)
		if err != nil || page > 3 || len(found) > 3 {
			t.Fatalf("page %d: %q, %q, %v", page+1, topics(found), next, err)
		}
		if page == 0 && found[0].Excerpt == "" {
			t.Errorf("a page's report %+v has no excerpt, want the opening of its text", found[0])
		}
		got = append(got, topics(found)...)
		after = next
		switch page { // after the first page a report is kept and its last (where the next begins) deleted; after
		// the second one listed already is deleted
		case 0:
			keep("kept after the first page", 7)
			if err := l.Delete(ids[4]); err != nil {
				t.Fatal(err)
			}
		case 1:
			if err := l.Delete(ids[6]); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the pages listed %q, want %q", got, want)
	}
	if all, next, err := l.Page("", 0); len(all) != 6 || next != "" || err != nil {
		t.Errorf("Page without a limit: %q, %q, %v; want the 6 reports kept and no next", topics(all), next, err)
	}
	for _, foreign := range []string{"20", "x.y", "1.2.3", "01.2", "-"} {
		if found, next, err := l.Page(foreign, 3); found != nil || next != "" || err != nil {
			t.Errorf("Page(%q) = %q, %q, %v; want nothing", foreign, topics(found), next, err)
		}
	}
}

// BenchmarkBrowse is a page of /history, 25 reports with their excerpts and the count, with 10,000 reports kept: the
// first and a late page of the whole library, and of the matches of a word in about one report in ten.
func BenchmarkBrowse(b *testing.B) {
	path := filepath.Join(b.TempDir(), FileName)
	common, _ := fill(b, path, benchReports)
	l, err := Open(path, Options{Retention: Retention{MaxReports: benchReports}, Poll: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	for _, tt := range []struct {
		name   string
		query  string
		offset int
	}{{"all/first", "", 0}, {"all/page-200", "", 5000}, {"common-word/first", common, 0}, {"common-word/last", common, 900}} {
		b.Run(tt.name, func(b *testing.B) {
			for b.Loop() {
				if page, _, err := l.Browse(tt.query, tt.offset, 25); err != nil || len(page) == 0 {
					b.Fatalf("Browse: %d reports, %v", len(page), err)
				}
			}
		})
	}
}

// BenchmarkPage is a page of resources/list, 50 reports with their excerpts, with 10,000 reports kept: the first,
// and one after the place of the 5,000th.
func BenchmarkPage(b *testing.B) {
	path := filepath.Join(b.TempDir(), FileName)
	fill(b, path, benchReports)
	l, err := Open(path, Options{Retention: Retention{MaxReports: benchReports}, Poll: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	_, late, err := l.Page("", 5000)
	if err != nil || late == "" {
		b.Fatalf("the place of the 5,000th report: %q, %v", late, err)
	}
	for name, after := range map[string]string{"first": "", "after-5000": late} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if page, _, err := l.Page(after, 50); err != nil || len(page) != 50 {
					b.Fatalf("Page: %d reports, %v", len(page), err)
				}
			}
		})
	}
}
