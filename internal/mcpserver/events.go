package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// maxEventBytes bounds the messages kept for resuming streams, all sessions together: the last reports and
// progress of each session, while mcp-go's own in-memory store keeps every message of a session until it ends.
const maxEventBytes = 32 << 20

// eventLog is the EventStore mcp-go records the SSE events of each session's streams in, so that a client whose
// connection broke can resume a stream (GET with Last-Event-ID) and be sent what it missed: the result of a long
// deep_search that finished while it was away, say. It keeps at most maxBytes of messages; the oldest go first,
// and a stream can no longer be resumed from an event that went.
type eventLog struct {
	maxBytes int

	mu      sync.Mutex
	seq     uint64
	bytes   int
	order   []eventRef                  // every kept event, oldest first (some removed since, by PurgeSession)
	streams map[streamKey][]loggedEvent // a stream's kept events, oldest first
	where   map[uint64]streamKey        // the stream of each kept event
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
	return &eventLog{maxBytes: maxBytes, streams: map[streamKey][]loggedEvent{}, where: map[uint64]streamKey{}}
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
	for l.bytes > l.maxBytes && len(l.order) > 1 { // the event just stored stays, whatever its size
		l.dropOldest()
	}
	return strconv.FormatUint(l.seq, 10), nil
}

// dropOldest forgets the oldest event kept, which is the first of its stream.
func (l *eventLog) dropOldest() {
	ref := l.order[0]
	l.order = l.order[1:]
	if _, kept := l.where[ref.seq]; !kept { // its session was purged
		return
	}
	events := l.streams[ref.key]
	l.bytes -= len(events[0].message)
	delete(l.where, ref.seq)
	if len(events) == 1 {
		delete(l.streams, ref.key)
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
	for key, events := range l.streams {
		if key.session != sessionID {
			continue
		}
		for _, e := range events {
			l.bytes -= len(e.message)
			delete(l.where, e.seq)
		}
		delete(l.streams, key)
	}
	// order keeps the purged events' refs until they are the oldest: dropOldest skips them then. Compact it when
	// most of it is stale, so that a server with many short sessions does not grow it.
	if len(l.order) > 2*len(l.where)+1024 {
		l.order = slices.DeleteFunc(l.order, func(ref eventRef) bool { _, kept := l.where[ref.seq]; return !kept })
	}
	return nil
}
