package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	kept "github.com/gemini-search-mcp/gemini-search-mcp/internal/library/record"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// researchIDOf is the research_id of a Running answer, or fails the test.
func researchIDOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	body := decodeBody(t, res)
	id, _ := body["research_id"].(string)
	if res.IsError || body["status"] != "running" || id == "" {
		t.Fatalf("got %s, want status running with a research_id", resultText(t, res))
	}
	return id
}

// TestResearchOutlastingItsWaitGoesOn: a call whose research outlasts its wait answers at once with the research's
// id and what to do; the research goes on, and research_result returns its report, naming it in _meta.
func TestResearchOutlastingItsWaitGoesOn(t *testing.T) {
	t.Parallel()
	s, _ := localFakeServer(t, geminitest.ScenarioSlow, 30*time.Second, Options{}, geminitest.EnvDelay+"=1s")
	c := connect(t, s)
	running := call(context.Background(), t, c, "deep_search", map[string]any{"topic": "slow topic", "wait_seconds": 0}, nil)
	id := researchIDOf(t, running)
	if next, _ := decodeBody(t, running)["next"].(string); !strings.Contains(next, "research_result") || !strings.Contains(next, id) {
		t.Errorf("next %q does not say to call research_result with the id", next)
	}

	res := call(context.Background(), t, c, "research_result", map[string]any{"research_id": id, "wait_seconds": 600}, nil)
	body := decodeBody(t, res)
	if res.IsError || body["success"] != true || body["status"] != nil || body["report"] == "" {
		t.Fatalf("research_result = %s, want the report", resultText(t, res))
	}
	if got := res.Meta.AdditionalFields["researchId"]; got != id {
		t.Errorf("_meta.researchId = %v, want %s", got, id)
	}
}

// TestResearchCancel: running research is listed with its id; research_cancel ends it and its CLI; research_result
// then says it was cancelled and why.
func TestResearchCancel(t *testing.T) {
	t.Parallel()
	reg := activity.New()
	s, fake := localFakeServer(t, geminitest.ScenarioHang, 30*time.Second, Options{Activity: reg})
	c := connect(t, s)
	id := researchIDOf(t, call(context.Background(), t, c, "search", map[string]any{"query": "hangs", "wait_seconds": 0}, nil))
	testkit.WaitFor(t, "the CLI to start", func() bool { return len(fake.Started()) == 1 })
	if running := reg.Snapshot().Running; len(running) != 1 || running[0].Research != id {
		t.Errorf("running searches %+v, want the research listed with its id %s", running, id)
	}

	cancelled := decodeBody(t, call(context.Background(), t, c, "research_cancel", map[string]any{"research_id": id}, nil))
	if cancelled["status"] != "cancelled" {
		t.Errorf("research_cancel = %v, want status cancelled", cancelled)
	}
	testkit.WaitFor(t, "the cancelled research's CLI to end", func() bool { return len(fake.LivePIDs()) == 0 })
	res := call(context.Background(), t, c, "research_result", map[string]any{"research_id": id}, nil)
	e, _ := decodeBody(t, res)["error"].(map[string]any)
	if msg, _ := e["message"].(string); !res.IsError || e["code"] != string(backend.CodeCancelled) ||
		!strings.Contains(msg, "research_cancel") {
		t.Errorf("research_result of a cancelled research = %s, want CANCELLED saying research_cancel ended it", resultText(t, res))
	}
}

// TestStarterCancelEndsItsResearch: a client that cancels the call that started the research cancels the
// research too, its CLI with it.
func TestStarterCancelEndsItsResearch(t *testing.T) {
	t.Parallel()
	reg := activity.New()
	s, fake := localFakeServer(t, geminitest.ScenarioHang, 30*time.Second, Options{Activity: reg})
	c := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		req := mcp.CallToolRequest{}
		req.Params.Name, req.Params.Arguments = "search", map[string]any{"query": "cancelled by its client"}
		_, _ = c.CallTool(ctx, req)
	}()
	testkit.WaitFor(t, "the CLI to start", func() bool { return len(fake.Started()) == 1 })
	cancel()
	<-answered
	testkit.WaitFor(t, "the research to end", func() bool { return len(reg.Snapshot().Running) == 0 })
	testkit.WaitFor(t, "the cancelled call's CLI to end", func() bool { return len(fake.LivePIDs()) == 0 })
}

// TestResearchResultOfAnUnknownID: an id the server does not hold is a clear error, and no research runs.
func TestResearchResultOfAnUnknownID(t *testing.T) {
	t.Parallel()
	c := connect(t, localServer(t, geminitest.ScenarioOK, 30*time.Second))
	res := call(context.Background(), t, c, "research_result", map[string]any{"research_id": "0123456789abcdef"}, nil)
	e, _ := decodeBody(t, res)["error"].(map[string]any)
	if !res.IsError || e["code"] != string(backend.CodeResearchNotFound) {
		t.Errorf("got %s, want RESEARCH_NOT_FOUND", resultText(t, res))
	}
}

// jobLibrary is a research library that keeps one job.
type jobLibrary struct {
	noLibrary
	job kept.Job
}

func (l jobLibrary) Job(id string) (kept.Job, error) {
	if id != l.job.ID {
		return kept.Job{}, kept.ErrNotFound
	}
	return l.job, nil
}

// TestInterruptedResearch: research that the server's stop interrupted (the library says so after a restart) is
// answered with why, and what to do.
func TestInterruptedResearch(t *testing.T) {
	t.Parallel()
	lib := jobLibrary{job: kept.Job{ID: "0123456789abcdef", Tool: "deep_search", State: kept.JobInterrupted}}
	c := connect(t, localServerWith(t, geminitest.ScenarioOK, 30*time.Second, Options{Library: lib}))
	res := call(context.Background(), t, c, "research_result", map[string]any{"research_id": lib.job.ID}, nil)
	e, _ := decodeBody(t, res)["error"].(map[string]any)
	if details, _ := e["details"].(string); !res.IsError || e["code"] != string(backend.CodeResearchInterrupted) ||
		!strings.Contains(details, "Call deep_search again") {
		t.Errorf("got %s, want RESEARCH_INTERRUPTED saying to call deep_search again", resultText(t, res))
	}
}

// TestCallWaitSetting: the server's wait budget (GEMINI_CALL_WAIT) applies to a call that names none; 0 answers
// running at once.
func TestCallWaitSetting(t *testing.T) {
	t.Parallel()
	s, fake := localFakeServer(t, geminitest.ScenarioHang, 30*time.Second, Options{CallWait: func() time.Duration { return 0 }})
	c := connect(t, s)
	id := researchIDOf(t, call(context.Background(), t, c, "search", map[string]any{"query": "at once"}, nil))
	call(context.Background(), t, c, "research_cancel", map[string]any{"research_id": id}, nil)
	testkit.WaitFor(t, "the cancelled research's CLI to end", func() bool { return len(fake.LivePIDs()) == 0 })
}

// TestStartWithoutACall: the app starts a research tool with a client's arguments as a job (the first-run page's
// test search, a re-run from the history page) and gets its id at once; research_result then waits for it as
// for any job. A tool that is no research tool, or arguments the tool refuses, are refused with what is wrong.
func TestStartWithoutACall(t *testing.T) {
	t.Parallel()
	fake := geminitest.NewLocal(t, geminitest.ScenarioOK)
	runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
		KillGrace: 300 * time.Millisecond, ExtraEnv: fake.Env()})
	engine, err := research.New(runner, research.Settings{MaxRounds: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tl := New(engine, Options{Version: "test"})

	id, err := tl.Start(context.Background(), "search", json.RawMessage(`{"query": "started by the app"}`))
	if err != nil {
		t.Fatal(err)
	}
	wait := 600
	res, err := tl.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &wait})
	if rep, ok := ReportOf(res); err != nil || !ok || !rep.Success || rep.Report.Report == "" {
		t.Fatalf("research_result of the started search = %#v, %v; want its report", res, err)
	}

	for _, c := range []struct{ tool, args, want string }{
		{"ping", `{}`, "no research tool"},
		{"search", `{"query": 3}`, "query"},
		{"search", `{}`, "query"},
	} {
		_, err := tl.Start(context.Background(), c.tool, json.RawMessage(c.args))
		if e := AsError(err); err == nil || e.Code != backend.CodeInvalidArgument || !strings.Contains(e.Message, c.want) {
			t.Errorf("Start(%s, %s) = %v, want INVALID_ARGUMENT naming %q", c.tool, c.args, err, c.want)
		}
	}
}

// sharedLibrary opens the research library at path as one more server sharing it would, closed at the test's end.
func sharedLibrary(t *testing.T, path string) *library.Library {
	t.Helper()
	lib, err := library.Open(path, library.Options{Poll: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib
}

// TestResearchOfAnotherServer: research_result asked of a server that shares the research library with the one
// running the research shows what it does (its stage, kept as it changes), waits for its end, and answers how it
// ended.
func TestResearchOfAnotherServer(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "library.db")
	open := func() *library.Library { return sharedLibrary(t, path) }
	engineOf := func(scenario string, env ...string) Engine {
		fake := geminitest.NewLocal(t, scenario)
		runner := gemini.NewRunner(gemini.Config{Command: fake.Command(), Dir: t.TempDir(), Timeout: 30 * time.Second,
			KillGrace: 300 * time.Millisecond, ExtraEnv: append(fake.Env(), env...)})
		engine, err := research.New(runner, research.Settings{MaxRounds: 2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return engine
	}
	other := New(engineOf(geminitest.ScenarioOK), Options{Version: "test", Library: open()}) // holds no job of theirs
	noWait, longWait := 0, 600

	hanging := New(engineOf(geminitest.ScenarioHang), Options{Version: "test", Library: open()})
	id, err := hanging.Start(context.Background(), "search", json.RawMessage(`{"query": "hangs"}`))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the other server to show the research's stage", func() bool {
		res, err := other.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &noWait})
		r, ok := res.(*Running)
		return err == nil && ok && r.Stage != "" && strings.Contains(r.Next, id)
	})
	if _, err := hanging.ResearchCancel(context.Background(), ResearchCancelArgs{ResearchID: id}); err != nil {
		t.Fatal(err)
	}
	_, err = other.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &noWait})
	if AsError(err).Code != backend.CodeCancelled {
		t.Errorf("the other server's research_result of cancelled research = %v, want CANCELLED", err)
	}

	slow := New(engineOf(geminitest.ScenarioSlow, geminitest.EnvDelay+"=1s"), Options{Version: "test", Library: open()})
	id, err = slow.Start(context.Background(), "search", json.RawMessage(`{"query": "takes a second"}`))
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the other server to see the research", func() bool { // kept as its run begins
		_, err := other.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &noWait})
		return err == nil
	})
	// Without the App, nothing keeps a report for the job: research_result answers that its report is not kept.
	res, err := other.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &longWait})
	if _, running := res.(*Running); running || !strings.Contains(fmt.Sprint(err), "ended") {
		t.Errorf("the other server's research_result = %#v, %v; want it to wait for the research's end", res, err)
	}
}

// TestRunningDeepSearchShowsItsDraft: while a deep_search verifies its first round, research_result answers
// running with that round's report as a draft, marked partial.
func TestRunningDeepSearchShowsItsDraft(t *testing.T) {
	geminitest.Script(t, geminitest.Step{Scenario: geminitest.ScenarioOK}, geminitest.Step{Scenario: geminitest.ScenarioHang})
	s, _ := localFakeServer(t, geminitest.ScenarioScript, 30*time.Second, Options{})
	c := connect(t, s)
	running := decodeBody(t, call(context.Background(), t, c, "deep_search", map[string]any{"topic": "drafted", "wait_seconds": 0}, nil))
	id, _ := running["research_id"].(string)
	var draft map[string]any
	testkit.WaitFor(t, "the first round's draft", func() bool {
		draft = decodeBody(t, call(context.Background(), t, c, "research_result", map[string]any{"research_id": id, "wait_seconds": 0}, nil))
		return draft["report"] != nil
	})
	report, _ := draft["report"].(string)
	if draft["status"] != "running" || draft["partial"] != true || !strings.HasPrefix(report, "[Draft: the report of round 1") ||
		!strings.Contains(report, "# Fake report") {
		t.Errorf("research_result while verifying = %v, want status running with round 1's report as a draft", draft)
	}
	call(context.Background(), t, c, "research_cancel", map[string]any{"research_id": id}, nil)
}

// panickingEngine's research panics, as a bug in it would.
type panickingEngine struct{ Engine }

func (panickingEngine) Search(context.Context, research.SearchRequest) (research.Report, error) {
	panic("a bug in the research")
}

// TestResearchThatPanics: research that panics ends its job as failed, with the panic as its error, in the
// library too, and is no longer listed as running.
func TestResearchThatPanics(t *testing.T) {
	t.Parallel()
	lib, err := library.Open(filepath.Join(t.TempDir(), "library.db"), library.Options{Poll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	reg := activity.New()
	tl := New(panickingEngine{}, Options{Version: "test", Library: lib, Activity: reg})
	id, err := tl.Start(context.Background(), "search", json.RawMessage(`{"query": "panics"}`))
	if err != nil {
		t.Fatal(err)
	}
	wait := 600
	if _, err := tl.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &wait}); !strings.Contains(fmt.Sprint(err), "a bug in the research") {
		t.Errorf("research_result = %v, want the panic as the research's error", err)
	}
	if j, err := lib.Job(id); err != nil || j.State != kept.JobFailed || !strings.Contains(j.ErrorMessage, "a bug in the research") {
		t.Errorf("the library keeps the job as %+v, %v; want it failed with the panic", j, err)
	}
	if running := reg.Snapshot().Running; len(running) != 0 {
		t.Errorf("running searches %+v after the research panicked, want none", running)
	}
}

// agentEngine's deep_search runs as Google's agent would: it tells of its run, then waits for its end; one that
// follows a run on (Resume) returns the report at once.
type agentEngine struct {
	Engine
	resumed chan backend.AgentRun
}

func (e agentEngine) DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error) {
	if req.Resume != nil {
		e.resumed <- *req.Resume
		return research.Report{Success: true, Report: "the agent's report", Metadata: research.Metadata{Engine: "google"}}, nil
	}
	req.Followed(backend.AgentRun{ID: "v1_7", Agent: "deep-research-preview-04-2026", LastEvent: "3"})
	<-ctx.Done()
	return research.Report{}, context.Cause(ctx)
}

// TestTakingOnAnAgentsRun: a deep_search of Google's agent whose server stops leaves its run kept with the job,
// interrupted; research_result asked of another server sharing the library takes the job on and follows the run
// on, under the same research_id, and research_cancel would reach it there.
func TestTakingOnAnAgentsRun(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "library.db")
	open := func() *library.Library { return sharedLibrary(t, path) }
	lifetime, stop := context.WithCancelCause(context.Background())
	first := New(agentEngine{}, Options{Version: "test", Library: open(), Lifetime: lifetime})
	id, err := first.Start(context.Background(), "deep_search", json.RawMessage(`{"topic": "t", "engine": "google"}`))
	if err != nil {
		t.Fatal(err)
	}
	lib := open()
	testkit.WaitFor(t, "the run kept with the job", func() bool {
		j, err := lib.Job(id)
		return err == nil && strings.Contains(string(j.Remote), `"v1_7"`)
	})
	stop(backend.ErrServerStopping)
	first.WaitJobs(context.Background())
	if j, _ := lib.Job(id); j.State != kept.JobInterrupted {
		t.Fatalf("the job after its server stopped: %+v, want interrupted", j)
	}

	resumed := make(chan backend.AgentRun, 1)
	second := New(agentEngine{resumed: resumed}, Options{Version: "test", Library: lib})
	wait := 600
	res, err := second.ResearchResult(context.Background(), ResearchResultArgs{ResearchID: id, WaitSeconds: &wait})
	rep, ok := ReportOf(res)
	if err != nil || !ok || rep.Report.Report != "the agent's report" {
		t.Fatalf("research_result on the second server = %#v, %v; want the report of the run followed on", res, err)
	}
	if run := <-resumed; run.ID != "v1_7" || run.LastEvent != "3" {
		t.Errorf("followed on %+v, want the kept run from its last event", run)
	}
	if j, _ := lib.Job(id); j.State != kept.JobDone || j.Owner != lib.Owner() {
		t.Errorf("the job taken on: %+v, want it done, the second server's", j)
	}
}

// followingAgent follows a remote run of Google's agent until its call ends: a research that is still running at
// the API when its server stops.
type followingAgent struct{ Engine }

func (followingAgent) DeepSearch(ctx context.Context, req research.DeepSearchRequest) (research.Report, error) {
	if req.Resume == nil {
		req.Followed(backend.AgentRun{ID: "v1_7", Agent: "deep-research-preview-04-2026", LastEvent: "3"})
	}
	<-ctx.Done()
	return research.Report{}, context.Cause(ctx)
}

// TestTakeOnAsTheLibraryOpens: after a restart, the research_cancel that opens the library (whose opening takes the
// interrupted jobs on, as the app does) and that take-on reach the same job at once: the call waits for the take-on
// and cancels the job, never answering that another server runs it.
func TestTakeOnAsTheLibraryOpens(t *testing.T) {
	for range 20 {
		path := filepath.Join(t.TempDir(), "library.db")
		lifetime, stop := context.WithCancelCause(context.Background())
		firstLib := sharedLibrary(t, path)
		first := New(followingAgent{}, Options{Version: "test", Library: firstLib, Lifetime: lifetime})
		id, err := first.Start(context.Background(), "deep_search", json.RawMessage(`{"topic": "t", "engine": "google"}`))
		if err != nil {
			t.Fatal(err)
		}
		testkit.WaitFor(t, "the remote run kept", func() bool {
			j, err := firstLib.Job(id)
			return err == nil && strings.Contains(string(j.Remote), `"v1_7"`)
		})
		stop(backend.ErrServerStopping)
		first.WaitJobs(context.Background())
		firstLib.Close()

		lib, err := library.OpenOnUse(path, library.Options{Poll: -1})
		if err != nil {
			t.Fatal(err)
		}
		restarted, stopRestarted := context.WithCancelCause(context.Background())
		second := New(followingAgent{}, Options{Version: "test", Library: lib, Lifetime: restarted})
		lib.OnOpen(func() {
			jobs, _ := lib.Resumable(time.Now().Add(-time.Hour))
			for _, j := range jobs {
				second.TakeOn(j.ID)
			}
		})
		res, err := second.ResearchCancel(context.Background(), ResearchCancelArgs{ResearchID: id})
		if err != nil || res.Status != string(kept.JobCancelled) {
			t.Errorf("research_cancel after a restart: %+v, %v; want the job cancelled", res, err)
		}
		stopRestarted(backend.ErrServerStopping)
		second.WaitJobs(context.Background())
		lib.Close()
	}
}
