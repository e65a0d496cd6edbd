package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

// sseEvent is one event of a stream: its id and its JSON-RPC message.
type sseEvent struct {
	id  string
	msg map[string]any
}

// readEvents reads the events of an SSE stream into a channel, which closes when the stream ends.
func readEvents(body *bufio.Reader) <-chan sseEvent {
	events := make(chan sseEvent, 100)
	go func() {
		defer close(events)
		var ev sseEvent
		for {
			line, err := body.ReadString('\n')
			if err != nil {
				return
			}
			switch line = strings.TrimRight(line, "\r\n"); {
			case strings.HasPrefix(line, "id:"):
				ev.id = strings.TrimSpace(strings.TrimPrefix(line, "id:"))
			case strings.HasPrefix(line, "data:"):
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &ev.msg)
			case line == "" && ev.msg != nil:
				events <- ev
				ev = sseEvent{}
			}
		}
	}()
	return events
}

// A client whose connection breaks during a long call loses nothing: the call runs on, and resuming the stream
// (GET with Last-Event-ID) sends what it missed, the report included.
func TestResumingAStreamAfterABrokenConnection(t *testing.T) {
	t.Setenv(geminitest.EnvDelay, "1s")
	s, fake := newPipelineServer(t, "slow", research.Settings{MaxRounds: 1}, tools.Options{Heartbeat: 50 * time.Millisecond},
		30*time.Second)
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{}))
	defer srv.Close()
	url := srv.URL + "/mcp"
	session := rpcSession(t, url)

	ctx, disconnect := context.WithCancel(context.Background())
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "deep_search", "arguments": map[string]any{"topic": "resumed"}, "_meta": map[string]any{"progressToken": 1}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(server.HeaderKeySessionID, session)
	res, err := testkit.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first, ok := <-readEvents(bufio.NewReader(res.Body))
	if !ok || first.id == "" || first.msg["method"] != "notifications/progress" {
		t.Fatalf("first event %+v, want a progress notification with an event id", first)
	}
	disconnect()
	res.Body.Close()

	testkit.WaitFor(t, "the search to run on and end", func() bool {
		return len(fake.Calls()) == 1 && len(fake.LivePIDs()) == 0
	})
	get, _ := http.NewRequest(http.MethodGet, url, nil)
	get.Header.Set("Accept", "text/event-stream")
	get.Header.Set(server.HeaderKeySessionID, session)
	get.Header.Set("Last-Event-ID", first.id)
	resumed, err := testkit.Client.Do(get)
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Body.Close()
	for ev := range readEvents(bufio.NewReader(resumed.Body)) {
		if ev.id == first.id {
			t.Errorf("event %s sent again", ev.id)
		}
		if ev.msg["id"] == nil {
			continue // a notification the client missed
		}
		result, _ := ev.msg["result"].(map[string]any)
		structured, _ := result["structuredContent"].(map[string]any)
		if report, _ := structured["report"].(string); !strings.Contains(report, "# Fake report") {
			t.Errorf("resumed answer %v, want the report", ev.msg)
		}
		return
	}
	t.Error("the resumed stream ended without the answer")
}

func TestEventLog(t *testing.T) {
	ctx := context.Background()
	l := newEventLog(25)
	store := func(session, stream, message string) string {
		id, err := l.StoreEvent(ctx, session, stream, json.RawMessage(message))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	replay := func(session, after string) (string, []string, error) {
		var got []string
		stream, err := l.ReplayEventsAfter(ctx, session, after, func(_ string, m json.RawMessage) error {
			got = append(got, string(m))
			return nil
		})
		return stream, got, err
	}

	a1 := store("s1", "a", `"a1"`)
	store("s1", "b", `"b1"`)
	store("s1", "a", `"a2"`)
	store("s2", "c", `"c1"`)
	if stream, got, err := replay("s1", a1); err != nil || stream != "a" || strings.Join(got, " ") != `"a2"` {
		t.Errorf("replay after a1: %s %v %v, want stream a's later event", stream, got, err)
	}
	if _, _, err := replay("s2", a1); !errors.Is(err, server.ErrUnknownEventID) {
		t.Errorf("another session's event: %v, want unknown", err)
	}

	c2 := store("s2", "c", `"c2-long-message"`) // 4+4+4+4+17 bytes > 25: a1 and b1 go
	if _, _, err := replay("s1", a1); !errors.Is(err, server.ErrUnknownEventID) {
		t.Errorf("an event dropped for room: %v, want unknown", err)
	}
	if _, got, err := replay("s2", c2); err != nil || len(got) != 0 {
		t.Errorf("replay after the last event: %v %v, want nothing", got, err)
	}

	if err := l.PurgeSession(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := replay("s2", c2); !errors.Is(err, server.ErrUnknownEventID) {
		t.Errorf("a purged session's event: %v, want unknown", err)
	}
	if l.bytes != len(`"a2"`) || len(l.where) != 1 {
		t.Errorf("kept %d bytes of %d events, want only a2", l.bytes, len(l.where))
	}
}

// The sweep drops the events of a call's stream streamLinger after its response was recorded, and only those: a
// call still running and a listening stream keep theirs.
func TestEventLogSweepDropsAnsweredStreams(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l := newEventLog(maxEventBytes)
	l.now = func() time.Time { return now }
	store := func(stream, message string) string {
		id, err := l.StoreEvent(ctx, "s1", stream, json.RawMessage(message))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	const (
		progress    = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`
		result      = `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`
		elicitation = `{"jsonrpc":"2.0","id":7,"method":"elicitation/create","params":{}}` // a request, not an answer
		listChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	)
	answered := store("call", progress)
	store("call", result)
	running := store("running", progress)
	store("running", elicitation)
	listening := store("listening", listChanged)
	resumable := func(id string) bool {
		_, err := l.ReplayEventsAfter(ctx, "s1", id, func(string, json.RawMessage) error { return nil })
		return err == nil
	}

	if l.sweep(now.Add(streamLinger - time.Second)); !resumable(answered) {
		t.Error("an answered stream was dropped before streamLinger")
	}
	held := l.sweep(now.Add(streamLinger))
	if resumable(answered) {
		t.Error("an answered stream is kept past streamLinger")
	}
	if !resumable(running) || !resumable(listening) {
		t.Error("the sweep dropped a stream with no response")
	}
	if want := len(progress) + len(elicitation) + len(listChanged); held != want || l.bytes != want {
		t.Errorf("sweep says %d bytes held, the log %d, want %d", held, l.bytes, want)
	}
}

// Once a burst of events is dropped, the log lets go of the room it took: a Go map, and a slice's array, keep the
// room of their largest size.
func TestEventLogShrinksAfterABurst(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := newEventLog(maxEventBytes)
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l.now = func() time.Time { return now }
	for i := range 10000 {
		stream := strconv.Itoa(i / 2)
		_, _ = l.StoreEvent(ctx, "s1", stream, json.RawMessage(`{"jsonrpc":"2.0","method":"notifications/progress"}`))
		_, _ = l.StoreEvent(ctx, "s1", stream, json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	}
	if held := l.sweep(now.Add(streamLinger)); held != 0 || len(l.where) != 0 || len(l.streams) != 0 {
		t.Fatalf("after the sweep: %d bytes, %d events, %d streams, want none", held, len(l.where), len(l.streams))
	}
	if cap(l.order) > 1024 {
		t.Errorf("order keeps room for %d events after they all went", cap(l.order))
	}
}

func TestIsResponse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		message string
		want    bool
	}{
		{`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"method\":1}"}]}}`, true},
		{`{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"no"}}`, true},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":7,"method":"sampling/createMessage","params":{}}`, false},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, false},
		{`not json`, false},
	} {
		if got := isResponse(json.RawMessage(tt.message)); got != tt.want {
			t.Errorf("isResponse(%s) = %v, want %v", tt.message, got, tt.want)
		}
	}
}
