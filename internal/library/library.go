// Package library is the research library: every finished report, with its sources and a full-text index, and
// every research job, in one SQLite database (library.db in the user's data dir). It uses modernc.org/sqlite, a
// SQLite written in pure Go, so that the headless server still builds without cgo for every platform.
//
// Several servers sharing one config dir share one library: the database is in WAL mode with a busy timeout, so
// that their writes wait for each other instead of failing, and each sees the others' reports. A database that
// cannot be read (not a database, corrupt, unreadable) is moved aside (library.db.corrupt-<time>) and a fresh one
// made, so that the server keeps serving. Retention is explicit (Retention): what it drops is logged.
//
// The values it keeps are those of internal/library/record, which the views import without this package.
package library

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
)

// FileName is the library's database in the data dir.
const FileName = "library.db"

// busyTimeout is how long a write waits for another's, in this process or another sharing the library.
const busyTimeout = 10 * time.Second

// Options configure a Library.
type Options struct {
	Logger    *slog.Logger
	Retention Retention
	// Poll is how often the library looks for changes another process made (PRAGMA data_version), to tell Changed;
	// 0 means every 2 s, a negative value never.
	Poll time.Duration
	// HistoryDir holds the report files of the history of earlier releases, imported when the library opens
	// (ImportHistory); "" imports nothing.
	HistoryDir string

	now func() time.Time // tests: the clock
}

// Library is the research library of one server process. A nil *Library keeps nothing: every method is a no-op or
// answers ErrNotFound; so does one whose database could not be opened on first use (OpenOnUse). Safe for
// concurrent use.
type Library struct {
	path    string
	options Options
	log     *slog.Logger
	now     func() time.Time
	changed broadcast.Signal
	opening sync.Once // opens the database: at Open, or on first use
	closing sync.Once
	closed  error // Close's error

	// Set once by opening (db, owner and stop before open is), then read only; polling is the watch's.
	db      *sql.DB
	owner   *owner
	stop    context.CancelFunc
	polling sync.WaitGroup

	mu        sync.Mutex // guards what follows
	retention Retention
	open      bool      // the database is open: a retention or a cut of the cache applies at once
	dropped   time.Time // the cache's latest cut (DropCached) before the database opened, applied when it does
	hooks     []func()  // OnOpen's, waiting for the database to open
	hooked    bool      // the database opened: OnOpen calls a hook at once
}

// ErrNewer is Open's error for a library that a newer release wrote: its schema is past what this one knows. It
// is left as it is.
var ErrNewer = errors.New("the research library was written by a newer release")

// Open opens the library at path, making it (and its folder, private to the user) when it is not there, and
// brings its schema up to date. A database that cannot be read is moved aside with a log line and a fresh one
// made. Then it marks interrupted the jobs left running by servers that are gone, applies o.Retention and imports
// o.HistoryDir. With path "" it returns nil, a library that keeps nothing. The error is one that leaves no library
// at all: the folder cannot be made, the fresh database not written, or ErrNewer.
func Open(path string, o Options) (*Library, error) {
	l, err := OpenOnUse(path, o)
	if l == nil || err != nil {
		return nil, err
	}
	l.opening.Do(func() { err = l.openDB() })
	if err != nil {
		return nil, err
	}
	return l, nil
}

// OpenOnUse is Open put off until a call needs the database: a server nobody asks for a report or a job never
// runs SQLite, whose code and caches would otherwise stay in its memory while it waits. An open that fails then is
// logged once, and the library keeps nothing from then on, as a nil one. Its error is only that of a path that
// can never be opened.
func OpenOnUse(path string, o Options) (*Library, error) {
	if path == "" {
		return nil, nil
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open the research library: its path %q holds ? or #", path)
	}
	l := &Library{path: path, options: o, log: o.Logger, now: o.now, retention: o.Retention}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l, nil
}

// ready opens the database if nobody has yet, and reports whether the library can be used: false for a nil
// library, one whose database could not be opened, and one closed before it was opened.
func (l *Library) ready() bool {
	if l == nil {
		return false
	}
	l.opening.Do(func() {
		if err := l.openDB(); err != nil {
			l.log.Error("the research library cannot be used: finished reports are not kept", "err", err)
		}
	})
	return l.db != nil
}

// isOpen reports whether the database is open, without opening it.
func (l *Library) isOpen() bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// OnOpen calls f, on a goroutine of its own, once the database is open: at once if it is.
func (l *Library) OnOpen(f func()) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hooked {
		go f()
		return
	}
	l.hooks = append(l.hooks, f)
}

// openDB opens the database for Open or ready, and runs OnOpen's hooks.
func (l *Library) openDB() error {
	if err := os.MkdirAll(filepath.Dir(l.path), 0o700); err != nil {
		return fmt.Errorf("open the research library: %w", err)
	}
	db, err := openFile(l.path)
	if damaged(err) {
		aside, moveErr := moveAside(l.path, l.now())
		if moveErr != nil {
			return fmt.Errorf("open the research library %s: %w (and it cannot be moved aside: %w)", l.path, err, moveErr)
		}
		l.log.Error("the research library could not be read: moved it aside and started an empty one",
			"path", l.path, "moved_to", aside, "err", err)
		db, err = openFile(l.path)
	}
	if err != nil {
		return fmt.Errorf("open the research library %s: %w", l.path, err)
	}
	owner, err := newOwner(l.path + ".owners")
	if err != nil {
		db.Close()
		return fmt.Errorf("open the research library: %w", err)
	}
	ctx, stop := context.WithCancel(context.Background())
	l.db, l.owner, l.stop = db, owner, stop
	l.mu.Lock()
	l.open = true // from here a retention set or a cut of the cache applies itself, as this opening goes on
	dropped := l.dropped
	l.mu.Unlock()
	l.sweepJobs()
	l.prune()
	if !dropped.IsZero() {
		l.DropCached(dropped)
	}
	if _, err := l.importHistory(l.options.HistoryDir); err != nil {
		l.log.Warn("the history of earlier releases was not imported into the research library", "err", err)
	}
	if poll := l.options.Poll; poll >= 0 {
		if poll == 0 {
			poll = 2 * time.Second
		}
		l.watch(ctx, poll)
	}
	l.mu.Lock()
	l.hooked = true
	hooks := l.hooks
	l.hooks = nil
	l.mu.Unlock()
	for _, f := range hooks {
		go f()
	}
	return nil
}

// Path is the library's database file; "" for a nil library.
func (l *Library) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Close stops watching for changes, marks this process's jobs that still run interrupted (they cannot go on once
// it has stopped), and closes the database. A library never opened stays shut: it keeps nothing from then on.
// Closing again does nothing.
func (l *Library) Close() error {
	if l == nil {
		return nil
	}
	l.closing.Do(func() {
		l.opening.Do(func() {}) // never opened: it never will be
		if l.db == nil {
			return
		}
		l.stop()
		l.polling.Wait()
		l.interruptOwn()
		l.closed = l.db.Close()
		l.owner.release()
	})
	return l.closed
}

// Changed returns a channel that is closed at the next change of the library: a report kept or dropped, a job
// started, moved on or ended, by this process or (within Options.Poll) another sharing the library. A nil
// library's never closes.
func (l *Library) Changed() <-chan struct{} {
	if l == nil {
		return nil
	}
	return l.changed.Changed()
}

// watch tells Changed of the changes other connections make, every interval until ctx ends: SQLite's
// data_version, read on one connection, changes with every commit made on another. It takes the first reading
// before it returns, so that a change made after Open is seen.
func (l *Library) watch(ctx context.Context, every time.Duration) {
	conn, err := l.db.Conn(ctx)
	if err != nil {
		l.log.Warn("cannot watch the research library for changes", "err", err)
		return
	}
	version := func() int64 {
		var v int64
		if err := conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
			return -1
		}
		return v
	}
	last := version()
	l.polling.Go(func() {
		defer conn.Close()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if v := version(); v != last && v >= 0 {
				if last >= 0 {
					l.changed.Notify()
				}
				last = v
			}
		}
	})
}

// openFile opens the database at path and brings its schema up to date.
func openFile(path string) (*sql.DB, error) {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL") // WAL's safe choice: a power cut may lose the last commits, never the file
	q.Set("_foreign_keys", "1")
	q.Set("_txlock", "immediate") // a transaction writes: it takes the write lock first, and waits for it there
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxIdleConns(4)
	if err := migrate(db); err != nil {
		db.Close()
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// migrate applies the migrations the database has not had yet, each in its own transaction.
func migrate(db *sql.DB) error {
	for {
		var version int
		if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
			return err
		}
		switch {
		case version == len(migrations):
			return nil
		case version > len(migrations):
			return fmt.Errorf("%w (schema version %d, this release knows %d)", ErrNewer, version, len(migrations))
		}
		if err := inTx(db, func(tx *sql.Tx) error {
			// Another process may have migrated since: the write lock is ours now, look again.
			var now int
			if err := tx.QueryRow("PRAGMA user_version").Scan(&now); err != nil || now != version {
				return err
			}
			if _, err := tx.Exec(migrations[version]); err != nil {
				return fmt.Errorf("migrate the schema to version %d: %w", version+1, err)
			}
			_, err := tx.Exec(fmt.Sprintf("PRAGMA user_version = %d", version+1))
			return err
		}); err != nil {
			return err
		}
	}
}

// inTx runs f in a transaction, committed when f returns nil.
func inTx(db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// damaged reports whether err says the database file itself is broken (not a database, or corrupt), so that
// moving it aside helps. A file that cannot be opened or written now (a permission, a read-only mount, too many
// open files) may be well, and another server may be using it: it is left alone.
func damaged(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CORRUPT:
		return true
	}
	return false
}

// moveAside renames the database at path, with its WAL and shared-memory files (a stale WAL must never meet a
// fresh database), to path.corrupt-<time>. It returns the new name.
func moveAside(path string, now time.Time) (string, error) {
	aside := path + ".corrupt-" + now.UTC().Format("20060102T150405")
	if err := os.Rename(path, aside); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	for _, suffix := range []string{"-wal", "-shm"} {
		if err := os.Rename(path+suffix, aside+suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return aside, nil
}

// micros is t in Unix microseconds, as the database keeps times.
func micros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros is the time of Unix microseconds us, in UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }
