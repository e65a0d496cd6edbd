package watch

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// start watches dir/name and returns a channel of its changes.
func start(t *testing.T, dir, name string) (*Watcher, <-chan Change) {
	t.Helper()
	w, err := New(50*time.Millisecond, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	changes := make(chan Change, 10)
	if err := w.Add(filepath.Join(dir, name), func(c Change) { changes <- c }); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return w, changes
}

func next(t *testing.T, changes <-chan Change) Change {
	t.Helper()
	select {
	case c := <-changes:
		return c
	case <-time.After(testkit.WaitLimit):
		t.Fatal("no change reported")
		return Change{}
	}
}

func quiet(t *testing.T, changes <-chan Change) {
	t.Helper()
	select {
	case c := <-changes:
		t.Fatalf("unexpected change %+v (data %q)", c, c.Data)
	case <-time.After(300 * time.Millisecond):
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestWatch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the event sequences below are the inotify ones")
	}
	tests := []struct {
		name    string
		initial string // "" for no file
		change  func(t *testing.T, path string)
		want    Change
	}{
		{"create", "", func(t *testing.T, path string) { write(t, path, "A=1\n") }, Change{Exists: true, Data: []byte("A=1\n")}},
		{"write in place, twice in a row, reported once", "A=1\n", func(t *testing.T, path string) {
			write(t, path, "A=2\n")
			write(t, path, "A=3\n")
		}, Change{Exists: true, Data: []byte("A=3\n")}},
		{"atomic replace", "A=1\n", func(t *testing.T, path string) {
			tmp := filepath.Join(filepath.Dir(path), ".tmp-123")
			write(t, tmp, "A=2\n")
			if err := os.Rename(tmp, path); err != nil {
				t.Fatal(err)
			}
		}, Change{Exists: true, Data: []byte("A=2\n")}},
		{"vim-style save", "A=1\n", func(t *testing.T, path string) {
			// vim with backupcopy=no: rename the file to a backup, write a new one, delete the backup.
			if err := os.Rename(path, path+"~"); err != nil {
				t.Fatal(err)
			}
			write(t, path, "A=2\n")
			if err := os.Remove(path + "~"); err != nil {
				t.Fatal(err)
			}
		}, Change{Exists: true, Data: []byte("A=2\n")}},
		{"delete", "A=1\n", func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}, Change{Exists: false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := filepath.Join(dir, ".env")
			if tt.initial != "" {
				write(t, path, tt.initial)
			}
			_, changes := start(t, dir, ".env")
			tt.change(t, path)
			got := next(t, changes)
			if got.Path != path || got.Exists != tt.want.Exists || string(got.Data) != string(tt.want.Data) {
				t.Errorf("got %+v (data %q), want exists=%v data %q", got, got.Data, tt.want.Exists, tt.want.Data)
			}
			quiet(t, changes)
		})
	}
}

func TestWatchSkipsOwnWritesAndOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	write(t, path, "{}")
	w, changes := start(t, dir, "settings.json")

	w.Wrote(path, []byte(`{"a":1}`))
	write(t, path, `{"a":1}`)
	write(t, filepath.Join(dir, "other.json"), "x")
	if err := os.Chtimes(path, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	quiet(t, changes)

	write(t, path, `{"a":2}`)
	if got := next(t, changes); string(got.Data) != `{"a":2}` {
		t.Errorf("got %q, want the user's write", got.Data)
	}
	w.Wrote(path, nil)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	quiet(t, changes)
}

// TestWatchFolderDeletedAndRecreated: settings.json lives in .gemini, which people delete whole; the tray then
// writes it again. Every later deletion, and edits, must still be seen.
func TestWatchFolderDeletedAndRecreated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the event sequences below are the inotify ones")
	}
	tests := []struct {
		name   string
		remove func(folder string) error
	}{
		{"deleted", os.RemoveAll},
		{"renamed away", func(folder string) error { return os.Rename(folder, folder+"-"+time.Now().Format("150405.000000000")) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			folder := filepath.Join(t.TempDir(), ".gemini")
			path := filepath.Join(folder, "settings.json")
			if err := os.Mkdir(folder, 0o700); err != nil {
				t.Fatal(err)
			}
			write(t, path, "{}")
			w, err := New(50*time.Millisecond, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			changes := make(chan Change, 10)
			// As the tray does: a missing file is written again, folder and all, and announced.
			repair := func(c Change) {
				if !c.Exists {
					if err := os.MkdirAll(folder, 0o700); err != nil {
						t.Error(err)
					}
					if err := os.WriteFile(path, []byte(`{"repaired":true}`), 0o600); err != nil {
						t.Error(err)
					}
					w.Wrote(path, []byte(`{"repaired":true}`))
				}
				changes <- c
			}
			if err := w.Add(path, repair); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error)
			go func() { done <- w.Run(ctx) }()
			defer func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("Run: %v", err)
				}
			}()

			for i := 1; i <= 3; i++ {
				if err := tt.remove(folder); err != nil {
					t.Fatal(err)
				}
				if got := next(t, changes); got.Exists {
					t.Fatalf("removal %d: got %+v, want the file reported missing", i, got)
				}
				quiet(t, changes) // the repair itself reports nothing
				if data, err := os.ReadFile(path); err != nil || string(data) != `{"repaired":true}` {
					t.Fatalf("removal %d: settings.json holds %q (%v), want it repaired", i, data, err)
				}
			}
			write(t, path, `{"edited":true}`)
			if got := next(t, changes); !got.Exists || string(got.Data) != `{"edited":true}` {
				t.Errorf("after the repairs, an edit: got %+v (data %q), want the edit", got, got.Data)
			}
		})
	}
}
