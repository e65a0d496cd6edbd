package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/restapi"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

func newHTTPTestServer(t *testing.T, scenario, token string) *httptest.Server {
	t.Helper()
	s, _ := newTestServer(t, scenario)
	h := HTTPHandler(s, HTTPOptions{AuthToken: func() string { return token }, Health: func() any { return map[string]string{"status": "ok", "version": "test"} }})
	srv := httptest.NewServer(h) // listens on 127.0.0.1, so mcp-go's Host check applies
	t.Cleanup(srv.Close)
	return srv
}

func post(t *testing.T, url string, body []byte, header map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := testkit.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

func TestHTTPRoundTrip(t *testing.T) {
	srv := newHTTPTestServer(t, "ok", "")
	c, err := testkit.HTTPClient(srv.URL+"/mcp", transport.WithHTTPHeaders(map[string]string{}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	testkit.Initialize(t, ctx, c)
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 11 {
		t.Fatalf("tools/list = %+v, %v", list, err)
	}
	res := call(ctx, t, c, "search", map[string]any{"query": "q"}, nil)
	if res.IsError || !strings.Contains(resultText(t, res), "# Fake report") {
		t.Errorf("search over HTTP: %+v", res)
	}
}

func TestHTTPHealthz(t *testing.T) {
	srv := newHTTPTestServer(t, "ok", "")
	rebound, _ := http.NewRequest(http.MethodGet, srv.URL+"/healthz", nil)
	rebound.Host = "evil.example:3000" // a page whose name now points to 127.0.0.1
	res, err := testkit.Client.Do(rebound)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("healthz with a rebound Host: %d, want 403", res.StatusCode)
	}
	res, err = http.Get(srv.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var body map[string]string
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != 200 || body["status"] != "ok" {
		t.Errorf("healthz: %d %v %v", res.StatusCode, body, err)
	}
}

func TestHTTPRejections(t *testing.T) {
	srv := newHTTPTestServer(t, "ok", "")
	tests := []struct {
		name   string
		body   []byte
		header map[string]string
		want   int
	}{
		{"plain initialize", []byte(initializeBody), nil, http.StatusOK},
		{"a JSON-RPC batch", []byte("[" + initializeBody + "]"), nil, http.StatusBadRequest},
		{"loopback origin", []byte(initializeBody), map[string]string{"Origin": "http://localhost:5173"}, http.StatusOK},
		{"foreign origin", []byte(initializeBody), map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"null origin", []byte(initializeBody), map[string]string{"Origin": "null"}, http.StatusForbidden},
		{"rebinding host", []byte(initializeBody), map[string]string{"Host": "evil.example:3000"}, http.StatusForbidden},
		{"body over 1 MiB", append([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`), bytes.Repeat([]byte("x"), maxBodyBytes)...), nil, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if res := post(t, srv.URL+"/mcp", tt.body, tt.header); res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
		})
	}
}

func TestHTTPBearerToken(t *testing.T) {
	srv := newHTTPTestServer(t, "ok", "s3cret-token")
	tests := []struct {
		name string
		auth string
		want int
	}{
		{"none", "", http.StatusUnauthorized},
		{"wrong", "Bearer nope", http.StatusUnauthorized},
		{"not bearer", "Basic czNjcmV0LXRva2Vu", http.StatusUnauthorized},
		{"right", "Bearer s3cret-token", http.StatusOK},
		{"scheme in lower case", "bearer s3cret-token", http.StatusOK},
		{"scheme in upper case", "BEARER s3cret-token", http.StatusOK},
		{"token alone", "s3cret-token", http.StatusUnauthorized},
		{"token as the scheme", "s3cret-token s3cret-token", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]string{}
			if tt.auth != "" {
				header["Authorization"] = tt.auth
			}
			res := post(t, srv.URL+"/mcp", []byte(initializeBody), header)
			if res.StatusCode != tt.want {
				t.Errorf("status %d, want %d", res.StatusCode, tt.want)
			}
			if tt.want == http.StatusUnauthorized && res.Header.Get("WWW-Authenticate") == "" {
				t.Error("401 without WWW-Authenticate")
			}
		})
	}
}

// A JSON-RPC batch gets a JSON-RPC error that says batches are not supported, not a parse error.
func TestHTTPBatchRefused(t *testing.T) {
	srv := newHTTPTestServer(t, "ok", "")
	res := post(t, srv.URL+"/mcp", []byte("["+initializeBody+"]"), nil)
	var body struct {
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil || res.StatusCode != http.StatusBadRequest ||
		body.Error.Code != -32600 || !strings.Contains(body.Error.Message, "batches are not supported") {
		t.Errorf("batch: %d %+v %v", res.StatusCode, body, err)
	}
}

// TestAPIRefusalsAreJSON: the HTTP side's refusals of the JSON API's requests are JSON, as the API's own errors are.
func TestAPIRefusalsAreJSON(t *testing.T) {
	engine, _ := newEngine(t, "ok", research.Settings{}, 30*time.Second)
	t2 := tools.New(engine, tools.Options{Version: "test"})
	srv := httptest.NewServer(HTTPHandler(New(t2, Options{Version: "test"}), HTTPOptions{
		AuthToken: func() string { return "tok-1234567890" }, API: restapi.Handler(t2)}))
	t.Cleanup(srv.Close)
	postAPI := func(path, body string, header map[string]string) (int, backend.Code) {
		res := post(t, srv.URL+path, []byte(body), header)
		var got struct{ Error tools.Error }
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil && res.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d, not a JSON answer: %v", path, res.StatusCode, err)
		}
		return res.StatusCode, got.Error.Code
	}
	if status, code := postAPI("/api/google-search", `{"query": "q"}`, nil); status != http.StatusUnauthorized || code != backend.CodeUnauthorized {
		t.Errorf("no token: %d %s", status, code)
	}
	if status, code := postAPI("/api/gemini-chat", `{"prompt": "q"}`, map[string]string{"Authorization": "Bearer tok-1234567890",
		"Origin": "https://evil.example"}); status != http.StatusForbidden || code != backend.CodeForbidden {
		t.Errorf("foreign origin: %d %s", status, code)
	}
	if status, _ := postAPI("/api/google-search", `{"query": "q"}`, map[string]string{"Authorization": "Bearer tok-1234567890"}); status != http.StatusOK {
		t.Errorf("with the token: %d", status)
	}
}

// A request that breaks several rules gets the refusal of the first in the guard's order: Host, Origin, token, body.
func TestGuardChecksInOrder(t *testing.T) {
	srv := newHTTPTestServer(t, "ok", "s3cret-token")
	huge := bytes.Repeat([]byte("x"), maxBodyBytes+1)
	tests := []struct {
		name   string
		header map[string]string
		want   int
		says   string
	}{
		{"rebinding host first", map[string]string{"Host": "evil.example:3000", "Origin": "https://evil.example"}, http.StatusForbidden, "invalid Host"},
		{"then a foreign origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, "origin"},
		{"then the token", nil, http.StatusUnauthorized, "Unauthorized"},
		{"then the body", map[string]string{"Authorization": "Bearer s3cret-token"}, http.StatusRequestEntityTooLarge, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := post(t, srv.URL+"/mcp", huge, tt.header)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != tt.want || !strings.Contains(string(body), tt.says) {
				t.Errorf("got %d %q, want %d saying %q", res.StatusCode, body, tt.want, tt.says)
			}
		})
	}
}

// Answering is told of the requests that call a tool, from before the handler runs until after it has answered.
func TestGuardCountsAnswering(t *testing.T) {
	var answering int
	g := guard{answering: func() func() {
		answering++
		return func() { answering-- }
	}}
	var during int
	h := chain(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { during = answering }), limitBody, g.countAnswering)
	tests := []struct {
		name, method, path, body string
		want                     int
	}{
		{"tools/call", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, 1},
		{"ping", http.MethodPost, "/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0},
		{"an API call", http.MethodPost, "/api/google-search", `{"query":"q"}`, 1},
		{"an API read", http.MethodGet, "/api/status", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			during = -1
			var body io.Reader // none, as the server reads a GET
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tt.method, tt.path, body))
			if during != tt.want || answering != 0 {
				t.Errorf("got %d answering during the call and %d after, want %d and 0", during, answering, tt.want)
			}
		})
	}
}
