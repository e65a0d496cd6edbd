package mcpserver

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

const listToolsBody = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

// sessionServer serves HTTP with the sessions that ended recorded.
func sessionServer(t *testing.T) (*httptest.Server, func() []string) {
	t.Helper()
	s, _ := newTestServer(t, "ok")
	var mu sync.Mutex
	var ended []string
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{SessionEnded: func(id string) {
		mu.Lock()
		defer mu.Unlock()
		ended = append(ended, id)
	}}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(ended)
	}
}

func initialize(t *testing.T, srv *httptest.Server) string {
	t.Helper()
	res := post(t, srv.URL+"/mcp", []byte(initializeBody), nil)
	id := res.Header.Get(server.HeaderKeySessionID)
	if res.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, id)
	}
	return id
}

// A session id the server never issued is refused with 404, so no research runs without initialize; DELETE ends a
// session for good (404 after it) and tells the app, whose calls of that session then stop.
func TestSessionsAreIssuedAndEnd(t *testing.T) {
	srv, ended := sessionServer(t)
	if res := post(t, srv.URL+"/mcp", []byte(listToolsBody), map[string]string{server.HeaderKeySessionID: "0123456789abcdef0123456789abcdef"}); res.StatusCode != http.StatusNotFound {
		t.Errorf("a session id never issued: %d, want 404", res.StatusCode)
	}
	id := initialize(t, srv)
	if res := post(t, srv.URL+"/mcp", []byte(listToolsBody), map[string]string{server.HeaderKeySessionID: id}); res.StatusCode != http.StatusOK {
		t.Fatalf("tools/list in the session: %d", res.StatusCode)
	}
	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/mcp", nil)
	req.Header.Set(server.HeaderKeySessionID, id)
	res, err := testkit.Client.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %v %v", res, err)
	}
	res.Body.Close()
	if res := post(t, srv.URL+"/mcp", []byte(listToolsBody), map[string]string{server.HeaderKeySessionID: id}); res.StatusCode != http.StatusNotFound {
		t.Errorf("the deleted session: %d, want 404", res.StatusCode)
	}
	if got := ended(); !slices.Equal(got, []string{id}) {
		t.Errorf("sessions ended %q, want [%s]", got, id)
	}
}

// At most maxSessions live at once: at the cap, a new session takes the place of the least recently used one with
// no request in progress, and only when every session has one is there no room.
func TestSessionCapEndsTheLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var ended []string
	s := newSessions(func(id string) { ended = append(ended, id) }, nil)
	s.now = func() time.Time { return clock }
	s.end = func(id string) { _, _ = s.Terminate(id) } // as mcp-go does on a DELETE
	ids := make([]string, maxSessions)
	for i := range ids {
		ids[i] = s.Generate()
		clock = clock.Add(time.Second)
	}
	oldest := s.begin(ids[0]) // the least recently used, but busy
	if !s.room() || !slices.Equal(ended, []string{ids[1]}) {
		t.Fatalf("ended %q at the cap, want the least recently used idle one, %s", ended, ids[1])
	}
	if _, err := s.Validate(ids[1]); err == nil {
		t.Error("the session ended to make room is still valid")
	}
	for _, id := range append(ids[2:], s.Generate()) {
		s.begin(id)
	}
	if s.room() {
		t.Errorf("room with every session busy; ended %d", len(ended))
	}
	clock = clock.Add(time.Second)
	oldest()
	if !s.room() || len(ended) != 2 || ended[1] != ids[0] {
		t.Errorf("ended %q, want the session whose request ended, %s, next", ended, ids[0])
	}
}

// A session whose task runs, with no request in progress, is neither ended to make room nor forgotten for being
// idle: its client polls for the result, and ending the session would cancel the task.
func TestSessionWithARunningTaskStays(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var ended []string
	var working string
	s := newSessions(func(id string) { ended = append(ended, id) }, func(id string) bool { return id == working })
	s.now = func() time.Time { return clock }
	s.end = func(id string) { _, _ = s.Terminate(id) }
	ids := make([]string, maxSessions)
	for i := range ids {
		ids[i] = s.Generate()
		clock = clock.Add(time.Second)
	}
	working = ids[0] // the least recently used, its task running
	if !s.room() || !slices.Equal(ended, []string{ids[1]}) {
		t.Fatalf("ended %q at the cap, want the least recently used one without a task, %s", ended, ids[1])
	}
	clock = clock.Add(2 * sessionIdle)
	s.room()
	if _, err := s.Validate(ids[0]); err != nil || slices.Contains(ended, ids[0]) {
		t.Errorf("the session whose task runs was forgotten after %v idle", 2*sessionIdle)
	}
}

// Initializes let in together may pass maxSessions: the next one still finds room, past as many sessions as it
// takes.
func TestSessionCapPassedIsMadeUp(t *testing.T) {
	t.Parallel()
	s := newSessions(nil, nil)
	s.end = func(id string) { _, _ = s.Terminate(id) }
	for range maxSessions + 10 {
		s.Generate()
	}
	if !s.room() {
		t.Fatal("no room")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if got, want := len(s.live), maxSessions-1; got != want {
		t.Errorf("%d sessions live after room, want %d", got, want)
	}
}

// A session ended to make room while its initialize was answered is ended again once that is done, since mcp-go
// registers it then; a live one is not.
func TestSessionEndedDuringItsInitialize(t *testing.T) {
	t.Parallel()
	var ended []string
	s := newSessions(nil, nil)
	s.end = func(id string) { ended = append(ended, id) }
	s.initialized(s.Generate())
	s.initialized("0123456789abcdef0123456789abcdef")
	if want := []string{"0123456789abcdef0123456789abcdef"}; !slices.Equal(ended, want) {
		t.Errorf("ended %q, want %q", ended, want)
	}
}

// Clients that connect and close without DELETE, as the TypeScript SDK's close() does, never lock a new client
// out: past maxSessions, each new session takes the place of the least recently used, even when many clients come
// at once.
func TestAbandonedSessionsDoNotLockOutClients(t *testing.T) {
	srv, ended := sessionServer(t)
	const clients, cycles = 8, 2 * maxSessions
	first := initialize(t, srv)
	// send posts body in session and returns the answer's status and session, its body read, so that its
	// connection is reused.
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer hc.CloseIdleConnections()
	send := func(session, body string) (int, string, error) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set(server.HeaderKeySessionID, session)
		}
		res, err := hc.Do(req)
		if err != nil {
			return 0, "", err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode, res.Header.Get(server.HeaderKeySessionID), nil
	}
	// cycle is a client that connects and leaves: initialize, notifications/initialized, then nothing.
	cycle := func() error {
		status, id, err := send("", initializeBody)
		if err != nil || status != http.StatusOK || id == "" {
			return fmt.Errorf("initialize: %d, session %q, %v", status, id, err)
		}
		if status, _, err := send(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil ||
			status != http.StatusAccepted {
			return fmt.Errorf("notifications/initialized: %d, %v", status, err)
		}
		return nil
	}
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range (cycles - 1) / clients {
				if err := cycle(); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	tr, err := transport.NewStreamableHTTP(srv.URL + "/mcp")
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(tr, client.WithLegacyProtocolOnly()) // a client with a session
	defer c.Close()
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	testkit.Initialize(t, ctx, c)
	if tr.GetSessionId() == "" {
		t.Fatal("the new client has no session")
	}
	if list, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil || len(list.Tools) == 0 {
		t.Fatalf("a new client after %d abandoned sessions: tools/list = %v, %v", cycles, list, err)
	}
	// Every session but the last maxSessions ended: room lets no more live.
	if got, want := len(ended()), 1+(cycles-1)/clients*clients+1-maxSessions; got != want {
		t.Errorf("%d sessions ended, want %d", got, want)
	}
	if res := post(t, srv.URL+"/mcp", []byte(listToolsBody), map[string]string{server.HeaderKeySessionID: first}); res.StatusCode != http.StatusNotFound {
		t.Errorf("the first abandoned session: %d, want 404", res.StatusCode)
	}
}

// An idle session is forgotten when room is needed, one with a request in progress (a long call, a listening
// stream) never is.
func TestIdleSessionsAreForgotten(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var forgotten []string
	s := newSessions(nil, nil)
	s.now = func() time.Time { return clock }
	s.end = func(id string) {
		forgotten = append(forgotten, id)
		_, _ = s.Terminate(id)
	}
	idle, busy := s.Generate(), s.Generate()
	done := s.begin(busy)
	clock = clock.Add(sessionIdle + time.Minute)
	if !s.room() || !slices.Equal(forgotten, []string{idle}) {
		t.Fatalf("forgotten %q, want only the idle session", forgotten)
	}
	if _, err := s.Validate(idle); err == nil {
		t.Error("the forgotten session is still valid")
	}
	if _, err := s.Validate(busy); err != nil {
		t.Errorf("the busy session: %v", err)
	}
	done()
	clock = clock.Add(sessionIdle - time.Second)
	s.room()
	if len(forgotten) != 1 {
		t.Errorf("a session idle for less than %v was forgotten: %q", sessionIdle, forgotten)
	}
	clock = clock.Add(2 * time.Second)
	s.room()
	if !slices.Equal(forgotten, []string{idle, busy}) {
		t.Errorf("forgotten %q, want the second once idle", forgotten)
	}
}

// Every request but initialize names a live session: with none it gets 400, with one never issued 404. A request of
// protocol 2026-07-28 has no session.
func TestRequestsNeedASession(t *testing.T) {
	srv, ended := sessionServer(t)
	modern := `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}}`
	for _, tt := range []struct {
		method, id, body string
		want             int
	}{
		{http.MethodGet, "", "", http.StatusBadRequest},
		{http.MethodGet, "0123456789abcdef0123456789abcdef", "", http.StatusNotFound},
		{http.MethodDelete, "", "", http.StatusBadRequest},
		{http.MethodDelete, "0123456789abcdef0123456789abcdef", "", http.StatusNotFound},
		{http.MethodPost, "", listToolsBody, http.StatusBadRequest},
		{http.MethodPost, "", modern, http.StatusOK},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL+"/mcp", strings.NewReader(tt.body))
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Content-Type", "application/json")
		if tt.body == modern {
			req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "server/discover")
		}
		if tt.id != "" {
			req.Header.Set(server.HeaderKeySessionID, tt.id)
		}
		res, err := testkit.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tt.want {
			t.Errorf("%s %s with session %q: %d, want %d", tt.method, tt.body, tt.id, res.StatusCode, tt.want)
		}
	}
	if got := ended(); len(got) != 0 {
		t.Errorf("sessions ended: %q", got)
	}
}

// The sweep forgets the sessions idle for longer than sessionIdle without a new client coming, as room does: one
// with a request in progress or a task running stays.
func TestSweepForgetsIdleSessions(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	var forgotten, ended []string
	var working string
	s := newSessions(func(id string) { ended = append(ended, id) }, func(id string) bool { return id == working })
	s.now = func() time.Time { return clock }
	s.end = func(id string) {
		forgotten = append(forgotten, id)
		_, _ = s.Terminate(id)
	}
	idle, busy, tasked := s.Generate(), s.Generate(), s.Generate()
	s.begin(busy)
	working = tasked
	if held := s.sweep(clock.Add(sessionIdle)); held != 3*sessionBytes || len(forgotten) != 0 {
		t.Fatalf("forgotten %q after exactly %v idle, want none; %d bytes held", forgotten, sessionIdle, held)
	}
	if held := s.sweep(clock.Add(sessionIdle + time.Second)); held != 2*sessionBytes {
		t.Errorf("%d bytes held by 2 sessions, want %d", held, 2*sessionBytes)
	}
	if !slices.Equal(forgotten, []string{idle}) || !slices.Equal(ended, []string{idle}) {
		t.Errorf("forgotten %q, ended %q, want only the idle session", forgotten, ended)
	}
	for _, id := range []string{busy, tasked} {
		if _, err := s.Validate(id); err != nil {
			t.Errorf("a session with a request in progress or a task running: %v", err)
		}
	}
}

// fakeSweeper collects the sweeps a server registers, to run them as the app's sweeper would.
type fakeSweeper struct{ sweeps []func(time.Time) int }

func (f *fakeSweeper) Add(sweep func(time.Time) int) { f.sweeps = append(f.sweeps, sweep) }

func (f *fakeSweeper) sweep(now time.Time) (held int) {
	for _, s := range f.sweeps {
		held += s(now)
	}
	return held
}

// Over HTTP, a session its client left without DELETE is forgotten by the sweep once idle, with no new client
// coming, and the events of its streams go with it; a session still in use stays.
func TestSweepForgetsAbandonedSessionsAndTheirEvents(t *testing.T) {
	s, _ := newTestServer(t, "ok")
	sweeper := &fakeSweeper{}
	var mu sync.Mutex
	var ended []string
	srv := httptest.NewServer(HTTPHandler(s, HTTPOptions{Sweeper: sweeper, SessionEnded: func(id string) {
		mu.Lock()
		defer mu.Unlock()
		ended = append(ended, id)
	}}))
	t.Cleanup(srv.Close)
	url := srv.URL + "/mcp"
	abandoned := rpcSession(t, url)
	search := map[string]any{"name": "search", "arguments": map[string]any{"query": "swept"},
		"_meta": map[string]any{"progressToken": 1}} // streams, so its events are kept for resuming
	rpc(t, url, abandoned, 2, "tools/call", search)
	if held := sweeper.sweep(time.Now()); held <= sessionBytes { // the session, and the events of its call
		t.Fatal("no event kept of a call that streamed")
	}
	if held := sweeper.sweep(time.Now().Add(sessionIdle + time.Minute)); held != 0 {
		t.Errorf("%d bytes held after the sweep, want none", held)
	}
	mu.Lock()
	if !slices.Equal(ended, []string{abandoned}) {
		t.Errorf("sessions ended %q, want the abandoned one", ended)
	}
	mu.Unlock()
	if res := post(t, url, []byte(listToolsBody), map[string]string{server.HeaderKeySessionID: abandoned}); res.StatusCode != http.StatusNotFound {
		t.Errorf("the swept session: %d, want 404", res.StatusCode)
	}
}
