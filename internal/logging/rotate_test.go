package logging

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRotatingFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		keep   int
		writes []string
		want   map[string]string // file name → contents; absent names must not exist
	}{
		{"under the limit", 2, []string{"aaaa\n", "bbbb\n"}, map[string]string{"tray.log": "aaaa\nbbbb\n"}},
		{"rotates before the write that overflows", 2, []string{"aaaa\n", "bbbb\n", "cccc\n"},
			map[string]string{"tray.log": "cccc\n", "tray.log.1": "aaaa\nbbbb\n"}},
		{"keeps only keep old files", 2, []string{"aaaaaaaaa\n", "bbbbbbbbb\n", "ccccccccc\n", "ddddddddd\n"},
			map[string]string{"tray.log": "ddddddddd\n", "tray.log.1": "ccccccccc\n", "tray.log.2": "bbbbbbbbb\n", "tray.log.3": ""}},
		{"a huge write still lands", 1, []string{strings.Repeat("x", 30) + "\n"}, map[string]string{"tray.log": strings.Repeat("x", 30) + "\n"}},
		{"keep 0 starts over", 0, []string{"aaaaaaaaa\n", "bbbbbbbbb\n"}, map[string]string{"tray.log": "bbbbbbbbb\n", "tray.log.1": ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "state")
			r, err := OpenRotating(filepath.Join(dir, "tray.log"), 12, tt.keep)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.writes {
				if _, err := r.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}
			for name, want := range tt.want {
				data, err := os.ReadFile(filepath.Join(dir, name))
				if want == "" {
					if err == nil {
						t.Errorf("%s exists, want it gone", name)
					}
					continue
				}
				if string(data) != want {
					t.Errorf("%s: got %q, want %q", name, data, want)
				}
			}
			if _, err := r.Write([]byte("late")); err == nil {
				t.Error("write after Close succeeded")
			}
		})
	}
}

func TestRotatingFileAppends(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tray.log")
	if err := os.WriteFile(path, []byte("earlier run\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := OpenRotating(path, 1<<20, 3)
	if err != nil {
		t.Fatal(err)
	}
	New(r, false).Info("started")
	r.Close()
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "earlier run\n") || !strings.Contains(string(data), "[INFO] started") {
		t.Errorf("got %q, want the earlier line then the new one", data)
	}
}

func TestRotationSurvivesARemovedFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "tray.log")
	r, err := OpenRotating(path, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil { // a cleaner or the user removed the log
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := r.Write([]byte("after\n")); err != nil {
			t.Fatalf("write %d after the file was removed: %v", i, err)
		}
	}
	if b, err := os.ReadFile(path); err != nil || !strings.Contains(string(b), "after") {
		t.Errorf("log file %q, %v: want it recreated with the new lines", b, err)
	}
}
