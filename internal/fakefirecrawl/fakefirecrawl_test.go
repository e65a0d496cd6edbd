package fakefirecrawl

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

func call(t *testing.T, base, path, key, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	res, err := testkit.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%s: %s is not JSON: %v", path, data, err)
	}
	return res.StatusCode, out
}

func TestEndpoints(t *testing.T) {
	t.Parallel()
	fc := New("fc-key")
	fc.AddPage("https://example.com/a", Page{Title: "Page A", Markdown: "# A\n\nScraped text."})
	srv := httptest.NewServer(fc)
	defer srv.Close()

	status, out := call(t, srv.URL, "/v2/scrape", "fc-key", `{"url":"https://example.com/a","formats":["markdown"],"origin":"mcp-fastmcp"}`)
	data, _ := out["data"].(map[string]any)
	meta, _ := data["metadata"].(map[string]any)
	if status != 200 || out["success"] != true || data["markdown"] != "# A\n\nScraped text." || meta["title"] != "Page A" || meta["sourceURL"] != "https://example.com/a" {
		t.Errorf("scrape: got %d %v", status, out)
	}
	_, out = call(t, srv.URL, "/v2/scrape", "fc-key", `{"url":"https://unknown.example/x"}`)
	if md := out["data"].(map[string]any)["markdown"].(string); !strings.Contains(md, "https://unknown.example/x") {
		t.Errorf("scrape of an unknown page: got %q, want a generated page naming the URL", md)
	}

	status, out = call(t, srv.URL, "/v2/search", "fc-key", `{"query":"a","limit":5}`)
	web, _ := out["data"].(map[string]any)["web"].([]any)
	if status != 200 || len(web) != 1 || web[0].(map[string]any)["url"] != "https://example.com/a" {
		t.Errorf("search: got %d %v", status, out)
	}

	status, out = call(t, srv.URL, "/v2/map", "fc-key", `{"url":"https://example.com"}`)
	if links, _ := out["links"].([]any); status != 200 || len(links) != 2 {
		t.Errorf("map: got %d %v", status, out)
	}

	reqs := fc.Requests()
	if len(reqs) != 4 || reqs[0].Path != "/v2/scrape" || reqs[0].Key != "fc-key" || reqs[0].Status != 200 ||
		!strings.Contains(string(reqs[0].Body), "mcp-fastmcp") {
		t.Errorf("requests: got %+v", reqs)
	}
}

func TestKey(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		required string
		sent     string
		want     int
	}{
		{"right key", "fc-key", "fc-key", 200},
		{"wrong key", "fc-key", "other", 401},
		{"no key", "fc-key", "", 401},
		{"no key required", "", "", 200},
		{"any key accepted", "", "whatever", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fc := New(tt.required)
			srv := httptest.NewServer(fc)
			defer srv.Close()
			status, out := call(t, srv.URL, "/v2/scrape", tt.sent, `{"url":"https://example.com"}`)
			if status != tt.want {
				t.Errorf("got %d %v, want %d", status, out, tt.want)
			}
			if status == 401 && out["error"] != "Unauthorized: Invalid token" {
				t.Errorf("got %v, want firecrawl's message for a bad key", out)
			}
			if got := fc.Requests(); len(got) != 1 || got[0].Status != tt.want || got[0].Key != tt.sent {
				t.Errorf("recorded %+v", got)
			}
		})
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(New(""))
	defer srv.Close()
	for _, tt := range []struct{ path, body string }{
		{"/v2/scrape", `{"url":""}`},
		{"/v2/scrape", `not json`},
		{"/v2/search", `[`},
	} {
		if status, out := call(t, srv.URL, tt.path, "", tt.body); status != 400 || out["success"] != false {
			t.Errorf("%s %s: got %d %v, want 400", tt.path, tt.body, status, out)
		}
	}
	res, err := http.Get(srv.URL + "/v2/scrape")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /v2/scrape: got %d, want 405", res.StatusCode)
	}
}
