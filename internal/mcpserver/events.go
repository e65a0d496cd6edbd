package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// maxEventBytes bounds the messages kept for resuming streams, all sessions together: the last reports and
// progress of each session, while mcp-go's own in-memory store keeps every message of a session until it ends.
const maxEventBytes = 8 << 20

// streamLinger is how long the events of a call's stream are kept once its response was recorded: long enough for
// a client whose connection broke to resume the stream and read it. A client that comes later calls again, and
// joins the run or gets the report from the cache.
const streamLinger = 2 * time.Minute

// eventLog is the EventStore mcp-go records the SSE events of each session's streams in, so that a client whose
// connection broke can resume a stream (GET with Last-Event-ID) and be sent what it missed: the result of a long
// deep_search that finished while it was away, say. It keeps at most maxBytes of messages; the oldest go first,
// and a stream can no longer be resumed from an event that went. Its sweep drops the streams whose response was
// recorded streamLinger ago.
type eventLog struct {
	maxBytes int
	now      func() time.Time

	mu       sync.Mutex
	seq      uint64
	bytes    int
	order    []eventRef                  // every kept event, oldest first (some removed since, by dropStream)
	streams  map[streamKey][]loggedEvent // a stream's kept events, oldest first
	where    map[uint64]streamKey        // the stream of each kept event
	answered map[streamKey]time.Time     // when the response of a call's stream was recorded
}

type streamKey struct{ session, stream string }

type eventRef struct {
	seq uint64
	key streamKey
}

type loggedEvent struct {
	seq     uint64
	message json.RawMessage
}

var _ server.EventStore = (*eventLog)(nil)

func newEventLog(maxBytes int) *eventLog {
	return &eventLog{maxBytes: maxBytes, now: time.Now, streams: map[streamKey][]loggedEvent{},
		where: map[uint64]streamKey{}, answered: map[streamKey]time.Time{}}
}

func (l *eventLog) StoreEvent(_ context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	key := streamKey{sessionID, streamID}
	l.streams[key] = append(l.streams[key], loggedEvent{seq: l.seq, message: message})
	l.where[l.seq] = key
	l.order = append(l.order, eventRef{l.seq, key})
	l.bytes += len(message)
	if isResponse(message) {
		l.answered[key] = l.now()
	}
	for l.bytes > l.maxBytes && len(l.order) > 1 { // the event just stored stays, whatever its size
		l.dropOldest()
	}
	return strconv.FormatUint(l.seq, 10), nil
}

// dropOldest forgets the oldest event kept, which is the first of its stream.
func (l *eventLog) dropOldest() {
	ref := l.order[0]
	l.order = l.order[1:]
	if _, kept := l.where[ref.seq]; !kept { // its stream was dropped
		return
	}
	events := l.streams[ref.key]
	l.bytes -= len(events[0].message)
	delete(l.where, ref.seq)
	if len(events) == 1 {
		delete(l.streams, ref.key)
		delete(l.answered, ref.key)
	} else {
		l.streams[ref.key] = events[1:]
	}
}

func (l *eventLog) ReplayEventsAfter(_ context.Context, sessionID, lastEventID string,
	send func(eventID string, message json.RawMessage) error) (string, error) {
	seq, err := strconv.ParseUint(lastEventID, 10, 64)
	l.mu.Lock()
	key, kept := l.where[seq]
	if err != nil || !kept || key.session != sessionID {
		l.mu.Unlock()
		return "", fmt.Errorf("event %q: %w", lastEventID, server.ErrUnknownEventID)
	}
	events := l.streams[key]
	after, _ := slices.BinarySearchFunc(events, seq, func(e loggedEvent, seq uint64) int { return cmp.Compare(e.seq, seq) })
	missed := slices.Clone(events[after+1:])
	l.mu.Unlock()
	for _, e := range missed {
		if err := send(strconv.FormatUint(e.seq, 10), e.message); err != nil {
			return "", err
		}
	}
	return key.stream, nil
}

func (l *eventLog) PurgeSession(_ context.Context, sessionID string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for key := range l.streams {
		if key.session == sessionID {
			l.dropStream(key)
		}
	}
	l.compact()
	return nil
}

// sweep drops the events of the streams whose response was recorded streamLinger or longer before now, and
// returns the bytes still kept.
func (l *eventLog) sweep(now time.Time) (held int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for key, at := range l.answered {
		if now.Sub(at) >= streamLinger {
			l.dropStream(key)
		}
	}
	l.compact()
	return l.bytes
}

// dropStream forgets the events of stream key.
func (l *eventLog) dropStream(key streamKey) {
	for _, e := range l.streams[key] {
		l.bytes -= len(e.message)
		delete(l.where, e.seq)
	}
	delete(l.streams, key)
	delete(l.answered, key)
}

// compact takes the refs of dropped streams' events out of order when most of it is stale, so that a server with
// many short streams does not grow it (dropOldest skips them meanwhile). After a burst, when order's array is
// mostly empty, it starts order and the maps afresh: a Go map keeps the room of its largest size.
func (l *eventLog) compact() {
	if len(l.order) > 2*len(l.where)+1024 {
		l.order = slices.DeleteFunc(l.order, func(ref eventRef) bool { _, kept := l.where[ref.seq]; return !kept })
	}
	if cap(l.order) <= 2*len(l.order)+1024 {
		return
	}
	l.order = slices.Clone(l.order)
	l.streams, l.where, l.answered = afresh(l.streams), afresh(l.where), afresh(l.answered)
}

// afresh is a new map with m's entries, of the size they need (maps.Clone keeps m's room).
func afresh[K comparable, V any](m map[K]V) map[K]V {
	n := make(map[K]V, len(m))
	maps.Copy(n, m)
	return n
}

// isResponse reports whether message, a JSON-RPC message, is a response (a result or an error): the last message
// of a call's stream.
func isResponse(message json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(message, &m) == nil && m.Method == "" && len(m.ID) > 0 && string(m.ID) != "null"
}
