package research

import (
	"encoding/json"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/expiring"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
)

// Bounds on what a Cache holds: past either, the oldest report goes first.
const (
	maxCached      = 256
	maxCachedBytes = 4 << 20
)

// Cache keeps finished reports for a while (GEMINI_CACHE_TTL), so that an identical request (same tool, arguments
// ignoring case and spacing, model and backend) is answered at once. Failed, partial and unparsed reports are not
// kept, nor those researched without a Firecrawl that did not start. Like the Queue, one Cache is shared by every
// engine of a server; its time to live follows the configuration (SetTTL, 0: off). Its Sweep drops the reports
// past their time, so that they go when traffic stops too. Safe for concurrent use.
//
// The reports it keeps in memory, within a bound, it also keeps in its store, when it has one (SetStore): the
// research library, which outlives a restart and which the servers sharing a config dir share. A report that the
// memory does not hold (past its bound, or kept by another server) is looked for there.
type Cache struct {
	now func() time.Time

	mu      sync.Mutex
	ttl     time.Duration
	reports *expiring.Map[string, cached]
	// made is the research each key's report came from, for Forget: an expiring.Map has no walk. A key the map
	// has dropped goes from here at the next put or sweep (tidy).
	made  map[string]record.Identity
	store CacheStore // nil: memory only
}

// CacheStore keeps a cache's reports beyond its memory: each under its request's key, with the identity of the
// research that made it and when it was cached. Its values are the cache's own encoding of a report. What it
// cannot keep or read it logs; the cache goes on.
type CacheStore interface {
	// PutCached keeps value, the report of the research made, under key, cached at at until expires, in place of
	// what was kept under it; what is past its time goes.
	PutCached(key string, made record.Identity, value []byte, at, expires time.Time)
	// Cached is the value kept under key if it was cached at since or later, and when.
	Cached(key string, since time.Time) (value []byte, at time.Time, ok bool)
	// DropCached drops what was cached before before.
	DropCached(before time.Time)
}

// SetStore has the cache keep its reports in store too, from now on; what store keeps past the cache's time to
// live goes from it (every report, for a time to live of 0).
func (c *Cache) SetStore(store CacheStore) {
	c.mu.Lock()
	c.store = store
	c.mu.Unlock()
	c.cutStore()
}

// cutStore drops from the store what was cached longer ago than the time to live.
func (c *Cache) cutStore() {
	c.mu.Lock()
	store, before := c.store, c.now().Add(-c.ttl)
	c.mu.Unlock()
	if store != nil {
		store.DropCached(before)
	}
}

// cached is a report as the cache keeps it. A Summary that is a part of its Report, as the engine makes it, is
// kept as its place there, so that the two are one string in memory.
type cached struct {
	rep       Report
	summaryAt int // where rep's Summary begins in rep.Report; -1: rep.Summary is kept as it is
	summary   int // its length
}

// NewCache returns an empty cache that keeps reports for ttl (0: keeps none).
func NewCache(ttl time.Duration) *Cache {
	return &Cache{now: time.Now, ttl: ttl, reports: expiring.New[string, cached](ttl, maxCachedBytes, maxCached),
		made: map[string]record.Identity{}}
}

// Forget drops from memory the reports of the research made: the library's report of it has been deleted, which
// dropped the store's with it (library.Library.Delete). Other servers' caches may still answer with it until its
// time to live is over.
func (c *Cache) Forget(made record.Identity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, m := range c.made {
		if m.Is(made) {
			c.reports.Delete(key)
			delete(c.made, key)
		}
	}
}

// remember keeps e under key in memory, cached at at, with the research it came from. c.mu is held.
func (c *Cache) remember(key string, e cached, at time.Time) {
	c.reports.Put(key, e, e.bytes(), at)
	c.made[key] = e.rep.Identity(toolOf(key))
	c.tidy(c.now())
}

// tidy drops from made the keys that the memory no longer holds at now: past their time, or past its bounds.
// c.mu is held.
func (c *Cache) tidy(now time.Time) {
	if len(c.made) <= c.reports.Len() {
		return
	}
	for key := range c.made {
		if _, _, ok := c.reports.Get(key, now); !ok {
			delete(c.made, key)
		}
	}
}

// toolOf is the tool of the request of key, which the engine makes a JSON array of strings that begins with the
// request's kind, named as its tool (Engine.joined); "" for another key.
func toolOf(key string) string {
	var request []string
	if json.Unmarshal([]byte(key), &request) != nil || len(request) == 0 {
		return ""
	}
	return request[0]
}

// Identity is the identity of the research that made r, called as tool (record.Identity): its start is the
// engine's timestamp of it, the zero time when it has none.
func (r Report) Identity(tool string) record.Identity {
	started, _ := time.Parse(time.RFC3339, r.Metadata.Timestamp)
	return record.Identity{Tool: tool, Topic: r.Metadata.Topic, Started: started,
		Duration: time.Duration(r.Metadata.DurationMS) * time.Millisecond}
}

// SetTTL changes how long reports are kept, those already kept included, in memory and in the store; 0 empties
// the cache and keeps none.
func (c *Cache) SetTTL(ttl time.Duration) {
	c.mu.Lock()
	c.ttl = ttl
	c.reports.SetTTL(ttl)
	c.reports.Expire(c.now())
	c.tidy(c.now())
	c.mu.Unlock()
	c.cutStore() // off the lock: the store may wait for another server's write
}

// Sweep drops the reports whose time to live is over at now and returns the bytes still kept, about.
func (c *Cache) Sweep(now time.Time) (held int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	held = c.reports.Expire(now)
	c.tidy(now)
	return held
}

// get returns the report kept for key, in memory or else in the store, marked as cached with its age.
func (c *Cache) get(key string) (Report, bool) {
	c.mu.Lock()
	now := c.now()
	e, at, ok := c.reports.Get(key, now)
	ttl, store := c.ttl, c.store
	c.mu.Unlock()
	if !ok && ttl > 0 && store != nil {
		e, at, ok = c.stored(store, key, now.Add(-ttl))
	}
	if !ok {
		return Report{}, false
	}
	rep := e.rep
	if e.summaryAt >= 0 {
		rep.Summary = rep.Report[e.summaryAt : e.summaryAt+e.summary]
	}
	age := now.Sub(at).Milliseconds()
	rep.Metadata.Cached, rep.Metadata.CacheAgeMS = true, &age
	rep.Metadata.Usage = nil // the answer used nothing: its research is counted once, when it ran
	return rep, true
}

// stored is the report store keeps for key, cached since since, which the memory then holds too.
func (c *Cache) stored(store CacheStore, key string, since time.Time) (cached, time.Time, bool) {
	value, at, ok := store.Cached(key, since)
	if !ok {
		return cached{}, at, false
	}
	var s storedReport
	if err := json.Unmarshal(value, &s); err != nil || s.Version != storedVersion ||
		s.SummaryAt+s.SummaryLen > len(s.Report.Report) || s.SummaryLen < 0 {
		return cached{}, at, false // another release's, or damaged: researched again, and kept anew
	}
	e := cached{rep: s.Report, summaryAt: s.SummaryAt, summary: s.SummaryLen}
	if e.summaryAt < 0 {
		e.rep.Summary = s.Summary
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ttl > 0 {
		c.remember(key, e, at)
	}
	return e, at, true
}

// storedVersion is the version of storedReport's encoding: a value of another is not read.
const storedVersion = 1

// storedReport is a report as the cache's store keeps it: the report with its metadata, and its Summary as a
// place in its Report when it is a part of it (as cached keeps it) and the Report is UTF-8, else as its text.
type storedReport struct {
	Version    int    `json:"v"`
	Report     Report `json:"report"`
	SummaryAt  int    `json:"summary_at"` // where Summary begins in Report.Report; -1: it is Summary
	SummaryLen int    `json:"summary_len,omitempty"`
	Summary    string `json:"summary,omitempty"`
}

// put keeps rep for key when it is a complete report, in memory and in the store.
func (c *Cache) put(key string, rep Report) {
	c.mu.Lock()
	if c.ttl <= 0 || !rep.Success || rep.Partial || rep.ParseWarning || rep.Metadata.Firecrawl != "" {
		c.mu.Unlock()
		return
	}
	e := cached{rep: rep, summaryAt: strings.Index(rep.Report, rep.Summary), summary: len(rep.Summary)}
	if e.summaryAt >= 0 {
		e.rep.Summary = ""
	}
	now := c.now()
	c.reports.Expire(now) // without a sweep, reports past their time go as new ones come
	c.remember(key, e, now)
	ttl, store := c.ttl, c.store
	c.mu.Unlock()
	if store == nil {
		return
	}
	s := storedReport{Version: storedVersion, Report: e.rep, SummaryAt: e.summaryAt, SummaryLen: e.summary}
	// JSON holds UTF-8 alone: a byte that is not becomes U+FFFD, of three, and a place in the text would be off.
	if e.summaryAt < 0 || !utf8.ValidString(rep.Report) {
		s.SummaryAt, s.SummaryLen, s.Summary = -1, 0, rep.Summary
	}
	if value, err := json.Marshal(s); err == nil { // plain values
		store.PutCached(key, rep.Identity(toolOf(key)), value, now, now.Add(ttl))
	}
}

// bytes is about what e holds: its texts, and some for the rest.
func (e cached) bytes() int {
	m := e.rep.Metadata
	n := 512 + len(e.rep.Report) + len(e.rep.Summary) + len(m.Topic)
	for _, s := range m.Sources {
		n += len(s.URL) + len(s.Title) + len(s.Snippet)
	}
	for _, c := range m.Citations {
		n += len(c.Text) + 8*len(c.Sources)
	}
	for _, s := range m.SourcesVisited {
		n += len(s)
	}
	for _, s := range m.SearchQueriesUsed {
		n += len(s)
	}
	return n
}
