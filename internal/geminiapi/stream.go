package geminiapi

import (
	"cmp"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// stream gathers one streamed answer: the text of each part, the grounding data, and the searches and URL reads
// it tells the caller about as they show up.
type stream struct {
	maxOutput int
	onEvent   func(backend.Event)
	parts     []string // the text of each part of the first candidate, chunks joined (grounding offsets refer to these)
	size      int
	truncated bool
	grounding *genai.GroundingMetadata // the last one seen: it comes with the last chunks
	queries   []string                 // every query announced, in order
	urls      []string                 // every URL read with URL context, in order
	model     string
	finish    genai.FinishReason
	usage     *genai.GenerateContentResponseUsageMetadata // the last one seen: it counts the whole answer
	unread    map[string]string                           // the URLs URL context could not read, with its status
}

func newStream(maxOutput int, onEvent func(backend.Event)) *stream {
	if onEvent == nil {
		onEvent = func(backend.Event) {}
	}
	return &stream{maxOutput: maxOutput, onEvent: onEvent}
}

// add takes one chunk of the stream.
func (s *stream) add(chunk *genai.GenerateContentResponse) {
	if chunk == nil {
		return
	}
	s.model = cmp.Or(chunk.ModelVersion, s.model)
	if chunk.UsageMetadata != nil {
		s.usage = chunk.UsageMetadata
	}
	if len(chunk.Candidates) == 0 || chunk.Candidates[0] == nil {
		return
	}
	c := chunk.Candidates[0]
	s.finish = cmp.Or(c.FinishReason, s.finish)
	if c.Content != nil {
		for i, p := range c.Content.Parts {
			if p == nil || p.Thought {
				continue
			}
			for len(s.parts) <= i {
				s.parts = append(s.parts, "")
			}
			s.appendText(i, p.Text)
			if p.Text != "" {
				s.onEvent(backend.Event{Kind: backend.EventText, Text: p.Text})
			}
		}
	}
	if g := c.GroundingMetadata; g != nil {
		s.grounding = g
		for _, q := range g.WebSearchQueries {
			if q = strings.TrimSpace(q); q != "" && !slices.Contains(s.queries, q) {
				s.queries = append(s.queries, q)
				s.onEvent(backend.Event{Kind: backend.EventSearch, Tool: "google_search", Query: q})
			}
		}
	}
	if u := c.URLContextMetadata; u != nil {
		for _, m := range u.URLMetadata {
			if m == nil || m.RetrievedURL == "" || slices.Contains(s.urls, m.RetrievedURL) {
				continue
			}
			s.urls = append(s.urls, m.RetrievedURL)
			ev := backend.Event{Kind: backend.EventFetch, Tool: "url_context", URL: m.RetrievedURL}
			if m.URLRetrievalStatus != "" && m.URLRetrievalStatus != genai.URLRetrievalStatusSuccess {
				ev.Kind, ev.Error = backend.EventFailed, "could not read "+m.RetrievedURL+" ("+string(m.URLRetrievalStatus)+")"
				if s.unread == nil {
					s.unread = map[string]string{}
				}
				s.unread[m.RetrievedURL] = string(m.URLRetrievalStatus)
			}
			s.onEvent(ev)
		}
	}
}

// appendText adds text to part i within the output limit, never cutting a character.
func (s *stream) appendText(i int, text string) {
	if s.truncated {
		return
	}
	if room := s.maxOutput - s.size; len(text) > room {
		text = strings.ToValidUTF8(text[:max(room, 0)], "")
		s.truncated = true
	}
	s.parts[i] += text
	s.size += len(text)
}

// text is the answer without markers.
func (s *stream) text() string { return strings.Join(s.parts, "") }

// unfinished is why the answer stopped before its end (backend.Result.Unfinished): the finish reason the model
// gave when it is not STOP, or backend.NoFinishReason when the stream ended without one; "" for a whole answer.
func (s *stream) unfinished() string {
	switch s.finish {
	case genai.FinishReasonStop:
		return ""
	case "":
		return backend.NoFinishReason
	}
	return string(s.finish)
}

// result is the answer with its grounding.
func (s *stream) result(model string) backend.Result {
	res := backend.Result{Model: cmp.Or(s.model, model), Backend: backend.API, Truncated: s.truncated,
		Queries: slices.Clone(s.queries), Text: strings.TrimSpace(s.text())}
	if g := ground(s.parts, s.grounding); g != nil {
		res.Grounding = g
		for _, src := range g.Sources {
			res.URLs = append(res.URLs, src.URL)
		}
	}
	for _, u := range s.urls {
		if !slices.Contains(res.URLs, u) {
			res.URLs = append(res.URLs, u)
		}
	}
	res.Unread = s.unread
	if u := s.usage; u != nil {
		res.Usage = &backend.Usage{InputTokens: int(u.PromptTokenCount), OutputTokens: int(u.CandidatesTokenCount),
			ThoughtTokens: int(u.ThoughtsTokenCount), TotalTokens: int(u.TotalTokenCount), Searches: len(s.queries)}
	}
	return res
}
