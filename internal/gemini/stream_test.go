package gemini

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// realStream is a run as the CLI 0.61.0 writes it (shared/notes/gemini-cli.md).
const realStream = `{"type":"init","timestamp":"2025-11-20T10:00:00.000Z","session_id":"6e8e","model":"gemini-2.5-flash"}
{"type":"message","timestamp":"…","role":"user","content":"research this"}
{"type":"tool_use","timestamp":"…","tool_name":"google_web_search","tool_id":"t1","parameters":{"query":"go 1.26 release"}}
{"type":"tool_result","timestamp":"…","tool_id":"t1","status":"success","output":"Search results for \"go 1.26 release\" returned."}
{"type":"tool_use","timestamp":"…","tool_name":"web_fetch","tool_id":"t2","parameters":{"prompt":"Summarize https://go.dev/doc/go1.26 and https://go.dev/blog."}}
{"type":"tool_result","timestamp":"…","tool_id":"t2","status":"error","output":"…","error":{"type":"tool_not_registered","message":"…"}}
{"type":"message","timestamp":"…","role":"assistant","content":"Go 1.26 ","delta":true}
{"type":"message","timestamp":"…","role":"assistant","content":"was released — ✓.","delta":true}
{"type":"result","timestamp":"…","status":"success","stats":{"total_tokens":38,"models":{"gemini-2.5-flash":{}}}}
`

// feed writes data to c in pieces of size n (all at once for n <= 0).
func feed(c *collector, data string, n int) {
	if n <= 0 {
		n = len(data)
	}
	for len(data) > 0 {
		k := min(n, len(data))
		c.Write([]byte(data[:k]))
		data = data[k:]
	}
	c.Close()
}

func TestCollectorStream(t *testing.T) {
	t.Parallel()
	want := backend.Result{
		Text:     "Go 1.26 was released — ✓.",
		Model:    "gemini-2.5-flash",
		Queries:  []string{"go 1.26 release"},
		URLs:     []string{"https://go.dev/doc/go1.26", "https://go.dev/blog."},
		Streamed: true,
	}
	for _, chunk := range []int{0, 1, 7, 100} {
		t.Run(fmt.Sprintf("chunks of %d", chunk), func(t *testing.T) {
			t.Parallel()
			c := newCollector(1<<20, nil)
			feed(c, realStream, chunk)
			got := c.result()
			if got.Text != want.Text || got.Model != want.Model || !slices.Equal(got.Queries, want.Queries) ||
				!slices.Equal(got.URLs, want.URLs) || got.Streamed != want.Streamed || got.Truncated {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if !c.sawResult || c.status != "success" {
				t.Errorf("got result %v status %q, want a success result", c.sawResult, c.status)
			}
		})
	}
}

func TestCollectorToolEvents(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		want backend.Event
	}{
		{"google search", `{"type":"tool_use","tool_name":"google_web_search","parameters":{"query":"q1"}}`,
			backend.Event{Kind: backend.EventSearch, Tool: "google_web_search", Query: "q1"}},
		{"web_fetch url", `{"type":"tool_use","tool_name":"web_fetch","parameters":{"url":"https://a.example/x"}}`,
			backend.Event{Kind: backend.EventFetch, Tool: "web_fetch", URL: "https://a.example/x"}},
		{"web_fetch prompt", `{"type":"tool_use","tool_name":"web_fetch","parameters":{"prompt":"Compare https://a.example/1 with (https://b.example/2)"}}`,
			backend.Event{Kind: backend.EventFetch, Tool: "web_fetch", URL: "https://a.example/1"}},
		{"firecrawl search", `{"type":"tool_use","tool_name":"mcp_firecrawl_firecrawl_search","parameters":{"query":"q2","limit":5}}`,
			backend.Event{Kind: backend.EventSearch, Tool: "mcp_firecrawl_firecrawl_search", Query: "q2"}},
		{"firecrawl scrape", `{"type":"tool_use","tool_name":"mcp_firecrawl_firecrawl_scrape","parameters":{"url":"https://c.example","formats":["markdown"]}}`,
			backend.Event{Kind: backend.EventFetch, Tool: "mcp_firecrawl_firecrawl_scrape", URL: "https://c.example"}},
		{"firecrawl map", `{"type":"tool_use","tool_name":"firecrawl_map","parameters":{"url":"https://d.example"}}`,
			backend.Event{Kind: backend.EventFetch, Tool: "firecrawl_map", URL: "https://d.example"}},
		{"batch urls", `{"type":"tool_use","tool_name":"mcp_firecrawl_firecrawl_batch_scrape","parameters":{"urls":["https://e.example","https://f.example"]}}`,
			backend.Event{Kind: backend.EventTool, Tool: "mcp_firecrawl_firecrawl_batch_scrape", URL: "https://e.example"}},
		{"other tool", `{"type":"tool_use","tool_name":"read_file","parameters":{"absolute_path":"/x"}}`,
			backend.Event{Kind: backend.EventTool, Tool: "read_file"}},
		{"prompt urls only for fetch tools", `{"type":"tool_use","tool_name":"invoke_agent","parameters":{"prompt":"see https://g.example"}}`,
			backend.Event{Kind: backend.EventTool, Tool: "invoke_agent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []backend.Event
			c := newCollector(1<<20, func(e backend.Event) { got = append(got, e) })
			feed(c, tt.line+"\n", 0)
			if len(got) != 1 || got[0] != tt.want {
				t.Errorf("got %+v, want [%+v]", got, tt.want)
			}
		})
	}
}

func TestCollectorDedupes(t *testing.T) {
	t.Parallel()
	var events int
	c := newCollector(1<<20, func(backend.Event) { events++ })
	feed(c, `{"type":"tool_use","tool_name":"google_web_search","parameters":{"query":"q"}}
{"type":"tool_use","tool_name":"web_fetch","parameters":{"url":"https://a.example","prompt":"https://a.example and https://b.example"}}
{"type":"tool_use","tool_name":"google_web_search","parameters":{"query":"q"}}
{"type":"tool_use","tool_name":"google_web_search","parameters":{"query":"r"}}
{"type":"tool_use","tool_name":"mcp_firecrawl_firecrawl_scrape","parameters":{"url":"https://b.example"}}
`, 0)
	got := c.result()
	if want := []string{"q", "r"}; !slices.Equal(got.Queries, want) {
		t.Errorf("queries: got %q, want %q", got.Queries, want)
	}
	if want := []string{"https://a.example", "https://b.example"}; !slices.Equal(got.URLs, want) {
		t.Errorf("urls: got %q, want %q", got.URLs, want)
	}
	if events != 5 {
		t.Errorf("events: got %d, want 5 (one per tool call)", events)
	}
}

func TestCollectorPlain(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		stdout   string
		streamed bool
		text     string
	}{
		{"plain text", "Hello.\nSecond line.\n", false, "Hello.\nSecond line."},
		{"fenced json answer", "```json\n{\"type\":\"x\"}\n```\n", false, "```json\n{\"type\":\"x\"}\n```"},
		{"json without type", "{\"success\": true}\n", false, `{"success": true}`},
		{"leading blank lines then text", "\n\n  \nAnswer\n", false, "Answer"},
		{"leading blank lines then events", "\n\n" + `{"type":"message","role":"assistant","content":"A"}` + "\n", true, "A"},
		{"no trailing newline", "just text", false, "just text"},
		{"event without trailing newline", `{"type":"message","role":"assistant","content":"B"}`, true, "B"},
		{"non-event lines inside a stream are ignored", `{"type":"message","role":"assistant","content":"C"}` + "\nnoise\n[1,2]\n", true, "C"},
		{"odd field types keep the event", `{"type":"init","model":7}` + "\n" + `{"type":"message","role":"assistant","content":"D","delta":"yes"}` + "\n", true, "D"},
		{"empty", "", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, chunk := range []int{0, 1, 3} {
				c := newCollector(1<<20, nil)
				feed(c, tt.stdout, chunk)
				got := c.result()
				if got.Streamed != tt.streamed || got.Text != tt.text {
					t.Errorf("chunks of %d: got streamed=%v text=%q, want streamed=%v text=%q", chunk, got.Streamed, got.Text, tt.streamed, tt.text)
				}
			}
		})
	}
}

func TestCollectorErrors(t *testing.T) {
	t.Parallel()
	c := newCollector(1<<20, nil)
	feed(c, `{"type":"init","model":"m"}
{"type":"error","severity":"warning","message":"Loop detected"}
{"type":"error","severity":"error","message":"The model returned an empty response."}
{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: 401]"}}
`, 0)
	if want := []string{"warning: Loop detected", "The model returned an empty response."}; !slices.Equal(c.errorEvents, want) {
		t.Errorf("error events: got %q, want %q", c.errorEvents, want)
	}
	if !c.sawResult || c.status != "error" || c.resultError != "[API Error: 401]" {
		t.Errorf("result: got %v %q %q, want an error result with its message", c.sawResult, c.status, c.resultError)
	}
}

func TestCollectorTruncates(t *testing.T) {
	t.Parallel()
	t.Run("stream text", func(t *testing.T) {
		t.Parallel()
		c := newCollector(100, nil)
		var stream strings.Builder
		for range 30 {
			stream.WriteString(`{"type":"message","role":"assistant","content":"héllo wörld","delta":true}` + "\n")
		}
		stream.WriteString(`{"type":"result","status":"success"}` + "\n")
		feed(c, stream.String(), 10)
		got := c.result()
		if !got.Truncated || len(got.Text) > 100 || len(got.Text) < 90 || !utf8.ValidString(got.Text) {
			t.Errorf("got truncated=%v len=%d valid=%v, want truncated, 90-100 bytes of valid UTF-8", got.Truncated, len(got.Text), utf8.ValidString(got.Text))
		}
		if c.status != "success" {
			t.Errorf("got status %q, want the result after the limit still read", c.status)
		}
	})
	t.Run("plain text", func(t *testing.T) {
		t.Parallel()
		c := newCollector(100, nil)
		feed(c, strings.Repeat("plain text\n", 50), 7)
		if got := c.result(); !got.Truncated || len(got.Text) > 100 || got.Streamed {
			t.Errorf("got truncated=%v len=%d streamed=%v, want truncated plain text of at most 100 bytes", got.Truncated, len(got.Text), got.Streamed)
		}
	})
	t.Run("within the limit", func(t *testing.T) {
		t.Parallel()
		c := newCollector(len("Go 1.26 was released — ✓."), nil)
		feed(c, realStream, 0)
		if got := c.result(); got.Truncated || got.Text != "Go 1.26 was released — ✓." {
			t.Errorf("got truncated=%v text=%q, want the whole text, not truncated", got.Truncated, got.Text)
		}
	})
}

// TestCollectorGiantLine feeds lines far beyond the limit and checks that
// memory stays bounded: the line buffer never grows past the line limit.
func TestCollectorGiantLine(t *testing.T) {
	t.Parallel()
	const max = 1 << 10
	giant := strings.Repeat("x", 4<<20)
	t.Run("in a stream", func(t *testing.T) {
		t.Parallel()
		c := newCollector(max, nil)
		c.Write([]byte(`{"type":"init","model":"m"}` + "\n"))
		c.Write([]byte(`{"type":"message","role":"assistant","content":"`))
		for range 4 {
			c.Write([]byte(giant))
			if cap(c.line) > c.lineLimit() {
				t.Fatalf("line buffer grew to %d bytes, want at most %d", cap(c.line), c.lineLimit())
			}
		}
		c.Write([]byte(`"}` + "\n" + `{"type":"message","role":"assistant","content":"after"}` + "\n" + `{"type":"result","status":"success"}` + "\n"))
		c.Close()
		got := c.result()
		if !got.Truncated || got.Text != "after" || c.status != "success" || got.Model != "m" {
			t.Errorf("got %+v status %q, want the giant line dropped, truncated, later events read", got, c.status)
		}
	})
	t.Run("as the first line", func(t *testing.T) {
		t.Parallel()
		c := newCollector(max, nil)
		for range 4 {
			c.Write([]byte(giant))
		}
		c.Close()
		got := c.result()
		if !got.Truncated || got.Streamed || len(got.Text) != max || cap(c.plain) > 2*max {
			t.Errorf("got truncated=%v streamed=%v len=%d cap=%d, want %d bytes of plain text kept", got.Truncated, got.Streamed, len(got.Text), cap(c.plain), max)
		}
	})
}

func TestCollectorToolFailures(t *testing.T) {
	t.Parallel()
	// As the real CLI 0.61.0 reports a Firecrawl scrape against an unreachable Firecrawl API.
	stream := `{"type":"tool_use","tool_name":"mcp_firecrawl_firecrawl_scrape","tool_id":"mcp_firecrawl_firecrawl_scrape__1","parameters":{"url":"https://js.example"}}
{"type":"tool_result","tool_id":"mcp_firecrawl_firecrawl_scrape__1","status":"error","output":"Error: MCP tool 'firecrawl_scrape' reported an error.","error":{"type":"mcp_tool_error","message":"Tool 'firecrawl_scrape' execution failed: connect ECONNREFUSED 127.0.0.1:9"}}
{"type":"tool_result","tool_id":"other","status":"success","output":"fine"}
`
	var events []backend.Event
	c := newCollector(1<<20, func(e backend.Event) { events = append(events, e) })
	feed(c, stream, 0)
	want := backend.ToolError{Tool: "mcp_firecrawl_firecrawl_scrape", Message: "Tool 'firecrawl_scrape' execution failed: connect ECONNREFUSED 127.0.0.1:9"}
	if got := c.result().ToolErrors; len(got) != 1 || got[0] != want {
		t.Errorf("tool errors = %+v, want [%+v]", got, want)
	}
	if len(events) != 2 || events[1] != (backend.Event{Kind: backend.EventFailed, Tool: want.Tool, Error: want.Message}) {
		t.Errorf("events = %+v, want the call and its failure", events)
	}
}

func TestCollectorModelFromStats(t *testing.T) {
	t.Parallel()
	stream := `{"type":"init","model":"auto"}
{"type":"result","status":"success","stats":{"models":{"gemini-2.5-flash-lite":{"total_tokens":40},"gemini-3.8-flash":{"total_tokens":900}}}}
`
	c := newCollector(1<<20, nil)
	feed(c, stream, 0)
	if got := c.result().Model; got != "gemini-3.8-flash" {
		t.Errorf("model = %q, want the one that used the most tokens, not the router's or init's", got)
	}
}

func TestCollectorBannerBeforeEvents(t *testing.T) {
	t.Parallel()
	stream := "Some banner a wrapper printed\n" +
		`{"type":"init","model":"gemini-2.5-flash"}` + "\n" +
		`{"type":"error","severity":"error","message":"The model returned an empty response."}` + "\n" +
		`{"type":"result","status":"error","error":{"message":"empty"}}` + "\n"
	c := newCollector(1<<20, nil)
	feed(c, stream, 0)
	if !c.streamed() || c.status != "error" || c.result().Text != "" {
		t.Errorf("streamed %v, status %q, text %q: want the events read after the banner", c.streamed(), c.status, c.result().Text)
	}
}
