package history

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// report returns a report of topic that started at start.
func report(topic string, start time.Time) Report {
	return Report{Summary: Summary{Tool: "search", Topic: topic, Model: "gemini-2.5-flash", Backend: "cli",
		Started: start, Duration: 83 * time.Second}, Markdown: "# " + topic + "\n\nSee https://example.com/a.",
		Sources: []Source{{URL: "https://example.com/a", Title: "A"}}}
}

// clock returns a store's clock that moves one second at each reading, from 10:00.
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

func newStore(t *testing.T, dir string, max int, log *bytes.Buffer) *Store {
	t.Helper()
	logger := slog.New(slog.DiscardHandler)
	if log != nil {
		logger = slog.New(slog.NewTextHandler(log, nil))
	}
	s := New(dir, max, logger)
	s.now = clock()
	return s
}

// add adds reports of topics in order and returns their ids.
func add(t *testing.T, s *Store, topics ...string) []string {
	t.Helper()
	var ids []string
	for i, topic := range topics {
		id, err := s.Add(report(topic, time.Date(2026, 11, 22, 9, 0, i, 0, time.UTC)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func topics(list []Summary) []string {
	var got []string
	for _, s := range list {
		got = append(got, s.Topic)
	}
	return got
}

func TestAddListGet(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cache", "history")
	s := newStore(t, dir, 10, nil)
	if got := s.List(0); len(got) != 0 {
		t.Fatalf("a new store lists %v, want nothing", got)
	}
	ids := add(t, s, "first", "second", "third")
	for _, id := range ids {
		if !ValidID(id) {
			t.Errorf("id %q is not valid", id)
		}
	}
	if got, want := topics(s.List(0)), []string{"third", "second", "first"}; !slices.Equal(got, want) {
		t.Errorf("List(0): %q, want newest first %q", got, want)
	}
	if got, want := topics(s.List(2)), []string{"third", "second"}; !slices.Equal(got, want) {
		t.Errorf("List(2): %q, want %q", got, want)
	}
	if s.Len() != 3 {
		t.Errorf("Len: %d, want 3", s.Len())
	}

	r, err := s.Get(ids[1])
	if err != nil {
		t.Fatal(err)
	}
	want := report("second", time.Date(2026, 11, 22, 9, 0, 1, 0, time.UTC))
	want.ID, want.size = ids[1], r.size
	if r.Topic != want.Topic || r.Markdown != want.Markdown || !slices.Equal(r.Sources, want.Sources) ||
		r.Summary != want.Summary {
		t.Errorf("Get: %+v, want %+v", r, want)
	}
	if _, err := s.Get("20261122T100000.000000-00000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of an id not kept: %v, want ErrNotFound", err)
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	dir := filepath.Join(t.TempDir(), "history")
	if err := os.Mkdir(dir, 0o755); err != nil { // made by somebody else, open to all
		t.Fatal(err)
	}
	s := newStore(t, dir, 10, nil)
	id := add(t, s, "private")[0]
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the folder: %v (%v), want 0700", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Join(dir, id+".json")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the report's file: %v (%v), want 0600", fi.Mode(), err)
	}
}

// files returns the names of the files in dir.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestCapByCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(t, dir, 3, nil)
	ids := add(t, s, "a", "b", "c", "d", "e")
	if got, want := topics(s.List(0)), []string{"e", "d", "c"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want the newest three %q", got, want)
	}
	if got := files(t, dir); len(got) != 3 || slices.Contains(got, ids[0]+".json") {
		t.Errorf("files %q, want the three kept", got)
	}
	if _, err := s.Get(ids[0]); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a dropped report: %v, want ErrNotFound", err)
	}

	s.SetMax(1)
	if got := topics(s.List(0)); !slices.Equal(got, []string{"e"}) || len(files(t, dir)) != 1 {
		t.Errorf("after SetMax(1): %q in %q, want only the newest", got, files(t, dir))
	}
	s.SetMax(0)
	if got := s.List(0); len(got) != 0 || len(files(t, dir)) != 0 {
		t.Errorf("after SetMax(0): %v in %q, want nothing kept", got, files(t, dir))
	}
	if id, err := s.Add(report("off", time.Now())); id != "" || err != nil || len(files(t, dir)) != 0 {
		t.Errorf("Add with the history off: %q, %v, files %q; want nothing kept", id, err, files(t, dir))
	}
}

// TestSetMaxZeroAtStart: a history turned off before the start deletes what was kept.
func TestSetMaxZeroAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	add(t, newStore(t, dir, 10, nil), "a", "b")
	s := newStore(t, dir, 0, nil)
	s.SetMax(0)
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("files %q, want none", got)
	}
}

func TestCapBySize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStore(t, dir, 100, nil)
	add(t, s, "a")
	one := s.List(0)[0].size
	s.maxBytes = 3*one + one/2
	add(t, s, "b", "c", "d", "e")
	if got, want := topics(s.List(0)), []string{"e", "d", "c"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want the newest that fit %q", got, want)
	}
	if got := files(t, dir); len(got) != 3 {
		t.Errorf("files %q, want three", got)
	}
	big := report("too big", time.Now())
	big.Markdown = strings.Repeat("x", int(s.maxBytes))
	if _, err := s.Add(big); err == nil {
		t.Error("a report bigger than the whole history was kept")
	}
	if got := topics(s.List(0)); len(got) != 3 {
		t.Errorf("after a refused report: %q, want the three kept", got)
	}
}

// TestRestart: a new store on the same folder lists what the old one kept, and its limits apply.
func TestRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := add(t, newStore(t, dir, 10, nil), "a", "b", "c")
	s := newStore(t, dir, 10, nil)
	if got, want := topics(s.List(0)), []string{"c", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("after a restart: %q, want %q", got, want)
	}
	if r, err := s.Get(ids[0]); err != nil || r.Markdown != "# a\n\nSee https://example.com/a." {
		t.Errorf("Get after a restart: %+v, %v", r, err)
	}
	if got := topics(newStore(t, dir, 2, nil).List(0)); !slices.Equal(got, []string{"c", "b"}) {
		t.Errorf("restarted with a lower limit: %q, want the newest two", got)
	}
	if got := files(t, dir); len(got) != 2 {
		t.Errorf("files %q, want two", got)
	}
}

// TestCorruptFilesAreSkipped: files that do not parse, or are not this version's, are skipped and logged once;
// other files are left alone; a kept file that turns unreadable is forgotten.
func TestCorruptFilesAreSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ids := add(t, newStore(t, dir, 10, nil), "good", "lost")
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("20261122T090000.000000-0000dead.json", `{"version": 1, "id": "20261122T090000.000000-0000dead", "rep`)
	write("20261122T090001.000000-0000beef.json", `{"version": 99, "id": "20261122T090001.000000-0000beef"}`)
	write("20261122T090002.000000-00000bad.json", `{"version": 1, "id": "20261122T090003.000000-00000bad"}`)
	write("notes.txt", "mine")
	if err := os.Mkdir(filepath.Join(dir, "20261122T090004.000000-0000d1d1.json"), 0o700); err != nil {
		t.Fatal(err)
	}

	var log bytes.Buffer
	s := newStore(t, dir, 10, &log)
	for range 3 {
		if got := topics(s.List(0)); !slices.Equal(got, []string{"lost", "good"}) {
			t.Fatalf("listed %q, want the two good reports", got)
		}
	}
	if n := strings.Count(log.String(), "skipped a report"); n != 3 {
		t.Errorf("logged %d skipped files, want each of the three once:\n%s", n, log.String())
	}
	if got := files(t, dir); !slices.Contains(got, "notes.txt") {
		t.Errorf("files %q: another file was removed", got)
	}

	write(ids[1]+".json", "garbage")
	if _, err := s.Get(ids[1]); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a corrupted file: %v, want ErrNotFound", err)
	}
	if got := topics(s.List(0)); !slices.Equal(got, []string{"good"}) {
		t.Errorf("after a corrupted file: %q, want it forgotten", got)
	}
}

// TestUnreadableFolder: a history that cannot be read or written lists nothing and says why; it never panics.
func TestUnreadableFolder(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "in-the-way")
	if err := os.WriteFile(path, []byte("a file where the folder should be"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	s := newStore(t, path, 10, &log)
	if got := s.List(0); len(got) != 0 {
		t.Errorf("listed %v", got)
	}
	if _, err := s.Add(report("a", time.Now())); err == nil {
		t.Error("Add succeeded without a folder")
	}
	if !strings.Contains(log.String(), "cannot read the history") {
		t.Errorf("log %q, want it to say the history cannot be read", log.String())
	}
}

// TestJoinedCallsKeepOneReport: identical calls that joined one run each get its report: it is kept once.
func TestJoinedCallsKeepOneReport(t *testing.T) {
	t.Parallel()
	s := newStore(t, t.TempDir(), 10, nil)
	r := report("joined", time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC))
	first, err := s.Add(r)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.Add(r); err != nil || again != first {
		t.Errorf("the same report again: %q, %v; want %q", again, err, first)
	}
	r.Started = r.Started.Add(time.Minute)
	if other, _ := s.Add(r); other == first || len(s.List(0)) != 2 {
		t.Errorf("a report of another run was not kept: %q, %d kept", other, len(s.List(0)))
	}
}

func TestConcurrentAdds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := New(dir, 100, nil) // the real clock: ids in the same microsecond differ by their random part
	const n = 40
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Go(func() {
			_, err := s.Add(report(fmt.Sprintf("topic %d", i), time.Date(2026, 11, 22, 9, 0, i, 0, time.UTC)))
			errs <- err
		})
		wg.Go(func() { s.List(10) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	list := s.List(0)
	ids := map[string]bool{}
	for _, r := range list {
		ids[r.ID] = true
	}
	if len(list) != n || len(ids) != n || len(files(t, dir)) != n {
		t.Errorf("%d listed, %d distinct ids, %d files; want %d of each", len(list), len(ids), len(files(t, dir)), n)
	}
	if got := New(dir, 100, nil).List(0); len(got) != n {
		t.Errorf("a new store lists %d, want %d", len(got), n)
	}
}

func TestNilStore(t *testing.T) {
	t.Parallel()
	var s *Store = New("", 10, nil)
	if s != nil {
		t.Fatal("New without a folder returned a store")
	}
	if id, err := s.Add(report("a", time.Now())); id != "" || err != nil {
		t.Errorf("Add: %q, %v", id, err)
	}
	if s.List(0) != nil || s.Len() != 0 || s.Changed() != nil || s.Dir() != "" {
		t.Error("a nil store lists something")
	}
	s.SetMax(3)
	if _, err := s.Get("20261122T100000.000000-00000000"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get: %v, want ErrNotFound", err)
	}
}

func TestChanged(t *testing.T) {
	t.Parallel()
	s := newStore(t, t.TempDir(), 10, nil)
	ch := s.Changed()
	add(t, s, "a")
	select {
	case <-ch:
	default:
		t.Error("Add did not signal a change")
	}
}

func TestValidID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"20261122T100000.123456-0a1b2c3d":         true,
		"":                                        false,
		"../../etc/passwd":                        false,
		"20261122T100000.123456-0a1b2c3d/../x":    false,
		"20261122T100000.123456-0A1B2C3D":         false,
		"20261122T100000.123456-0a1b2c3d.json":    false,
		"20261122T100000.123456-0a1b2c3d\n":       false,
		"x20261122T100000.123456-0a1b2c3d":        false,
		"20261122T100000.123456-0a1b2c3":          false,
		"20261122T100000.123456-0a1b2c3d%2F..%2F": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestTookAndWhen(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		0: "0s", 42*time.Second + 400*time.Millisecond: "42s", 185 * time.Second: "3m05s", 62*time.Minute + 10*time.Second: "1h02m",
	} {
		if got := (Summary{Duration: d}).Took(); got != want {
			t.Errorf("Took(%v) = %q, want %q", d, got, want)
		}
	}
	now := time.Date(2026, 11, 22, 18, 30, 0, 0, time.UTC) // a Sunday
	for start, want := range map[time.Time]string{
		time.Date(2026, 11, 22, 9, 5, 0, 0, time.UTC):  "09:05",
		time.Date(2026, 11, 20, 9, 5, 0, 0, time.UTC):  "Fri 09:05",
		time.Date(2026, 11, 2, 9, 5, 0, 0, time.UTC):   "2 Nov 09:05",
		time.Date(2025, 12, 31, 9, 5, 0, 0, time.UTC):  "31 Dec 2025",
		time.Date(2026, 11, 22, 19, 0, 0, 0, time.UTC): "19:00",
	} {
		if got := (Summary{Started: start}).When(now); got != want {
			t.Errorf("When(%v) = %q, want %q", start, got, want)
		}
	}
}
