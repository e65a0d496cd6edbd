package research_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
)

// agentEngine is an engine whose Google engine is the Deep Research agent of mock, which runs script.
func agentEngine(t *testing.T, mock *mg.Server, s research.Settings) *research.Engine {
	t.Helper()
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	agent, err := geminiapi.NewAgent(geminiapi.AgentConfig{APIKey: "test-key-0123456789", BaseURL: srv.URL,
		Backoff: []time.Duration{time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	s.Agent = agent
	e, err := research.New(backend.RunnerFunc(func(context.Context, backend.Request) (backend.Result, error) {
		t.Error("our rounds ran for engine google")
		return backend.Result{}, errors.New("not this engine")
	}), s, nil)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestAgentDeepSearch: the agent's report comes back with a marker after each cited segment, placed by its byte
// offsets through multi-byte text, the numbered sources with their titles, the claims counted, and what the agent
// did as stages.
func TestAgentDeepSearch(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &mg.AgentScript{
		Steps:  []mg.AgentStep{{Thought: "Planning the searches on Größe."}, {Search: []string{"größe 東京"}}},
		Report: "# 東京\n\nGröße — 東京 is large. Tokyo has 14 million people 🏙. Nobody counts the crows.",
		Citations: []mg.Citation{{URL: "https://example.jp/tokyo", Title: "Tokyo facts",
			Text: "Tokyo has 14 million people 🏙."}},
	}}))
	e := agentEngine(t, mock, research.Settings{DeepSearchEngine: research.EngineGoogle, AgentPlan: research.PlanOff})
	var (
		mu     sync.Mutex
		stages []string
	)
	rep, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "How large is Tokyo?",
		Progress: func(s string) { mu.Lock(); stages = append(stages, s); mu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	want := "# 東京\n\nGröße — 東京 is large. Tokyo has 14 million people 🏙.[1] Nobody counts the crows."
	if rep.Summary != want || !strings.Contains(rep.Report, "**Sources:**\n1. [Tokyo facts](https://example.jp/tokyo)") {
		t.Errorf("report:\n got %q\nwant %q and its source", rep.Report, want)
	}
	m := rep.Metadata
	if m.Engine != research.EngineGoogle || m.Interaction == "" || m.Backend != backend.GoogleAgent ||
		m.Model != backend.DefaultResearchAgent || len(m.Citations) != 1 || m.ClaimsSupported == nil ||
		*m.ClaimsSupported != 1 || *m.ClaimsUnsupported < 1 || rep.ParseWarning || rep.Partial {
		t.Errorf("metadata: %+v", m)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stages) == 0 || stages[0] != "starting Google's Deep Research agent" || stages[len(stages)-1] != "writing the report" {
		t.Errorf("stages: %q", stages)
	}
}

func TestAgentDeepSearchRefusals(t *testing.T) {
	t.Parallel()
	e := agentEngine(t, mg.New(), research.Settings{})
	_, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "x", Depth: research.DepthMax})
	var f *research.Failure
	if !errors.As(err, &f) || f.Code != backend.CodeInvalidArgument || !strings.Contains(f.Details, "engine to google") {
		t.Errorf("depth max on our rounds: %v, want INVALID_ARGUMENT with the fix", err)
	}
	_, err = e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "x", Engine: research.EngineGoogle, Model: "pro"})
	if !errors.As(err, &f) || f.Code != backend.CodeInvalidArgument || !strings.Contains(f.Details, "engine to rounds") {
		t.Errorf("a model for engine google: %v, want INVALID_ARGUMENT with the fix", err)
	}
	none, err := research.New(backend.RunnerFunc(func(context.Context, backend.Request) (backend.Result, error) {
		return backend.Result{}, errors.New("not this engine")
	}), research.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = none.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "x", Engine: research.EngineGoogle})
	if !errors.As(err, &f) || f.Code != backend.CodeAuth || !strings.Contains(f.Details, "GEMINI_API_KEY") {
		t.Errorf("engine google without the agent: %v, want AUTH_ERROR naming the key", err)
	}
}

// TestAgentDeepSearchCancels: a research its caller cancels cancels the agent's run; one that ends because the
// server stops leaves the run going, to be followed on; the Max agent is asked for depth max.
func TestAgentDeepSearchCancels(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name      string
		cause     error
		cancelled bool
	}{{"caller", context.Canceled, true}, {"server stops", backend.ErrServerStopping, false}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := mg.New()
			mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &mg.AgentScript{Every: time.Hour, Report: "never"}}))
			e := agentEngine(t, mock, research.Settings{})
			ctx, cancel := context.WithCancelCause(t.Context())
			runs := make(chan backend.AgentRun, 1)
			done := make(chan error, 1)
			go func() {
				_, err := e.DeepSearch(ctx, research.DeepSearchRequest{Topic: "x", Engine: research.EngineGoogle,
					Depth: research.DepthMax, Followed: func(r backend.AgentRun) {
						select {
						case runs <- r:
						default:
						}
					}})
				done <- err
			}()
			run := <-runs
			if run.Agent != backend.DefaultResearchMaxAgent {
				t.Errorf("depth max ran %q", run.Agent)
			}
			cancel(c.cause)
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("research ended with %v, want it cancelled", err)
			}
			want := map[bool]string{true: "cancelled", false: "in_progress"}[c.cancelled]
			if s, _ := mock.Interaction(run.ID); s != want {
				t.Errorf("the run is %s once the research ended, want %s", s, want)
			}
		})
	}
}

// creates are the runs created at mock's agent, in order: their input and the run they continue.
func creates(mock *mg.Server) (inputs, previous []string) {
	for _, r := range mock.RequestsOf(mg.KindAgent) {
		if r.Action == "create" {
			var body struct {
				Previous string `json:"previous_interaction_id"`
			}
			_ = json.Unmarshal(r.Body, &body)
			inputs, previous = append(inputs, r.Prompt), append(previous, body.Previous)
		}
	}
	return inputs, previous
}

// TestAgentPlans: the agent plans first; the user's answer decides: approved (with a focus) runs on from the plan,
// declined or not answered spends nothing more; without anyone to ask, auto runs on and confirm returns the plan
// with a plan_id, which a later call runs.
func TestAgentPlans(t *testing.T) {
	t.Parallel()
	plan := mg.DefaultAgent.Plan
	for _, c := range []struct {
		name     string
		mode     string
		confirm  func(context.Context, string) (research.PlanAnswer, error)
		runs     int    // runs created: the plan's, and the research's
		approval string // what the research's run was asked
		failure  backend.Code
	}{
		{"approved with a focus", research.PlanAuto, func(_ context.Context, got string) (research.PlanAnswer, error) {
			if got != plan {
				return research.PlanAnswer{}, errors.New("shown another plan: " + got)
			}
			return research.PlanAnswer{Approved: true, Focus: "Only sources from 2026."}, nil
		}, 2, "The plan looks good: go ahead with the research. Adjust it to this first: Only sources from 2026.", ""},
		{"declined", research.PlanConfirm, func(context.Context, string) (research.PlanAnswer, error) {
			return research.PlanAnswer{}, nil
		}, 1, "", backend.CodeCancelled},
		{"nobody answers", research.PlanAuto, func(context.Context, string) (research.PlanAnswer, error) {
			return research.PlanAnswer{}, context.DeadlineExceeded
		}, 1, "", ""},
		{"nobody to ask, auto", "", nil, 2, "The plan looks good: go ahead with the research.", ""},
		{"nobody to ask, confirm", research.PlanConfirm, nil, 1, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mock := mg.New()
			e := agentEngine(t, mock, research.Settings{DeepSearchEngine: research.EngineGoogle, AgentPlan: c.mode})
			rep, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "Tokyo", Confirm: c.confirm})
			inputs, previous := creates(mock)
			if len(inputs) != c.runs {
				t.Fatalf("%d runs created (%q), want %d", len(inputs), inputs, c.runs)
			}
			var f *research.Failure
			switch {
			case c.failure != "":
				if !errors.As(err, &f) || f.Code != c.failure || !strings.Contains(f.Message, "nothing more was spent") {
					t.Errorf("got %v, want %s saying nothing more was spent", err, c.failure)
				}
			case err != nil:
				t.Fatal(err)
			case c.runs == 2:
				if inputs[1] != c.approval || previous[1] == "" || rep.Metadata.Plan != plan ||
					!strings.Contains(rep.Summary, "The second source confirms it.[2]") {
					t.Errorf("research run asked %q after %q; report %q, plan %q", inputs[1], previous[1], rep.Summary, rep.Metadata.Plan)
				}
			default: // the plan, to confirm
				id := rep.Metadata.PlanID
				if !rep.Partial || id == "" || !strings.Contains(rep.Report, plan) || !strings.Contains(rep.Report, `plan_id "`+id+`"`) {
					t.Fatalf("answer %+v, want the plan with its plan_id", rep)
				}
				rep, err = e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "Tokyo", PlanID: id})
				inputs, previous = creates(mock)
				if err != nil || len(inputs) != 2 || previous[1] != id || !strings.Contains(rep.Summary, "[2]") {
					t.Errorf("running the plan: %v; runs %q after %q; report %q", err, inputs, previous, rep.Summary)
				}
			}
		})
	}
}

// TestAgentFollowUp: a follow-up of a report of Google's agent goes on in the run that researched it, with the
// same agent; the prior sources keep their numbers and the new ones follow them.
func TestAgentFollowUp(t *testing.T) {
	t.Parallel()
	const question = "Does the first source still hold?"
	mock := mg.New()
	mock.Handle(mg.KindAgent, mg.ByPrompt(mg.Always(mg.Reply{}), mg.Route{Contains: question, Respond: mg.Always(mg.Reply{
		Agent: &mg.AgentScript{Report: "It holds. A newer study agrees. The second source stands too.",
			Citations: []mg.Citation{
				{URL: "https://example.net/newer", Title: "A newer study", Text: "A newer study agrees."},
				{URL: mg.DefaultSources[1].URI, Title: mg.DefaultSources[1].Title, Text: "The second source stands too."},
			}}})}))
	e := agentEngine(t, mock, research.Settings{AgentPlan: research.PlanOff})
	first, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "The topic", Engine: research.EngineGoogle,
		Depth: research.DepthMax})
	if err != nil {
		t.Fatal(err)
	}
	m := first.Metadata
	rep, err := e.FollowUp(t.Context(), research.FollowUpRequest{Question: question, Prior: research.Prior{
		ID: "20261127T100000.000000-0a1b2c3d", Topic: "The topic", Report: first.Report, Sources: m.Sources,
		Interaction: m.Interaction, Agent: m.Model}})
	if err != nil {
		t.Fatal(err)
	}
	want := "It holds. A newer study agrees.[3] The second source stands too.[2]"
	if rep.Summary != want || rep.Metadata.Sources[2].URL != "https://example.net/newer" ||
		rep.Metadata.FollowUpOf != "20261127T100000.000000-0a1b2c3d" || rep.Metadata.Engine != research.EngineGoogle {
		t.Errorf("follow-up:\n got %q\nwant %q; metadata %+v", rep.Summary, want, rep.Metadata)
	}
	inputs, previous := creates(mock)
	if len(inputs) != 2 || inputs[1] != question || previous[1] != m.Interaction {
		t.Errorf("runs created %q after %q; want the question in the first run's interaction", inputs, previous)
	}
	for _, r := range mock.RequestsOf(mg.KindAgent) {
		if r.Action == "create" && r.Model != backend.DefaultResearchMaxAgent {
			t.Errorf("a run of %q; want the Max agent, which researched the report, for both", r.Model)
		}
	}
}

// TestAgentTimeLimitCountsFromTheStart: a run followed on after a restart has only what is left of the time limit
// from when its research began; out of it, the run is cancelled and the research times out.
func TestAgentTimeLimitCountsFromTheStart(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &mg.AgentScript{Every: time.Hour, Report: "never"}}))
	e := agentEngine(t, mock, research.Settings{AgentPlan: research.PlanOff, AgentTimeout: time.Hour})
	runs := make(chan backend.AgentRun, 1)
	ctx, stop := context.WithCancelCause(t.Context())
	go func() {
		_, _ = e.DeepSearch(ctx, research.DeepSearchRequest{Topic: "x", Engine: research.EngineGoogle,
			Followed: func(r backend.AgentRun) {
				select {
				case runs <- r:
				default:
				}
			}})
	}()
	run := <-runs
	stop(backend.ErrServerStopping) // the first server stops; its run goes on
	run.Began = time.Now().Add(-2 * time.Hour)
	_, err := e.DeepSearch(t.Context(), research.DeepSearchRequest{Topic: "x", Engine: research.EngineGoogle, Resume: &run})
	var f *research.Failure
	if !errors.As(err, &f) || f.Code != backend.CodeAPITimeout || !strings.Contains(f.Details, "GEMINI_DEEP_RESEARCH_TIMEOUT") {
		t.Errorf("following on a run past its time limit: %v, want API_TIMEOUT naming the setting", err)
	}
	if s, _ := mock.Interaction(run.ID); s != "cancelled" {
		t.Errorf("the run is %s, want it cancelled once out of time", s)
	}
}
