// Package history keeps the last finished research reports on disk, one JSON file per report in a private folder of
// the user's cache dir, so that the tray's Recent research and /status can list them and show one again, also after
// a restart. It knows nothing of the engine, MCP, HTTP or the tray: the App records, the views list.
package history

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/atomicfile"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
)

// MaxBytes bounds the size of the kept files together; past it, the oldest reports go first.
const MaxBytes = 20 << 20

// formatVersion is the version of a report file's format.
const formatVersion = 1

// ErrNotFound is Get's error for an id that is malformed or names no kept report.
var ErrNotFound = errors.New("no such report in the history")

// Source is a source of a report: a URL and, when the backend gave one, its title.
type Source struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
}

// Summary is what a list shows of a kept report.
type Summary struct {
	ID       string // names the report's file; see ValidID
	Tool     string // search or deep_search
	Topic    string
	Depth    string // deep_search's depth; "" for search
	Model    string
	Backend  string
	Started  time.Time
	Duration time.Duration
	Partial  bool // cut off by the timeout: the report is what was produced in time

	size int64 // of the file
}

// Report is a kept report: its summary, its Markdown and its sources.
type Report struct {
	Summary
	Markdown string
	Sources  []Source
}

// Result is "partial" for a report cut off by the timeout, else "ok".
func (s Summary) Result() string {
	if s.Partial {
		return "partial"
	}
	return "ok"
}

// Took is how long the research took, as the menu and the status page show it: 42s, 3m05s, 1h02m.
func (s Summary) Took() string {
	d := s.Duration.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", d/time.Second)
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", d/time.Minute, d%time.Minute/time.Second)
	default:
		return fmt.Sprintf("%dh%02dm", d/time.Hour, d%time.Hour/time.Minute)
	}
}

// When is when the research started, as short as its distance from now allows, in now's time zone: 15:04 today,
// Mon 15:04 within the last six days, 2 Jan 15:04 this year, else 2 Jan 2006.
func (s Summary) When(now time.Time) string {
	t := s.Started.In(now.Location())
	y, m, d := t.Date()
	ny, nm, nd := now.Date()
	switch {
	case y == ny && m == nm && d == nd:
		return t.Format("15:04")
	case t.Before(now) && now.Sub(t) < 6*24*time.Hour:
		return t.Format("Mon 15:04")
	case y == ny:
		return t.Format("2 Jan 15:04")
	default:
		return t.Format("2 Jan 2006")
	}
}

// idPattern is what an id looks like: the UTC time the report was kept, to the microsecond, and 32 random bits.
var idPattern = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}\.[0-9]{6}-[0-9a-f]{8}$`)

// ValidID reports whether id has the form of a report's id (20261122T100000.123456-0a1b2c3d). Only such ids name
// files: one from a URL cannot reach outside the history's folder.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// file is a report's file.
type file struct {
	Version    int       `json:"version"`
	ID         string    `json:"id"`
	Tool       string    `json:"tool"`
	Topic      string    `json:"topic"`
	Depth      string    `json:"depth,omitempty"`
	Model      string    `json:"model,omitempty"`
	Backend    string    `json:"backend,omitempty"`
	Started    time.Time `json:"started"`
	DurationMS int64     `json:"duration_ms"`
	Partial    bool      `json:"partial,omitempty"`
	Report     string    `json:"report"`
	Sources    []Source  `json:"sources,omitempty"`
}

func (f file) report(size int64) Report {
	return Report{Summary: Summary{ID: f.ID, Tool: f.Tool, Topic: f.Topic, Depth: f.Depth, Model: f.Model,
		Backend: f.Backend, Started: f.Started, Duration: time.Duration(f.DurationMS) * time.Millisecond,
		Partial: f.Partial, size: size}, Markdown: f.Report, Sources: f.Sources}
}

// Store keeps the last reports in one folder (mode 0700), each in a file of its own (mode 0600) written atomically.
// It reads the folder once, at its first use, and then lists from memory: the tray redraws often, and the history
// changes only when a report finishes. A file that cannot be read or parsed is skipped and logged once. A nil
// *Store keeps nothing. Safe for concurrent use.
type Store struct {
	dir      string
	log      *slog.Logger
	now      func() time.Time
	maxBytes int64
	changed  broadcast.Signal

	mu     sync.Mutex
	max    int
	loaded bool
	kept   []Summary // newest first
	bytes  int64     // the kept files' sizes together
}

// New returns the store of the folder dir, keeping the last max reports (see SetMax); it reads nothing yet. With dir
// "" it returns nil, a store that keeps nothing.
func New(dir string, max int, logger *slog.Logger) *Store {
	if dir == "" {
		return nil
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Store{dir: dir, log: logger, now: time.Now, maxBytes: MaxBytes, max: max}
}

// Dir is the folder the reports are kept in.
func (s *Store) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// SetMax changes how many reports are kept. Lowering it drops the oldest at once, and 0 deletes every kept report.
func (s *Store) SetMax(max int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	lower := max < s.max || max == 0
	s.max = max
	if lower {
		s.loadLocked()
		if s.pruneLocked() {
			s.changed.Notify()
		}
	}
}

// Changed returns a channel that is closed at the next change of the kept reports, for views that redraw on change.
// A nil store's never closes.
func (s *Store) Changed() <-chan struct{} {
	if s == nil {
		return nil
	}
	return s.changed.Changed()
}

// Add keeps r as the newest report, then drops the oldest ones past the limits. The store gives r its ID, which it
// returns. A report equal to one kept already (the same tool, topic, start and duration: identical calls that
// joined one run each get it) is not kept twice; its id is returned. With a limit of 0 nothing is kept and the id
// is "".
func (s *Store) Add(r Report) (string, error) {
	if s == nil {
		return "", nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.max <= 0 {
		return "", nil
	}
	s.loadLocked()
	for _, k := range s.kept {
		if k.Tool == r.Tool && k.Topic == r.Topic && k.Started.Equal(r.Started) && k.Duration == r.Duration {
			return k.ID, nil
		}
	}
	id, err := s.newIDLocked()
	if err != nil {
		return "", err
	}
	f := file{Version: formatVersion, ID: id, Tool: r.Tool, Topic: r.Topic, Depth: r.Depth, Model: r.Model,
		Backend: r.Backend, Started: r.Started, DurationMS: r.Duration.Milliseconds(), Partial: r.Partial,
		Report: r.Markdown, Sources: r.Sources}
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return "", err
	}
	if int64(len(data)) > s.maxBytes {
		return "", fmt.Errorf("keep the report in the history: %d bytes, more than the history's %d", len(data), s.maxBytes)
	}
	if err := s.makeDir(); err != nil {
		return "", fmt.Errorf("keep the report in the history: %w", err)
	}
	if err := atomicfile.Write(s.path(id), data, 0o600); err != nil {
		return "", fmt.Errorf("keep the report in the history: %w", err)
	}
	sum := f.report(int64(len(data))).Summary
	s.kept = slices.Insert(s.kept, 0, sum)
	s.bytes += sum.size
	s.pruneLocked()
	s.changed.Notify()
	return id, nil
}

// List returns the n newest reports (every one when n <= 0), newest first, without their text.
func (s *Store) List(n int) []Summary {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadLocked()
	if n <= 0 || n > len(s.kept) {
		n = len(s.kept)
	}
	return slices.Clone(s.kept[:n])
}

// Len is how many reports are kept.
func (s *Store) Len() int {
	if s == nil {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadLocked()
	return len(s.kept)
}

// Get returns the kept report id. The error is ErrNotFound for an id that is malformed or not kept; a report whose
// file can no longer be read is forgotten, and the error says why.
func (s *Store) Get(id string) (Report, error) {
	if s == nil || !ValidID(id) {
		return Report{}, ErrNotFound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loadLocked()
	i := slices.IndexFunc(s.kept, func(k Summary) bool { return k.ID == id })
	if i < 0 {
		return Report{}, ErrNotFound
	}
	r, err := s.read(id)
	if err != nil {
		s.log.Warn("a report of the history can no longer be read: forgotten", "file", s.path(id), "err", err)
		s.bytes -= s.kept[i].size
		s.kept = slices.Delete(s.kept, i, i+1)
		s.changed.Notify()
		return Report{}, fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return r, nil
}

func (s *Store) path(id string) string { return filepath.Join(s.dir, id+".json") }

// makeDir makes the folder, private to the user; one made before with wider access is narrowed.
func (s *Store) makeDir() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return err
	}
	return os.Chmod(s.dir, 0o700)
}

// read reads and checks the file of id.
func (s *Store) read(id string) (Report, error) {
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		return Report{}, err
	}
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return Report{}, err
	}
	if f.Version != formatVersion || f.ID != id {
		return Report{}, fmt.Errorf("not a report file of this version (version %d, id %q)", f.Version, f.ID)
	}
	return f.report(int64(len(data))), nil
}

// loadLocked reads the folder the first time it is called: every report file in it, newest first, skipping (and
// logging) those it cannot read; then it drops what is past the limits. Other files are left alone.
func (s *Store) loadLocked() {
	if s.loaded {
		return
	}
	s.loaded = true
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("cannot read the history of reports", "dir", s.dir, "err", err)
		}
		return
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !ValidID(id) || !e.Type().IsRegular() {
			continue
		}
		r, err := s.read(id)
		if err != nil {
			s.log.Warn("skipped a report of the history that cannot be read", "file", s.path(id), "err", err)
			continue
		}
		s.kept = append(s.kept, r.Summary)
		s.bytes += r.size
	}
	s.sortLocked()
	s.pruneLocked()
}

// sortLocked puts the newest first: ids begin with the time they were kept.
func (s *Store) sortLocked() {
	slices.SortFunc(s.kept, func(a, b Summary) int { return strings.Compare(b.ID, a.ID) })
}

// pruneLocked deletes the oldest reports while there are more than max, or their files take more than maxBytes. It
// reports whether it deleted any.
func (s *Store) pruneLocked() bool {
	pruned := false
	for len(s.kept) > 0 && (len(s.kept) > s.max || s.bytes > s.maxBytes) {
		old := s.kept[len(s.kept)-1]
		s.kept = s.kept[:len(s.kept)-1]
		s.bytes -= old.size
		pruned = true
		if err := os.Remove(s.path(old.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("cannot delete an old report of the history", "file", s.path(old.ID), "err", err)
		}
	}
	return pruned
}

// newIDLocked returns a fresh id: the time now, and random bits that two reports kept in the same microsecond will
// not share.
func (s *Store) newIDLocked() (string, error) {
	for {
		b := make([]byte, 4)
		if _, err := rand.Read(b); err != nil {
			return "", err
		}
		id := s.now().UTC().Format("20060102T150405.000000") + "-" + hex.EncodeToString(b)
		if !slices.ContainsFunc(s.kept, func(k Summary) bool { return k.ID == id }) {
			return id, nil
		}
	}
}
