package mockgemini

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// agentPath is the Interactions API's collection; an interaction is agentPath/{id}.
const agentPath = "/v1beta/interactions"

// AgentScript is what the mock's Deep Research agent does in one interaction, step by step, in the time it is given.
// Time runs from the create: step i happens at Every×(i+1), the report (or the failure) at Every×(len(Steps)+1).
type AgentScript struct {
	Steps []AgentStep // in order, before the report
	// Every is the pause before each step and before the report; 0 runs the whole interaction at its create.
	Every     time.Duration
	Report    string     // the model_output text: the report
	Citations []Citation // its url_citation annotations, in order
	// Fail, when set, ends the interaction "failed" after the steps, with errors [{code: FailCode ("internal" when
	// empty), message: Fail}] and no report.
	Fail     string
	FailCode string
	// Plan answers a create whose agent_config has collaborative_planning true: the interaction completes at once with
	// Plan as its model_output text, and nothing else runs. A later create with previous_interaction_id set to it and
	// collaborative_planning false or absent runs the script. Empty: the agent does not plan.
	Plan string
	// DropAfter > 0 cuts every stream of the interaction (the connection closed without [DONE]) after it sent that
	// many events, so a client has to resume with last_event_id.
	DropAfter int
	// Usage is the completed interaction's usage; the zero value gives plausible numbers, with one google_search
	// grounding count per query. A Total of 0 is the sum of the others.
	Usage AgentUsage
}

// AgentStep is one step of the agent: a thought summary, a Google Search with its queries (a google_search_call and
// its google_search_result) and pages read (a url_context_call and its url_context_result), each when set, in that
// order and all at the same time.
type AgentStep struct {
	Thought string
	Search  []string
	Read    []string
}

// Citation is one url_citation annotation of the report. Text is the part of the report it cites: its first
// occurrence at or after the end of the previous citation's, else its first occurrence; start_index and end_index are
// its UTF-8 byte offsets, the end exclusive.
type Citation struct {
	URL, Title, Text string
}

// AgentUsage is the usage of a completed interaction, in tokens, and its Google searches (grounding_tool_count).
type AgentUsage struct {
	Input, Output, Thought, Total, Searches int
}

// DefaultAgent is the script of a create whose Reply has no Agent: a short successful run (a thought, a search,
// a page read) whose report cites DefaultSources twice. Its Plan answers collaborative planning.
var DefaultAgent = AgentScript{
	Steps: []AgentStep{
		{Thought: "Planning the searches on the topic."},
		{Search: []string{"mock research topic"}},
		{Read: []string{DefaultSources[0].URI}},
	},
	Report: "Mock report: the topic is covered by two sources. The first source describes it. The second source confirms it.",
	Citations: []Citation{
		{URL: DefaultSources[0].URI, Title: DefaultSources[0].Title, Text: "The first source describes it."},
		{URL: DefaultSources[1].URI, Title: DefaultSources[1].Title, Text: "The second source confirms it."},
	},
	Plan: "1. Search for recent sources on the topic.\n2. Read the most relevant pages.\n3. Write a cited report.",
}

// Interaction returns the status an interaction has now ("in_progress", "completed", "failed", "cancelled"), and
// false when there is no such interaction (never created, or deleted).
func (s *Server) Interaction(id string) (status string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it := s.interactions[id]
	if it == nil {
		return "", false
	}
	return it.status(it.happened(time.Now())), true
}

// interaction is one run of the agent. Its whole timeline is written at the create; each milestone takes effect
// at its time, so a get, a stream or a cancel sees what has happened by then. A cancel cuts the milestones still to
// come and adds its own. The Server's lock guards it.
type interaction struct {
	id, agent, previous string
	created             time.Time
	dropAfter           int
	milestones          []milestone   // in time order; the first is the create
	changed             chan struct{} // closed when a cancel or delete changes the timeline: wakes the streams
	deleted             bool
}

// milestone is what happens at one time: the events a stream sends, the steps it adds, the status from then on.
type milestone struct {
	at     time.Time
	status string // "" keeps the previous one
	steps  []any
	events []sseEvent
	usage  map[string]any // of a completed interaction
	errors []any          // of a failed one
}

// sseEvent is one server-sent event, its data holding event_type and event_id.
type sseEvent struct {
	name string
	data []byte
}

// happened returns how many milestones have taken effect at now.
func (it *interaction) happened(now time.Time) int {
	n := 0
	for n < len(it.milestones) && !it.milestones[n].at.After(now) {
		n++
	}
	return n
}

// status is the interaction's status after its first n milestones.
func (it *interaction) status(n int) string {
	status := "in_progress"
	for _, m := range it.milestones[:n] {
		status = cmpOr(m.status, status)
	}
	return status
}

// events returns the events of the first n milestones, in order: event i has the id i+1.
func (it *interaction) events(n int) []sseEvent {
	var out []sseEvent
	for _, m := range it.milestones[:n] {
		out = append(out, m.events...)
	}
	return out
}

// view is the Interaction a get answers after the first n milestones.
func (it *interaction) view(n int) map[string]any {
	steps := []any{}
	var usage map[string]any
	var errs []any
	for _, m := range it.milestones[:n] {
		steps = append(steps, m.steps...)
		usage = cmpOrMap(m.usage, usage)
		if m.errors != nil {
			errs = m.errors
		}
	}
	v := it.brief(it.status(n), it.milestones[n-1].at, usage)
	v["steps"] = steps
	if errs != nil {
		v["errors"] = errs
	}
	if it.previous != "" {
		v["previous_interaction_id"] = it.previous
	}
	return v
}

// brief is the Interaction as the interaction.created and interaction.completed events carry it: without steps.
func (it *interaction) brief(status string, updated time.Time, usage map[string]any) map[string]any {
	v := map[string]any{
		"id": it.id, "object": "interaction", "status": status, "agent": it.agent,
		"created": timestamp(it.created), "updated": timestamp(updated),
	}
	if usage != nil {
		v["usage"] = usage
	}
	return v
}

// cancel ends a running interaction at now: "cancelled", the milestones still to come dropped. A finished one stays
// as it is.
func (it *interaction) cancel(now time.Time) {
	n := it.happened(now)
	if n == len(it.milestones) {
		return
	}
	it.milestones = it.milestones[:n:n]
	w := &timelineWriter{it: it, events: len(it.events(n))}
	w.at(now, "cancelled")
	w.statusUpdate("cancelled")
	it.wake()
}

// wake tells the interaction's streams that its timeline changed.
func (it *interaction) wake() {
	close(it.changed)
	it.changed = make(chan struct{})
}

// newInteraction writes the timeline of an interaction that runs script from now. prompt is the create's input,
// planning its agent_config.collaborative_planning.
func newInteraction(id, agent, previous, prompt string, planning bool, script AgentScript, now time.Time) (*interaction, error) {
	annotations, err := locateCitations(script.Report, script.Citations)
	if err != nil {
		return nil, err
	}
	it := &interaction{
		id: id, agent: agent, previous: previous, created: now,
		dropAfter: script.DropAfter, changed: make(chan struct{}),
	}
	w := &timelineWriter{it: it}
	w.at(now, "in_progress")
	if prompt != "" {
		w.last().steps = append(w.last().steps, map[string]any{
			"type": "user_input", "content": []any{map[string]any{"type": "text", "text": prompt}},
		})
	}
	w.event("interaction.created", map[string]any{"interaction": it.brief("in_progress", now, nil)})
	w.statusUpdate("in_progress")
	if planning && script.Plan != "" {
		w.at(now, "")
		w.output(script.Plan, nil)
		w.complete(defaultUsage(0, script.Plan, 0))
		return it, nil
	}
	every := max(script.Every, 0)
	for i, step := range script.Steps {
		w.at(now.Add(time.Duration(i+1)*every), "")
		if step.Thought != "" {
			w.thought(step.Thought)
		}
		if len(step.Search) > 0 {
			w.search(step.Search)
		}
		if len(step.Read) > 0 {
			w.read(step.Read)
		}
	}
	w.at(now.Add(time.Duration(len(script.Steps)+1)*every), "")
	if script.Fail != "" {
		w.fail(cmpOr(script.FailCode, "internal"), script.Fail)
		return it, nil
	}
	w.output(script.Report, annotations)
	w.complete(script.usage())
	return it, nil
}

// timelineWriter appends milestones to an interaction, and events and steps to its last milestone.
type timelineWriter struct {
	it     *interaction
	events int // events written so far: the id of the last one
	index  int // the stream index of the next output step (the user's input has none)
	calls  int // tool calls so far, for their ids
}

func (w *timelineWriter) at(t time.Time, status string) {
	w.it.milestones = append(w.it.milestones, milestone{at: t, status: status})
}

func (w *timelineWriter) last() *milestone { return &w.it.milestones[len(w.it.milestones)-1] }

func (w *timelineWriter) event(name string, fields map[string]any) {
	w.events++
	fields["event_type"] = name
	fields["event_id"] = strconv.Itoa(w.events)
	data, err := json.Marshal(fields)
	if err != nil {
		panic(fmt.Sprintf("mockgemini: encode %s event: %v", name, err)) // only plain values go in
	}
	w.last().events = append(w.last().events, sseEvent{name: name, data: data})
}

func (w *timelineWriter) statusUpdate(status string) {
	w.event("interaction.status_update", map[string]any{"interaction_id": w.it.id, "status": status})
}

// step adds one output step: a get shows full, a stream sends step.start carrying start, the deltas, step.stop.
func (w *timelineWriter) step(full, start map[string]any, deltas ...map[string]any) {
	w.last().steps = append(w.last().steps, full)
	w.event("step.start", map[string]any{"index": w.index, "step": start})
	for _, d := range deltas {
		w.event("step.delta", map[string]any{"index": w.index, "delta": d})
	}
	w.event("step.stop", map[string]any{"index": w.index})
	w.index++
}

func (w *timelineWriter) thought(text string) {
	summary := map[string]any{"type": "text", "text": text}
	w.step(map[string]any{"type": "thought", "summary": []any{summary}}, map[string]any{"type": "thought"},
		map[string]any{"type": "thought_summary", "content": summary})
}

// search adds a google_search_call and its result; the call's step.start carries the queries.
func (w *timelineWriter) search(queries []string) {
	id := w.callID()
	call := map[string]any{"type": "google_search_call", "id": id, "arguments": map[string]any{"queries": queries}}
	w.step(call, call)
	suggestions := `<div class="mock-search-suggestions">` + strings.Join(queries, " | ") + `</div>`
	result := map[string]any{"type": "google_search_result", "call_id": id,
		"result": []any{map[string]any{"search_suggestions": suggestions}}}
	w.step(result, result)
}

// read adds a url_context_call and its result, every page retrieved; the call's step.start carries the URLs.
func (w *timelineWriter) read(urls []string) {
	id := w.callID()
	call := map[string]any{"type": "url_context_call", "id": id, "arguments": map[string]any{"urls": urls}}
	w.step(call, call)
	pages := make([]any, len(urls))
	for i, u := range urls {
		pages[i] = map[string]any{"url": u, "status": "success"}
	}
	result := map[string]any{"type": "url_context_result", "call_id": id, "result": pages}
	w.step(result, result)
}

func (w *timelineWriter) callID() string {
	w.calls++
	return fmt.Sprintf("call_%d", w.calls)
}

// output adds the model_output step: its text in a few text deltas cut at spaces, then one text_annotation_delta
// with every annotation.
func (w *timelineWriter) output(text string, annotations []any) {
	content := map[string]any{"type": "text", "text": text}
	var deltas []map[string]any
	for _, piece := range split(text, 3) {
		if piece != "" {
			deltas = append(deltas, map[string]any{"type": "text", "text": piece})
		}
	}
	if len(annotations) > 0 {
		content["annotations"] = annotations
		deltas = append(deltas, map[string]any{"type": "text_annotation_delta", "annotations": annotations})
	}
	w.step(map[string]any{"type": "model_output", "content": []any{content}}, map[string]any{"type": "model_output"}, deltas...)
}

func (w *timelineWriter) complete(u AgentUsage) {
	m := w.last()
	m.status, m.usage = "completed", u.wire()
	w.event("interaction.completed", map[string]any{"interaction": w.it.brief("completed", m.at, m.usage)})
}

func (w *timelineWriter) fail(code, message string) {
	e := map[string]any{"code": code, "message": message}
	m := w.last()
	m.status, m.errors = "failed", []any{e}
	w.event("error", map[string]any{"error": e})
	w.statusUpdate("failed")
}

// locateCitations returns the url_citation annotations of report (see Citation).
func locateCitations(report string, cites []Citation) ([]any, error) {
	var out []any
	from := 0
	for _, c := range cites {
		if c.Text == "" {
			return nil, fmt.Errorf("mockgemini: the citation of %s cites no text", c.URL)
		}
		start := strings.Index(report[from:], c.Text)
		if start >= 0 {
			start += from
		} else if start = strings.Index(report, c.Text); start < 0 {
			return nil, fmt.Errorf("mockgemini: the citation %q is not in the report", c.Text)
		}
		a := map[string]any{"type": "url_citation", "url": c.URL, "start_index": start, "end_index": start + len(c.Text)}
		if c.Title != "" {
			a["title"] = c.Title
		}
		out = append(out, a)
		from = start + len(c.Text)
	}
	return out, nil
}

// usage is the script's Usage, or plausible numbers for it.
func (sc AgentScript) usage() AgentUsage {
	if sc.Usage == (AgentUsage{}) {
		searches := 0
		for _, st := range sc.Steps {
			searches += len(st.Search)
		}
		return defaultUsage(len(sc.Steps), sc.Report, searches)
	}
	u := sc.Usage
	if u.Total == 0 {
		u.Total = u.Input + u.Output + u.Thought
	}
	return u
}

func defaultUsage(steps int, text string, searches int) AgentUsage {
	u := AgentUsage{Input: 20000 * (steps + 1), Output: len(text)/4 + 1, Thought: 1000 * (steps + 1), Searches: searches}
	u.Total = u.Input + u.Output + u.Thought
	return u
}

func (u AgentUsage) wire() map[string]any {
	v := map[string]any{
		"total_input_tokens": u.Input, "total_output_tokens": u.Output,
		"total_thought_tokens": u.Thought, "total_tokens": u.Total,
	}
	if u.Searches > 0 {
		v["grounding_tool_count"] = []any{map[string]any{"type": "google_search", "count": u.Searches}}
	}
	return v
}

// summary describes the script in a few words for the request log.
func (sc AgentScript) summary(planning bool) string {
	if planning && sc.Plan != "" {
		return fmt.Sprintf("plan %q", shorten(sc.Plan, 60))
	}
	parts := []string{fmt.Sprintf("%d steps", len(sc.Steps))}
	if sc.Every > 0 {
		parts = append(parts, "every "+sc.Every.String())
	}
	if sc.Fail != "" {
		parts = append(parts, fmt.Sprintf("fails %q", shorten(sc.Fail, 60)))
	} else {
		parts = append(parts, fmt.Sprintf("report %q with %d citations", shorten(sc.Report, 60), len(sc.Citations)))
	}
	if sc.DropAfter > 0 {
		parts = append(parts, fmt.Sprintf("streams cut after %d events", sc.DropAfter))
	}
	return strings.Join(parts, ", ")
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func cmpOrMap(a, b map[string]any) map[string]any {
	if a != nil {
		return a
	}
	return b
}

func isAgentPath(path string) bool {
	return path == agentPath || strings.HasPrefix(path, agentPath+"/")
}

// agentCreate is the part of a create's body the mock reads.
type agentCreate struct {
	Agent       string          `json:"agent"`
	Input       json.RawMessage `json:"input"`
	Background  *bool           `json:"background"`
	Stream      bool            `json:"stream"`
	Previous    string          `json:"previous_interaction_id"`
	AgentConfig struct {
		CollaborativePlanning bool `json:"collaborative_planning"`
	} `json:"agent_config"`
	Tools []struct {
		Type string `json:"type"`
	} `json:"tools"`
}

// inputText returns a create's input as text: the string itself, else its text parts joined by newlines.
func inputText(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var texts []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			texts = append(texts, v)
		case []any:
			for _, item := range v {
				walk(item)
			}
		case map[string]any:
			if text, ok := v["text"].(string); ok {
				texts = append(texts, text)
			}
			walk(v["content"])
		}
	}
	walk(v)
	return strings.Join(texts, "\n")
}

// serveAgent answers a request of the Interactions API and records it as KindAgent.
func (s *Server) serveAgent(w http.ResponseWriter, hr *http.Request, body []byte) {
	req, _ := parseRequest(hr, body)
	req.Kind, req.Prompt = KindAgent, ""
	rest := strings.TrimPrefix(strings.TrimPrefix(hr.URL.Path, agentPath), "/")
	id, cancel := strings.CutSuffix(rest, "/cancel")
	switch {
	case rest == "" && hr.Method == http.MethodPost:
		s.createInteraction(w, hr, req, body)
	case strings.Contains(id, "/") || id == "":
		seq := s.record(req)
		s.answerError(w, seq, Error(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("mockgemini: no such endpoint %s %s", hr.Method, hr.URL.Path)))
	case cancel && hr.Method == http.MethodPost:
		req.Action, req.Interaction = "cancel", id
		s.cancelInteraction(w, s.record(req), id)
	case !cancel && hr.Method == http.MethodGet:
		s.getInteraction(w, hr, req, id)
	case !cancel && hr.Method == http.MethodDelete:
		req.Action, req.Interaction = "delete", id
		s.deleteInteraction(w, s.record(req), id)
	default:
		seq := s.record(req)
		s.answerError(w, seq, Error(http.StatusMethodNotAllowed, "INVALID_ARGUMENT", fmt.Sprintf("mockgemini: %s is not allowed on %s", hr.Method, hr.URL.Path)))
	}
}

func (s *Server) createInteraction(w http.ResponseWriter, hr *http.Request, req Request, body []byte) {
	var c agentCreate
	decodeErr := json.Unmarshal(body, &c)
	req.Action, req.Model, req.Prompt, req.Stream = "create", c.Agent, inputText(c.Input), c.Stream
	req.BuiltinTools = nil
	for _, t := range c.Tools {
		req.BuiltinTools = append(req.BuiltinTools, t.Type)
	}
	seq := s.record(req)
	switch {
	case decodeErr != nil:
		s.answerError(w, seq, Error(http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received: "+decodeErr.Error()))
		return
	case c.Agent == "":
		s.answerError(w, seq, Error(http.StatusBadRequest, "INVALID_ARGUMENT", "agent is required: the mock serves agent interactions only"))
		return
	case c.Background == nil || !*c.Background:
		s.answerError(w, seq, Error(http.StatusBadRequest, "INVALID_ARGUMENT", "agent interactions require background=true"))
		return
	}

	s.mu.Lock()
	respond := s.responders[KindAgent]
	s.mu.Unlock()
	rep := respond(&req)
	s.setReply(seq, rep.summary())
	if !s.hold(hr, rep) {
		return
	}
	if rep.Status >= 400 {
		writeJSON(w, rep.Status, map[string]any{"error": rep.Error})
		return
	}
	script := DefaultAgent
	if rep.Agent != nil {
		script = *rep.Agent
	}

	s.mu.Lock()
	if c.Previous != "" && s.interactions[c.Previous] == nil {
		s.mu.Unlock()
		s.answerError(w, seq, notFound(c.Previous))
		return
	}
	s.interactionSeq++
	id := fmt.Sprintf("v1_%d", s.interactionSeq)
	it, err := newInteraction(id, c.Agent, c.Previous, req.Prompt, c.AgentConfig.CollaborativePlanning, script, time.Now())
	if err != nil {
		s.mu.Unlock()
		s.answerError(w, seq, Error(http.StatusInternalServerError, "INTERNAL", err.Error()))
		return
	}
	s.interactions[id] = it
	created := it.view(1)
	s.requests[seq-1].Interaction = id
	s.requests[seq-1].Reply = "interaction " + id + ": " + script.summary(c.AgentConfig.CollaborativePlanning)
	if rep.Delay > 0 {
		s.requests[seq-1].Reply += ", after " + rep.Delay.String()
	}
	s.mu.Unlock()

	if c.Stream {
		s.streamInteraction(w, hr, it, 0)
		return
	}
	writeJSON(w, http.StatusOK, created)
}

func (s *Server) getInteraction(w http.ResponseWriter, hr *http.Request, req Request, id string) {
	q := hr.URL.Query()
	req.Interaction, req.Stream, req.LastEventID = id, q.Get("stream") == "true", q.Get("last_event_id")
	req.Action = "get"
	if req.Stream {
		req.Action = "stream"
	}
	seq := s.record(req)

	s.mu.Lock()
	it := s.interactions[id]
	var view map[string]any
	var events int
	if it != nil {
		n := it.happened(time.Now())
		view, events = it.view(n), len(it.events(n))
	}
	s.mu.Unlock()
	if it == nil {
		s.answerError(w, seq, notFound(id))
		return
	}
	if !req.Stream {
		if req.LastEventID != "" {
			s.answerError(w, seq, Error(http.StatusBadRequest, "INVALID_ARGUMENT", "last_event_id can only be used with stream=true"))
			return
		}
		s.setReply(seq, view["status"].(string))
		writeJSON(w, http.StatusOK, view)
		return
	}
	after := 0
	if req.LastEventID != "" {
		var err error
		if after, err = strconv.Atoi(req.LastEventID); err != nil || after < 1 || after > events {
			s.answerError(w, seq, Error(http.StatusBadRequest, "INVALID_ARGUMENT", fmt.Sprintf("unknown last_event_id %q", req.LastEventID)))
			return
		}
	}
	s.setReply(seq, fmt.Sprintf("stream after event %d", after))
	s.streamInteraction(w, hr, it, after)
}

// streamInteraction answers as server-sent events: the interaction's events after the first after ones, those that
// happened at once, the others as they happen, then [DONE] once it has finished. The stream ends early, without
// [DONE], when the script's DropAfter events were sent, the interaction is deleted, the client leaves or the mock
// closes.
func (s *Server) streamInteraction(w http.ResponseWriter, hr *http.Request, it *interaction, after int) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	sent := 0
	for {
		s.mu.Lock()
		n := it.happened(time.Now())
		events, finished, deleted, changed := it.events(n), n == len(it.milestones), it.deleted, it.changed
		var next time.Time
		if !finished {
			next = it.milestones[n].at
		}
		s.mu.Unlock()
		if deleted {
			return
		}
		for _, e := range events[after:] {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", e.name, e.data)
			after++
			sent++
			if it.dropAfter > 0 && sent == it.dropAfter {
				flush()
				return
			}
		}
		if finished {
			fmt.Fprint(w, "event: done\ndata: [DONE]\n\n")
			flush()
			return
		}
		flush()
		timer := time.NewTimer(time.Until(next))
		select {
		case <-timer.C:
		case <-changed:
		case <-hr.Context().Done():
		case <-s.closed:
		}
		timer.Stop()
		if hr.Context().Err() != nil || isClosed(s.closed) {
			return
		}
	}
}

func (s *Server) cancelInteraction(w http.ResponseWriter, seq int, id string) {
	now := time.Now()
	s.mu.Lock()
	it := s.interactions[id]
	var view map[string]any
	if it != nil {
		it.cancel(now)
		view = it.view(it.happened(now))
	}
	s.mu.Unlock()
	if it == nil {
		s.answerError(w, seq, notFound(id))
		return
	}
	s.setReply(seq, view["status"].(string))
	writeJSON(w, http.StatusOK, view)
}

func (s *Server) deleteInteraction(w http.ResponseWriter, seq int, id string) {
	s.mu.Lock()
	it := s.interactions[id]
	if it != nil {
		delete(s.interactions, id)
		it.deleted = true
		it.wake()
	}
	s.mu.Unlock()
	if it == nil {
		s.answerError(w, seq, notFound(id))
		return
	}
	s.setReply(seq, "deleted")
	writeJSON(w, http.StatusOK, map[string]any{})
}

func notFound(id string) Reply {
	return Error(http.StatusNotFound, "NOT_FOUND", fmt.Sprintf("Interaction %s not found.", id))
}

// record appends a request to the log and returns its Seq.
func (s *Server) record(req Request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	req.Seq = len(s.requests) + 1
	s.requests = append(s.requests, req)
	return req.Seq
}

// answerError answers with an error reply, Google's shape, and logs it as the request's reply.
func (s *Server) answerError(w http.ResponseWriter, seq int, rep Reply) {
	s.setReply(seq, rep.summary()+": "+rep.Error.Message)
	writeJSON(w, rep.Status, map[string]any{"error": rep.Error})
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
