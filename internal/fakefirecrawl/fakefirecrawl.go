// Package fakefirecrawl is a stand-in for the Firecrawl v2 API on a loopback
// address, enough for firecrawl-mcp's scrape, search and map tools
// (FIRECRAWL_API_URL=http://127.0.0.1:PORT). It records every request.
//
//	fc := fakefirecrawl.New("fc-test-key") // "" accepts any key, or none
//	fc.AddPage("https://example.com/a", fakefirecrawl.Page{Title: "A", Markdown: "# A\n\ntext"})
//	srv := httptest.NewServer(fc)
//
// The shapes are those of firecrawl-js 4.x, which firecrawl-mcp 3.22 uses
// (shared/notes/firecrawl-and-clients.md).
package fakefirecrawl

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Page is what a scrape of one URL returns.
type Page struct {
	Title    string
	Markdown string
}

// Request is one recorded request.
type Request struct {
	Time   time.Time       `json:"time"`
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Key    string          `json:"key"` // the bearer token sent, "" if none
	Body   json.RawMessage `json:"body,omitempty"`
	Status int             `json:"status"`
}

// Server is the fake API. Create it with New.
type Server struct {
	key      string
	mux      *http.ServeMux
	mu       sync.Mutex
	pages    map[string]Page
	requests []Request
}

// New returns a fake that requires "Authorization: Bearer <key>" when key is
// not empty.
func New(key string) *Server {
	s := &Server{key: key, pages: make(map[string]Page), mux: http.NewServeMux()}
	s.mux.HandleFunc("POST /v2/scrape", s.scrape)
	s.mux.HandleFunc("POST /v2/search", s.search)
	s.mux.HandleFunc("POST /v2/map", s.mapSite)
	return s
}

// AddPage sets what a scrape of url returns. Unknown URLs get a generated page.
func (s *Server) AddPage(url string, p Page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[url] = p
}

// Requests returns a copy of every request so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// ServeHTTP checks the key, records the request and answers it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	r.Body = io.NopCloser(strings.NewReader(string(body)))
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	key, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	defer func() {
		req := Request{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Key: key, Status: rec.status}
		if json.Valid(body) {
			req.Body = body
		}
		s.mu.Lock()
		s.requests = append(s.requests, req)
		s.mu.Unlock()
	}()
	if s.key != "" && key != s.key {
		writeJSON(rec, http.StatusUnauthorized, map[string]any{"success": false, "error": "Unauthorized: Invalid token"})
		return
	}
	s.mux.ServeHTTP(rec, r)
}

type recorder struct {
	http.ResponseWriter
	status int
}

func (r *recorder) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.WriteHeader(code)
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"success": false, "error": "Bad Request: " + err.Error()})
		return false
	}
	return true
}

func (s *Server) scrape(w http.ResponseWriter, r *http.Request) {
	var in struct {
		URL string `json:"url"`
	}
	if !decode(w, r, &in) {
		return
	}
	if in.URL == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"success": false, "error": "url is required"})
		return
	}
	p := s.page(in.URL)
	writeJSON(w, http.StatusOK, map[string]any{
		"success": true,
		"data": map[string]any{
			"markdown": p.Markdown,
			"metadata": map[string]any{
				"title": p.Title, "description": p.Title, "language": "en",
				"sourceURL": in.URL, "url": in.URL, "statusCode": 200,
			},
		},
	})
}

func (s *Server) page(url string) Page {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.pages[url]; ok {
		return p
	}
	return Page{Title: "Fake page", Markdown: fmt.Sprintf("# Fake page\n\nThe fake Firecrawl scraped %s.", url)}
}

func (s *Server) search(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if !decode(w, r, &in) {
		return
	}
	s.mu.Lock()
	urls := make([]string, 0, len(s.pages))
	for u := range s.pages {
		urls = append(urls, u)
	}
	s.mu.Unlock()
	slices.Sort(urls)
	if len(urls) == 0 {
		urls = []string{"https://example.com/firecrawl-result"}
	}
	if in.Limit > 0 && len(urls) > in.Limit {
		urls = urls[:in.Limit]
	}
	web := make([]any, len(urls))
	for i, u := range urls {
		web[i] = map[string]any{"url": u, "title": s.page(u).Title, "description": "Result for " + in.Query, "position": i + 1}
	}
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "data": map[string]any{"web": web}, "id": "fake-search", "creditsUsed": 1})
}

func (s *Server) mapSite(w http.ResponseWriter, r *http.Request) {
	var in struct {
		URL string `json:"url"`
	}
	if !decode(w, r, &in) {
		return
	}
	base := strings.TrimSuffix(in.URL, "/")
	writeJSON(w, http.StatusOK, map[string]any{"success": true, "links": []any{
		map[string]any{"url": base + "/", "title": "Home"},
		map[string]any{"url": base + "/docs", "title": "Docs"},
	}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
