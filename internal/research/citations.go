package research

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// The report's own citations come from a backend's grounding data (the Gemini API's): the markers it put after
// the supported segments, the sources they number, the queries it ran. Nothing here trusts the model's own claims.

// sourcesSection is the report's closing list of the grounding's sources and queries (seed 001), numbered as the
// markers are; "" without any.
func sourcesSection(g *backend.Grounding) string {
	if g == nil || len(g.Sources)+len(g.Queries) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n\n---\n")
	if len(g.Sources) > 0 {
		b.WriteString("**Sources:**\n")
		for i, s := range g.Sources {
			fmt.Fprintf(&b, "%d. [%s](%s)\n", i+1, markdownText(cmp.Or(s.Title, s.URL)), s.URL)
		}
	}
	if len(g.Queries) > 0 {
		if len(g.Sources) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("**Search queries performed:**\n")
		for i, q := range g.Queries {
			fmt.Fprintf(&b, "%d. %q\n", i+1, q)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// markdownText keeps a title from breaking its link.
func markdownText(s string) string {
	return strings.NewReplacer("[", `\[`, "]", `\]`, "\n", " ").Replace(s)
}

// markers are the grounding's marker strings, longest first, so that [1][3] is matched before [1].
func markers(g *backend.Grounding) []string {
	var out []string
	for _, c := range g.Citations {
		if m := c.Marker(); m != "" && !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return out
}

// unmark removes the grounding's markers from text: a draft quoted to the next round carries none, so that the
// markers of the round that stands are the only ones in the report.
func unmark(text string, g *backend.Grounding) string {
	if g == nil {
		return text
	}
	for _, m := range markers(g) {
		text = strings.ReplaceAll(text, m, "")
	}
	return text
}

var (
	sentenceEnd = regexp.MustCompile(`[.!?。！？](?:\[\d+\])*(?:\s+|$)`)
	listItem    = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)
)

// claims counts the report's sentences that carry one of the grounding's markers (supported) and those that carry
// none (unsupported). Headings, code blocks and table rules are not claims.
func claims(report string, g *backend.Grounding) (supported, unsupported int) {
	marks := markers(g)
	inCode := false
	for line := range strings.Lines(report) {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "```"):
			inCode = !inCode
			continue
		case inCode, line == "", strings.HasPrefix(line, "#"), strings.Trim(line, "|-: ") == "", line == "---":
			continue
		}
		line = listItem.ReplaceAllString(line, "")
		for _, sentence := range sentences(line) {
			if len(strings.Fields(sentence)) < 2 && len([]rune(sentence)) < 8 {
				continue // "Yes." or a stray fragment
			}
			if slices.ContainsFunc(marks, func(m string) bool { return strings.Contains(sentence, m) }) {
				supported++
			} else {
				unsupported++
			}
		}
	}
	return supported, unsupported
}

// sentences cuts a line after each sentence's end, its markers included.
func sentences(line string) []string {
	var out []string
	start := 0
	for _, loc := range sentenceEnd.FindAllStringIndex(line, -1) {
		if s := strings.TrimSpace(line[start:loc[1]]); s != "" {
			out = append(out, s)
		}
		start = loc[1]
	}
	if s := strings.TrimSpace(line[start:]); s != "" {
		out = append(out, s)
	}
	return out
}
