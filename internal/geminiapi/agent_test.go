package geminiapi_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	mg "github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
)

const agentKey = "AIzaAgentTestKey0123456789"

// newAgent is an Agent against a mock whose agent runs script, with retries a millisecond apart.
func newAgent(t *testing.T, replies mg.Responder) (*geminiapi.Agent, *mg.Server) {
	t.Helper()
	mock := mg.New()
	mock.Handle(mg.KindAgent, replies)
	srv := httptest.NewServer(mock)
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close) // first: releases the streams still waiting
	a, err := geminiapi.NewAgent(geminiapi.AgentConfig{APIKey: agentKey, BaseURL: srv.URL,
		Backoff: []time.Duration{time.Millisecond, time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	return a, mock
}

// multiByte is a report whose citations sit after characters of two, three and four bytes.
var multiByte = mg.AgentScript{
	Steps: []mg.AgentStep{
		{Thought: "Planning the searches on Größe."},
		{Search: []string{"größe 東京", "tokyo size"}},
		{Read: []string{"https://example.jp/tokyo"}},
	},
	Report: "Größe — 東京 is large. Tokyo has 14 million people 🏙. Its area is 2,194 km².",
	Citations: []mg.Citation{
		{URL: "https://example.jp/tokyo", Title: "Tokyo facts", Text: "Tokyo has 14 million people 🏙."},
		{URL: "https://example.org/area", Title: "Area", Text: "Its area is 2,194 km²."},
		{URL: "https://example.jp/tokyo", Title: "Tokyo facts", Text: "Its area is 2,194 km²."},
	},
	DropAfter: 3,
}

func TestAgentResearch(t *testing.T) {
	t.Parallel()
	a, mock := newAgent(t, mg.Always(mg.Reply{Agent: &multiByte}))
	var (
		mu     sync.Mutex
		events []backend.Event
		runs   []backend.AgentRun
	)
	res, err := a.Research(t.Context(), backend.AgentRequest{Input: "How large is Tokyo?",
		Events:   func(ev backend.Event) { mu.Lock(); events = append(events, ev); mu.Unlock() },
		Followed: func(r backend.AgentRun) { mu.Lock(); runs = append(runs, r); mu.Unlock() },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != multiByte.Report || res.Backend != backend.GoogleAgent || res.Model != backend.DefaultResearchAgent {
		t.Errorf("result: %q by %s/%s, want the agent's report", res.Text, res.Backend, res.Model)
	}
	g := res.Grounding
	want := []backend.Source{{URL: "https://example.jp/tokyo", Title: "Tokyo facts"}, {URL: "https://example.org/area", Title: "Area"}}
	if g == nil || !slices.Equal(g.Sources, want) {
		t.Fatalf("sources: %+v, want %+v, numbered as first cited", g, want)
	}
	if len(g.Citations) != 2 || g.Citations[0].Text != "Tokyo has 14 million people 🏙." ||
		!slices.Equal(g.Citations[0].Sources, []int{1}) || g.Citations[1].Text != "Its area is 2,194 km²." ||
		!slices.Equal(g.Citations[1].Sources, []int{1, 2}) {
		t.Errorf("citations: %+v; want each cited segment once, with all its sources", g.Citations)
	}
	if !slices.Equal(res.Queries, []string{"größe 東京", "tokyo size"}) || !slices.Contains(res.URLs, "https://example.org/area") {
		t.Errorf("queries %q, urls %q", res.Queries, res.URLs)
	}
	if u := res.Usage; u == nil || u.TotalTokens == 0 || u.InputTokens == 0 || u.Searches == 0 {
		t.Errorf("usage: %+v, want the run's tokens and searches", u)
	}

	mu.Lock()
	defer mu.Unlock()
	if len(runs) == 0 || runs[0].ID == "" || runs[0].Agent != backend.DefaultResearchAgent || runs[len(runs)-1].LastEvent == "" {
		t.Errorf("runs told: %+v; want the created run, then its events", runs)
	}
	kinds := map[backend.EventKind]bool{}
	for _, ev := range events {
		kinds[ev.Kind] = true
	}
	if !kinds[backend.EventThought] || !kinds[backend.EventSearch] || !kinds[backend.EventFetch] || !kinds[backend.EventText] {
		t.Errorf("events: %+v; want thoughts, searches, reads and the report's text", events)
	}
	var creates, resumed int
	for _, r := range mock.RequestsOf(mg.KindAgent) {
		switch {
		case r.Action == "create":
			creates++
			if !strings.Contains(string(r.Body), `"background":true`) || r.Prompt != "How large is Tokyo?" {
				t.Errorf("create: %s", r.Body)
			}
		case r.Action == "stream" && r.LastEventID != "":
			resumed++
		}
	}
	if creates != 1 || resumed == 0 {
		t.Errorf("%d creates, %d streams opened again; want one run, followed on after each break", creates, resumed)
	}
}

// TestAgentResume: a run created before is followed on from its last event, and not created again.
func TestAgentResume(t *testing.T) {
	t.Parallel()
	a, mock := newAgent(t, mg.Always(mg.Reply{}))
	var first backend.AgentRun
	ctx, stop := context.WithCancel(t.Context())
	_, err := a.Research(ctx, backend.AgentRequest{Input: "topic", Followed: func(r backend.AgentRun) {
		if first.LastEvent == "" {
			if first = r; r.LastEvent != "" {
				stop() // the server stops after the first event
			}
		}
	}})
	if !errors.Is(err, context.Canceled) || first.LastEvent == "" {
		t.Fatalf("first follow: %v, run %+v", err, first)
	}
	resume := first // Research moves it on
	res, err := a.Research(t.Context(), backend.AgentRequest{Resume: &resume})
	if err != nil || !strings.Contains(res.Text, "The second source confirms it.") {
		t.Fatalf("resumed: %q, %v", res.Text, err)
	}
	var creates int
	var resumedFrom []string
	for _, r := range mock.RequestsOf(mg.KindAgent) {
		if r.Action == "create" {
			creates++
		}
		if r.Action == "stream" && r.LastEventID != "" {
			resumedFrom = append(resumedFrom, r.LastEventID)
		}
	}
	if creates != 1 || !slices.Contains(resumedFrom, first.LastEvent) {
		t.Errorf("%d creates, streams opened after %q; want one run, followed on after event %s", creates, resumedFrom, first.LastEvent)
	}
}

func TestAgentCancel(t *testing.T) {
	t.Parallel()
	a, mock := newAgent(t, mg.Always(mg.Reply{Agent: &mg.AgentScript{Every: time.Hour, Report: "never"}}))
	created := make(chan backend.AgentRun, 1)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := a.Research(ctx, backend.AgentRequest{Input: "topic", Followed: func(r backend.AgentRun) {
			select {
			case created <- r:
			default:
			}
		}})
		done <- err
	}()
	run := <-created
	if err := a.Cancel(t.Context(), run.ID); err != nil {
		t.Fatal(err)
	}
	err := <-done
	var be *backend.Error
	if !errors.As(err, &be) || be.Code != backend.CodeCancelled {
		t.Errorf("research of a cancelled run: %v, want CANCELLED", err)
	}
	if status, _ := mock.Interaction(run.ID); status != "cancelled" {
		t.Errorf("the run is %q at the API, want cancelled", status)
	}
	stop()
}

func TestAgentFailures(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		reply mg.Responder
		code  backend.Code
		say   string
	}{
		{"failed run", mg.Always(mg.Reply{Agent: &mg.AgentScript{Fail: "the agent crashed on its side"}}), backend.CodeAPI,
			"the agent crashed on its side"},
		{"key rejected", mg.Always(mg.Error(http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")),
			backend.CodeAuth, "rejected the API key"},
		{"agent not for this tier", mg.Always(mg.Error(http.StatusForbidden, "PERMISSION_DENIED", "not allowed")), backend.CodeAuth,
			"denied this key Google's Deep Research agent"},
		{"unknown agent", mg.Always(mg.Error(http.StatusNotFound, "NOT_FOUND", "no such agent")), backend.CodeAPI,
			"does not offer this Deep Research agent"},
		{"daily quota", mg.Always(mg.QuotaDaily()), backend.CodeQuota, "daily"},
		{"server errors, retried", mg.Always(mg.Error(http.StatusServiceUnavailable, "UNAVAILABLE", "overloaded")),
			backend.CodeAPI, "server error"},
		// A 500 may come after the run was created: creating it again would pay twice.
		{"internal error", mg.Always(mg.Error(http.StatusInternalServerError, "INTERNAL", "oops")), backend.CodeAPI,
			"server error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, mock := newAgent(t, c.reply)
			_, err := a.Research(t.Context(), backend.AgentRequest{Input: "topic"})
			var be *backend.Error
			if !errors.As(err, &be) || be.Code != c.code || !strings.Contains(strings.ToLower(be.Message), strings.ToLower(c.say)) || be.Hint == "" {
				t.Fatalf("got %#v, want %s saying %q, with a fix", err, c.code, c.say)
			}
			if strings.Contains(be.Message+be.Detail+be.Hint, agentKey) {
				t.Error("the key is in the error")
			}
			creates := 0
			for _, r := range mock.RequestsOf(mg.KindAgent) {
				if r.Action == "create" {
					creates++
				}
			}
			if want := map[bool]int{true: 3, false: 1}[c.name == "server errors, retried"]; creates != want {
				t.Errorf("%d creates, want %d", creates, want)
			}
		})
	}
}

// TestAgentRetriesAServerErrorOnce: a create answered 503 (unavailable: no run was created) is made again, and the
// run goes on.
func TestAgentRetriesAServerErrorOnce(t *testing.T) {
	t.Parallel()
	var creates atomic.Int32
	a, _ := newAgent(t, func(*mg.Request) mg.Reply {
		if creates.Add(1) == 1 {
			return mg.Error(http.StatusServiceUnavailable, "UNAVAILABLE", "try again")
		}
		return mg.Reply{}
	})
	res, err := a.Research(t.Context(), backend.AgentRequest{Input: "topic"})
	if err != nil || res.Text != mg.DefaultAgent.Report {
		t.Fatalf("%q, %v", res.Text, err)
	}
}

// TestAgentFollowsThroughFailures: while the run's streams fail (a 503, as a proxy or an outage answers) and its
// reads fail now and then, the run is followed on, read by reads, until it ends.
func TestAgentFollowsThroughFailures(t *testing.T) {
	t.Parallel()
	mock := mg.New()
	mock.Handle(mg.KindAgent, mg.Always(mg.Reply{Agent: &mg.AgentScript{Every: 20 * time.Millisecond,
		Steps: []mg.AgentStep{{Thought: "a"}, {Thought: "b"}, {Thought: "c"}}, Report: "The report."}}))
	var streams, reads atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Get("stream") == "true":
			streams.Add(1)
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
			return
		case r.Method == http.MethodGet && reads.Add(1)%2 == 1:
			http.Error(w, "upstream unavailable", http.StatusServiceUnavailable)
			return
		}
		mock.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(mock.Close)
	a, err := geminiapi.NewAgent(geminiapi.AgentConfig{APIKey: agentKey, BaseURL: srv.URL,
		Backoff: []time.Duration{time.Millisecond, time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Research(t.Context(), backend.AgentRequest{Input: "topic"})
	if err != nil || res.Text != "The report." {
		t.Fatalf("%q, %v; want the report, streams failing all along", res.Text, err)
	}
	if streams.Load() < 2 {
		t.Errorf("%d streams tried, want the stream opened again after each failure", streams.Load())
	}
}

// TestAgentGivesUpOnARunGone: a run Google no longer keeps (404) ends the research with the reason.
func TestAgentGivesUpOnARunGone(t *testing.T) {
	t.Parallel()
	a, _ := newAgent(t, mg.Always(mg.Reply{}))
	_, err := a.Research(t.Context(), backend.AgentRequest{Resume: &backend.AgentRun{ID: "v1_unknown"}})
	var be *backend.Error
	if !errors.As(err, &be) || !strings.Contains(be.Message, "no longer kept") {
		t.Errorf("following a run Google does not keep: %v", err)
	}
}

// TestAgentContinuesARunGone: a run that continues one Google no longer keeps (a follow-up of an old report) says so,
// rather than blaming the agent's name.
func TestAgentContinuesARunGone(t *testing.T) {
	t.Parallel()
	a, _ := newAgent(t, mg.Always(mg.Reply{}))
	_, err := a.Research(t.Context(), backend.AgentRequest{Input: "a follow-up", Previous: "v1_gone",
		Agent: backend.DefaultResearchAgent})
	var be *backend.Error
	if !errors.As(err, &be) || !strings.Contains(be.Message, "continues is no longer kept") || !strings.Contains(be.Hint, "start the research again") {
		t.Errorf("continuing a run Google does not keep: %#v", err)
	}
}
