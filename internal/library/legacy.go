package library

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// The history of earlier releases: one JSON file per report, <id>.json in a folder of the user's cache dir
// (internal/history, format version 1). ImportHistory reads it into the library once.

// historyVersion is the version of the history files' format.
const historyVersion = 1

// historyFile is a report's file in the history of earlier releases.
type historyFile struct {
	Version    int             `json:"version"`
	ID         string          `json:"id"`
	Tool       string          `json:"tool"`
	Topic      string          `json:"topic"`
	Depth      string          `json:"depth,omitempty"`
	Model      string          `json:"model,omitempty"`
	Backend    string          `json:"backend,omitempty"`
	Started    time.Time       `json:"started"`
	DurationMS int64           `json:"duration_ms"`
	Partial    bool            `json:"partial,omitempty"`
	Report     string          `json:"report"`
	Sources    []record.Source `json:"sources,omitempty"`
}

// historyImported is the meta key that says the history was imported: its value is the folder, and when.
const historyImported = "history_imported"

// readHistoryFile reads and checks the history file of id in dir.
func readHistoryFile(dir, id string) (historyFile, error) {
	data, err := os.ReadFile(filepath.Join(dir, id+".json"))
	if err != nil {
		return historyFile{}, err
	}
	var f historyFile
	if err := json.Unmarshal(data, &f); err != nil {
		return historyFile{}, err
	}
	if f.Version != historyVersion || f.ID != id {
		return historyFile{}, fmt.Errorf("not a report file of this version (version %d, id %q)", f.Version, f.ID)
	}
	return f, nil
}

// ImportHistory imports the report files of the history of earlier releases in dir, once in the library's life:
// every report it can read, with its id, then applies the retention (which logs what it drops). The files are left
// in place (an earlier release started again still finds them) and never read again; a file that cannot be read
// is skipped and logged. It returns how many reports it imported. Servers sharing the library import once between
// them. The library does it when it opens (Options.HistoryDir).
func (l *Library) ImportHistory(dir string) (int, error) {
	if !l.ready() {
		return 0, nil
	}
	return l.importHistory(dir)
}

// importHistory is ImportHistory on an open library.
func (l *Library) importHistory(dir string) (int, error) {
	if dir == "" {
		return 0, nil
	}
	var imported, skipped int
	err := inTx(l.db, func(tx *sql.Tx) error {
		var done string
		err := tx.QueryRow(`SELECT value FROM meta WHERE key = ?`, historyImported).Scan(&done)
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("read the history of reports: %w", err)
		}
		for _, e := range entries {
			id, ok := strings.CutSuffix(e.Name(), ".json")
			if !ok || !record.ValidID(id) || !e.Type().IsRegular() {
				continue
			}
			f, err := readHistoryFile(dir, id)
			if err != nil {
				skipped++
				l.log.Warn("skipped a report of the history that cannot be read", "file",
					filepath.Join(dir, e.Name()), "err", err)
				continue
			}
			kept, err := time.Parse("20060102T150405.000000", strings.SplitN(id, "-", 2)[0])
			if err != nil {
				kept = f.Started
			}
			sources, err := json.Marshal(nonNil(f.Sources))
			if err != nil {
				return err
			}
			res, err := tx.Exec(`INSERT INTO reports (id, tool, topic, depth, model, backend, started, took_ms,
				partial, size, kept, markdown, sources) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (id) DO NOTHING`,
				f.ID, f.Tool, f.Topic, f.Depth, f.Model, f.Backend, micros(f.Started), f.DurationMS, f.Partial,
				len(f.Topic)+len(f.Report)+len(sources), micros(kept), f.Report, string(sources))
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 1 {
				imported++
			}
		}
		_, err = tx.Exec(`INSERT INTO meta (key, value) VALUES (?, ?)`, historyImported,
			dir+" at "+l.now().UTC().Format(time.RFC3339))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("import the history of reports in %s: %w", dir, err)
	}
	if imported > 0 || skipped > 0 {
		l.log.Info("imported the history of reports into the research library; its files are left in place and "+
			"no longer read", "dir", dir, "reports", imported, "skipped", skipped, "library", l.path)
		l.changed.Notify()
		l.prune()
	}
	return imported, nil
}
