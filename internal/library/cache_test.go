package library

import (
	"bytes"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// TestCache: a report of the result cache is found by its key while it is fresh, by another server sharing the
// library too; a newer one replaces it; one whose time is over when another is put is gone.
func TestCache(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	l, other := open(t, path, keepAll, nil), open(t, path, keepAll, nil)
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

	l.PutCached("search|go", made("go"), []byte("first"), at, at.Add(time.Hour))
	if v, got, ok := other.Cached("search|go", at.Add(-time.Minute)); !ok || string(v) != "first" || !got.Equal(at) {
		t.Errorf("Cached from another server = %q, %v, %v; want first, cached at %v", v, got, ok, at)
	}
	if _, _, ok := l.Cached("search|go", at.Add(time.Second)); ok {
		t.Error("a report cached before since was found")
	}
	if _, _, ok := l.Cached("search|rust", at.Add(-time.Minute)); ok {
		t.Error("a key never cached was found")
	}

	later := at.Add(2 * time.Hour)
	l.PutCached("search|go", made("go"), []byte("second"), later, later.Add(time.Hour))
	if v, _, ok := l.Cached("search|go", at); !ok || string(v) != "second" {
		t.Errorf("Cached after a newer put = %q, %v; want second", v, ok)
	}
	l.PutCached("search|rust", made("rust"), []byte("rust"), later.Add(2*time.Hour), later.Add(3*time.Hour))
	if n := cachedRows(t, l); n != 1 {
		t.Errorf("%d reports cached; want the one put after the others' time", n)
	}
}

// cachedRows is how many rows the result cache's table holds, whether their time is over or not.
func cachedRows(t *testing.T, l *Library) int {
	t.Helper()
	var n int
	if err := l.db.QueryRow(`SELECT count(*) FROM cache`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCacheRetention: the result cache's reports go once their time is over at the retention's next pass, without
// a report cached after them; they count in the size limit, and go, oldest first, before any report does; and
// DropCached drops those cached before a time.
func TestCacheRetention(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l, err := Open(dbPath(t), Options{Retention: keepAll, Poll: -1, now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	value := bytes.Repeat([]byte("r"), 1000)
	l.PutCached("short", made("short"), value, now, now.Add(time.Minute))
	l.PutCached("long", made("long"), value, now, now.Add(time.Hour))
	now = now.Add(2 * time.Minute)
	l.SetRetention(Retention{MaxReports: 100, MaxAge: keepAll.MaxAge, MaxBytes: keepAll.MaxBytes}) // a pass
	if n := cachedRows(t, l); n != 1 {
		t.Errorf("after the retention's pass, %d reports cached; want the one whose time is not over", n)
	}

	add(t, l, "a report", "another")
	var reports int64
	if err := l.db.QueryRow(`SELECT sum(size) FROM reports`).Scan(&reports); err != nil {
		t.Fatal(err)
	}
	for i, key := range []string{"first", "second", "third"} {
		l.PutCached(key, made("t"), value, now.Add(time.Duration(i)*time.Second), now.Add(time.Hour))
	}
	// Room for two of the cache's reports (about 1,000 bytes each, with their key and topic) besides the library's.
	l.SetRetention(Retention{MaxReports: 100, MaxBytes: reports + 2100})
	var left []string
	rows, err := l.db.Query(`SELECT key FROM cache ORDER BY at`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var key string
		rows.Scan(&key)
		left = append(left, key)
	}
	rows.Close()
	if fmt.Sprint(left) != "[second third]" || l.Len() != 2 {
		t.Errorf("past the size limit: the cache keeps %q and the library %d reports; want the two newest of the "+
			"cache's, and both reports", left, l.Len())
	}

	l.DropCached(now.Add(2 * time.Second))
	if _, _, ok := l.Cached("third", now.Add(-time.Hour)); !ok || cachedRows(t, l) != 1 {
		t.Errorf("DropCached kept %d reports; want the one cached after its time", cachedRows(t, l))
	}
}

// TestDropCachedBeforeOpen: a cut of the cache asked of a library not opened yet (the server starting with a
// shorter time to live) is made when it opens.
func TestDropCachedBeforeOpen(t *testing.T) {
	t.Parallel()
	path, now := dbPath(t), time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	first, err := Open(path, Options{Retention: keepAll, Poll: -1, now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for i, key := range []string{"old", "new"} {
		first.PutCached(key, made(key), []byte("r"), now.Add(time.Duration(i)*time.Minute), now.Add(time.Hour))
	}
	first.Close()

	l, err := OpenOnUse(path, Options{Retention: keepAll, Poll: -1, now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	l.DropCached(now.Add(30 * time.Second))
	if _, _, ok := l.Cached("new", now); !ok || cachedRows(t, l) != 1 {
		t.Errorf("once open, the cache holds %d reports; want the one cached after the cut", cachedRows(t, l))
	}
}

// made is the identity of a search for topic.
func made(topic string) record.Identity {
	return record.Identity{Tool: "search", Topic: topic, Started: time.Date(2026, 11, 27, 11, 59, 0, 0, time.UTC),
		Duration: 83 * time.Second}
}

// TestDeleteDropsTheCachedReport: deleting a report drops the result cache's entries of the same research, for
// every server sharing the library; the entries of another research stay.
func TestDeleteDropsTheCachedReport(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	l, other := open(t, path, keepAll, nil), open(t, path, keepAll, nil)
	r := report("deleted", time.Date(2026, 11, 27, 11, 59, 0, 0, time.UTC))
	id, err := l.Add(r)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l.PutCached("search|deleted", r.Identity(), []byte("its report"), at, at.Add(time.Hour))
	l.PutCached("search|DELETED", r.Identity(), []byte("its report again"), at, at.Add(time.Hour))
	kept := r
	kept.Topic = "kept"
	l.PutCached("search|kept", kept.Identity(), []byte("another report"), at, at.Add(time.Hour))

	if err := other.Delete(id); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"search|deleted", "search|DELETED"} {
		if v, _, ok := l.Cached(key, at.Add(-time.Minute)); ok {
			t.Errorf("Cached(%q) after its report was deleted = %q, want nothing", key, v)
		}
	}
	if _, _, ok := l.Cached("search|kept", at.Add(-time.Minute)); !ok {
		t.Error("the cached report of another research went too")
	}
}

// TestMigrations: a library of any earlier schema version (1, the first release's; 2 and 3, of builds before
// this one) is brought to this release's schema with its reports, keeps the result cache, and deletes a report.
func TestMigrations(t *testing.T) {
	t.Parallel()
	for from := 1; from < len(migrations); from++ {
		t.Run(fmt.Sprint("version ", from), func(t *testing.T) {
			t.Parallel()
			path := dbPath(t)
			db, err := openRaw(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range migrations[:from] {
				if _, err := db.Exec(step); err != nil {
					t.Fatal(err)
				}
			}
			now, id := micros(time.Now()), record.NewID(time.Now())
			if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", from)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(`INSERT INTO reports (id, tool, topic, started, took_ms, size, kept, markdown)
				VALUES (?, 'search', 'kept before', ?, 2, 3, ?, 'its text')`, id, now, now); err != nil {
				t.Fatal(err)
			}
			db.Close()

			l := open(t, path, keepAll, nil)
			var version int
			if err := l.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
				t.Errorf("schema version %d, %v; want %d", version, err, len(migrations))
			}
			if got := topics(l.List(0)); fmt.Sprint(got) != "[kept before]" {
				t.Errorf("reports after the migration: %q", got)
			}
			l.PutCached("k", made("k"), []byte("v"), time.Now(), time.Now().Add(time.Hour))
			if _, _, ok := l.Cached("k", time.Time{}); !ok {
				t.Error("the migrated library keeps no result cache")
			}
			if err := l.Delete(id); err != nil {
				t.Errorf("Delete after the migration: %v", err)
			}
		})
	}
}

// openRaw opens the database at path, in a folder made for it, with no schema, as another release would.
func openRaw(path string) (*sql.DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	return sql.Open("sqlite", path)
}

// TestMetadataKept: a report's metadata comes back as it was kept; one kept without (an earlier release's) has none.
func TestMetadataKept(t *testing.T) {
	t.Parallel()
	l := open(t, dbPath(t), keepAll, nil)
	r := report("with metadata", time.Now())
	r.Metadata = []byte(`{"rounds":2,"search_queries_used":["go 1.26"]}`)
	id, err := l.Add(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := l.Get(id)
	if err != nil || string(got.Metadata) != string(r.Metadata) {
		t.Errorf("Get = %s, %v; want the metadata kept: %s", got.Metadata, err, r.Metadata)
	}
	id, err = l.Add(report("without", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := l.Get(id); err != nil || got.Metadata != nil {
		t.Errorf("Get of a report kept without metadata = %s, %v; want none", got.Metadata, err)
	}
}
