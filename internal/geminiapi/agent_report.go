package geminiapi

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	m "google.golang.org/genai/interactions/models/interactions"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// watcher turns the events of a Deep Research run into the request's events, and keeps the run's last event.
type watcher struct {
	req backend.AgentRequest
	run *backend.AgentRun
}

// event takes one event of the run's stream.
func (w *watcher) event(ev m.InteractionSSEEvent) {
	switch {
	case ev.StepStart != nil:
		w.step(ev.StepStart.Step)
	case ev.StepDelta != nil:
		w.delta(ev.StepDelta.Delta)
	}
	if id := eventID(ev); id != "" {
		w.run.LastEvent = id
		if w.req.Followed != nil {
			w.req.Followed(*w.run)
		}
	}
}

// step tells of a step that begins: its content, when it comes with it.
func (w *watcher) step(s m.Step) {
	switch {
	case s.ThoughtStep != nil:
		for _, c := range s.ThoughtStep.Summary {
			if c.TextContent != nil {
				w.tell(backend.Event{Kind: backend.EventThought, Text: c.TextContent.Text})
			}
		}
	case s.GoogleSearchCallStep != nil:
		w.searches(s.GoogleSearchCallStep.Arguments.Queries)
	case s.URLContextCallStep != nil:
		w.reads(s.URLContextCallStep.Arguments.Urls)
	case s.ModelOutputStep != nil:
		w.tell(backend.Event{Kind: backend.EventText, Text: text(s.ModelOutputStep.Content)})
	}
}

// delta tells of what a step adds as it goes.
func (w *watcher) delta(d m.StepDeltaData) {
	switch {
	case d.ThoughtSummaryDelta != nil && d.ThoughtSummaryDelta.Content != nil && d.ThoughtSummaryDelta.Content.TextContent != nil:
		w.tell(backend.Event{Kind: backend.EventThought, Text: d.ThoughtSummaryDelta.Content.TextContent.Text})
	case d.GoogleSearchCallDelta != nil:
		w.searches(d.GoogleSearchCallDelta.Arguments.Queries)
	case d.URLContextCallDelta != nil:
		w.reads(d.URLContextCallDelta.Arguments.Urls)
	case d.TextDelta != nil:
		w.tell(backend.Event{Kind: backend.EventText, Text: d.TextDelta.Text})
	case d.UnknownRaw != nil:
		// The public docs of the agent show a delta of type thought with its text, which this SDK does not know.
		var thought struct{ Type, Text string }
		if json.Unmarshal(d.UnknownRaw, &thought) == nil && thought.Type == "thought" && thought.Text != "" {
			w.tell(backend.Event{Kind: backend.EventThought, Text: thought.Text})
		}
	}
}

func (w *watcher) searches(queries []string) {
	for _, q := range queries {
		w.tell(backend.Event{Kind: backend.EventSearch, Tool: "google_search", Query: q})
	}
}

func (w *watcher) reads(urls []string) {
	for _, u := range urls {
		w.tell(backend.Event{Kind: backend.EventFetch, Tool: "url_context", URL: u})
	}
}

func (w *watcher) tell(ev backend.Event) {
	if w.req.Events != nil {
		w.req.Events(ev)
	}
}

// eventID is the id a stream can be opened again after ev with; "" for an event without one.
func eventID(ev m.InteractionSSEEvent) string {
	var id *string
	switch {
	case ev.StepStart != nil:
		id = ev.StepStart.EventID
	case ev.StepDelta != nil:
		id = ev.StepDelta.EventID
	case ev.StepStop != nil:
		id = ev.StepStop.EventID
	case ev.InteractionCreatedEvent != nil:
		id = ev.InteractionCreatedEvent.EventID
	case ev.InteractionStatusUpdate != nil:
		id = ev.InteractionStatusUpdate.EventID
	case ev.InteractionCompletedEvent != nil:
		id = ev.InteractionCompletedEvent.EventID
	case ev.ErrorEvent != nil:
		id = ev.ErrorEvent.EventID
	}
	return deref(id)
}

// text is the text of contents, joined.
func text(contents []m.Content) string {
	var b strings.Builder
	for _, c := range contents {
		if c.TextContent != nil {
			b.WriteString(c.TextContent.Text)
		}
	}
	return b.String()
}

// report is what a run that ended produced: the text of the model's output after the last input (its texts
// separated by blank lines), with its url_citation annotations as Grounding (sources numbered in the order the
// report first cites them), the searches it ran and the pages it read. A citation's offsets are UTF-8 byte offsets
// within its text; an offset inside a character is moved to that character's start, and a citation outside its
// text is dropped.
func report(done *m.Interaction) backend.Result {
	res := backend.Result{Backend: backend.GoogleAgent, Model: string(deref(done.Agent))}
	type segment struct {
		at    int // where it starts in the report
		text  string
		url   string
		title string
	}
	var (
		b        strings.Builder
		segments []segment
	)
	for _, s := range afterLastInput(done.Steps) {
		switch {
		case s.GoogleSearchCallStep != nil:
			res.Queries = appendNew(res.Queries, s.GoogleSearchCallStep.Arguments.Queries...)
		case s.URLContextCallStep != nil:
			res.URLs = appendNew(res.URLs, s.URLContextCallStep.Arguments.Urls...)
		case s.ModelOutputStep != nil:
			for _, c := range s.ModelOutputStep.Content {
				t := c.TextContent
				if t == nil || strings.TrimSpace(t.Text) == "" {
					continue
				}
				if b.Len() > 0 {
					b.WriteString("\n\n")
				}
				for _, an := range t.Annotations {
					u := an.URLCitation
					if u == nil || u.URL == nil || !backend.WebURL(*u.URL) || u.StartIndex == nil || u.EndIndex == nil {
						continue
					}
					start, end := *u.StartIndex, *u.EndIndex
					if start < 0 || start >= end || end > len(t.Text) {
						continue
					}
					start, end = runeBack(t.Text, start), runeBack(t.Text, end)
					if seg := strings.TrimSpace(t.Text[start:end]); seg != "" {
						segments = append(segments, segment{at: b.Len() + start, text: seg, url: *u.URL,
							title: deref(u.Title)})
					}
				}
				b.WriteString(t.Text)
			}
		}
	}
	res.Text = strings.TrimSpace(b.String())
	res.Usage = usage(done.Usage)

	slices.SortStableFunc(segments, func(x, y segment) int { return cmp.Compare(x.at, y.at) })
	g := &backend.Grounding{Queries: res.Queries[:min(len(res.Queries), backend.MaxQueries)]}
	number := map[string]int{}
	lastAt := -1 // where the last citation starts
	for _, seg := range segments {
		n, ok := number[seg.url]
		if !ok {
			if len(g.Sources) == maxAgentSources {
				continue
			}
			g.Sources = append(g.Sources, backend.Source{URL: seg.url, Title: cmp.Or(seg.title, seg.url)})
			n = len(g.Sources)
			number[seg.url] = n
			res.URLs = appendNew(res.URLs, seg.url)
		}
		// A segment several sources support is one citation: the engine looks for each after the one before.
		if last := len(g.Citations) - 1; last >= 0 && seg.at == lastAt && seg.text == g.Citations[last].Text {
			if c := &g.Citations[last]; !slices.Contains(c.Sources, n) {
				c.Sources = append(c.Sources, n)
				slices.Sort(c.Sources)
			}
			continue
		}
		g.Citations = append(g.Citations, backend.Citation{Text: strings.Clone(seg.text), Sources: []int{n}})
		lastAt = seg.at
	}
	res.Grounding = g
	return res
}

// usage is u as a backend.Usage; nil for none.
func usage(u *m.Usage) *backend.Usage {
	if u == nil {
		return nil
	}
	out := &backend.Usage{InputTokens: deref(u.TotalInputTokens), OutputTokens: deref(u.TotalOutputTokens),
		ThoughtTokens: deref(u.TotalThoughtTokens), TotalTokens: deref(u.TotalTokens)}
	for _, g := range u.GroundingToolCount {
		if g.Type != nil && *g.Type == m.GroundingToolCountTypeGoogleSearch {
			out.Searches += deref(g.Count)
		}
	}
	return out
}

// afterLastInput are the steps after the last user input: the run's own, not those of the runs it continues.
func afterLastInput(steps []m.Step) []m.Step {
	for i := len(steps) - 1; i >= 0; i-- {
		if steps[i].UserInputStep != nil {
			return steps[i+1:]
		}
	}
	return steps
}

// appendNew appends each of items not in list yet, trimmed, skipping blanks.
func appendNew(list []string, items ...string) []string {
	for _, s := range items {
		if s = strings.TrimSpace(s); s != "" && !slices.Contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// runeBack moves i back to the start of the character it is in.
func runeBack(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}
