// Package parts keeps the parts of reports too long for one response, for fetch_chunk: cut at line breaks, kept
// for a while, within a bound on their bytes.
package parts

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/expiring"
)

// Parts of long reports are kept for TTL after their report was sent, and at most MaxBytes of them, all reports
// together: past it, the oldest report's parts go first.
const (
	TTL      = 30 * time.Minute
	MaxBytes = 4 << 20
)

// Kept says how long parts are kept, as the tool's description and the errors say it.
var Kept = fmt.Sprintf("up to %d minutes, while the server keeps at most %d MiB of parts (the oldest go first)",
	int(TTL/time.Minute), MaxBytes>>20)

// Store keeps the parts of long reports for fetch_chunk. Its sweep drops the expired ones, so that they go
// when traffic stops too, not only when the next long report comes.
type Store struct {
	now func() time.Time

	mu      sync.Mutex
	reports *expiring.Map[string, chunked] // by id
}

// chunked is a report kept in parts: its text and the end of each part in it. The text is the report the engine
// made, a string of its own (research's report.go), which the cache may hold too: it is not copied again, and its
// bytes count once however many parts it has.
type chunked struct {
	text string
	ends []int
}

func NewStore() *Store {
	return &Store{now: time.Now, reports: expiring.New[string, chunked](TTL, MaxBytes, 0)}
}

// Put stores report, cut into parts (Split), and returns its id.
func (s *Store) Put(report string, parts []string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	id := hex.EncodeToString(b)
	c := chunked{text: report, ends: make([]int, len(parts))}
	end := 0
	for i, p := range parts {
		end += len(p)
		c.ends[i] = end
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.reports.Expire(now) // without a sweeper, parts past their time go as new ones come
	s.reports.Put(id, c, len(c.text), now)
	return id
}

// Sweep drops the parts whose time is over at now and returns the bytes still kept.
func (s *Store) Sweep(now time.Time) (held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reports.Expire(now)
}

// ErrNotFound: the id is unknown, its time is over, or its parts made room for newer ones.
var ErrNotFound = errors.New("no report with this id: it is unknown, or its parts are no longer kept (they " +
	"are kept for " + Kept + ")")

// Get returns part index (1-based) of id and the number of parts.
func (s *Store) Get(id string, index int) (string, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, _, ok := s.reports.Get(id, s.now())
	if !ok {
		return "", 0, ErrNotFound
	}
	if index < 1 || index > len(c.ends) {
		return "", len(c.ends), fmt.Errorf("index %d is out of range: this report has parts 1 to %d", index, len(c.ends))
	}
	start := 0
	if index > 1 {
		start = c.ends[index-2]
	}
	return c.text[start:c.ends[index-1]], len(c.ends), nil
}

// Split cuts text into parts of at most size characters, at a line break in the second half of a part when there
// is one, never inside a UTF-8 sequence.
func Split(text string, size int) []string {
	var parts []string
	for {
		cut := byteOffset(text, size) // reads size characters, not the rest of the text: linear in the text
		if cut == len(text) {
			break
		}
		if nl := strings.LastIndexByte(text[:cut], '\n'); nl >= cut/2 {
			cut = nl + 1
		}
		parts = append(parts, text[:cut])
		text = text[cut:]
	}
	return append(parts, text)
}

// byteOffset is the byte offset of the n-th rune of s.
func byteOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
