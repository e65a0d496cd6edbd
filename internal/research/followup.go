package research

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/prompts"
)

// A follow-up is a further question about a report researched before. The backend is given the report and its
// numbered sources as a document the prompt names (backend.Document: a file of the run's own on the CLI, a part of
// the request on the API), and the answer cites them with their numbers; the sources it adds follow them.

// FollowUpRequest is one call of the follow_up tool.
type FollowUpRequest struct {
	Question string
	Prior    Prior    // the report the question is about
	Model    string   // overrides Settings.Model for this call
	Fresh    bool     // answer again even when the cache holds an answer
	Progress Progress // optional
	// A prior report of Google's agent: Resume is its follow-up's run already created (by a server that stopped),
	// to follow on; Followed is told the run as it goes (see DeepSearchRequest).
	Resume   *backend.AgentRun
	Followed func(backend.AgentRun)
}

// Prior is the research a follow-up builds on: a report of the research library.
type Prior struct {
	ID      string // its id in the library
	Topic   string
	Report  string           // its Markdown
	Sources []backend.Source // the sources its report cites, numbered from 1 in this order; none when it numbers none
	Pages   []backend.Source // the other pages its research read, which its report gives no number
	// Interaction is the run of Google's Deep Research agent that researched it (its metadata.interaction_id), which
	// a follow-up continues, with the agent that ran it (its model); "" for a report of any other research.
	Interaction, Agent string
}

// priorName is the name the follow-up prompt refers to the prior research by, and the CLI's file of it.
const priorName = "prior-report.md"

// FollowUp answers a further question about req.Prior in one round, as search researches a question: the agent
// gets the prior report and its numbered sources, builds on them and researches only what they leave open. The
// report cites the prior sources with their numbers, and the sources it adds from the next number on; its
// metadata names the prior report (FollowUpOf). It shares search's queue, joining, cache, time limit
// (GEMINI_SEARCH_TIMEOUT) and quota fallback. A report of Google's Deep Research agent is followed up by the agent,
// in the run that researched it (agentFollowUp).
func (e *Engine) FollowUp(ctx context.Context, req FollowUpRequest) (Report, error) {
	if req.Prior.Interaction != "" && e.settings.Agent != nil {
		if req.Resume != nil {
			return e.counted("follow_up", func(ctx context.Context, _ Progress) (Report, error) {
				return e.agentFollowUp(ctx, req)
			})(ctx, req.Progress)
		}
		return e.cachedOnly(ctx, []string{"follow_up", req.Prior.ID, normalize(req.Question), EngineGoogle}, req.Fresh,
			req.Progress, func(ctx context.Context, p Progress) (Report, error) {
				req.Progress = p
				return e.agentFollowUp(ctx, req)
			})
	}
	model := e.model(req.Model)
	return e.joined(ctx, []string{"follow_up", req.Prior.ID, normalize(req.Question), model}, req.Fresh, req.Progress,
		func(ctx context.Context, p Progress) (Report, error) {
			req.Progress = p
			return e.followUp(ctx, req, model)
		})
}

func (e *Engine) followUp(ctx context.Context, req FollowUpRequest, model string) (Report, error) {
	ctx = withDeadline(ctx, e.settings.SearchTimeout, "GEMINI_SEARCH_TIMEOUT")
	start := e.now()
	stop := e.logProgress(req.Question, start)
	defer stop()

	req.Progress.report("following up")
	doc := req.Prior.document()
	prompt := prompts.Render(e.templates.followUp, prompts.Values{Prompt: req.Question, PriorReport: doc.Ref(),
		NextSource: len(req.Prior.Sources) + 1, Date: promptDate(start),
		MaxIterations: e.settings.MaxIterations, MaxSources: backend.MaxSources})
	rr, err := e.round(ctx, backend.Request{Prompt: prompt, Model: model, Documents: []backend.Document{doc}}, followUpShape,
		req.Progress, nil)
	if err != nil {
		return Report{}, e.failure(ctx, req.Question, err)
	}
	if rr.parsed && !*rr.agent.Success {
		return Report{}, agentGaveUp(rr.agent)
	}
	b := newBuilder(req.Question, "", start)
	b.prior = &req.Prior
	b.use(rr)
	return b.report(e.now()), nil
}

// document is the prior research as the backend gets it: its topic, its report, its sources numbered as the
// follow-up cites them and the other pages it read, delimited as the research it is.
func (p Prior) document() backend.Document {
	var b strings.Builder
	fmt.Fprintf(&b, "<prior_research id=%q>\n# Earlier research: %s\n\n<report>\n%s\n</report>\n\n", p.ID,
		oneLine(p.Topic), strings.TrimSpace(p.Report))
	if len(p.Sources) == 0 {
		b.WriteString("The earlier report has no numbered sources: a [n] in it points to no list.\n")
	} else {
		b.WriteString("## Its sources, by number\n")
		for i, s := range p.Sources {
			fmt.Fprintf(&b, "[%d] %s: %s\n", i+1, oneLine(cmp.Or(s.Title, s.URL)), s.URL)
		}
	}
	if len(p.Pages) > 0 {
		b.WriteString("\n## Other pages it read, without a number\n")
		for _, s := range p.Pages {
			if s.Title != "" {
				fmt.Fprintf(&b, "- %s: %s\n", oneLine(s.Title), s.URL)
			} else {
				fmt.Fprintf(&b, "- %s\n", s.URL)
			}
		}
	}
	b.WriteString("</prior_research>\n")
	return backend.Document{Name: priorName, Text: b.String()}
}

// note is the line closing a follow-up's report: which report it builds on, and, when that report numbers its
// sources, that they keep their numbers.
func (p Prior) note() string {
	keep := ": its sources keep their numbers here"
	if len(p.Sources) == 0 {
		keep = ""
	}
	return fmt.Sprintf("\n\n---\n*A follow-up of report %s (%s)%s.*", p.ID, markdownText(shorten(p.Topic)), keep)
}

// cited numbers the sources of a follow-up answer whose agent listed its own (given, each with the number it
// cites it by, when it said): the prior sources keep their numbers 1 to N, one given that is a prior source (the
// same URL) is that source, and the others follow from N+1 in the order given. The answer's markers are renumbered
// to match, and a marker that points at no source is dropped: it would send a reader to the wrong one.
func (p Prior) cited(text string, given []agentSource) (string, []backend.Source) {
	all := slices.Clone(p.Sources)
	number := map[int]int{} // the agent's number → the report's
	for _, s := range given {
		if !backend.WebURL(s.URL) {
			continue // its markers point nowhere
		}
		n := slices.IndexFunc(all, func(a backend.Source) bool { return a.URL == s.URL }) + 1
		if n == 0 {
			all = append(all, s.shown())
			n = len(all)
		}
		if _, seen := number[s.Number]; s.Number > 0 && !seen {
			number[s.Number] = n
		}
	}
	cites := len(p.Sources)
	for _, s := range given {
		cites = max(cites, s.Number)
	}
	renumbered, _ := renumber(text, len(p.Sources), cites, number)
	return renumbered, slices.Clip(all)
}

// grounded numbers the sources of a follow-up answer the API grounded (g): the grounding's sources that are prior
// sources (the same URL) take their numbers, the others follow from N+1, and the cited segments carry those
// numbers. The model writes markers only for the prior sources, 1 to N (the prompt asks it to): any other it wrote
// is dropped from the answer. Each segment is then the part of the new answer where it stood in the old, whatever
// code or word it stood next to; one found nowhere in the answer is dropped, as no marker could follow it.
func (p Prior) grounded(text string, g *backend.Grounding) (string, *backend.Grounding) {
	out := &backend.Grounding{Sources: slices.Clone(p.Sources), Queries: g.Queries}
	number := map[int]int{} // the grounding's number → the report's
	for i, s := range g.Sources {
		n := slices.IndexFunc(out.Sources, func(a backend.Source) bool { return a.URL == s.URL }) + 1
		if n == 0 {
			out.Sources = append(out.Sources, s)
			n = len(out.Sources)
		}
		number[i+1] = n
	}
	renumbered, moved := renumber(text, len(p.Sources), len(p.Sources), nil)
	from := 0
	for _, c := range g.Citations {
		at, ok := find(text, c.Text, from)
		if !ok {
			continue
		}
		from = at.end
		segment := renumbered[moved(at.start):moved(at.end)]
		if strings.TrimSpace(segment) == "" {
			continue // it was a marker, dropped
		}
		var sources []int
		for _, n := range c.Sources {
			if to, ok := number[n]; ok && !slices.Contains(sources, to) {
				sources = append(sources, to)
			}
		}
		slices.Sort(sources)
		out.Citations = append(out.Citations, backend.Citation{Text: segment, Sources: sources})
	}
	return renumbered, out
}

// marker is a citation marker: [n], or a group of numbers as models write them, [1, 4], [2-5] or [1–3, 7]. One
// right after a letter, digit or '_' is an index (a[1]), one before '(' a link's text ([1](…)), and one in code (a
// fenced block or a `span`) is code.
var marker = regexp.MustCompile(`\[([0-9]{1,4}|[0-9]{1,3}(?:\s*[-–,]\s*[0-9]{1,3})+)\]`)

// maxMarkerRange bounds the numbers a range marker stands for: [1-20] is citations, [1-2000] is not.
const maxMarkerRange = 20

// markerAt is a citation marker of a text: text[start:end] is [n], or a group of the numbers ns.
type markerAt struct {
	start, end int
	ns         []int
}

// markers are the citation markers of text, in order: not its indexes, links' texts or code.
func markers(text string) []markerAt {
	code := codeSpans(text)
	var out []markerAt
	for _, m := range marker.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if start > 0 && isWordByte(text[start-1]) || end < len(text) && text[end] == '(' ||
			slices.ContainsFunc(code, func(c span) bool { return c.start <= start && end <= c.end }) {
			continue
		}
		if ns := markerNumbers(text[m[2]:m[3]]); ns != nil {
			out = append(out, markerAt{start, end, ns})
		}
	}
	return out
}

// markerNumbers are the numbers a marker's text between its brackets stands for, a range's each. A group must look
// like citations: numbers from 1 without a leading zero, ranges forwards and shorter than maxMarkerRange, and no
// thousands ([1,000]); nil otherwise ([0, 1], [2021-1990], [1-2000]: no marker).
func markerNumbers(group string) []int {
	if n, err := strconv.Atoi(group); err == nil {
		return []int{n}
	}
	if thousands.MatchString(group) {
		return nil
	}
	var ns []int
	for _, part := range strings.Split(group, ",") {
		from, to, isRange := strings.Cut(strings.ReplaceAll(part, "–", "-"), "-")
		a, ok := citationNumber(from)
		b, okTo := a, true
		if isRange {
			b, okTo = citationNumber(to)
		}
		if !ok || !okTo || b < a || b-a >= maxMarkerRange {
			return nil
		}
		for n := a; n <= b; n++ {
			ns = append(ns, n)
		}
	}
	return ns
}

// thousands is a number written with thousands separators, [1,000]: no group of citations.
var thousands = regexp.MustCompile(`^[0-9]{1,3}(,[0-9]{3})+$`)

// citationNumber is s as a number a source could be cited by: from 1, without a leading zero.
func citationNumber(s string) (int, bool) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	return n, err == nil && n >= 1 && s[0] != '0'
}

// renumber rewrites the markers of text: [n] becomes [number[n]] when number maps n, stays when n is one of the
// kept first numbers (1 to kept), and is dropped otherwise; a group ([1, 4], [2-5]) becomes the markers of its
// numbers so rewritten ([1][4]). A marker left with no number is dropped with the blanks before it when
// punctuation, a blank or the end follows (not another marker: "A [1][2]" without [1] is "A [2]"). cites, when not
// 0, is the highest number the text cites a source by: a group with a number past it is text, not citations (ages
// [10-12] in a report of 5 sources). moved tells where a place of text is in the result: a place in a rewritten marker (or in the
// blanks dropped with it) is the end of what replaced it.
func renumber(text string, kept, cites int, number map[int]int) (renumbered string, moved func(int) int) {
	type edit struct{ from, to, at, end int } // text[from:to] became out[at:end]
	var edits []edit
	out := make([]byte, 0, len(text))
	last := 0
	for _, m := range markers(text) {
		if cites > 0 && len(m.ns) > 1 && slices.Max(m.ns) > cites {
			continue
		}
		out = append(out, text[last:m.start]...)
		last = m.end
		var ns []int
		for _, n := range m.ns {
			if to, ok := number[n]; ok {
				n = to
			} else if n < 1 || n > kept {
				continue
			}
			if !slices.Contains(ns, n) {
				ns = append(ns, n)
			}
		}
		written := backend.Citation{Sources: ns}.Marker()
		if written == text[m.start:m.end] {
			out = append(out, written...)
			continue
		}
		e := edit{from: m.start, to: m.end, at: len(out)}
		switch {
		case written != "":
			out = append(out, written...)
		case m.end == len(text) || !isWordByte(text[m.end]) && text[m.end] != '[': // not before a marker kept
			trimmed := bytes.TrimRight(out, " \t")
			e.from, e.at = e.from-(len(out)-len(trimmed)), len(trimmed)
			out = trimmed
		}
		e.end = len(out)
		edits = append(edits, e)
	}
	moved = func(place int) int {
		shift := 0 // where text's places after the edits so far are in out
		for _, e := range edits {
			switch {
			case place <= e.from:
				return place + shift
			case place < e.to:
				return e.end
			}
			shift = e.end - e.to
		}
		return place + shift
	}
	return string(append(out, text[last:]...)), moved
}

// codeSpans are the code of a Markdown text: its fenced blocks, and the `spans` of its other lines.
func codeSpans(text string) []span {
	var out []span
	fence := -1 // where the open fenced block starts
	offset := 0
	for line := range strings.Lines(text) {
		at := offset
		offset += len(line)
		switch {
		case strings.HasPrefix(strings.TrimSpace(line), "```"):
			if fence < 0 {
				fence = at
			} else {
				out, fence = append(out, span{fence, offset}), -1
			}
		case fence < 0:
			for i := 0; ; {
				open := strings.IndexByte(line[i:], '`')
				if open < 0 {
					break
				}
				shut := strings.IndexByte(line[i+open+1:], '`')
				if shut < 0 {
					break
				}
				out = append(out, span{at + i + open, at + i + open + 1 + shut + 1})
				i += open + 1 + shut + 1
			}
		}
	}
	if fence >= 0 {
		out = append(out, span{fence, len(text)})
	}
	return out
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
