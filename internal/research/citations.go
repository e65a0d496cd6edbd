package research

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// The report's own citations come from a backend's grounding data (the Gemini API's): the markers it put after
// the supported segments, the sources they number, the queries it ran. Nothing here trusts the model's own claims.

// sourcesSection is the report's closing list of the grounding's sources and queries, numbered as the
// markers are; "" without any.
func sourcesSection(sources []backend.Source, queries []string) string {
	if len(sources) == 0 {
		return "" // a report without numbered sources keeps whatever list the agent wrote
	}
	var b strings.Builder
	b.WriteString("\n\n---\n**Sources:**\n")
	for i, s := range sources {
		fmt.Fprintf(&b, "%d. [%s](%s)\n", i+1, markdownText(cmp.Or(s.Title, s.URL)), s.URL)
	}
	if len(queries) > 0 {
		b.WriteString("\n**Search queries performed:**\n")
		for i, q := range queries[:min(len(queries), backend.MaxQueries)] {
			fmt.Fprintf(&b, "%d. %q\n", i+1, q)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// withSnippets gives each grounding source the first segment that cites it, as what the source says.
func withSnippets(sources []backend.Source, citations []backend.Citation) []backend.Source {
	out := slices.Clone(sources)
	for _, c := range citations {
		for _, n := range c.Sources {
			if n >= 1 && n <= len(out) && out[n-1].Snippet == "" {
				out[n-1].Snippet = c.Text
			}
		}
	}
	return out
}

// agentSources are the sources the agent numbered in its report, as it gave them: only those with an http(s)
// URL, which the report's numbers then still match when none is dropped. Titles and snippets are cut to one line.
func agentSources(given []agentSource) []backend.Source {
	var out []backend.Source
	for _, s := range given {
		if !backend.WebURL(s.URL) {
			return nil // a number would point at the wrong source: show none rather than a wrong list
		}
		out = append(out, s.shown())
	}
	return out
}

// shown is the source as a report lists it: its title and snippet on one line each.
func (s agentSource) shown() backend.Source {
	return backend.Source{URL: s.URL, Title: oneLine(s.Title), Snippet: oneLine(s.Snippet)}
}

// oneLine is s on one line, at most 300 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 300 {
		s = string(r[:297]) + "..."
	}
	return s
}

// markdownText keeps a title from breaking its link.
func markdownText(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`, "\n", " ").Replace(s)
}

// span is a byte range of the report.
type span struct{ start, end int }

// cite puts a marker after each of the grounding's cited segments in report, the report that stands, and counts its
// claims: the sentences that overlap a cited segment (supported) and those that do not (unsupported). The segments
// are the answer's own text; when the answer was JSON, its escapes are undone to find them in the decoded report.
// A segment is looked for after the previous one first, so repeated sentences are cited in order. It returns the
// marked report and the citations placed; a segment found nowhere is not presented as sourced.
//
// The markers of sources 1 to own are the answer's own (a follow-up's model cites the prior sources itself; own is
// 0 for any other answer, whose markers mean nothing): a segment that carries a source's marker, in its text or
// right after it, gets no second one for that source.
func cite(report string, g *backend.Grounding, own int) (marked string, placed []backend.Citation, supported, unsupported int) {
	type mark struct {
		start, at int // the segments it follows: where the first of them starts, and where they end
		sources   []int
	}
	var (
		marks []mark
		spans []span
		from  int
	)
	for _, c := range g.Citations {
		s, ok := find(report, c.Text, from)
		if !ok {
			continue
		}
		spans = append(spans, s)
		from = s.end
		placed = append(placed, c)
		if n := len(marks); n > 0 && marks[n-1].at == s.end {
			for _, src := range c.Sources {
				if !slices.Contains(marks[n-1].sources, src) {
					marks[n-1].sources = append(marks[n-1].sources, src)
				}
			}
			slices.Sort(marks[n-1].sources)
			marks[n-1].start = min(marks[n-1].start, s.start)
			continue
		}
		marks = append(marks, mark{start: s.start, at: s.end, sources: slices.Clone(c.Sources)})
	}
	for _, sentence := range sentenceSpans(report) {
		if slices.ContainsFunc(spans, func(s span) bool { return s.start < sentence.end && sentence.start < s.end }) {
			supported++
		} else {
			unsupported++
		}
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return cmp.Compare(a.at, b.at) })
	var written []markerAt // the answer's own markers
	if own > 0 {
		written = slices.DeleteFunc(markers(report), func(m markerAt) bool { return slices.Max(m.ns) > own })
	}
	var b strings.Builder
	last := 0
	for _, m := range marks {
		b.WriteString(report[last:m.at])
		carried := carriedMarkers(report, written, span{m.start, m.at})
		b.WriteString(backend.Citation{Sources: slices.DeleteFunc(m.sources, func(n int) bool {
			return slices.Contains(carried, n)
		})}.Marker())
		last = m.at
	}
	b.WriteString(report[last:])
	return b.String(), placed, supported, unsupported
}

// carriedMarkers are the numbers of the markers (of written, report's) that segment s carries: those within it, and
// those right after it, with nothing but blanks before each.
func carriedMarkers(report string, written []markerAt, s span) []int {
	var out []int
	next := s.end
	for _, m := range written {
		switch {
		case m.start >= s.start && m.end <= s.end:
			out = append(out, m.ns...)
		case m.start >= next && strings.Trim(report[next:m.start], " \t") == "":
			out = append(out, m.ns...)
			next = m.end
		}
	}
	return out
}

// find locates segment in report, after from if it is there, else anywhere: as it is, or with JSON escapes undone.
// The span ends before the segment's trailing white space, where its marker goes.
func find(report, segment string, from int) (span, bool) {
	for _, text := range segmentForms(segment) {
		for _, start := range []int{from, 0} {
			if i := strings.Index(report[start:], text); i >= 0 {
				i += start
				return span{i, i + len(strings.TrimRight(text, " \t\r\n"))}, true
			}
		}
	}
	return span{}, false
}

// segmentForms are the texts a segment of the answer may have in the report: itself, and, when the answer was JSON,
// the segment decoded as part of a JSON string (without the quotes, braces or commas of the JSON around it).
func segmentForms(segment string) []string {
	forms := []string{segment}
	inner := strings.TrimSpace(strings.Trim(strings.TrimSpace(segment), `"{},`))
	for strings.HasSuffix(inner, `\`) && !strings.HasSuffix(inner, `\\`) { // a cut escape
		inner = strings.TrimSuffix(inner, `\`)
	}
	var decoded string
	if json.Unmarshal([]byte(`"`+inner+`"`), &decoded) == nil && decoded != segment && strings.TrimSpace(decoded) != "" {
		forms = append(forms, strings.TrimSpace(decoded))
	}
	return forms
}

var (
	sentenceEnd = regexp.MustCompile(`[.!?。！？](?:\s+|$)`)
	listItem    = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)
)

// sentenceSpans are the report's sentences, as claims: headings, code blocks, table rules and one-word fragments are
// not claims.
func sentenceSpans(report string) []span {
	var out []span
	inCode := false
	offset := 0
	for line := range strings.Lines(report) {
		lineStart := offset
		offset += len(line)
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "```"):
			inCode = !inCode
			continue
		case inCode, trimmed == "", strings.HasPrefix(trimmed, "#"), strings.Trim(trimmed, "|-: ") == "":
			continue
		}
		if loc := listItem.FindStringIndex(line); loc != nil {
			lineStart += loc[1]
			line = line[loc[1]:]
		}
		start := 0
		add := func(end int) {
			if s := strings.TrimSpace(line[start:end]); len(strings.Fields(s)) >= 2 || len([]rune(s)) >= 8 {
				lead := len(line[start:end]) - len(strings.TrimLeft(line[start:end], " \t"))
				out = append(out, span{lineStart + start + lead, lineStart + end})
			}
			start = end
		}
		for _, loc := range sentenceEnd.FindAllStringIndex(line, -1) {
			add(loc[1])
		}
		if strings.TrimSpace(line[start:]) != "" {
			add(len(line))
		}
	}
	return out
}
