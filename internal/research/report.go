package research

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// builder assembles a Report from the rounds of one request: the report text of the round that stands, and
// metadata gathered over every round.
type builder struct {
	topic, depth string
	start        time.Time
	current      roundResult // the round whose report is returned
	notice       string      // prefixed to the report when the request was cut short
	partial      bool
	freeText     bool     // the answer is text, not a JSON report: no parse warning
	prior        *Prior   // a follow-up's prior research, whose sources its own continue; nil for other requests
	controls     Controls // what the report may cite
	rounds       int
	sources      [][]string
	queries      [][]string
	meta         Metadata
}

func newBuilder(topic, depth string, start time.Time) *builder {
	return &builder{topic: topic, depth: depth, start: start}
}

// add counts a round's sources, queries, steps and checks, whether or not its report is used.
func (b *builder) add(rr roundResult) {
	b.sources = append(b.sources, rr.res.URLs, rr.agent.Metadata.SourcesVisited)
	b.queries = append(b.queries, rr.res.Queries, rr.agent.Metadata.SearchQueriesUsed)
	b.meta.Iterations += max(rr.agent.Metadata.Iterations, len(rr.res.Queries)+len(rr.res.URLs), 1)
	b.meta.ClaimsVerified += rr.agent.Verification.ClaimsChecked
	b.meta.ClaimsCorrected += rr.agent.Verification.ClaimsCorrected
	b.meta.JSONCorrections += rr.corrections
	b.meta.OutputTruncated = b.meta.OutputTruncated || rr.res.Truncated
	b.meta.FallbackFrom = cmp.Or(b.meta.FallbackFrom, rr.fallbackFrom)
	b.meta.BackendReason = cmp.Or(b.meta.BackendReason, rr.res.Switched)
	if down := rr.res.FirecrawlDown; down != "" && b.meta.Firecrawl == "" {
		b.meta.Firecrawl = "unavailable: " + down
	}
}

// use adds rr and makes its report the one returned; a round cut off (by the timeout, or by its answer stopping
// before its end) makes the whole request partial.
func (b *builder) use(rr roundResult) {
	b.add(rr)
	b.current = rr
	b.rounds++
	switch {
	case rr.timedOut > 0:
		b.cutShort(fmt.Sprintf("[Partial response, timed out after %ds]", int(rr.timedOut.Seconds())))
	case rr.res.Unfinished != "":
		notice := "[Partial response: " + cutOff("the answer", rr.res.Unfinished) + "."
		if rr.res.Unfinished == backend.FinishMaxTokens {
			notice += " " + backend.HintTooLong
		}
		b.cutShort(notice + "]")
		b.meta.FinishReason = rr.res.Unfinished
	}
}

// cutShort marks the report partial with a notice saying why.
func (b *builder) cutShort(notice string) {
	b.partial, b.notice = true, notice
}

// text is the current report: the agent's JSON report, else its raw answer.
func (b *builder) text() string {
	if b.current.parsed {
		return *b.current.agent.Report
	}
	return b.current.res.Text
}

func (b *builder) report(now time.Time) Report {
	cur := b.current
	m := b.meta
	m.Backend = cur.res.Backend
	m.DurationMS = now.Sub(b.start).Milliseconds()
	m.Topic, m.Depth = b.topic, b.depth
	m.Model = reportedModel(cur.model, cur.res.Model)
	m.Timestamp = b.start.UTC().Format(time.RFC3339)
	m.SourcesVisited = union(b.sources...)
	m.SearchQueriesUsed = union(b.queries...)
	m.SourcesVisited = b.controls.visited(m.SourcesVisited)
	if b.depth != "" {
		m.Rounds = b.rounds
	}

	text, section := b.text(), ""
	switch g := cur.res.Grounding; {
	case g != nil:
		own := 0 // the sources whose markers the answer carries itself: a follow-up's prior sources
		if b.prior != nil {
			text, g = b.prior.grounded(text, g)
			own = len(b.prior.Sources)
		}
		var filtered Filtered
		if b.controls.any() {
			g = b.controls.grounding(g, &filtered)
			m.Filtered = filtered.orNil()
		}
		var supported, unsupported int
		text, m.Citations, supported, unsupported = cite(text, g, own)
		m.ClaimsSupported, m.ClaimsUnsupported = &supported, &unsupported
		m.Sources = withSnippets(g.Sources, m.Citations)
		section = sourcesSection(m.Sources, g.Queries)
	case b.prior != nil: // the agent's sources, or none when its answer was not JSON
		text, m.Sources = b.prior.cited(text, cur.agent.Metadata.Sources)
		section = sourcesSection(m.Sources, m.SearchQueriesUsed)
	case cur.parsed:
		m.Sources = agentSources(cur.agent.Metadata.Sources)
		switch {
		case b.controls.any() && len(cur.agent.Metadata.Sources) > 0:
			var filtered Filtered
			text, m.Sources = b.controls.cited(text, m.Sources, &filtered)
			m.Filtered = filtered.orNil()
		case b.controls.Limit > 0: // markers into a list of the text's own, which it does not give: none past the limit
			text, _ = renumber(text, b.controls.Limit, 0, nil)
		}
		section = sourcesSection(m.Sources, m.SearchQueriesUsed)
	}
	var prefix, footer string
	if b.notice != "" {
		prefix = b.notice + "\n\n"
	}
	if m.FallbackFrom != "" {
		footer += fmt.Sprintf("\n\n---\n*Researched with %s: %s ran out of quota.*", m.Model, m.FallbackFrom)
	}
	if m.OutputTruncated {
		footer += "\n\n[The agent's output was truncated: it exceeded the capture limit.]"
	}
	if b.prior != nil {
		m.FollowUpOf = b.prior.ID
		footer += b.prior.note()
	}
	report := prefix + text + section + footer
	if len(report) == len(text) {
		// Nothing around the text: a copy of its own, since the text may be a slice of a larger answer that
		// whoever keeps the report (the cache, the parts of a long report) would keep too.
		report = strings.Clone(text)
	}
	// The summary is the report's text without the notice, the sources list and the footers: a part of the report,
	// not a copy of its own.
	return Report{Success: true, Report: report, ParseWarning: !b.freeText && !cur.parsed, Partial: b.partial, Metadata: m,
		Summary: report[len(prefix) : len(prefix)+len(text)]}
}
