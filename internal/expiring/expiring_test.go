package expiring

import (
	"slices"
	"testing"
	"time"
)

var start = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// keys lists the keys m holds, oldest first.
func keys(m *Map[string, int]) []string {
	var ks []string
	for e := m.order.Front(); e != nil; e = e.Next() {
		ks = append(ks, e.Value.(*item[string, int]).key)
	}
	return ks
}

func TestMapBounds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		maxBytes, maxLen int
		sizes            []int // of a, b, c, d, put in that order
		want             []string
		wantBytes        int
	}{
		{"within", 100, 10, []int{10, 10, 10, 10}, []string{"a", "b", "c", "d"}, 40},
		{"bytes: the oldest go first", 25, 0, []int{10, 10, 10, 10}, []string{"c", "d"}, 20},
		{"count", 0, 3, []int{10, 10, 10, 10}, []string{"b", "c", "d"}, 30},
		{"a value larger than the budget stays alone", 25, 0, []int{10, 10, 10, 40}, []string{"d"}, 40},
		{"no bounds", 0, 0, []int{1 << 20, 1 << 20, 1, 1}, []string{"a", "b", "c", "d"}, 2<<20 + 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := New[string, int](time.Hour, tt.maxBytes, tt.maxLen)
			for i, k := range []string{"a", "b", "c", "d"} {
				m.Put(k, i, tt.sizes[i], start.Add(time.Duration(i)*time.Second))
			}
			if got := keys(m); !slices.Equal(got, tt.want) || m.Bytes() != tt.wantBytes || m.Len() != len(tt.want) {
				t.Errorf("got %v (%d bytes), want %v (%d bytes)", got, m.Bytes(), tt.want, tt.wantBytes)
			}
			for _, k := range tt.want {
				if _, _, ok := m.Get(k, start); !ok {
					t.Errorf("Get(%s): not found", k)
				}
			}
		})
	}
}

// A value put again under its key replaces the old one, counts once and is now the newest.
func TestMapPutAgain(t *testing.T) {
	t.Parallel()
	m := New[string, int](time.Hour, 30, 0)
	m.Put("a", 1, 10, start)
	m.Put("b", 2, 10, start)
	m.Put("a", 3, 15, start.Add(time.Second))
	if got := keys(m); !slices.Equal(got, []string{"b", "a"}) || m.Bytes() != 25 {
		t.Errorf("got %v (%d bytes), want [b a] (25 bytes)", got, m.Bytes())
	}
	if v, at, ok := m.Get("a", start); !ok || v != 3 || !at.Equal(start.Add(time.Second)) {
		t.Errorf("Get(a) = %d, %v, %v, want 3 put a second later", v, at, ok)
	}
	m.Delete("b")
	m.Delete("missing")
	if got := keys(m); !slices.Equal(got, []string{"a"}) || m.Bytes() != 15 {
		t.Errorf("after Delete: %v (%d bytes), want [a] (15 bytes)", got, m.Bytes())
	}
}

// Expire drops what is past its time to live without a Put or a Get, and says what is still held; a time to live
// of 0 keeps nothing.
func TestMapExpire(t *testing.T) {
	t.Parallel()
	m := New[string, int](time.Minute, 0, 0)
	m.Put("a", 1, 10, start)
	m.Put("b", 2, 20, start.Add(30*time.Second))
	if held := m.Expire(start.Add(59 * time.Second)); held != 30 {
		t.Errorf("before the TTL: %d bytes held, want 30", held)
	}
	if held := m.Expire(start.Add(time.Minute)); held != 20 || !slices.Equal(keys(m), []string{"b"}) {
		t.Errorf("at a's TTL: %d bytes held, %v, want 20 bytes, [b]", held, keys(m))
	}
	if _, _, ok := m.Get("b", start.Add(90*time.Second)); ok || m.Len() != 0 || m.Bytes() != 0 {
		t.Errorf("Get past b's TTL: found %v, %d kept (%d bytes), want it gone", ok, m.Len(), m.Bytes())
	}
	m.Put("c", 3, 5, start)
	m.SetTTL(0)
	if held := m.Expire(start); held != 0 || m.Len() != 0 {
		t.Errorf("TTL 0: %d bytes held, %d values, want none", held, m.Len())
	}
}
