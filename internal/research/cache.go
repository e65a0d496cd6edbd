package research

import (
	"sync"
	"time"
)

// maxCached bounds the reports a Cache holds; past it, the oldest goes first.
const maxCached = 256

// Cache keeps finished reports for a while (GEMINI_CACHE_TTL), so that an identical request (same tool, arguments
// ignoring case and spacing, model and backend) is answered at once. Failed, partial and unparsed reports are not
// kept, nor those researched without a Firecrawl that did not start. Like the Queue, one Cache is shared by every engine of a server; its time to live follows the configuration
// (SetTTL, 0: off). Safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]cached
	now     func() time.Time
}

type cached struct {
	rep Report
	at  time.Time
}

// NewCache returns an empty cache that keeps reports for ttl (0: keeps none).
func NewCache(ttl time.Duration) *Cache {
	return &Cache{ttl: ttl, entries: map[string]cached{}, now: time.Now}
}

// SetTTL changes how long reports are kept, those already kept included; 0 empties the cache and keeps none.
func (c *Cache) SetTTL(ttl time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ttl = ttl
	c.expire()
}

// get returns the report kept for key, marked as cached with its age.
func (c *Cache) get(key string) (Report, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.expire()
	e, ok := c.entries[key]
	if !ok {
		return Report{}, false
	}
	rep := e.rep
	age := c.now().Sub(e.at).Milliseconds()
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
	c.expire()
	if len(c.entries) >= maxCached {
		oldest := ""
		for k, e := range c.entries {
			if oldest == "" || e.at.Before(c.entries[oldest].at) {
				oldest = k
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = cached{rep: rep, at: c.now()}
}

// expire drops the reports older than the time to live; c.mu is held.
func (c *Cache) expire() {
	for k, e := range c.entries {
		if c.ttl <= 0 || c.now().Sub(e.at) >= c.ttl {
			delete(c.entries, k)
		}
	}
}
