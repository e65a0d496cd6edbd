package parts

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		size int
		want []string
	}{
		{"fits", "short", 10, []string{"short"}},
		{"exact", "abcde", 5, []string{"abcde"}},
		{"hard cut", "abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"at a line break", "line one\nline two\nline three", 12, []string{"line one\n", "line two\n", "line three"}},
		{"runes, not bytes", "ééééé", 2, []string{"éé", "éé", "é"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Split(tt.text, tt.size)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			for _, p := range got {
				if !utf8.ValidString(p) || utf8.RuneCountInString(p) > tt.size {
					t.Errorf("part %q is invalid or longer than %d", p, tt.size)
				}
			}
		})
	}
}

func TestChunkStoreExpires(t *testing.T) {
	t.Parallel()
	s := NewStore()
	now := time.Now()
	s.now = func() time.Time { return now }
	id := s.Put("ab", []string{"a", "b"})
	if part, n, err := s.Get(id, 2); err != nil || part != "b" || n != 2 {
		t.Fatalf("get = %q, %d, %v", part, n, err)
	}
	if _, _, err := s.Get(id, 3); err == nil || !strings.Contains(err.Error(), "parts 1 to 2") {
		t.Errorf("out of range: %v", err)
	}
	now = now.Add(TTL + time.Second)
	if _, _, err := s.Get(id, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("after 30 minutes: %v, want ErrNotFound", err)
	}
}

// The sweep drops the parts whose time is over, with no new report stored.
func TestChunkStoreSweep(t *testing.T) {
	t.Parallel()
	s := NewStore()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	id := s.Put("aaaabb", []string{"aaaa", "bb"})
	if held := s.Sweep(now.Add(TTL - time.Second)); held != 6 {
		t.Errorf("before its time: %d bytes held, want 6", held)
	}
	if held := s.Sweep(now.Add(TTL)); held != 0 {
		t.Errorf("after its time: %d bytes held, want 0", held)
	}
	if _, _, err := s.Get(id, 2); !errors.Is(err, ErrNotFound) {
		t.Errorf("get after the sweep: %v, want ErrNotFound", err)
	}
}

// At most MaxBytes of parts are kept, a report's bytes counted once: past it, the oldest report goes, and its
// id gets ErrNotFound, which says why. The parts are the report's own text, which the cache may hold too, not
// a copy.
func TestChunkStoreKeepsAtMostMaxChunkBytes(t *testing.T) {
	t.Parallel()
	s := NewStore()
	const reports = 10
	size := MaxBytes / (reports - 2) // reports-2 fit, with room to spare
	var ids []string
	var last string
	for range reports {
		last = strings.Repeat("x", size)
		ids = append(ids, s.Put(last, Split(last, size/4)))
	}
	if held := s.Sweep(s.now()); held > MaxBytes || held < MaxBytes-size {
		t.Errorf("%d bytes held, want at most %d and no less than the last reports that fit", held, MaxBytes)
	}
	_, _, err := s.Get(ids[0], 2)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), fmt.Sprintf("%d MiB", MaxBytes>>20)) {
		t.Errorf("the oldest report: %v, want ErrNotFound saying how much the store keeps", err)
	}
	part, n, err := s.Get(ids[reports-1], 4)
	if err != nil || n != 4 || part != last[3*size/4:] {
		t.Fatalf("the newest report's last part: %d bytes of %d parts, %v", len(part), n, err)
	}
	if !inMemoryOf(part, last) {
		t.Error("a part kept is a copy, not the report's own text")
	}
}

// inMemoryOf reports whether part lies in the memory of whole.
func inMemoryOf(part, whole string) bool {
	p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
	return w <= p && p < w+uintptr(len(whole))
}

// BenchmarkSplitAndPut is what a long report costs the parts store: cut into parts of 20,000 characters (a
// response's size) and kept. b.SetBytes makes go test print MB/s: the same at every size when both are linear in
// the report's length.
func BenchmarkSplitAndPut(b *testing.B) {
	for _, size := range []struct {
		name  string
		bytes int
	}{{"1KB", 1_000}, {"100KB", 100_000}, {"5MB", 5_000_000}} {
		b.Run(size.name, func(b *testing.B) {
			var sb strings.Builder
			for i := 0; sb.Len() < size.bytes; i++ {
				fmt.Fprintf(&sb, "Line %d of the report, with a multi-byte word: Grüße.\n", i)
			}
			report := sb.String()
			s := NewStore()
			b.SetBytes(int64(len(report)))
			for b.Loop() {
				id := s.Put(report, Split(report, 20_000))
				if _, _, err := s.Get(id, 1); err != nil {
					b.Fatal(err)
				}
			}
			if held := s.Sweep(s.now()); held > max(MaxBytes, len(report)) {
				b.Fatalf("%d bytes of parts held, over the bound of %d", held, MaxBytes)
			}
		})
	}
}
