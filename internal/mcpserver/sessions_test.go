package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/server"
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
	res, err := http.DefaultClient.Do(req)
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

// At most maxSessions live at once: one more initialize is refused with a reason, and the others keep working.
func TestSessionCap(t *testing.T) {
	srv, _ := sessionServer(t)
	var first string
	for i := range maxSessions {
		id := initialize(t, srv)
		if i == 0 {
			first = id
		}
	}
	res := post(t, srv.URL+"/mcp", []byte(initializeBody), nil)
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("initialize past the cap: %d, want 503", res.StatusCode)
	}
	if res := post(t, srv.URL+"/mcp", []byte(listToolsBody), map[string]string{server.HeaderKeySessionID: first}); res.StatusCode != http.StatusOK {
		t.Errorf("a live session past the cap: %d, want 200", res.StatusCode)
	}
}

// An idle session is forgotten when room is needed, one with a request in progress (a long call, a listening
// stream) never is.
func TestIdleSessionsAreForgotten(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	var forgotten []string
	s := newSessions(nil)
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
		res, err := http.DefaultClient.Do(req)
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
