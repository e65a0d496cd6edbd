package mcpserver

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// chunkTTL is how long the rest of a long report can be fetched.
const chunkTTL = 30 * time.Minute

// defaultResponseChars applies when Options.ResponseLimit is not set.
const defaultResponseChars = 20000

// chunkStore keeps the parts of long reports for fetch_chunk.
type chunkStore struct {
	mu      sync.Mutex
	entries map[string]chunkEntry
	now     func() time.Time
}

type chunkEntry struct {
	parts   []string
	expires time.Time
}

func newChunkStore() *chunkStore {
	return &chunkStore{entries: map[string]chunkEntry{}, now: time.Now}
}

// put stores parts and returns their id.
func (s *chunkStore) put(parts []string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b) // never fails
	id := hex.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for k, e := range s.entries { // expired entries go when new ones come, so the store stays small
		if now.After(e.expires) {
			delete(s.entries, k)
		}
	}
	s.entries[id] = chunkEntry{parts: parts, expires: now.Add(chunkTTL)}
	return id
}

// errChunkNotFound: the id is unknown or its 30 minutes are over.
var errChunkNotFound = fmt.Errorf("no report with this id: it is unknown or expired (parts are kept for %s)", chunkTTL)

// get returns part index (1-based) of id and the number of parts.
func (s *chunkStore) get(id string, index int) (string, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.entries[id]
	if !ok || s.now().After(e.expires) {
		return "", 0, errChunkNotFound
	}
	if index < 1 || index > len(e.parts) {
		return "", len(e.parts), fmt.Errorf("index %d is out of range: this report has parts 1 to %d", index, len(e.parts))
	}
	return e.parts[index-1], len(e.parts), nil
}

// split cuts text into parts of at most size characters, at a line break in the second half of a part when there
// is one, never inside a UTF-8 sequence.
func split(text string, size int) []string {
	var parts []string
	for utf8.RuneCountInString(text) > size {
		cut := byteOffset(text, size)
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
