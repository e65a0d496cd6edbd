package research

import (
	"strings"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/expiring"
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
type Cache struct {
	now func() time.Time

	mu      sync.Mutex
	ttl     time.Duration
	reports *expiring.Map[string, cached]
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
	return &Cache{now: time.Now, ttl: ttl, reports: expiring.New[string, cached](ttl, maxCachedBytes, maxCached)}
}

// SetTTL changes how long reports are kept, those already kept included; 0 empties the cache and keeps none.
func (c *Cache) SetTTL(ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ttl = ttl
	c.reports.SetTTL(ttl)
	c.reports.Expire(c.now())
}

// Sweep drops the reports whose time to live is over at now and returns the bytes still kept, about.
func (c *Cache) Sweep(now time.Time) (held int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reports.Expire(now)
}

// get returns the report kept for key, marked as cached with its age.
func (c *Cache) get(key string) (Report, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	e, at, ok := c.reports.Get(key, now)
	if !ok {
		return Report{}, false
	}
	rep := e.rep
	if e.summaryAt >= 0 {
		rep.Summary = rep.Report[e.summaryAt : e.summaryAt+e.summary]
	}
	age := now.Sub(at).Milliseconds()
	rep.Metadata.Cached, rep.Metadata.CacheAgeMS = true, &age
	return rep, true
}

// put keeps rep for key when it is a complete report.
func (c *Cache) put(key string, rep Report) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ttl <= 0 || !rep.Success || rep.Partial || rep.ParseWarning || rep.Metadata.Firecrawl != "" {
		return
	}
	e := cached{rep: rep, summaryAt: strings.Index(rep.Report, rep.Summary), summary: len(rep.Summary)}
	if e.summaryAt >= 0 {
		e.rep.Summary = ""
	}
	now := c.now()
	c.reports.Expire(now) // without a sweep, reports past their time go as new ones come
	c.reports.Put(key, e, e.bytes(), now)
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
