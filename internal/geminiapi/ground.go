package geminiapi

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// mark is a citation marker to insert: after byte at of part, naming sources (1-based).
type mark struct {
	part, at int
	text     string // the supported segment
	sources  []int
}

// ground reads the grounding metadata of an answer given as the text of its parts: the sources, deduplicated by URL
// and numbered from 1 (at most backend.MaxSources), the search queries (at most backend.MaxQueries), and each
// supported segment, which gets a marker like [1][3] after it. It returns the parts with the markers.
//
// A segment's offsets are UTF-8 byte offsets within its part. They are trusted only where the text between them is
// the segment's own text; otherwise the segment's text is looked up in the part, nearest to where the offsets
// point, and a segment found nowhere gets no marker. A marker never lands inside a multi-byte character or inside a
// JSON escape sequence (the research prompts ask for JSON, so the answer is often JSON text). A segment whose
// sources are all beyond the listed ones gets no marker: the answer never shows a source it does not list.
func ground(parts []string, g *genai.GroundingMetadata) ([]string, *backend.Grounding) {
	if g == nil {
		return parts, nil
	}
	out := &backend.Grounding{}
	number := map[int]int{} // chunk index → source number
	for i, ch := range g.GroundingChunks {
		if ch == nil || ch.Web == nil || ch.Web.URI == "" {
			continue
		}
		n := slices.IndexFunc(out.Sources, func(s backend.Source) bool { return s.URL == ch.Web.URI })
		if n < 0 {
			if len(out.Sources) == backend.MaxSources {
				continue
			}
			out.Sources = append(out.Sources, backend.Source{URL: ch.Web.URI, Title: cmp.Or(ch.Web.Title, ch.Web.Domain)})
			n = len(out.Sources) - 1
		}
		number[i] = n + 1
	}
	for _, q := range g.WebSearchQueries {
		if q = strings.TrimSpace(q); q != "" && !slices.Contains(out.Queries, q) && len(out.Queries) < backend.MaxQueries {
			out.Queries = append(out.Queries, q)
		}
	}

	var marks []mark
	for _, sup := range g.GroundingSupports {
		if sup == nil || sup.Segment == nil {
			continue
		}
		var sources []int
		for _, i := range sup.GroundingChunkIndices {
			if n, ok := number[int(i)]; ok && !slices.Contains(sources, n) {
				sources = append(sources, n)
			}
		}
		p := int(sup.Segment.PartIndex)
		if len(sources) == 0 || p < 0 || p >= len(parts) {
			continue
		}
		start, end, ok := locate(parts[p], sup.Segment)
		if !ok {
			continue
		}
		slices.Sort(sources)
		segment := parts[p][start:end]
		at := insertionPoint(parts[p], start+len(strings.TrimRight(segment, " \t\r\n")))
		marks = append(marks, mark{part: p, at: at, text: strings.TrimSpace(segment), sources: sources})
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return cmp.Or(cmp.Compare(a.part, b.part), cmp.Compare(a.at, b.at)) })
	marks = mergeMarks(marks)

	marked := slices.Clone(parts)
	for i := len(marks) - 1; i >= 0; i-- { // from the end, so earlier offsets stay valid
		m := marks[i]
		marked[m.part] = marked[m.part][:m.at] + backend.Citation{Sources: m.sources}.Marker() + marked[m.part][m.at:]
	}
	for _, m := range marks {
		out.Citations = append(out.Citations, backend.Citation{Text: m.text, Sources: m.sources})
	}
	return marked, out
}

// locate finds a segment in its part: its offsets when the text between them is the segment's text (or the segment
// gives no text), else the occurrence of its text nearest to its start offset.
func locate(part string, seg *genai.Segment) (start, end int, ok bool) {
	start, end = int(seg.StartIndex), int(seg.EndIndex)
	inRange := 0 <= start && start <= end && end <= len(part)
	switch {
	case inRange && seg.Text == "":
		start, end = runeStart(part, start), runeStart(part, end)
		return start, end, start < end
	case inRange && part[start:end] == seg.Text:
		return start, end, seg.Text != ""
	case seg.Text == "":
		return 0, 0, false
	}
	best := -1
	for i := 0; ; {
		j := strings.Index(part[i:], seg.Text)
		if j < 0 {
			break
		}
		if best < 0 || abs(i+j-start) < abs(best-start) {
			best = i + j
		}
		i += j + 1
	}
	if best < 0 {
		return 0, 0, false
	}
	return best, best + len(seg.Text), true
}

// insertionPoint moves at forward out of a multi-byte character and out of a JSON escape sequence (\n, \", \u00e9).
func insertionPoint(s string, at int) int {
	at = runeStart(s, at)
	backslashes := 0
	for i := at - 1; i >= 0 && s[i] == '\\'; i-- {
		backslashes++
	}
	if backslashes%2 == 1 && at < len(s) { // at is just after the backslash of an escape
		if s[at] == 'u' {
			return min(at+5, len(s))
		}
		return at + 1
	}
	for k := 1; k <= 4; k++ { // inside the hex digits of \uXXXX?
		u := at - k - 2
		if u >= 0 && s[u] == '\\' && s[u+1] == 'u' && escapes(s, u) {
			return min(u+6, len(s))
		}
	}
	return at
}

// escapes reports whether the backslash at i starts an escape, rather than being escaped itself.
func escapes(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 0
}

// runeStart moves i forward to the start of a character.
func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

// mergeMarks joins the marks that land at the same place (sorted input).
func mergeMarks(marks []mark) []mark {
	var out []mark
	for _, m := range marks {
		if n := len(out); n > 0 && out[n-1].part == m.part && out[n-1].at == m.at {
			for _, s := range m.sources {
				if !slices.Contains(out[n-1].sources, s) {
					out[n-1].sources = append(out[n-1].sources, s)
				}
			}
			slices.Sort(out[n-1].sources)
			continue
		}
		out = append(out, m)
	}
	return out
}

func abs(n int) int { return max(n, -n) }
