package library

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// report returns a report of topic that started at start.
func report(topic string, start time.Time) record.Report {
	return record.Report{Summary: record.Summary{Tool: "search", Topic: topic, Model: "gemini-2.5-flash",
		Backend: "cli", Started: start, Duration: 83 * time.Second},
		Markdown: "# " + topic + "\n\nSee https://example.com/a.",
		Sources:  []record.Source{{URL: "https://example.com/a", Title: "A"}}}
}

// clock returns a library's clock that moves one second at each reading, from 2026-11-22 10:00 UTC.
func clock() func() time.Time {
	var mu sync.Mutex
	t := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(time.Second)
		return t
	}
}

var keepAll = Retention{MaxReports: 1000, MaxAge: 365 * 24 * time.Hour, MaxBytes: 200 << 20}

// open opens the library at path with a clock of its own; log, when not nil, gets its log.
func open(t *testing.T, path string, r Retention, log *testkit.SyncBuffer) *Library {
	t.Helper()
	o := Options{Retention: r, Poll: -1, now: clock()}
	if log != nil {
		o.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	l, err := Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func dbPath(t *testing.T) string {
	return filepath.Join(t.TempDir(), "data", "gemini-search-mcp", FileName)
}

// add adds reports of topics in order and returns their ids.
func add(t *testing.T, l *Library, topics ...string) []string {
	t.Helper()
	var ids []string
	for i, topic := range topics {
		id, err := l.Add(report(topic, time.Date(2026, 11, 22, 9, 0, i, 0, time.UTC)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func topics(list []record.Summary) []string {
	var got []string
	for _, s := range list {
		got = append(got, s.Topic)
	}
	return got
}

func TestAddListGet(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	if got := l.List(0); len(got) != 0 {
		t.Fatalf("a new library lists %v, want nothing", got)
	}
	ids := add(t, l, "first", "second", "third")
	for _, id := range ids {
		if !record.ValidID(id) {
			t.Errorf("id %q is not valid", id)
		}
	}
	if got, want := topics(l.List(0)), []string{"third", "second", "first"}; !slices.Equal(got, want) {
		t.Errorf("List(0): %q, want newest first %q", got, want)
	}
	if got, want := topics(l.List(2)), []string{"third", "second"}; !slices.Equal(got, want) {
		t.Errorf("List(2): %q, want %q", got, want)
	}
	if l.Len() != 3 {
		t.Errorf("Len: %d, want 3", l.Len())
	}

	r, err := l.Get(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	want := report("second", time.Date(2026, 11, 22, 9, 0, 1, 0, time.UTC))
	want.ID, want.Size = ids[1], r.Size
	if r.Summary != want.Summary || r.Markdown != want.Markdown || !slices.Equal(r.Sources, want.Sources) {
		t.Errorf("Get: %+v, want %+v", r, want)
	}
	if r.Size <= int64(len(r.Markdown)) {
		t.Errorf("Size %d, want more than the Markdown's %d bytes", r.Size, len(r.Markdown))
	}
	if _, err := l.Get("20261122T100000.000000-00000000"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Get of an id not kept: %v, want ErrNotFound", err)
	}
	if _, err := l.Get("../../etc/passwd"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Get of a malformed id: %v, want ErrNotFound", err)
	}

	if err := l.Delete(ids[0]); err != nil {
		t.Fatal(err)
	}
	if got := topics(l.List(0)); !slices.Equal(got, []string{"third", "second"}) {
		t.Errorf("after Delete: %q", got)
	}
	if err := l.Delete(ids[0]); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Delete again: %v, want ErrNotFound", err)
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	path := dbPath(t)
	open(t, path, keepAll, nil)
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the folder: %v (%v), want 0700", fi.Mode(), err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the database: %v (%v), want 0600", fi.Mode(), err)
	}
}

func TestRetentionByCount(t *testing.T) {
	t.Parallel()
	var log testkit.SyncBuffer
	l := open(t, dbPath(t), Retention{MaxReports: 3, MaxBytes: 200 << 20}, &log)
	ids := add(t, l, "a", "b", "c", "d", "e")
	if got, want := topics(l.List(0)), []string{"e", "d", "c"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want the newest three %q", got, want)
	}
	if _, err := l.Get(ids[0]); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Get of a dropped report: %v, want ErrNotFound", err)
	}
	if !strings.Contains(log.String(), "dropped reports from the research library") ||
		!strings.Contains(log.String(), "more than 3 reports") || !strings.Contains(log.String(), `topic=a`) {
		t.Errorf("the log does not say what was dropped and why:\n%s", log.String())
	}

	l.SetRetention(Retention{MaxReports: 1})
	if got := topics(l.List(0)); !slices.Equal(got, []string{"e"}) {
		t.Errorf("after MaxReports 1: %q, want only the newest", got)
	}
	l.SetRetention(Retention{})
	if got := l.List(0); len(got) != 0 {
		t.Errorf("after MaxReports 0: %v, want nothing kept", got)
	}
	if id, err := l.Add(report("off", time.Now())); id != "" || err != nil || l.Len() != 0 {
		t.Errorf("Add with the library off: %q, %v, %d kept; want nothing kept", id, err, l.Len())
	}
}

func TestRetentionByAge(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	l := open(t, path, keepAll, nil)
	add(t, l, "old", "older still")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	add(t, l, "new")
	now = now.Add(40 * 24 * time.Hour)
	l.SetRetention(Retention{MaxReports: 1000, MaxAge: 30 * 24 * time.Hour})
	if got := topics(l.List(0)); len(got) != 0 {
		t.Errorf("40 days later, with a limit of 30: %q kept, want none", got)
	}
}

func TestRetentionBySize(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	add(t, l, "a")
	one := l.List(0)[0].Size
	l.SetRetention(Retention{MaxReports: 100, MaxBytes: 3*one + one/2})
	add(t, l, "b", "c", "d", "e")
	if got, want := topics(l.List(0)), []string{"e", "d", "c"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want the newest that fit %q", got, want)
	}
	big := report("too big", time.Now())
	big.Markdown = strings.Repeat("x", int(4*one))
	if _, err := l.Add(big); err == nil {
		t.Error("a report bigger than the whole library was kept")
	}
	if got := topics(l.List(0)); len(got) != 3 {
		t.Errorf("after a refused report: %q, want the three kept", got)
	}
}

// TestRetentionSparesRunningJobs: a report a running job points to outlives every limit; once the job ends, the
// next pruning drops it.
func TestRetentionSparesRunningJobs(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	ids := add(t, l, "partial round", "b")
	job := record.Job{ID: record.NewJobID(), Tool: "deep_search", Topic: "partial round", ReportID: ids[0]}
	if err := l.PutJob(job); err != nil {
		t.Fatal(err)
	}
	l.SetRetention(Retention{MaxReports: 0})
	if got := topics(l.List(0)); !slices.Equal(got, []string{"partial round"}) {
		t.Errorf("kept %q, want only the running job's report", got)
	}
	if _, err := l.UpdateJob(job.ID, func(j *record.Job) { j.State = record.JobDone }); err != nil {
		t.Fatal(err)
	}
	l.SetRetention(Retention{MaxReports: 1}) // any change applies the limits again
	l.SetRetention(Retention{MaxReports: 0})
	if got := l.List(0); len(got) != 0 {
		t.Errorf("kept %v after the job ended, want nothing", got)
	}
	if j, err := l.Job(job.ID); err != nil || j.ReportID != "" {
		t.Errorf("the job of a dropped report: %+v, %v; want no report", j, err)
	}
}

// TestRestart: a library opened again lists what it kept before, and its limits apply at once.
func TestRestart(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	first := open(t, path, keepAll, nil)
	ids := add(t, first, "a", "b", "c")
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	l := open(t, path, keepAll, nil)
	if got, want := topics(l.List(0)), []string{"c", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("after a restart: %q, want %q", got, want)
	}
	if r, err := l.Get(ids[0]); err != nil || r.Markdown != "# a\n\nSee https://example.com/a." {
		t.Errorf("Get after a restart: %+v, %v", r, err)
	}
	l.Close()
	if got := topics(open(t, path, Retention{MaxReports: 2}, nil).List(0)); !slices.Equal(got, []string{"c", "b"}) {
		t.Errorf("opened with a lower limit: %q, want the newest two", got)
	}
}

// TestJoinedCallsKeepOneReport: identical calls that joined one run each get its report: it is kept once.
func TestJoinedCallsKeepOneReport(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	r := report("joined", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	first, err := l.Add(r)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := l.Add(r); err != nil || again != first {
		t.Errorf("the same report again: %q, %v; want %q", again, err, first)
	}
	r.Started = r.Started.Add(time.Minute)
	if other, _ := l.Add(r); other == first || l.Len() != 2 {
		t.Errorf("a report of another run was not kept: %q, %d kept", other, l.Len())
	}
}

// TestFind: the report kept for a research is found by its identity, to the precision the library keeps; another
// research's is not, nor one deleted.
func TestFind(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	r := report("found again", time.Date(2026, 11, 22, 9, 0, 0, 123456789, time.UTC))
	id, err := l.Add(r)
	if err != nil {
		t.Fatal(err)
	}
	kept := r.Identity()
	kept.Started, kept.Duration = kept.Started.Truncate(time.Microsecond), kept.Duration.Truncate(time.Millisecond)
	if got, err := l.Find(kept); err != nil || got != id {
		t.Errorf("Find(%+v) = %q, %v; want %q", kept, got, err, id)
	}
	other := kept
	other.Tool = "deep_search"
	if got, err := l.Find(other); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Find of another tool's research = %q, %v; want ErrNotFound", got, err)
	}
	if err := l.Delete(id); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Find(kept); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Find of a report deleted = %q, %v; want ErrNotFound", got, err)
	}
	var none *Library
	if _, err := none.Find(kept); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("a nil library's Find: %v, want ErrNotFound", err)
	}
}

// TestSharedLibrary: two libraries on one file (as two server processes sharing a config dir) write at once, and
// both succeed; each lists the other's reports.
func TestSharedLibrary(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	a, b := open(t, path, keepAll, nil), open(t, path, keepAll, nil)
	a.now, b.now = time.Now, time.Now // the real clock: ids in the same microsecond differ by their random part
	const n = 30
	var wg sync.WaitGroup
	errs := make(chan error, 2*n)
	for i := range n {
		for j, l := range []*Library{a, b} {
			wg.Go(func() {
				_, err := l.Add(report(fmt.Sprintf("topic %d/%d", j, i), time.Date(2026, 11, 22, 9, j, i, 0, time.UTC)))
				errs <- err
			})
			wg.Go(func() { l.List(10) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	ids := map[string]bool{}
	for _, r := range b.List(0) {
		ids[r.ID] = true
	}
	if a.Len() != 2*n || len(ids) != 2*n {
		t.Errorf("%d kept, %d distinct ids; want %d", a.Len(), len(ids), 2*n)
	}
}

func TestNilLibrary(t *testing.T) {
	t.Parallel()
	l, err := Open("", Options{})
	if l != nil || err != nil {
		t.Fatalf("Open without a path: %v, %v", l, err)
	}
	if id, err := l.Add(report("a", time.Now())); id != "" || err != nil {
		t.Errorf("Add: %q, %v", id, err)
	}
	if l.List(0) != nil || l.Len() != 0 || l.Changed() != nil || l.Path() != "" {
		t.Error("a nil library lists something")
	}
	l.SetRetention(Retention{MaxReports: 3})
	if _, err := l.Get("20261122T100000.000000-00000000"); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Get: %v, want ErrNotFound", err)
	}
	if found, err := l.Search("a", time.Time{}, 10); found != nil || err != nil {
		t.Errorf("Search: %v, %v", found, err)
	}
	if err := l.PutJob(record.Job{ID: record.NewJobID()}); err != nil {
		t.Errorf("PutJob: %v", err)
	}
	if _, err := l.Job(record.NewJobID()); !errors.Is(err, record.ErrNotFound) {
		t.Errorf("Job: %v, want ErrNotFound", err)
	}
	if n, err := l.ImportHistory(t.TempDir()); n != 0 || err != nil {
		t.Errorf("ImportHistory: %d, %v", n, err)
	}
	if err := l.Close(); err != nil {
		t.Error(err)
	}
}

// TestOpenOnUse: a library opened on use touches no file until a call needs the database: not for its path, its
// changes, a retention set or the cache's time to live. The first call opens it, imports the history of earlier
// releases, and tells OnOpen's hooks (registered before or after); closing one never opened leaves no file.
func TestOpenOnUse(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	history := t.TempDir()
	if err := os.CopyFS(history, os.DirFS("testdata/history")); err != nil {
		t.Fatal(err)
	}
	l, err := OpenOnUse(path, Options{Retention: keepAll, Poll: -1, now: clock(), HistoryDir: history})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	before := make(chan struct{})
	l.OnOpen(func() { close(before) })
	if l.Path() != path || l.Changed() == nil {
		t.Errorf("Path %q, Changed %v", l.Path(), l.Changed())
	}
	l.SetRetention(Retention{MaxReports: 2})
	l.DropCached(time.Now())
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the library's folder exists before any use: %v", err)
	}
	select {
	case <-before:
		t.Fatal("OnOpen's hook ran before the library opened")
	default:
	}

	if n := l.Len(); n != 2 {
		t.Errorf("Len on first use: %d, want 2: the 3 reports of the history imported, then the retention set "+
			"before the library opened", n)
	}
	<-before
	after := make(chan struct{})
	l.OnOpen(func() { close(after) })
	<-after

	shut, err := OpenOnUse(dbPath(t), Options{Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	if err := shut.Close(); err != nil {
		t.Fatal(err)
	}
	if shut.Len() != 0 || shut.List(0) != nil {
		t.Error("a library closed before its first use lists something")
	}
	if _, err := os.Stat(shut.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a library closed before its first use made its file: %v", err)
	}
}

// TestOpenOnUseFails: a library whose database cannot be opened on first use logs why once, and keeps nothing,
// as a nil library.
func TestOpenOnUseFails(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	newer := open(t, path, keepAll, nil)
	if _, err := newer.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	newer.Close()
	var log testkit.SyncBuffer
	l, err := OpenOnUse(path, Options{Poll: -1, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	for range 2 {
		if id, err := l.Add(report("a", time.Now())); id != "" || err != nil {
			t.Errorf("Add: %q, %v; want nothing kept, no error", id, err)
		}
		if _, err := l.Job(record.NewJobID()); !errors.Is(err, record.ErrNotFound) {
			t.Errorf("Job: %v, want ErrNotFound", err)
		}
	}
	if n := strings.Count(log.String(), "the research library cannot be used"); n != 1 ||
		!strings.Contains(log.String(), "newer release") {
		t.Errorf("the log says it %d times, want once with why:\n%s", n, log.String())
	}
}

func TestChanged(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	ch := l.Changed()
	add(t, l, "a")
	select {
	case <-ch:
	default:
		t.Error("Add did not signal a change")
	}
}

// TestChangedByAnotherProcess: a report another library (another server process) keeps in the same file
// signals a change within the poll.
func TestChangedByAnotherProcess(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	watching, err := Open(path, Options{Retention: keepAll, Poll: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer watching.Close()
	other := open(t, path, keepAll, nil)
	ch := watching.Changed()
	add(t, other, "from elsewhere")
	select {
	case <-ch:
	case <-time.After(testkit.WaitLimit):
		t.Fatal("a report kept by another library signalled no change")
	}
	if got := topics(watching.List(0)); !slices.Equal(got, []string{"from elsewhere"}) {
		t.Errorf("listed %q", got)
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	for _, r := range []record.Report{
		{Summary: record.Summary{Tool: "search", Topic: "Go 1.26 release", Started: day(1)},
			Markdown: "The green tea garbage collector is on by default."},
		{Summary: record.Summary{Tool: "deep_search", Topic: "Garbage collectors compared", Started: day(2)},
			Markdown: "Java's ZGC, Go's collector and .NET's, side by side."},
		{Summary: record.Summary{Tool: "search", Topic: "Föhn wind", Started: day(3)},
			Markdown: "A warm, dry, downslope wind on the lee side of the Alps."},
		{Summary: record.Summary{Tool: "search", Topic: "Tea ceremonies", Started: day(4)},
			Markdown: "Green tea, whisked: matcha."},
	} {
		if _, err := l.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		query string
		since time.Time
		limit int
		want  []string
	}{
		{"downslope", time.Time{}, 0, []string{"Föhn wind"}},                                         // a word of the text
		{"FOHN", time.Time{}, 0, []string{"Föhn wind"}},                                              // any case, no diacritics
		{"garbage", time.Time{}, 0, []string{"Garbage collectors compared", "Go 1.26 release"}},      // the topic's weighs more
		{"green tea", time.Time{}, 0, []string{"Tea ceremonies", "Go 1.26 release"}},                 // every word
		{"green tea", day(2), 0, []string{"Tea ceremonies"}},                                         // since
		{"green tea", time.Time{}, 1, []string{"Tea ceremonies"}},                                    // limit
		{`"green" OR NOT tea*:(`, time.Time{}, 0, nil},                                               // no syntax: every word
		{"", day(3), 0, []string{"Tea ceremonies", "Föhn wind"}},                                     // no words: newest first
		{"", time.Time{}, 3, []string{"Tea ceremonies", "Föhn wind", "Garbage collectors compared"}}, // of every report
		{"nowhere", time.Time{}, 0, nil},
	} {
		t.Run(tt.query, func(t *testing.T) {
			found, err := l.Search(tt.query, tt.since, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := topics(found); !slices.Equal(got, tt.want) {
				t.Errorf("Search(%q): %q, want %q", tt.query, got, tt.want)
			}
		})
	}
	found, err := l.Search("downslope", time.Time{}, 0)
	if err != nil || len(found) != 1 || !strings.Contains(found[0].Excerpt, "downslope wind") ||
		strings.Contains(found[0].Excerpt, "\n") {
		t.Errorf("the excerpt of a match: %+v, %v; want the word in its line", found, err)
	}
	if listed, err := l.Search("", day(4), 0); err != nil || len(listed) != 1 || listed[0].Excerpt != "Green tea, whisked: matcha." {
		t.Errorf("the excerpt of a report listed without a query: %+v, %v; want the opening of its text", listed, err)
	}
}

// TestImportHistory: the report files of the previous release's history (testdata/history, written by its
// internal/history) are imported once, with their ids and everything they held; the files stay in place.
func TestImportHistory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache", "gemini-search-mcp", "history")
	if err := os.CopyFS(dir, os.DirFS("testdata/history")); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"20261120T090000.000000-0badf11e.json": "garbage",
		"notes.txt":                            "not a report",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path := dbPath(t)
	var log testkit.SyncBuffer
	l := open(t, path, keepAll, &log)
	n, err := l.ImportHistory(dir)
	if err != nil || n != 3 {
		t.Fatalf("ImportHistory: %d, %v; want 3 imported", n, err)
	}
	if got, want := topics(l.List(0)), []string{"Föhn wind", "Rust 2024 edition", "What is new in Go 1.26?"}; !slices.Equal(got, want) {
		t.Errorf("imported %q, want %q, newest first", got, want)
	}
	r, err := l.Get("20261120T080100.000000-704c2a93")
	want := record.Report{Summary: record.Summary{ID: "20261120T080100.000000-704c2a93", Tool: "search",
		Topic: "What is new in Go 1.26?", Model: "gemini-2.5-flash", Backend: "cli",
		Started: time.Date(2026, 11, 20, 7, 58, 0, 0, time.UTC), Duration: 83 * time.Second, Size: r.Size},
		Markdown: "# Go 1.26\n\nThe green tea garbage collector is on by default [1].",
		Sources: []record.Source{{URL: "https://go.dev/doc/go1.26", Title: "Go 1.26 Release Notes"},
			{URL: "https://go.dev/blog"}}}
	if err != nil || r.Summary != want.Summary || r.Markdown != want.Markdown || !slices.Equal(r.Sources, want.Sources) {
		t.Errorf("an imported report: %+v, %v\nwant %+v", r, err, want)
	}
	if r, err := l.Get("20261120T080200.000000-e8d37f54"); err != nil || !r.Partial || r.Depth != "detailed" ||
		r.Backend != "api" || r.Duration != 185*time.Second || r.Sources != nil {
		t.Errorf("the partial deep search: %+v, %v", r, err)
	}
	if found, _ := l.Search("downslope", time.Time{}, 0); len(found) != 1 {
		t.Errorf("an imported report's text is not searchable: %v", found)
	}
	for _, s := range []string{"imported the history", "reports=3", "skipped=1", "skipped a report of the history"} {
		if !strings.Contains(log.String(), s) {
			t.Errorf("the log does not say %q:\n%s", s, log.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 {
		t.Errorf("%d files left in the history folder, want the 5 there were", len(entries))
	}

	// Once: a report deleted since is not imported again, by this library or another on the same file.
	if err := l.Delete("20261120T080300.000000-bea5cd5e"); err != nil {
		t.Fatal(err)
	}
	for _, lib := range []*Library{l, open(t, path, keepAll, nil)} {
		if n, err := lib.ImportHistory(dir); n != 0 || err != nil || lib.Len() != 2 {
			t.Errorf("imported again: %d, %v, %d kept; want nothing more", n, err, lib.Len())
		}
	}
}

// TestImportNoHistory: without a history folder there is nothing to import, and no error.
func TestImportNoHistory(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	if n, err := l.ImportHistory(filepath.Join(t.TempDir(), "missing")); n != 0 || err != nil {
		t.Errorf("ImportHistory: %d, %v", n, err)
	}
}

// TestCorrupt: a file that is not a database is moved aside with a log line and a fresh library is made; a stale
// WAL goes with it.
func TestCorrupt(t *testing.T) {
	t.Parallel()
	for name, garbage := range map[string][]byte{
		"garbage":   bytes.Repeat([]byte("not a database "), 1000),
		"truncated": []byte("SQLite format 3\x00\x10\x00\x02\x02"),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := dbPath(t)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			for suffix, data := range map[string][]byte{"": garbage, "-wal": []byte("stale wal")} {
				if err := os.WriteFile(path+suffix, data, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var log testkit.SyncBuffer
			l := open(t, path, keepAll, &log)
			add(t, l, "after")
			if got := topics(l.List(0)); !slices.Equal(got, []string{"after"}) {
				t.Errorf("the fresh library lists %q", got)
			}
			if data, err := os.ReadFile(path + "-wal"); err == nil && bytes.Contains(data, []byte("stale wal")) {
				t.Error("the stale WAL is still next to the fresh database")
			}
			aside, _ := filepath.Glob(path + ".corrupt-*")
			if len(aside) == 0 {
				t.Fatal("nothing was moved aside")
			}
			if data, err := os.ReadFile(aside[0]); err != nil || !bytes.Equal(data, garbage) {
				t.Errorf("the file moved aside holds %q, %v", data, err)
			}
			if !strings.Contains(log.String(), "moved it aside") || !strings.Contains(log.String(), filepath.Base(aside[0])) {
				t.Errorf("the log does not say where the database went:\n%s", log.String())
			}
		})
	}
}

// TestNewer: a library written by a newer release (a schema past this one's) is left alone.
func TestNewer(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	l := open(t, path, keepAll, nil)
	if _, err := l.db.Exec("PRAGMA user_version = 99"); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := Open(path, Options{Poll: -1}); !errors.Is(err, ErrNewer) {
		t.Errorf("Open: %v, want ErrNewer", err)
	}
	if aside, _ := filepath.Glob(path + ".corrupt-*"); len(aside) != 0 {
		t.Errorf("a newer library was moved aside: %q", aside)
	}
}

func TestSchema(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	for pragma, want := range map[string]string{
		"user_version": fmt.Sprint(len(migrations)),
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": fmt.Sprint(busyTimeout.Milliseconds()),
	} {
		var got string
		if err := l.db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil || got != want {
			t.Errorf("PRAGMA %s: %q, %v; want %q", pragma, got, err, want)
		}
	}
}
