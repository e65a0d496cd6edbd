// Package expiring keeps values in memory for a while: each for a time to live after it was put, and all of them
// within a byte budget and a count, the oldest going first past either. The stores that keep reports for later
// (research's cache, the MCP server's parts of long reports) hold them in a Map and let a sweep drop the expired
// ones, so that memory comes back when traffic stops, not only when new traffic arrives.
package expiring

import (
	"container/list"
	"time"
)

// Map holds values by key. It is not safe for concurrent use: its owner locks. Its clock is the now its owner
// passes in, so tests drive it.
type Map[K comparable, V any] struct {
	ttl      time.Duration
	maxBytes int // 0: no bound
	maxLen   int // 0: no bound

	items map[K]*list.Element // of *item[K, V]
	order list.List           // the items, oldest first
	bytes int
}

type item[K comparable, V any] struct {
	key   K
	value V
	size  int
	at    time.Time
}

// New returns an empty Map that keeps each value for ttl (0: keeps none), at most maxBytes of them (by the sizes
// Put is given) and at most maxLen; a bound of 0 is none.
func New[K comparable, V any](ttl time.Duration, maxBytes, maxLen int) *Map[K, V] {
	return &Map[K, V]{ttl: ttl, maxBytes: maxBytes, maxLen: maxLen, items: map[K]*list.Element{}}
}

// Put keeps value, which holds size bytes, under key from now on, in place of what was kept under it; then it
// drops the oldest values while more than the bounds are kept. The value just put stays, whatever its size.
func (m *Map[K, V]) Put(key K, value V, size int, now time.Time) {
	m.Delete(key)
	m.items[key] = m.order.PushBack(&item[K, V]{key: key, value: value, size: size, at: now})
	m.bytes += size
	for m.order.Len() > 1 && (m.maxBytes > 0 && m.bytes > m.maxBytes || m.maxLen > 0 && m.order.Len() > m.maxLen) {
		m.remove(m.order.Front())
	}
}

// Get returns the value kept under key and when it was put, unless its time to live is over at now.
func (m *Map[K, V]) Get(key K, now time.Time) (value V, at time.Time, ok bool) {
	e, ok := m.items[key]
	if !ok {
		return value, at, false
	}
	it := e.Value.(*item[K, V])
	if m.expired(it, now) {
		m.remove(e)
		return value, at, false
	}
	return it.value, it.at, true
}

// Delete drops the value kept under key, if any.
func (m *Map[K, V]) Delete(key K) {
	if e, ok := m.items[key]; ok {
		m.remove(e)
	}
}

// SetTTL changes the time to live, of the values kept too; the next Expire applies it.
func (m *Map[K, V]) SetTTL(ttl time.Duration) { m.ttl = ttl }

// Expire drops the values whose time to live is over at now and returns the bytes still held.
func (m *Map[K, V]) Expire(now time.Time) (held int) {
	// Values are put in time order, so the expired ones are the first: one that is not ends the walk. Values put
	// with a clock that went back are found by Get.
	for e := m.order.Front(); e != nil && m.expired(e.Value.(*item[K, V]), now); e = m.order.Front() {
		m.remove(e)
	}
	return m.bytes
}

// Len is the number of values kept, expired ones not yet dropped included; Bytes their size.
func (m *Map[K, V]) Len() int   { return m.order.Len() }
func (m *Map[K, V]) Bytes() int { return m.bytes }

func (m *Map[K, V]) expired(it *item[K, V], now time.Time) bool {
	return m.ttl <= 0 || now.Sub(it.at) >= m.ttl
}

func (m *Map[K, V]) remove(e *list.Element) {
	it := m.order.Remove(e).(*item[K, V])
	delete(m.items, it.key)
	m.bytes -= it.size
}
