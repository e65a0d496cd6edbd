package library

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// TestCache: a report of the result cache is found by its key while it is fresh, by another server sharing the
// library too; a newer one replaces it; one cached before a later put's dropBefore is gone.
func TestCache(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	l, other := open(t, path, keepAll, nil), open(t, path, keepAll, nil)
	at := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

	l.PutCached("search|go", made("go"), []byte("first"), at, at.Add(-time.Hour))
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
	l.PutCached("search|go", made("go"), []byte("second"), later, later.Add(-time.Hour))
	if v, _, ok := l.Cached("search|go", at); !ok || string(v) != "second" {
		t.Errorf("Cached after a newer put = %q, %v; want second", v, ok)
	}
	l.PutCached("search|rust", made("rust"), []byte("rust"), later.Add(2*time.Hour), later.Add(time.Hour))
	var n int
	if err := l.db.QueryRow(`SELECT count(*) FROM cache`).Scan(&n); err != nil || n != 1 {
		t.Errorf("%d reports cached, %v; want the one put after the others' time", n, err)
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
	l.PutCached("search|deleted", r.Identity(), []byte("its report"), at, at.Add(-time.Hour))
	l.PutCached("search|DELETED", r.Identity(), []byte("its report again"), at, at.Add(-time.Hour))
	kept := r
	kept.Topic = "kept"
	l.PutCached("search|kept", kept.Identity(), []byte("another report"), at, at.Add(-time.Hour))

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

// TestMigrationFromVersion1: a library the first release wrote (schema version 1) is brought to this release's
// schema with its reports and jobs, and gets the result cache.
func TestMigrationFromVersion1(t *testing.T) {
	t.Parallel()
	path := dbPath(t)
	db, err := openRaw(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(migrations[0] + "PRAGMA user_version = 1;"); err != nil {
		t.Fatal(err)
	}
	now := micros(time.Now())
	if _, err := db.Exec(`INSERT INTO reports (id, tool, topic, started, took_ms, size, kept, markdown)
		VALUES ('20261127120000-0123456789ab', 'search', 'kept by release one', ?, 2, 3, ?, 'its text')`, now,
		now); err != nil {
		t.Fatal(err)
	}
	db.Close()

	l := open(t, path, keepAll, nil)
	var version int
	if err := l.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Errorf("schema version %d, %v; want %d", version, err, len(migrations))
	}
	if got := topics(l.List(0)); fmt.Sprint(got) != "[kept by release one]" {
		t.Errorf("reports after the migration: %q", got)
	}
	l.PutCached("k", made("k"), []byte("v"), time.Now(), time.Time{})
	if _, _, ok := l.Cached("k", time.Time{}); !ok {
		t.Error("the migrated library keeps no result cache")
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
