package research_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// The engine on the Gemini API backend, against the mock: one pipeline, grounded reports.

const (
	researchPrompt   = "You are an autonomous research agent"
	verifyPrompt     = "You are an autonomous fact-checking agent"
	correctionPrompt = "You convert text into JSON"
)

var apiSources = []mg.Source{
	{URI: "https://de.example/föhn", Title: "Föhn-Lexikon"},
	{URI: "https://jp.example/tokyo", Title: "東京ガイド"},
}

// apiEngine is an engine on a Gemini API runner pointed at mock, whose model (gemini-test) takes no JSON schema.
func apiEngine(t *testing.T, mock *mg.Server, timeout time.Duration, s research.Settings) *research.Engine {
	t.Helper()
	return apiEngineOf(t, mock, geminiapi.Config{Model: "gemini-test", Timeout: timeout}, s)
}

// apiEngineOf is an engine on a Gemini API runner of cfg pointed at mock.
func apiEngineOf(t *testing.T, mock *mg.Server, cfg geminiapi.Config, s research.Settings) *research.Engine {
	t.Helper()
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	cfg.APIKey, cfg.BaseURL, cfg.Backoff = "test-key-0123456789", srv.URL, []time.Duration{time.Millisecond}
	runner, err := geminiapi.New(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := research.New(runner, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// jsonAnswer is an agent's answer: the fenced JSON report the prompts ask for.
func jsonAnswer(report string, openGaps ...string) string {
	v := map[string]any{"success": true, "report": report,
		"metadata": map[string]any{"sources_visited": []string{}, "search_queries_used": []string{}, "iterations": 2}}
	if openGaps != nil {
		v["verification"] = map[string]any{"claims_checked": 2, "claims_corrected": 1, "open_gaps": openGaps}
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return "```json\n" + b.String() + "```"
}

func TestSearchOnTheAPIGivesACheckedReport(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	// Multi-byte text before and inside the cited segments; the last sentence has no support, though the model marked
	// it itself.
	report := "# Föhn und Tokio\n\nÜber München weht der Föhn oft im Frühling. 東京は日本の首都です。 Niemand weiß, warum [2]."
	answer := mg.GroundedAnswer(jsonAnswer(report), apiSources,
		mg.Cite("Über München weht der Föhn oft im Frühling.", 0),
		mg.Cite("東京は日本の首都です。", 1, 0))
	answer.Queries = []string{"föhn münchen frühling", "東京 首都"}
	answer.EarlyMetadata = true
	mock.Handle(mg.KindSearch, mg.Always(answer))
	e := apiEngine(t, mock, time.Minute, research.Settings{})

	var stages []string
	rep, err := e.Search(t.Context(), research.SearchRequest{Query: "Föhn und Tokio",
		Progress: func(s string) { stages = append(stages, s) }})
	if err != nil {
		t.Fatal(err)
	}
	want := "# Föhn und Tokio\n\nÜber München weht der Föhn oft im Frühling.[1] 東京は日本の首都です。[1][2] Niemand weiß, warum [2]." +
		"\n\n---\n**Sources:**\n1. [Föhn-Lexikon](https://de.example/föhn)\n2. [東京ガイド](https://jp.example/tokyo)\n\n" +
		"**Search queries performed:**\n1. \"föhn münchen frühling\"\n2. \"東京 首都\""
	if rep.Report != want {
		t.Errorf("report:\n got %q\nwant %q", rep.Report, want)
	}
	m := rep.Metadata
	if m.Backend != "api" || m.Model != "gemini-test" || len(m.Sources) != 2 || len(m.Citations) != 2 ||
		m.ClaimsSupported == nil || *m.ClaimsSupported != 2 || *m.ClaimsUnsupported != 1 {
		t.Errorf("metadata: %+v", m)
	}
	if !slices.Contains(stages, "searching: föhn münchen frühling") {
		t.Errorf("progress %q lacks the grounding's search", stages)
	}
	if !slices.Equal(m.SearchQueriesUsed, answer.Queries) || !slices.Contains(m.SourcesVisited, "https://jp.example/tokyo") {
		t.Errorf("queries %q, sources %q", m.SearchQueriesUsed, m.SourcesVisited)
	}
}

func TestDeepSearchOfThreeRoundsOnTheAPI(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	round := func(n, gap string) mg.Reply {
		text := "Runde " + n + ": Der Föhn ist ein warmer Fallwind."
		var gaps []string
		if gap != "" {
			gaps = []string{gap}
		}
		if n == "1" {
			return mg.GroundedAnswer(jsonAnswer(text), apiSources, mg.Cite(text, 0))
		}
		return mg.GroundedAnswer(jsonAnswer(text, gaps...), apiSources, mg.Cite(text, 1))
	}
	verifications := mg.Sequence(round("2", "Wie warm genau?"), round("3", ""))
	mock.Handle(mg.KindSearch, mg.ByPrompt(mg.Always(mg.Text("unexpected")),
		mg.Route{Contains: verifyPrompt, Respond: verifications},
		mg.Route{Contains: researchPrompt, Respond: mg.Always(round("1", ""))},
	))
	e := apiEngine(t, mock, time.Minute, research.Settings{MaxRounds: 3, MaxIterations: 10})

	rep, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "Föhn", Depth: research.DepthConcise})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Metadata.Rounds != 3 || !strings.HasPrefix(rep.Report, "Runde 3: Der Föhn ist ein warmer Fallwind.[2]\n") ||
		strings.Contains(rep.Report, "[1]") {
		t.Errorf("got %d rounds, report %q", rep.Metadata.Rounds, rep.Report)
	}
	reqs := mock.RequestsOf(mg.KindSearch)
	if len(reqs) != 3 {
		t.Fatalf("%d API requests, want 3 rounds", len(reqs))
	}
	for _, r := range reqs[1:] {
		if !strings.Contains(r.Prompt, "Der Föhn ist ein warmer Fallwind.") || strings.Contains(r.Prompt, "Fallwind.[") {
			t.Errorf("a verification round's draft must be the report without the markers:\n%s", r.Prompt)
		}
	}
	if len(mock.RequestsOf(mg.KindChat)) != 0 {
		t.Error("a request went without the research tools")
	}
}

func TestJSONCorrectionAndTimeoutOnTheAPI(t *testing.T) {
	t.Parallel()
	t.Run("correction", func(t *testing.T) {
		t.Parallel()
		mock := mg.New()
		prose := "Der Föhn ist ein warmer Fallwind in den Alpen."
		mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(prose, apiSources, mg.Cite(prose, 0))))
		mock.Handle(mg.KindChat, mg.Always(mg.Text(jsonAnswer(prose))))
		var spent []research.Spent // one call: no other goroutine tells it
		e := apiEngine(t, mock, time.Minute, research.Settings{JSONMaxRetries: 1, CorrectionModel: "gemini-fix",
			Used: func(s research.Spent) { spent = append(spent, s) }})
		rep, err := e.Search(t.Context(), research.SearchRequest{Query: "Föhn"})
		if err != nil {
			t.Fatal(err)
		}
		if rep.ParseWarning || rep.Metadata.JSONCorrections != 1 || !strings.HasPrefix(rep.Report, prose+"[1]\n") ||
			*rep.Metadata.ClaimsSupported != 1 {
			t.Errorf("got %+v", rep)
		}
		if u := rep.Metadata.Usage; u == nil || u.Requests != 2 {
			t.Errorf("usage %+v: want the search and its correction counted, 2 requests", u)
		}
		if len(spent) != 2 || spent[0].Model != "gemini-test" || spent[1].Model != "gemini-fix" ||
			spent[0].Usage.Requests != 1 || spent[1].Usage.Requests != 1 {
			t.Errorf("the meter was told %+v; want the search's model and the correction's apart", spent)
		}
		chats := mock.RequestsOf(mg.KindChat)
		if len(chats) != 1 || !strings.Contains(chats[0].Prompt, correctionPrompt) || len(chats[0].BuiltinTools) != 0 {
			t.Errorf("the correction must go without research tools: %+v", chats)
		}
	})
	t.Run("partial answer on timeout", func(t *testing.T) {
		t.Parallel()
		mock := mg.New()
		slow := mg.Text("Der Föhn ist ein warmer Fallwind, der in den Alpen oft im Frühling weht und Kopfschmerzen macht.")
		slow.Chunks, slow.ChunkDelay = 4, time.Hour // the first chunk comes, the rest waits past the timeout
		mock.Handle(mg.KindSearch, mg.Always(slow))
		e := apiEngine(t, mock, testkit.FirstWordsLimit, research.Settings{})
		rep, err := e.Search(t.Context(), research.SearchRequest{Query: "Föhn"})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Partial || !strings.Contains(rep.Report, "Der Föhn") || !strings.HasPrefix(rep.Report, "[Partial response") {
			t.Errorf("got %+v", rep)
		}
	})
}

// TestOneRequestOnAModelThatTakesASchema: on a model of GEMINI_API_JSON_MODELS the research round asks for the
// report's schema with Google Search, so a search costs exactly one request, and the report's claims are checked
// against the grounding as ever.
func TestOneRequestOnAModelThatTakesASchema(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	prose := "Der Föhn ist ein warmer Fallwind in den Alpen."
	report, _ := json.Marshal(map[string]any{"success": true, "report": prose, "metadata": map[string]any{"iterations": 1}})
	mock.Handle(mg.KindSearch, func(req *mg.Request) mg.Reply {
		if req.ResponseSchema == nil {
			return mg.GroundedAnswer(prose, apiSources, mg.Cite(prose, 0)) // prose: would need a correction
		}
		return mg.GroundedAnswer(string(report), apiSources, mg.Cite(prose, 0))
	})
	e := apiEngineOf(t, mock, geminiapi.Config{Model: "gemini-3.5-flash", JSONModels: []string{"gemini-3*"}},
		research.Settings{JSONMaxRetries: 3})
	rep, err := e.Search(t.Context(), research.SearchRequest{Query: "Föhn"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.ParseWarning || rep.Metadata.JSONCorrections != 0 || !strings.HasPrefix(rep.Report, prose+"[1]\n") {
		t.Errorf("got %+v", rep)
	}
	if u := rep.Metadata.Usage; u == nil || u.Requests != 1 || len(mock.Requests()) != 1 {
		t.Errorf("usage %+v, %d requests: want exactly one", u, len(mock.Requests()))
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(mock.Requests()[0].ResponseSchema, &schema); err != nil || !slices.Contains(schema.Required, "report") {
		t.Errorf("the request's schema %s is not the report's", mock.Requests()[0].ResponseSchema)
	}
}

// TestLimitsHoldRunByRun: the usage meter's limits (Settings.Admit) are asked before each run with what the call
// spent so far, so a deep_search stops between rounds (its report of the rounds before, partial), and what every
// call spent reaches the meter (Settings.Used), a failed call's too.
func TestLimitsHoldRunByRun(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	text := "Der Föhn ist ein warmer Fallwind."
	mock.Handle(mg.KindSearch, mg.ByPrompt(mg.Always(mg.QuotaDaily()),
		mg.Route{Contains: "Föhn", Respond: mg.Always(mg.GroundedAnswer(jsonAnswer(text, "Wie warm?"), apiSources,
			mg.Cite(text, 0)))}))
	var (
		mu    sync.Mutex
		spent []research.Spent
	)
	e := apiEngine(t, mock, time.Minute, research.Settings{MaxRounds: 3,
		Admit: func(tool string, so backend.Usage) error {
			if tool == "deep_search" && so.Requests >= 1 {
				return &research.Failure{Code: backend.CodeQuota, Message: "The daily request limit is reached."}
			}
			return nil
		},
		Used: func(s research.Spent) { mu.Lock(); spent = append(spent, s); mu.Unlock() }})

	rep, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "Föhn", Depth: research.DepthConcise})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Partial || rep.Metadata.Rounds != 1 || len(mock.Requests()) != 1 || rep.Metadata.Usage.Requests != 1 {
		t.Errorf("got partial %v, %d rounds, %d requests, usage %+v; want round 1's report, partial, one request",
			rep.Partial, rep.Metadata.Rounds, len(mock.Requests()), rep.Metadata.Usage)
	}
	var f *research.Failure
	if _, err := e.Search(t.Context(), research.SearchRequest{Query: "Tokio"}); !errors.As(err, &f) || f.Code != backend.CodeQuota {
		t.Fatalf("got %v, want the API's daily quota", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(spent) != 2 || spent[0].Tool != "deep_search" || spent[0].Usage.Requests != 1 || spent[1].Tool != "search" ||
		spent[1].Usage.Requests != 1 || spent[1].Backend != "api" {
		t.Errorf("the meter was told %+v; want the deep_search's one request, then the failed search's", spent)
	}
}

// TestALimitReachedStopsTheCorrections: a JSON correction the usage meter's limit refuses is not made, and no
// other is tried: the answer comes back as written (parse_warning), counting no correction.
func TestALimitReachedStopsTheCorrections(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	prose := "Der Föhn ist ein warmer Fallwind in den Alpen."
	mock.Handle(mg.KindSearch, mg.Always(mg.GroundedAnswer(prose, apiSources, mg.Cite(prose, 0))))
	e := apiEngine(t, mock, time.Minute, research.Settings{JSONMaxRetries: 3,
		Admit: func(_ string, so backend.Usage) error {
			if so.Requests >= 1 {
				return &research.Failure{Code: backend.CodeQuota, Message: "The daily request limit is reached."}
			}
			return nil
		}})
	rep, err := e.Search(t.Context(), research.SearchRequest{Query: "Föhn"})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.ParseWarning || rep.Metadata.JSONCorrections != 0 || len(mock.Requests()) != 1 {
		t.Errorf("parse warning %v, %d corrections, %d requests; want the answer as written after one request",
			rep.ParseWarning, rep.Metadata.JSONCorrections, len(mock.Requests()))
	}
}

func TestAFailureSaysWhichBackendFailed(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	mock.Handle(mg.KindSearch, mg.Always(mg.InvalidKey()))
	e := apiEngine(t, mock, time.Minute, research.Settings{})
	_, err := e.Search(t.Context(), research.SearchRequest{Query: "Föhn"})
	var f *research.Failure
	if !errors.As(err, &f) || f.Code != "AUTH_ERROR" || f.Backend != "api" || !strings.Contains(f.Details, "GEMINI_API_KEY") {
		t.Errorf("got %+v", err)
	}
}

// An API answer that ends for any reason but STOP makes a partial report that says why, and is never cached: an
// identical second call runs again. A deep_search whose first round is cut off stops there; one whose verification
// round is cut off keeps the round before, as a timed-out round does.
func TestUnfinishedAnswersMakePartialReportsThatAreNotCached(t *testing.T) {
	t.Parallel()
	const text = "```json\n{\"success\": true, \"report\": \"Der Föhn ist ein warmer Fallwind, der in den Alpen oft im"
	cut := []struct {
		name, reason, notice string
		reply                mg.Reply
	}{
		{"max tokens", "MAX_TOKENS", "the model reached its output limit (MAX_TOKENS)", mg.MaxTokens(text)},
		{"stream cut off", "stream ended without a finish reason", "the Gemini API's stream ended", mg.CutOff(text)},
	}
	calls := []struct {
		name string
		call func(e *research.Engine) (research.Report, error)
	}{
		{"search", func(e *research.Engine) (research.Report, error) {
			return e.Search(t.Context(), research.SearchRequest{Query: "Föhn"})
		}},
		{"ask", func(e *research.Engine) (research.Report, error) {
			return e.Ask(t.Context(), research.AskRequest{Prompt: "Was ist der Föhn?"})
		}},
		{"deep_search", func(e *research.Engine) (research.Report, error) {
			return e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "Föhn"})
		}},
	}
	for _, c := range cut {
		for _, call := range calls {
			t.Run(c.name+"/"+call.name, func(t *testing.T) {
				t.Parallel()
				mock := mg.New()
				mock.Handle(mg.KindSearch, mg.Always(c.reply))
				e := apiEngine(t, mock, time.Minute, research.Settings{Cache: research.NewCache(time.Hour),
					JSONMaxRetries: 1, MaxRounds: 3})
				for i := range 2 {
					rep, err := call.call(e)
					if err != nil {
						t.Fatal(err)
					}
					if !rep.Partial || rep.Metadata.Cached || rep.Metadata.FinishReason != c.reason ||
						!strings.HasPrefix(rep.Report, "[Partial response: the answer was cut off") ||
						!strings.Contains(rep.Report, c.notice) || !strings.Contains(rep.Report, "Fallwind") {
						t.Errorf("call %d: partial %v, cached %v, finish reason %q, report %q", i+1, rep.Partial,
							rep.Metadata.Cached, rep.Metadata.FinishReason, rep.Report)
					}
					if n := len(mock.Requests()); n != i+1 {
						t.Errorf("call %d: %d API requests, want %d: one run per call, no correction, no further round",
							i+1, n, i+1)
					}
				}
			})
		}
	}

	t.Run("a cut verification round keeps the round before", func(t *testing.T) {
		t.Parallel()
		mock := mg.New()
		first := "Runde 1: Der Föhn ist ein warmer Fallwind."
		mock.Handle(mg.KindSearch, mg.ByPrompt(mg.Always(mg.Text("unexpected")),
			mg.Route{Contains: verifyPrompt, Respond: mg.Always(mg.MaxTokens(`{"success": true, "report": "Runde 2: Der`))},
			mg.Route{Contains: researchPrompt, Respond: mg.Always(mg.Text(jsonAnswer(first)))},
		))
		e := apiEngine(t, mock, time.Minute, research.Settings{Cache: research.NewCache(time.Hour), MaxRounds: 3})
		for i := range 2 {
			rep, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "Föhn"})
			if err != nil {
				t.Fatal(err)
			}
			want := "[Partial response: verification round 2 was cut off because the model reached its output limit " +
				"(MAX_TOKENS). This is the report of round 1.]\n\n" + first
			if !rep.Partial || rep.Metadata.Cached || rep.Metadata.FinishReason != "MAX_TOKENS" || rep.Report != want {
				t.Errorf("call %d: partial %v, cached %v, finish reason %q, report %q", i+1, rep.Partial, rep.Metadata.Cached,
					rep.Metadata.FinishReason, rep.Report)
			}
			if n := len(mock.Requests()); n != 2*(i+1) {
				t.Errorf("call %d: %d API requests, want %d", i+1, n, 2*(i+1))
			}
		}
	})
}

// structured: a value read from an unfinished answer, or from an unfinished correction, comes back partial.
func TestStructuredFromUnfinishedAnswersIsPartial(t *testing.T) {
	t.Parallel()
	validName := func(v any) error {
		if m, ok := v.(map[string]any); !ok || m["name"] == nil {
			return errors.New("at '/name': missing")
		} else if _, ok := m["name"].(string); !ok {
			return errors.New("at '/name': got number, want string")
		}
		return nil
	}
	tests := []struct {
		name            string
		answer, correct mg.Reply
		runs            int
	}{
		{"the answer", mg.MaxTokens(`{"name": "Föhn"}`), mg.Text("unexpected"), 1},
		{"the correction", mg.Text(`{"name": 42}`), mg.MaxTokens(`{"name": "Föhn"}`), 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mock := mg.New()
			mock.Handle(mg.KindSearch, mg.Always(tt.answer))
			mock.Handle(mg.KindChat, mg.Always(tt.correct))
			e := apiEngine(t, mock, time.Minute, research.Settings{Cache: research.NewCache(time.Hour)})
			for i := range 2 {
				rep, err := e.Structured(t.Context(), research.StructuredRequest{Prompt: "Name it", Schema: `{"type": "object"}`,
					Validate: validName})
				if err != nil || !rep.Partial || rep.Metadata.Cached || rep.Metadata.FinishReason != "MAX_TOKENS" ||
					rep.Report != `{"name":"Föhn"}` {
					t.Errorf("call %d: got %+v, %v", i+1, rep, err)
				}
			}
			if n := len(mock.Requests()); n != 2*tt.runs {
				t.Errorf("%d API requests, want %d: nothing cached", n, 2*tt.runs)
			}
		})
	}
}
