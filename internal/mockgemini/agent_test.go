package mockgemini

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	gi "google.golang.org/genai/interactions"
	"google.golang.org/genai/interactions/models/apierrors"
	"google.golang.org/genai/interactions/models/components"
	m "google.golang.org/genai/interactions/models/interactions"
	"google.golang.org/genai/interactions/models/operations"
	"google.golang.org/genai/interactions/retry"
	"google.golang.org/genai/interactions/types/stream"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// These tests drive the Interactions API with the official SDK's
// interactions package, configured as a client of Deep Research should be:
// the API version set, the key as x-goog-api-key, no HTTP timeout (it would
// cut streams) and no retries (they would create paid runs twice).

const agentPrompt = "Research the size of Tokyo."

// tokyo is a run whose report is multi-byte text: its citations' offsets count UTF-8 bytes.
var tokyo = AgentScript{
	Steps: []AgentStep{
		{Thought: "Planning searches on Tokyo."},
		{Search: []string{"Tokyo size", "東京 人口"}},
		{Read: []string{"https://a.example/tokyo", "https://b.example/größe"}},
	},
	Report: "Größe — 東京 ist groß. Die Stadt wächst schnell — laut Quelle. 東京タワーは333メートルです。",
	Citations: []Citation{
		{URL: "https://a.example/tokyo", Title: "a.example", Text: "東京 ist groß."},
		{URL: "https://b.example/größe", Title: "b.example", Text: "Die Stadt wächst schnell"},
		{URL: "https://c.example/tower", Text: "東京タワーは333メートルです。"},
	},
}

func agentStart(t *testing.T, responder Responder) (*Server, *gi.GenAI) {
	t.Helper()
	mock, base := start(t)
	if responder != nil {
		mock.Handle(KindAgent, responder)
	}
	return mock, gi.New(
		gi.WithServerURL(base),
		gi.WithAPIVersion("v1beta"),
		gi.WithSecurity(components.Security{APIKey: gi.String(sdkKey)}),
		gi.WithClient(testkit.Client),
		gi.WithRetryConfig(retry.Config{Strategy: "none"}),
	)
}

func script(s AgentScript) Responder { return Always(Reply{Agent: &s}) }

// createRequest is a Deep Research create in the background; previous continues an interaction.
func createRequest(planning bool, previous string) operations.CreateInteractionRequest {
	cfg := m.NewCreateAgentInteractionAgentConfig(m.DeepResearchAgentConfig{
		ThinkingSummaries:     m.ThinkingSummariesAuto.ToPointer(),
		Visualization:         m.VisualizationOff.ToPointer(),
		CollaborativePlanning: gi.Bool(planning),
	})
	body := m.CreateAgentInteraction{
		Agent:       m.AgentOptionDeepResearchPreview042026,
		Input:       gi.Pointer(m.NewInteractionsInput(agentPrompt)),
		Background:  gi.Bool(true),
		Store:       gi.Bool(true),
		AgentConfig: &cfg,
		Tools:       []m.Tool{m.NewTool(m.GoogleSearch{}), m.NewTool(m.URLContext{})},
	}
	if previous != "" {
		body.PreviousInteractionID = gi.String(previous)
	}
	return operations.CreateInteractionRequest{Body: operations.NewCreateInteractionRequestBody(body)}
}

func create(t *testing.T, c *gi.GenAI, req operations.CreateInteractionRequest) *m.Interaction {
	t.Helper()
	res, err := c.Interactions.Create(context.Background(), req)
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if res.Interaction == nil || res.Interaction.ID == nil {
		t.Fatalf("create answered no interaction: %+v", res)
	}
	return res.Interaction
}

func get(t *testing.T, c *gi.GenAI, id string) *m.Interaction {
	t.Helper()
	res, err := c.Interactions.Get(context.Background(), operations.GetInteractionByIDRequest{ID: id})
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	if res.Interaction == nil {
		t.Fatalf("get %s answered no interaction", id)
	}
	return res.Interaction
}

// openStream opens the interaction's event stream, after the event lastEventID when it is set.
func openStream(t *testing.T, c *gi.GenAI, id, lastEventID string) *eventStream {
	t.Helper()
	req := operations.GetInteractionByIDRequest{ID: id, Stream: gi.Bool(true)}
	if lastEventID != "" {
		req.LastEventID = gi.String(lastEventID)
	}
	res, err := c.Interactions.Get(context.Background(), req)
	if err != nil {
		t.Fatalf("stream %s: %v", id, err)
	}
	if res.InteractionSSEStreamEvent == nil {
		t.Fatalf("stream %s answered no event stream", id)
	}
	t.Cleanup(func() { res.InteractionSSEStreamEvent.Close() })
	return &eventStream{res.InteractionSSEStreamEvent}
}

type eventStream struct {
	*stream.EventStream[m.InteractionSSEStreamEvent]
}

// next returns the stream's next event, or false at its end.
func (s *eventStream) next() (m.InteractionSSEEvent, bool) {
	if !s.Next() {
		return m.InteractionSSEEvent{}, false
	}
	return s.Value().Data, true
}

// rest reads the stream to its end: its events and the stream's error.
func (s *eventStream) rest() ([]m.InteractionSSEEvent, error) {
	var out []m.InteractionSSEEvent
	for {
		ev, ok := s.next()
		if !ok {
			return out, s.Err()
		}
		out = append(out, ev)
	}
}

func eventID(ev m.InteractionSSEEvent) string {
	var id *string
	switch ev.Type {
	case m.InteractionSSEEventTypeInteractionCreated:
		id = ev.InteractionCreatedEvent.EventID
	case m.InteractionSSEEventTypeInteractionStatusUpdate:
		id = ev.InteractionStatusUpdate.EventID
	case m.InteractionSSEEventTypeStepStart:
		id = ev.StepStart.EventID
	case m.InteractionSSEEventTypeStepDelta:
		id = ev.StepDelta.EventID
	case m.InteractionSSEEventTypeStepStop:
		id = ev.StepStop.EventID
	case m.InteractionSSEEventTypeInteractionCompleted:
		id = ev.InteractionCompletedEvent.EventID
	case m.InteractionSSEEventTypeError:
		id = ev.ErrorEvent.EventID
	}
	if id == nil {
		return ""
	}
	return *id
}

// describe names an event by its type and what it carries: "step.start google_search_call", "step.delta text",
// "interaction.status_update cancelled".
func describe(ev m.InteractionSSEEvent) string {
	switch ev.Type {
	case m.InteractionSSEEventTypeStepStart:
		return "step.start " + string(ev.StepStart.Step.Type)
	case m.InteractionSSEEventTypeStepDelta:
		return "step.delta " + string(ev.StepDelta.Delta.Type)
	case m.InteractionSSEEventTypeInteractionStatusUpdate:
		return "interaction.status_update " + string(ev.InteractionStatusUpdate.Status)
	}
	return string(ev.Type)
}

func describeAll(evs []m.InteractionSSEEvent) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = describe(ev)
	}
	return out
}

// checkIDs fails unless the events' ids count up by one from first.
func checkIDs(t *testing.T, evs []m.InteractionSSEEvent, first int) {
	t.Helper()
	for i, ev := range evs {
		if got, want := eventID(ev), strconv.Itoa(first+i); got != want {
			t.Fatalf("event %d (%s) has id %q, want %q", i, describe(ev), got, want)
		}
	}
}

// checkCitations fails unless annotations are the script's citations, each at the bytes of its text in report.
func checkCitations(t *testing.T, report string, annotations []m.Annotation, want []Citation) {
	t.Helper()
	if len(annotations) != len(want) {
		t.Fatalf("got %d annotations, want %d", len(annotations), len(want))
	}
	for i, a := range annotations {
		u := a.URLCitation
		if a.Type != m.AnnotationTypeURLCitation || u == nil || u.StartIndex == nil || u.EndIndex == nil || u.URL == nil {
			t.Fatalf("annotation %d is %+v, want a url_citation with offsets", i, a)
		}
		if got := report[*u.StartIndex:*u.EndIndex]; got != want[i].Text {
			t.Errorf("annotation %d cites %q, want %q", i, got, want[i].Text)
		}
		if *u.URL != want[i].URL {
			t.Errorf("annotation %d has URL %q, want %q", i, *u.URL, want[i].URL)
		}
		if got := deref(u.Title); got != want[i].Title {
			t.Errorf("annotation %d has title %q, want %q", i, got, want[i].Title)
		}
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func TestAgentStreamsReportWithCitations(t *testing.T) {
	run := tokyo
	run.Every = time.Millisecond // the stream waits for each step
	mock, c := agentStart(t, script(run))

	it := create(t, c, createRequest(false, ""))
	id := *it.ID
	if it.Status != m.InteractionStatusInProgress || deref(it.Agent) != m.AgentOptionDeepResearchPreview042026 {
		t.Errorf("create answered status %q agent %q, want in_progress and the agent", it.Status, deref(it.Agent))
	}
	if it.Created == nil || it.Updated == nil {
		t.Error("create answered no created or updated time")
	}

	evs, err := openStream(t, c, id, "").rest()
	if err != nil {
		t.Fatalf("stream ended with %v, want [DONE]", err)
	}
	want := []string{
		"interaction.created", "interaction.status_update in_progress",
		"step.start thought", "step.delta thought_summary", "step.stop",
		"step.start google_search_call", "step.stop", "step.start google_search_result", "step.stop",
		"step.start url_context_call", "step.stop", "step.start url_context_result", "step.stop",
		"step.start model_output", "step.delta text", "step.delta text", "step.delta text",
		"step.delta text_annotation_delta", "step.stop",
		"interaction.completed",
	}
	if got := describeAll(evs); !slices.Equal(got, want) {
		t.Fatalf("events:\n%q\nwant\n%q", got, want)
	}
	checkIDs(t, evs, 1)

	var text strings.Builder
	var annotations []m.Annotation
	for _, ev := range evs {
		switch {
		case ev.StepDelta != nil && ev.StepDelta.Delta.TextDelta != nil:
			text.WriteString(ev.StepDelta.Delta.TextDelta.Text)
		case ev.StepDelta != nil && ev.StepDelta.Delta.TextAnnotationDelta != nil:
			annotations = append(annotations, ev.StepDelta.Delta.TextAnnotationDelta.Annotations...)
		case ev.StepDelta != nil && ev.StepDelta.Delta.ThoughtSummaryDelta != nil:
			if got := ev.StepDelta.Delta.ThoughtSummaryDelta.Content.TextContent.Text; got != run.Steps[0].Thought {
				t.Errorf("thought summary %q, want %q", got, run.Steps[0].Thought)
			}
		case ev.StepStart != nil && ev.StepStart.Step.GoogleSearchCallStep != nil:
			if got := ev.StepStart.Step.GoogleSearchCallStep.Arguments.Queries; !slices.Equal(got, run.Steps[1].Search) {
				t.Errorf("search queries %q, want %q", got, run.Steps[1].Search)
			}
		case ev.StepStart != nil && ev.StepStart.Step.URLContextCallStep != nil:
			if got := ev.StepStart.Step.URLContextCallStep.Arguments.Urls; !slices.Equal(got, run.Steps[2].Read) {
				t.Errorf("pages read %q, want %q", got, run.Steps[2].Read)
			}
		}
	}
	if text.String() != run.Report {
		t.Fatalf("streamed text %q, want %q", text.String(), run.Report)
	}
	checkCitations(t, text.String(), annotations, run.Citations)
	done := evs[len(evs)-1].InteractionCompletedEvent.Interaction
	if done.ID != id || done.Status != m.InteractionSseEventInteractionStatusCompleted || done.Usage == nil {
		t.Errorf("interaction.completed carries %+v, want %s completed with usage", done, id)
	}

	// A get afterwards answers the whole interaction, its report with the same annotations.
	got := get(t, c, id)
	if got.Status != m.InteractionStatusCompleted || got.OutputText == nil || *got.OutputText != run.Report {
		t.Fatalf("get answered status %q output %q, want completed with the report", got.Status, deref(got.OutputText))
	}
	var types []string
	for _, st := range got.Steps {
		types = append(types, string(st.Type))
	}
	wantTypes := []string{"user_input", "thought", "google_search_call", "google_search_result",
		"url_context_call", "url_context_result", "model_output"}
	if !slices.Equal(types, wantTypes) {
		t.Errorf("steps %q, want %q", types, wantTypes)
	}
	report := got.Steps[len(got.Steps)-1].ModelOutputStep.Content[0].TextContent
	checkCitations(t, report.Text, report.Annotations, run.Citations)
	u := got.Usage
	if u == nil || deref(u.TotalTokens) == 0 || len(u.GroundingToolCount) != 1 || deref(u.GroundingToolCount[0].Count) != 2 {
		t.Errorf("usage %+v, want tokens and 2 google searches", u)
	}
	if status, ok := mock.Interaction(id); status != "completed" || !ok {
		t.Errorf("Interaction(%s) = %q, %v; want completed", id, status, ok)
	}

	// Every request is recorded, the key only as APIKey.
	reqs := mock.RequestsOf(KindAgent)
	var actions []string
	for _, r := range reqs {
		actions = append(actions, r.Action)
		if r.Interaction != id || !r.APIKey {
			t.Errorf("%s recorded interaction %q api key %v, want %s and true", r.Action, r.Interaction, r.APIKey, id)
		}
	}
	if !slices.Equal(actions, []string{"create", "stream", "get"}) {
		t.Errorf("recorded %q, want create, stream, get", actions)
	}
	first := reqs[0]
	if first.Prompt != agentPrompt || first.Model != string(m.AgentOptionDeepResearchPreview042026) || !reqs[1].Stream {
		t.Errorf("create recorded prompt %q model %q, want the input and the agent", first.Prompt, first.Model)
	}
	if !strings.Contains(string(first.Body), `"background":true`) || !strings.Contains(string(first.Body), `"collaborative_planning":false`) {
		t.Errorf("create recorded body %s, want background and agent_config", first.Body)
	}
	if !slices.Equal(first.BuiltinTools, []string{"google_search", "url_context"}) {
		t.Errorf("create recorded tools %q", first.BuiltinTools)
	}
	log, _ := json.Marshal(mock.Requests())
	if strings.Contains(string(log), sdkKey) {
		t.Error("the request log holds the API key")
	}
}

func TestAgentStreamResumesAfterDrop(t *testing.T) {
	run := tokyo
	run.DropAfter = 3
	mock, c := agentStart(t, script(run))
	id := *create(t, c, createRequest(false, "")).ID

	evs, err := openStream(t, c, id, "").rest()
	if err == nil || len(evs) != 3 {
		t.Fatalf("first stream: %d events, error %v; want 3 and an error (cut before [DONE])", len(evs), err)
	}
	all := evs
	for streams := 1; ; streams++ {
		if streams > 20 {
			t.Fatal("the stream never reached [DONE]")
		}
		last := eventID(all[len(all)-1])
		evs, err = openStream(t, c, id, last).rest()
		if len(evs) == 0 && err != nil {
			t.Fatalf("resumed after %s: no event, %v", last, err)
		}
		if len(evs) > 0 && eventID(evs[0]) != strconv.Itoa(len(all)+1) {
			t.Fatalf("resumed after %s: first event %s, want %d", last, eventID(evs[0]), len(all)+1)
		}
		all = append(all, evs...)
		if err == nil {
			break
		}
	}
	checkIDs(t, all, 1)
	if describe(all[len(all)-1]) != "interaction.completed" {
		t.Errorf("the last event is %s, want interaction.completed", describe(all[len(all)-1]))
	}
	var resumed []string
	for _, r := range mock.RequestsOf(KindAgent) {
		if r.Action == "stream" {
			resumed = append(resumed, r.LastEventID)
		}
	}
	if len(resumed) < 3 || resumed[0] != "" || resumed[1] != "3" || resumed[2] != "6" {
		t.Errorf("streams resumed after %q, want \"\", 3, 6, ...", resumed)
	}
}

func TestAgentCancelMidRun(t *testing.T) {
	run := tokyo
	run.Every = time.Hour // still at its first step when cancelled
	mock, c := agentStart(t, script(run))
	id := *create(t, c, createRequest(false, "")).ID

	st := openStream(t, c, id, "")
	for _, want := range []string{"interaction.created", "interaction.status_update in_progress"} {
		if ev, ok := st.next(); !ok || describe(ev) != want {
			t.Fatalf("got %s (%v), want %s", describe(ev), st.Err(), want)
		}
	}
	res, err := c.Interactions.Cancel(context.Background(), operations.CancelInteractionByIDRequest{ID: id})
	if err != nil {
		t.Fatalf("cancel: %v", err)
	}
	if res.Interaction == nil || res.Interaction.Status != m.InteractionStatusCancelled {
		t.Fatalf("cancel answered %+v, want status cancelled", res.Interaction)
	}
	evs, err := st.rest()
	if err != nil {
		t.Fatalf("the open stream ended with %v, want [DONE]", err)
	}
	if got := describeAll(evs); !slices.Equal(got, []string{"interaction.status_update cancelled"}) {
		t.Errorf("the open stream got %q after the cancel, want the status update", got)
	}
	checkIDs(t, evs, 3)

	got := get(t, c, id)
	if got.Status != m.InteractionStatusCancelled || len(got.Steps) != 1 || got.OutputText != nil {
		t.Errorf("get answered %q with %d steps, want cancelled with the input only", got.Status, len(got.Steps))
	}
	again, err := c.Interactions.Cancel(context.Background(), operations.CancelInteractionByIDRequest{ID: id})
	if err != nil || again.Interaction.Status != m.InteractionStatusCancelled {
		t.Errorf("second cancel: %v, want it unchanged", err)
	}
	if status, _ := mock.Interaction(id); status != "cancelled" {
		t.Errorf("Interaction(%s) = %q, want cancelled", id, status)
	}
	var cancels int
	for _, r := range mock.RequestsOf(KindAgent) {
		if r.Action == "cancel" && r.Interaction == id {
			cancels++
		}
	}
	if cancels != 2 {
		t.Errorf("recorded %d cancels of %s, want 2", cancels, id)
	}
}

func TestAgentCancelFinishedKeepsIt(t *testing.T) {
	_, c := agentStart(t, nil)
	id := *create(t, c, createRequest(false, "")).ID
	res, err := c.Interactions.Cancel(context.Background(), operations.CancelInteractionByIDRequest{ID: id})
	if err != nil || res.Interaction.Status != m.InteractionStatusCompleted || deref(res.Interaction.OutputText) != DefaultAgent.Report {
		t.Errorf("cancel of a finished run answered %v, %v; want it completed with its report", res, err)
	}
}

func TestAgentFails(t *testing.T) {
	for _, tc := range []struct{ name, code, wantCode string }{
		{"default code", "", "internal"},
		{"own code", "resource_exhausted", "resource_exhausted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := tokyo
			run.Fail, run.FailCode = "The agent could not finish the research.", tc.code
			_, c := agentStart(t, script(run))
			id := *create(t, c, createRequest(false, "")).ID

			evs, err := openStream(t, c, id, "").rest()
			if err != nil {
				t.Fatalf("stream ended with %v, want [DONE]", err)
			}
			tail := describeAll(evs[len(evs)-2:])
			if !slices.Equal(tail, []string{"error", "interaction.status_update failed"}) {
				t.Fatalf("the stream ends with %q, want the error and the failed status", tail)
			}
			if e := evs[len(evs)-2].ErrorEvent.Error; deref(e.Code) != tc.wantCode || deref(e.Message) != run.Fail {
				t.Errorf("error event %+v, want %s %q", e, tc.wantCode, run.Fail)
			}
			got := get(t, c, id)
			if got.Status != m.InteractionStatusFailed || len(got.Errors) != 1 ||
				deref(got.Errors[0].Code) != tc.wantCode || deref(got.Errors[0].Message) != run.Fail {
				t.Errorf("get answered %q errors %+v, want failed with the error", got.Status, got.Errors)
			}
			for _, st := range got.Steps {
				if st.Type == m.StepTypeModelOutput {
					t.Error("a failed run has a report")
				}
			}
		})
	}
}

func TestAgentPlanThenReport(t *testing.T) {
	run := tokyo
	run.Plan = "1. Search Tokyo's size.\n2. Read two sources.\n3. Write the report."
	mock, c := agentStart(t, script(run))

	planID := *create(t, c, createRequest(true, "")).ID
	plan := get(t, c, planID)
	if plan.Status != m.InteractionStatusCompleted || deref(plan.OutputText) != run.Plan || len(plan.Steps) != 2 {
		t.Fatalf("the planning run answered %q %q with %d steps, want completed with the plan alone",
			plan.Status, deref(plan.OutputText), len(plan.Steps))
	}

	id := *create(t, c, createRequest(false, planID)).ID
	got := get(t, c, id)
	if got.Status != m.InteractionStatusCompleted || deref(got.OutputText) != run.Report {
		t.Fatalf("the approved run answered %q %q, want the report", got.Status, deref(got.OutputText))
	}
	if deref(got.PreviousInteractionID) != planID {
		t.Errorf("previous_interaction_id %q, want %s", deref(got.PreviousInteractionID), planID)
	}
	creates := mock.RequestsOf(KindAgent)
	if body := string(creates[2].Body); !strings.Contains(body, `"previous_interaction_id":"`+planID+`"`) {
		t.Errorf("the second create recorded %s, want the plan's id", body)
	}

	// A follow-up of an interaction the mock does not know is refused.
	_, err := c.Interactions.Create(context.Background(), createRequest(false, "v1_unknown"))
	if status := httpStatus(err); status != http.StatusNotFound {
		t.Errorf("create after an unknown interaction: %v, want 404", err)
	}
}

// httpStatus is the HTTP status of an SDK error: a Google-shaped error body (numeric code) comes back as a
// ResponseValidationError.
func httpStatus(err error) int {
	var ve *apierrors.ResponseValidationError
	if errors.As(err, &ve) {
		return ve.StatusCode
	}
	return 0
}

func TestAgentCreateErrors(t *testing.T) {
	for _, tc := range []struct {
		name       string
		responder  Responder
		background *bool
		want       int
		message    string
	}{
		{"quota", Always(QuotaPerMinute("2s")), gi.Bool(true), 429, "exceeded your current quota"},
		{"invalid key", Always(InvalidKey()), gi.Bool(true), 400, "API key not valid"},
		{"foreground", nil, gi.Bool(false), 400, "agent interactions require background=true"},
		{"background unset", nil, nil, 400, "agent interactions require background=true"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mock, c := agentStart(t, tc.responder)
			req := createRequest(false, "")
			req.Body.CreateAgentInteraction.Background = tc.background
			_, err := c.Interactions.Create(context.Background(), req)
			var ve *apierrors.ResponseValidationError
			if !errors.As(err, &ve) || ve.StatusCode != tc.want || !strings.Contains(ve.Body, tc.message) {
				t.Fatalf("got %v, want HTTP %d with %q", err, tc.want, tc.message)
			}
			if _, ok := mock.Interaction("v1_1"); ok {
				t.Error("a refused create made an interaction")
			}
			if r := mock.RequestsOf(KindAgent); len(r) != 1 || r[0].Action != "create" || r[0].Interaction != "" {
				t.Errorf("recorded %+v, want one create without an interaction", r)
			}
		})
	}
}

func TestAgentUnknownAndDeleted(t *testing.T) {
	mock, c := agentStart(t, nil)
	id := *create(t, c, createRequest(false, "")).ID
	if _, err := c.Interactions.Delete(context.Background(), operations.DeleteInteractionRequest{ID: id}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, ok := mock.Interaction(id); ok {
		t.Error("the mock still knows the deleted interaction")
	}
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"get": func() error {
			_, err := c.Interactions.Get(ctx, operations.GetInteractionByIDRequest{ID: id})
			return err
		},
		"stream": func() error {
			_, err := c.Interactions.Get(ctx, operations.GetInteractionByIDRequest{ID: id, Stream: gi.Bool(true)})
			return err
		},
		"cancel": func() error {
			_, err := c.Interactions.Cancel(ctx, operations.CancelInteractionByIDRequest{ID: id})
			return err
		},
		"delete": func() error {
			_, err := c.Interactions.Delete(ctx, operations.DeleteInteractionRequest{ID: id})
			return err
		},
	} {
		if err := call(); httpStatus(err) != http.StatusNotFound {
			t.Errorf("%s of a deleted interaction: %v, want 404", name, err)
		}
	}
}

func TestAgentCloseEndsWaitingStream(t *testing.T) {
	run := tokyo
	run.Every = time.Hour
	mock, c := agentStart(t, script(run))
	id := *create(t, c, createRequest(false, "")).ID
	st := openStream(t, c, id, "")
	for range 2 {
		if _, ok := st.next(); !ok {
			t.Fatalf("stream ended early: %v", st.Err())
		}
	}
	mock.Close()
	if evs, err := st.rest(); len(evs) != 0 || err == nil {
		t.Errorf("after Close: %d events, error %v; want the stream cut", len(evs), err)
	}
}

func TestAgentDefaultScriptAndResumeOfFinished(t *testing.T) {
	_, c := agentStart(t, nil)
	id := *create(t, c, createRequest(false, "")).ID
	evs, err := openStream(t, c, id, "").rest()
	if err != nil || len(evs) < 4 {
		t.Fatalf("stream: %d events, %v", len(evs), err)
	}
	got := get(t, c, id)
	report := got.Steps[len(got.Steps)-1].ModelOutputStep.Content[0].TextContent
	if report.Text != DefaultAgent.Report {
		t.Errorf("report %q, want DefaultAgent's", report.Text)
	}
	checkCitations(t, report.Text, report.Annotations, DefaultAgent.Citations)

	// A stream resumed near the end of a finished run sends what remains, then [DONE].
	last := strconv.Itoa(len(evs) - 1)
	rest, err := openStream(t, c, id, last).rest()
	if err != nil || len(rest) != 1 || describe(rest[0]) != "interaction.completed" {
		t.Errorf("resumed after %s: %q, %v; want interaction.completed and [DONE]", last, describeAll(rest), err)
	}
}

func TestAgentCreateStreams(t *testing.T) {
	mock, c := agentStart(t, script(tokyo))
	req := createRequest(false, "")
	req.Body.CreateAgentInteraction.Stream = gi.Bool(true)
	res, err := c.Interactions.Create(context.Background(), req)
	if err != nil || res.InteractionSSEStreamEvent == nil {
		t.Fatalf("create with stream: %v, want an event stream", err)
	}
	defer res.InteractionSSEStreamEvent.Close()
	evs, err := (&eventStream{res.InteractionSSEStreamEvent}).rest()
	if err != nil || len(evs) == 0 {
		t.Fatalf("stream: %d events, %v; want them all and [DONE]", len(evs), err)
	}
	checkIDs(t, evs, 1)
	id := evs[0].InteractionCreatedEvent.Interaction.ID
	if describe(evs[len(evs)-1]) != "interaction.completed" || mock.RequestsOf(KindAgent)[0].Interaction != id {
		t.Errorf("the stream of %s ends with %s, want interaction.completed", id, describe(evs[len(evs)-1]))
	}
}
