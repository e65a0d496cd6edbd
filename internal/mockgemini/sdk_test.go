package mockgemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// These tests drive the mock with the official Go SDK, configured as the
// API backend does: Gemini API backend, the mock's base URL, Google Search
// and URL context, a system instruction, no automatic continuation.

const (
	sdkKey    = "sdk-secret-key"
	sdkModel  = "gemini-2.5-flash"
	sdkSystem = "You are a research assistant."
)

func sdkStart(t *testing.T) (*Server, *genai.Client) {
	t.Helper()
	m, base := start(t)
	c, err := genai.NewClient(context.Background(), &genai.ClientConfig{
		APIKey:      sdkKey,
		Backend:     genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: base},
	})
	if err != nil {
		t.Fatal("genai.NewClient failed") // its error prints the config, API key included
	}
	return m, c
}

func sdkConfig() *genai.GenerateContentConfig {
	return &genai.GenerateContentConfig{
		SystemInstruction:     genai.NewContentFromText(sdkSystem, genai.RoleUser),
		Tools:                 []*genai.Tool{{GoogleSearch: &genai.GoogleSearch{}}, {URLContext: &genai.URLContext{}}},
		AutomaticContinuation: genai.Ptr(false),
	}
}

// generate sends prompt with GenerateContent, or GenerateContentStream when
// stream is set, and returns every response (chunk) it got, and the error.
func generate(ctx context.Context, c *genai.Client, stream bool, prompt string) ([]*genai.GenerateContentResponse, error) {
	if !stream {
		resp, err := c.Models.GenerateContent(ctx, sdkModel, genai.Text(prompt), sdkConfig())
		if err != nil {
			return nil, err
		}
		return []*genai.GenerateContentResponse{resp}, nil
	}
	var out []*genai.GenerateContentResponse
	for resp, err := range c.Models.GenerateContentStream(ctx, sdkModel, genai.Text(prompt), sdkConfig()) {
		if err != nil {
			return out, err
		}
		out = append(out, resp)
	}
	return out, nil
}

// answer is what a client makes of the responses: the text parts (a
// stream's chunks concatenated into one part, the offsets' frame of
// reference) and the candidate of the last response, which carries the
// grounding and URL context metadata.
func answer(t *testing.T, stream bool, resps []*genai.GenerateContentResponse) ([]string, *genai.Candidate) {
	t.Helper()
	if len(resps) == 0 || len(resps[len(resps)-1].Candidates) == 0 {
		t.Fatalf("got %d responses, want a candidate", len(resps))
	}
	var parts []string
	var joined strings.Builder
	for _, r := range resps {
		for _, p := range r.Candidates[0].Content.Parts {
			if stream {
				joined.WriteString(p.Text)
			} else {
				parts = append(parts, p.Text)
			}
		}
	}
	if stream {
		parts = []string{joined.String()}
	}
	return parts, resps[len(resps)-1].Candidates[0]
}

func modes() []bool { return []bool{false, true} }

func mode(stream bool) string {
	if stream {
		return "stream"
	}
	return "unary"
}

func TestSDKRequests(t *testing.T) {
	t.Parallel()
	for _, stream := range modes() {
		t.Run(mode(stream), func(t *testing.T) {
			t.Parallel()
			m, c := sdkStart(t)
			resps, err := generate(context.Background(), c, stream, "Wie ist das Wetter in München?")
			if err != nil {
				t.Fatal(err)
			}
			parts, cand := answer(t, stream, resps)
			text := "Mock search results: the topic is covered by two sources."
			if strings.Join(parts, "") != text {
				t.Errorf("got %q, want the default search answer", parts)
			}
			if g := cand.GroundingMetadata; g == nil || len(g.GroundingSupports) != 1 || g.GroundingSupports[0].Segment.Text != text ||
				g.GroundingSupports[0].Segment.EndIndex != int32(len(text)) || len(g.GroundingSupports[0].GroundingChunkIndices) != 2 {
				t.Errorf("got grounding %s, want one support: the whole text backed by both sources", jsonString(g))
			}
			if stream && len(resps) < 2 {
				t.Errorf("got %d chunks, want several", len(resps))
			}
			reqs := m.Requests()
			if len(reqs) != 1 {
				t.Fatalf("got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			action := map[bool]string{false: "generateContent", true: "streamGenerateContent"}[stream]
			if r.Model != sdkModel || r.Action != action || r.Stream != stream {
				t.Errorf("got model %q, action %q, stream %v, want %q, %q, %v", r.Model, r.Action, r.Stream, sdkModel, action, stream)
			}
			if r.Kind != KindSearch {
				t.Errorf("got kind %q, want %q: a request offering googleSearch and urlContext is a search", r.Kind, KindSearch)
			}
			if want := []string{"googleSearch", "urlContext"}; !slices.Equal(r.BuiltinTools, want) || len(r.Tools) != 0 {
				t.Errorf("got builtin tools %q and functions %q, want %q and none", r.BuiltinTools, r.Tools, want)
			}
			if r.SystemInstruction != sdkSystem || r.Prompt != "Wie ist das Wetter in München?" {
				t.Errorf("got system instruction %q, prompt %q", r.SystemInstruction, r.Prompt)
			}
			if !r.APIKey {
				t.Error("got APIKey false, want the key's presence recorded")
			}
			if !strings.HasPrefix(r.Header["User-Agent"], "google-genai-sdk/") {
				t.Errorf("got User-Agent %q, want the SDK's", r.Header["User-Agent"])
			}
			log, _ := json.Marshal(reqs)
			if strings.Contains(string(log), sdkKey) {
				t.Error("the API key's value was recorded")
			}
		})
	}
}

// sources has a URL twice, as real grounding chunks do.
var sdkSources = []Source{
	{URI: "https://wetter.example.de/muenchen", Title: "wetter.example.de"},
	{URI: "https://tenki.example.jp/tokyo", Title: "tenki.example.jp"},
	{URI: "https://wetter.example.de/muenchen", Title: "wetter.example.de"},
}

func TestSDKGroundedSupports(t *testing.T) {
	t.Parallel()
	queries := []string{"Wetter München heute", "東京 天気"}
	type want struct {
		segment string
		sources []int32
	}
	single := GroundedAnswer("Über München scheint die Sonne. In 東京 regnet es, sagt das Ämt. Ohne Beleg.", sdkSources,
		Cite("München scheint die Sonne.", 0, 2),
		Cite("東京 regnet es", 1),
		Cite("Ohne Beleg."))
	single.Queries = queries
	multi := GroundedParts([]string{"Über München scheint die Sonne. ", "In 東京 regnet es, sagt das Ämt."}, sdkSources,
		Cite("Sonne.", 0),
		Cite("東京 regnet es", 1, 2))
	multi.Queries = queries
	tests := []struct {
		name  string
		reply Reply
		want  []want
		// part and start of the second support in a non-streamed answer, in bytes
		part, start int32
	}{
		{"one part", single, []want{
			{"München scheint die Sonne.", []int32{0, 2}}, {"東京 regnet es", []int32{1}}, {"Ohne Beleg.", nil},
		}, 0, int32(len("Über München scheint die Sonne. In "))},
		{"two parts", multi, []want{
			{"Sonne.", []int32{0}}, {"東京 regnet es", []int32{1, 2}},
		}, 1, int32(len("In "))},
	}
	for _, tt := range tests {
		for _, stream := range modes() {
			t.Run(tt.name+"/"+mode(stream), func(t *testing.T) {
				t.Parallel()
				m, c := sdkStart(t)
				m.Handle(KindSearch, Always(tt.reply))
				resps, err := generate(context.Background(), c, stream, "Wetter?")
				if err != nil {
					t.Fatal(err)
				}
				parts, cand := answer(t, stream, resps)
				if got, want := strings.Join(parts, ""), tt.reply.text(); got != want {
					t.Fatalf("got text %q, want %q", got, want)
				}
				for i, r := range resps[:len(resps)-1] {
					if r.Candidates[0].GroundingMetadata != nil {
						t.Errorf("chunk %d carries grounding metadata, want it only in the last", i)
					}
				}
				g := cand.GroundingMetadata
				if g == nil {
					t.Fatal("no grounding metadata")
				}
				if !slices.Equal(g.WebSearchQueries, queries) {
					t.Errorf("got queries %q, want %q", g.WebSearchQueries, queries)
				}
				if len(g.GroundingChunks) != len(sdkSources) {
					t.Fatalf("got %d chunks, want %d", len(g.GroundingChunks), len(sdkSources))
				}
				for i, ch := range g.GroundingChunks {
					if ch.Web == nil || ch.Web.URI != sdkSources[i].URI || ch.Web.Title != sdkSources[i].Title {
						t.Errorf("chunk %d: got %+v, want %+v", i, ch.Web, sdkSources[i])
					}
				}
				if len(g.GroundingSupports) != len(tt.want) {
					t.Fatalf("got %d supports, want %d", len(g.GroundingSupports), len(tt.want))
				}
				for i, s := range g.GroundingSupports {
					seg := s.Segment
					if seg == nil || int(seg.PartIndex) >= len(parts) || seg.StartIndex < 0 || seg.StartIndex > seg.EndIndex ||
						int(seg.EndIndex) > len(parts[seg.PartIndex]) {
						t.Fatalf("support %d: segment %+v out of the %d parts %q", i, seg, len(parts), parts)
					}
					if got := parts[seg.PartIndex][seg.StartIndex:seg.EndIndex]; got != seg.Text || got != tt.want[i].segment {
						t.Errorf("support %d: bytes [%d:%d] of part %d are %q, segment.text %q, want %q",
							i, seg.StartIndex, seg.EndIndex, seg.PartIndex, got, seg.Text, tt.want[i].segment)
					}
					if !slices.Equal(s.GroundingChunkIndices, tt.want[i].sources) {
						t.Errorf("support %d: got chunk indices %v, want %v", i, s.GroundingChunkIndices, tt.want[i].sources)
					}
				}
				part, start := tt.part, tt.start
				if stream { // one part: the offsets count from the start of the whole text
					part, start = 0, int32(strings.Index(tt.reply.text(), "東京"))
				}
				if seg := g.GroundingSupports[1].Segment; seg.PartIndex != part || seg.StartIndex != start {
					t.Errorf("second support: got part %d at byte %d, want part %d at byte %d", seg.PartIndex, seg.StartIndex, part, start)
				}
			})
		}
	}
}

func TestSDKStreamEarlyMetadata(t *testing.T) {
	t.Parallel()
	m, c := sdkStart(t)
	r := GroundedAnswer("Go 1.26 erschien im Februar 2026 mit neuen Sprachfunktionen.", DefaultSources, Cite("Go 1.26 erschien im Februar 2026", 0, 1))
	r.Queries = []string{"go 1.26 release date"}
	r.URLs = []URLMetadata{{URL: "https://go.dev/doc/go1.26"}}
	r.EarlyMetadata, r.Chunks, r.ChunkDelay = true, 4, 20*time.Millisecond
	m.Handle(KindSearch, Always(r))

	resps, err := generate(context.Background(), c, true, "go 1.26")
	if err != nil {
		t.Fatal(err)
	}
	if len(resps) != 4 {
		t.Fatalf("got %d chunks, want 4", len(resps))
	}
	first := resps[0].Candidates[0]
	if first.Content == nil || len(first.Content.Parts) == 0 || first.Content.Parts[0].Text == "" {
		t.Errorf("first chunk: got content %+v, want text", first.Content)
	}
	if first.FinishReason != "" || first.GroundingMetadata == nil || !slices.Equal(first.GroundingMetadata.WebSearchQueries, r.Queries) ||
		len(first.GroundingMetadata.GroundingChunks) != 0 || len(first.GroundingMetadata.GroundingSupports) != 0 {
		t.Errorf("first chunk: got finish %q, grounding %+v, want only the queries", first.FinishReason, first.GroundingMetadata)
	}
	if first.URLContextMetadata == nil || len(first.URLContextMetadata.URLMetadata) != 1 {
		t.Errorf("first chunk: got URL context %+v, want the page", first.URLContextMetadata)
	}
	for i, resp := range resps[1 : len(resps)-1] {
		if c := resp.Candidates[0]; c.GroundingMetadata != nil || c.URLContextMetadata != nil || c.FinishReason != "" {
			t.Errorf("chunk %d: got metadata %+v, %+v, finish %q, want none", i+1, c.GroundingMetadata, c.URLContextMetadata, c.FinishReason)
		}
	}
	parts, last := answer(t, true, resps)
	g := last.GroundingMetadata
	if last.FinishReason != genai.FinishReasonStop || g == nil || !slices.Equal(g.WebSearchQueries, r.Queries) ||
		len(g.GroundingChunks) != 2 || len(g.GroundingSupports) != 1 || last.URLContextMetadata == nil {
		t.Fatalf("last chunk: got finish %q, grounding %+v, URL context %+v, want all of it", last.FinishReason, g, last.URLContextMetadata)
	}
	seg := g.GroundingSupports[0].Segment
	if got := parts[0][seg.StartIndex:seg.EndIndex]; got != seg.Text {
		t.Errorf("segment bytes %q, text %q", got, seg.Text)
	}
}

// An answer that ends for a reason other than STOP: cut off by the output token limit, or a stream that just ends
// after its text with no chunk saying the model finished.
func TestSDKUnfinishedAnswers(t *testing.T) {
	t.Parallel()
	const text = "Der Föhn ist ein warmer Fallwind, der in den Alpen"
	for _, tt := range []struct {
		name   string
		reply  Reply
		finish genai.FinishReason
	}{
		{"max tokens", MaxTokens(text), genai.FinishReasonMaxTokens},
		{"cut off", CutOff(text), ""},
	} {
		for _, stream := range modes() {
			t.Run(tt.name+"/"+mode(stream), func(t *testing.T) {
				t.Parallel()
				m, c := sdkStart(t)
				r := tt.reply
				r.Grounding, r.Chunks = DefaultSources, 3
				m.Handle(KindSearch, Always(r))
				resps, err := generate(context.Background(), c, stream, "föhn")
				if err != nil {
					t.Fatal(err)
				}
				parts, last := answer(t, stream, resps)
				if strings.Join(parts, "") != text {
					t.Errorf("text %q, want %q", parts, text)
				}
				for i, resp := range resps {
					if got := resp.Candidates[0].FinishReason; got != "" && (got != tt.finish || i < len(resps)-1) {
						t.Errorf("chunk %d of %d: finish reason %q, want %q on the last one only", i+1, len(resps), got, tt.finish)
					}
				}
				if last.FinishReason != tt.finish {
					t.Errorf("finish reason %q, want %q", last.FinishReason, tt.finish)
				}
				if cut := tt.finish == ""; stream && cut && (last.GroundingMetadata != nil || resps[len(resps)-1].UsageMetadata != nil) {
					t.Errorf("a stream cut short sent the last chunk's metadata: %+v", last.GroundingMetadata)
				}
			})
		}
	}
}

func TestSDKURLContext(t *testing.T) {
	t.Parallel()
	r := Fetched("Die Seite beschreibt Go 1.26.", "https://go.dev/doc/go1.26")
	r.URLs = append(r.URLs, URLMetadata{URL: "https://paywall.example.com/a", Status: URLRetrievalPaywall})
	want := []*genai.URLMetadata{
		{RetrievedURL: "https://go.dev/doc/go1.26", URLRetrievalStatus: genai.URLRetrievalStatusSuccess},
		{RetrievedURL: "https://paywall.example.com/a", URLRetrievalStatus: genai.URLRetrievalStatusPaywall},
	}
	for _, stream := range modes() {
		t.Run(mode(stream), func(t *testing.T) {
			t.Parallel()
			m, c := sdkStart(t)
			m.Handle(KindSearch, Always(r))
			resps, err := generate(context.Background(), c, stream, "summarize https://go.dev/doc/go1.26")
			if err != nil {
				t.Fatal(err)
			}
			parts, cand := answer(t, stream, resps)
			if strings.Join(parts, "") != r.Text || cand.GroundingMetadata != nil {
				t.Errorf("got %q with grounding %+v, want the text without grounding", parts, cand.GroundingMetadata)
			}
			if cand.URLContextMetadata == nil {
				t.Fatal("no URL context metadata")
			}
			if got := cand.URLContextMetadata.URLMetadata; !slices.EqualFunc(got, want, func(a, b *genai.URLMetadata) bool { return *a == *b }) {
				t.Errorf("got %s, want %s", jsonString(got), jsonString(want))
			}
		})
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// detail returns the error detail whose @type ends in typ.
func detail(e genai.APIError, typ string) map[string]any {
	for _, d := range e.Details {
		if t, _ := d["@type"].(string); strings.HasSuffix(t, "."+typ) {
			return d
		}
	}
	return nil
}

func TestSDKErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		reply  Reply
		code   int
		status string
		check  func(e genai.APIError) error // checks the details
	}{
		{"400 invalid key", InvalidKey(), 400, "INVALID_ARGUMENT", func(e genai.APIError) error {
			if d := detail(e, "ErrorInfo"); d["reason"] != "API_KEY_INVALID" {
				return fmt.Errorf("ErrorInfo %v, want reason API_KEY_INVALID", d)
			}
			if e.Message != "API key not valid. Please pass a valid API key." {
				return fmt.Errorf("message %q", e.Message)
			}
			return nil
		}},
		{"401", Unauthenticated(), 401, "UNAUTHENTICATED", func(e genai.APIError) error {
			if d := detail(e, "ErrorInfo"); d["reason"] != "API_KEY_INVALID" {
				return fmt.Errorf("ErrorInfo %v, want reason API_KEY_INVALID", d)
			}
			return nil
		}},
		{"403", PermissionDenied(), 403, "PERMISSION_DENIED", nil},
		{"429 per minute", QuotaPerMinute("17s"), 429, "RESOURCE_EXHAUSTED", func(e genai.APIError) error {
			if d := detail(e, "RetryInfo"); d["retryDelay"] != "17s" {
				return fmt.Errorf("RetryInfo %v, want retryDelay 17s", d)
			}
			if !strings.Contains(jsonString(detail(e, "QuotaFailure")), "PerMinute") {
				return fmt.Errorf("QuotaFailure %v, want a quotaId with PerMinute", detail(e, "QuotaFailure"))
			}
			return nil
		}},
		{"429 per day", QuotaDaily(), 429, "RESOURCE_EXHAUSTED", func(e genai.APIError) error {
			if !strings.Contains(jsonString(detail(e, "QuotaFailure")), "PerDay") || detail(e, "RetryInfo") != nil {
				return fmt.Errorf("details %v, want a QuotaFailure with PerDay and no RetryInfo", e.Details)
			}
			return nil
		}},
		{"500", Internal(), 500, "INTERNAL", nil},
		{"503", Unavailable(), 503, "UNAVAILABLE", nil},
	}
	for _, tt := range tests {
		for _, stream := range modes() {
			t.Run(tt.name+"/"+mode(stream), func(t *testing.T) {
				t.Parallel()
				m, c := sdkStart(t)
				m.Handle(KindSearch, Always(tt.reply))
				resps, err := generate(context.Background(), c, stream, "q")
				var apiErr genai.APIError
				if !errors.As(err, &apiErr) {
					t.Fatalf("got %d responses and error %v (%T), want a genai.APIError", len(resps), err, err)
				}
				if apiErr.Code != tt.code || apiErr.Status != tt.status {
					t.Errorf("got %d %s, want %d %s", apiErr.Code, apiErr.Status, tt.code, tt.status)
				}
				if tt.check != nil {
					if err := tt.check(apiErr); err != nil {
						t.Error(err)
					}
				}
			})
		}
	}
}

func TestSDKSlowStreamCutByDeadline(t *testing.T) {
	t.Parallel()
	m, c := sdkStart(t)
	r := Text("eins zwei drei vier")
	r.Chunks, r.ChunkDelay = 4, time.Hour
	m.Handle(KindSearch, Always(r))

	// Long enough for the first chunk to arrive on a loaded machine; the next comes in an hour.
	ctx, cancel := context.WithTimeout(context.Background(), testkit.FirstWordsLimit)
	defer cancel()
	resps, err := generate(ctx, c, true, "q")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got error %v, want the deadline", err)
	}
	if parts, _ := answer(t, true, resps); parts[0] != "eins " {
		t.Errorf("got partial answer %q, want the first chunk", parts[0])
	}
	if got := m.Requests()[0].Reply; !strings.Contains(got, "chunks every 1h0m0s") {
		t.Errorf("reply summary: got %q", got)
	}
}

func TestSDKSlowStreamReleasedByClose(t *testing.T) {
	t.Parallel()
	m, c := sdkStart(t)
	r := Text("eins zwei drei vier")
	r.Chunks, r.ChunkDelay = 4, time.Hour
	m.Handle(KindSearch, Always(r))

	var got strings.Builder
	n := 0
	for resp, err := range c.Models.GenerateContentStream(context.Background(), sdkModel, genai.Text("q"), sdkConfig()) {
		if err != nil {
			t.Fatal(err)
		}
		got.WriteString(resp.Text())
		if n++; n == 1 {
			m.Close() // the rest comes at once
		}
	}
	if got.String() != "eins zwei drei vier" || n != 4 {
		t.Errorf("got %q in %d chunks, want the whole text in 4", got.String(), n)
	}
}

func TestGroundedAnswerOffsets(t *testing.T) {
	t.Parallel()
	r := GroundedAnswer("Ja. Nein. Ja.", DefaultSources, Cite("Ja.", 0), Cite("Ja.", 1), Cite("Nein.", 0), Cite("Ja.", 0, 1))
	got := make([][2]int, len(r.Supports))
	for i, s := range r.Supports {
		got[i] = [2]int{s.Start, s.End}
	}
	// Each segment is found at or after the end of the previous one, else from the start.
	if want := [][2]int{{0, 3}, {10, 13}, {4, 9}, {10, 13}}; !slices.Equal(got, want) {
		t.Errorf("got offsets %v, want %v", got, want)
	}
	if r.Text != "Ja. Nein. Ja." || r.Parts != nil {
		t.Errorf("got text %q, parts %q, want the text in Text", r.Text, r.Parts)
	}

	for _, tt := range []struct {
		name string
		f    func()
	}{
		{"segment not in the text", func() { GroundedAnswer("abc", DefaultSources, Cite("x", 0)) }},
		{"segment across parts", func() { GroundedParts([]string{"ab", "cd"}, DefaultSources, Cite("bc", 0)) }},
		{"empty segment", func() { GroundedAnswer("abc", DefaultSources, Cite("", 0)) }},
		{"source out of range", func() { GroundedAnswer("abc", DefaultSources, Cite("a", 2)) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("got no panic, want one")
				}
			}()
			tt.f()
		})
	}
}

func TestSupportWire(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		s    Support
		want string
	}{
		{Support{End: 3, Text: "abc", Sources: []int{0}}, `{"groundingChunkIndices":[0],"segment":{"endIndex":3,"text":"abc"}}`},
		{Support{Part: 1, Start: 2, End: 3, Text: "c"}, `{"segment":{"endIndex":3,"partIndex":1,"startIndex":2,"text":"c"}}`},
	} {
		if got := jsonString(tt.s.wire()); got != tt.want {
			t.Errorf("got %s, want %s (zero values left out, like the real API)", got, tt.want)
		}
	}
}
