package geminiapi

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// cited is one supported segment found in the answer.
type cited struct {
	part, start int
	text        string
	sources     []int
}

// ground reads the grounding metadata of an answer given as the text of its parts: the sources, deduplicated by URL
// and numbered from 1 (at most backend.MaxSources), the search queries (at most backend.MaxQueries), and each
// supported segment's text with the numbers of its sources, in the answer's order. The engine puts the [n] markers
// into the report it keeps (research/citations.go): the answer may be JSON the report is decoded from, or be
// restructured by a correction first.
//
// A segment's offsets are UTF-8 byte offsets within its part. They are trusted only where the text between them is
// the segment's own text; otherwise the segment's text is looked up in the part, nearest to where the offsets
// point, and a segment found nowhere is not cited. Offsets without a text are moved out of any multi-byte character.
// A segment whose sources are all beyond the listed ones is not cited: the answer never shows a source it does not
// list.
func ground(parts []string, g *genai.GroundingMetadata) *backend.Grounding {
	if g == nil {
		return nil
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
			out.Sources = append(out.Sources, backend.Source{URL: ch.Web.URI, Title: cmp.Or(ch.Web.Title, ch.Web.Domain),
				Domain: ch.Web.Domain})
			n = len(out.Sources) - 1
		}
		number[i] = n + 1
	}
	for _, q := range g.WebSearchQueries {
		if q = strings.TrimSpace(q); q != "" && !slices.Contains(out.Queries, q) && len(out.Queries) < backend.MaxQueries {
			out.Queries = append(out.Queries, q)
		}
	}

	var found []cited
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
		if text := strings.TrimSpace(parts[p][start:end]); ok && text != "" {
			slices.Sort(sources)
			// A copy: a slice of the part would keep the whole answer in memory as long as the report's
			// citations are kept (the cache, a task's result).
			found = append(found, cited{part: p, start: start, text: strings.Clone(text), sources: sources})
		}
	}
	slices.SortStableFunc(found, func(a, b cited) int {
		return cmp.Or(cmp.Compare(a.part, b.part), cmp.Compare(a.start, b.start))
	})
	for _, c := range found {
		out.Citations = append(out.Citations, backend.Citation{Text: c.text, Sources: c.sources})
	}
	return out
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

// runeStart moves i forward to the start of a character.
func runeStart(s string, i int) int {
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return i
}

func abs(n int) int { return max(n, -n) }
