package mcpserver

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
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
			got := split(tt.text, tt.size)
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
	s := newChunkStore()
	now := time.Now()
	s.now = func() time.Time { return now }
	id := s.put([]string{"a", "b"})
	if part, n, err := s.get(id, 2); err != nil || part != "b" || n != 2 {
		t.Fatalf("get = %q, %d, %v", part, n, err)
	}
	if _, _, err := s.get(id, 3); err == nil || !strings.Contains(err.Error(), "parts 1 to 2") {
		t.Errorf("out of range: %v", err)
	}
	now = now.Add(chunkTTL + time.Second)
	if _, _, err := s.get(id, 1); !errors.Is(err, errChunkNotFound) {
		t.Errorf("after 30 minutes: %v, want errChunkNotFound", err)
	}
}
