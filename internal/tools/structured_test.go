package tools

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// bookSchema is a caller's schema: a book with a title and a year.
var bookSchema = map[string]any{"type": "object", "required": []any{"title", "year"}, "additionalProperties": false,
	"properties": map[string]any{"title": map[string]any{"type": "string"}, "year": map[string]any{"type": "integer"}}}

// TestStructured: the answer that fits the caller's schema comes back as structuredContent; one that does not is
// corrected once, the correction run quoting where and why it failed.
func TestStructured(t *testing.T) {
	t.Parallel()
	script, _ := json.Marshal([]geminitest.Step{
		{Scenario: geminitest.ScenarioPlain, Answer: "```json\n{\"title\": \"Dune\", \"year\": \"1965\"}\n```"},
		{Scenario: geminitest.ScenarioPlain, Answer: "```json\n{\"title\": \"Dune\", \"year\": 1965}\n```"},
	})
	c := connect(t, localServer(t, geminitest.ScenarioScript, 30*time.Second, geminitest.EnvScript+"="+string(script)))
	res := call(context.Background(), t, c, "structured", map[string]any{"prompt": "The first Dune novel", "schema": bookSchema}, nil)
	got, _ := json.Marshal(res.StructuredContent)
	if res.IsError || string(got) != `{"title":"Dune","year":1965}` || resultText(t, res) != string(got) {
		t.Errorf("got %s / %s", got, resultText(t, res))
	}
}

// TestStructuredRefusesBadSchemas: a schema that cannot serve is refused with the reason, before anything runs.
func TestStructuredRefusesBadSchemas(t *testing.T) {
	t.Parallel()
	c := connect(t, localServer(t, geminitest.ScenarioOK, 30*time.Second))
	for want, schema := range map[string]any{
		`must describe an object`:           map[string]any{"type": "array"},
		`is not valid JSON Schema`:          map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "nope"}}},
		`may not refer to another document`: map[string]any{"type": "object", "$ref": "file:///etc/passwd"},
		`the limit is 65536`:                map[string]any{"type": "object", "description": strings.Repeat("x", 70000)},
	} {
		res := call(context.Background(), t, c, "structured", map[string]any{"prompt": "p", "schema": schema}, nil)
		e, _ := decodeBody(t, res)["error"].(map[string]any)
		if msg, _ := e["message"].(string); !res.IsError || e["code"] != string(backend.CodeInvalidArgument) || !strings.Contains(msg, want) {
			t.Errorf("got %s, want INVALID_ARGUMENT saying %q", resultText(t, res), want)
		}
	}
}

// TestStructuredSaysHowItWasMade: what the other tools give in their metadata, a structured answer gives in _meta,
// since its content is the caller's value alone: that Firecrawl did not start (which the activity recorder lists as
// a warning), and why an answer cut short stopped. An answer made whole with Firecrawl running says neither.
func TestStructuredSaysHowItWasMade(t *testing.T) {
	t.Parallel()
	book := "```json\n{\"title\": \"Dune\", \"year\": 1965}\n```"
	tests := []struct {
		name         string
		engine       func(t *testing.T) *research.Engine
		partial      bool
		finishReason string // _meta.finishReason; "": none
		firecrawl    bool   // _meta.firecrawl says Firecrawl was unavailable, and the activity recorder warns of it
	}{
		{"without Firecrawl", func(t *testing.T) *research.Engine {
			return cliEngine(t, geminitest.ScenarioNoFirecrawl, geminitest.EnvAnswer+"="+book, "FIRECRAWL_API_KEY=fc-test-key")
		}, false, "", true},
		{"cut off at MAX_TOKENS", func(t *testing.T) *research.Engine {
			mock := mg.New()
			mock.Handle(mg.KindSearch, mg.Always(mg.MaxTokens(book)))
			return apiEngine(t, mock)
		}, true, "MAX_TOKENS", false},
		{"whole, with Firecrawl", func(t *testing.T) *research.Engine {
			return cliEngine(t, geminitest.ScenarioOK, geminitest.EnvAnswer+"="+book, "FIRECRAWL_API_KEY=fc-test-key")
		}, false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			reg := activity.New()
			c := connect(t, newServer(tt.engine(t), Options{Version: "test", Activity: reg}))
			res := call(context.Background(), t, c, "structured",
				map[string]any{"prompt": "The first Dune novel", "schema": bookSchema}, nil)
			if got, _ := json.Marshal(res.StructuredContent); res.IsError || string(got) != `{"title":"Dune","year":1965}` {
				t.Fatalf("got %s / %s", got, resultText(t, res))
			}
			var fields map[string]any
			if res.Meta != nil {
				fields = res.Meta.AdditionalFields
			}
			reason, _ := fields[metaFinishReason].(string)
			firecrawl, _ := fields[metaFirecrawl].(string)
			if fields["partial"] != tt.partial || reason != tt.finishReason ||
				strings.HasPrefix(firecrawl, "unavailable: ") != tt.firecrawl || !tt.firecrawl && firecrawl != "" {
				t.Errorf("_meta %v, want partial %v, finishReason %q, firecrawl %v", fields, tt.partial, tt.finishReason,
					tt.firecrawl)
			}
			f := reg.Snapshot().Warnings
			switch {
			case len(reg.Snapshot().Failures) != 0:
				t.Errorf("failures %+v, want none", reg.Snapshot().Failures)
			case !tt.firecrawl && len(f) != 0:
				t.Errorf("warnings %+v, want none", f)
			case tt.firecrawl && (len(f) != 1 || !f[0].Warning || f[0].Code != backend.CodeFirecrawlUnavailable ||
				f[0].Tool != "structured" || f[0].Message != "Researched without Firecrawl, which was "+firecrawl):
				t.Errorf("warnings %+v, want one Firecrawl warning about the structured call", f)
			}
		})
	}
}

// cliEngine is an engine on a fake CLI of its own playing scenario, with env added to the CLI's environment, whose
// settings start Firecrawl (gemini.Config.Firecrawl).
func cliEngine(t *testing.T, scenario string, env ...string) *research.Engine {
	t.Helper()
	fake := geminitest.NewLocal(t, scenario)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
		KillGrace: 300 * time.Millisecond, ExtraEnv: append(fake.Env(), env...), Firecrawl: true})
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return engine
}

// apiEngine is an engine on a Gemini API runner pointed at mock, served on 127.0.0.1.
func apiEngine(t *testing.T, mock *mg.Server) *research.Engine {
	t.Helper()
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	runner, err := geminiapi.New(t.Context(), geminiapi.Config{APIKey: "test-key-0123456789", BaseURL: srv.URL,
		Model: "gemini-test", Timeout: 30 * time.Second, Backoff: []time.Duration{time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	engine, err := research.New(runner, research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return engine
}
