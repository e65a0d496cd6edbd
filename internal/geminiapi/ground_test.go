package geminiapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// support builds a grounding support for the byte range of text in part, as the API reports it.
func support(part, text string, partIndex int, chunks ...int32) *genai.GroundingSupport {
	start := strings.Index(part, text)
	if start < 0 {
		panic("segment not in part: " + text)
	}
	return &genai.GroundingSupport{
		Segment:               &genai.Segment{PartIndex: int32(partIndex), StartIndex: int32(start), EndIndex: int32(start + len(text)), Text: text},
		GroundingChunkIndices: chunks,
	}
}

func web(uri, title string) *genai.GroundingChunk {
	return &genai.GroundingChunk{Web: &genai.GroundingChunkWeb{URI: uri, Title: title}}
}

func TestGroundMarksSegmentsByByteOffsets(t *testing.T) {
	t.Parallel()
	// Multi-byte text before and inside the cited segments: rune or UTF-16 offsets would land elsewhere.
	part := "Über München: der Föhn weht oft. 東京は大きい都市です。 Unbelegt bleibt dies."
	g := &genai.GroundingMetadata{
		GroundingChunks: []*genai.GroundingChunk{web("https://a.example/föhn", "a.example"), web("https://b.example/tokyo", "b.example"),
			web("https://a.example/föhn", "a.example")}, // a duplicate URL: one source
		GroundingSupports: []*genai.GroundingSupport{
			support(part, "der Föhn weht oft.", 0, 0, 2),
			support(part, "東京は大きい都市です。", 0, 1, 0),
		},
		WebSearchQueries: []string{"föhn münchen", "東京 人口", "föhn münchen"},
	}
	marked, got := ground([]string{part}, g)
	want := "Über München: der Föhn weht oft.[1] 東京は大きい都市です。[1][2] Unbelegt bleibt dies."
	if marked[0] != want {
		t.Errorf("marked:\n got %q\nwant %q", marked[0], want)
	}
	wantGrounding := &backend.Grounding{
		Sources: []backend.Source{{URL: "https://a.example/föhn", Title: "a.example"}, {URL: "https://b.example/tokyo", Title: "b.example"}},
		Queries: []string{"föhn münchen", "東京 人口"},
		Citations: []backend.Citation{
			{Text: "der Föhn weht oft.", Sources: []int{1}},
			{Text: "東京は大きい都市です。", Sources: []int{1, 2}},
		},
	}
	if !reflect.DeepEqual(got, wantGrounding) {
		t.Errorf("grounding:\n got %+v\nwant %+v", got, wantGrounding)
	}
}

func TestGroundChecksOffsetsAgainstTheSegmentText(t *testing.T) {
	t.Parallel()
	part := "Erst dies. Dann das. Dann das."
	chunks := []*genai.GroundingChunk{web("https://a.example", "a")}
	tests := []struct {
		name string
		seg  genai.Segment
		want string
	}{
		{"offsets in runes, not bytes: the text is found nearest to them",
			genai.Segment{StartIndex: 21, EndIndex: 30, Text: "Dann das."}, "Erst dies. Dann das. Dann das.[1]"},
		{"offsets beyond the part: found by text", genai.Segment{StartIndex: 90, EndIndex: 99, Text: "Erst dies."},
			"Erst dies.[1] Dann das. Dann das."},
		{"text found nowhere: no marker", genai.Segment{StartIndex: 0, EndIndex: 9, Text: "Nie gesagt."}, part},
		{"no text: the offsets, moved out of a character", genai.Segment{StartIndex: 0, EndIndex: 10}, "Erst dies.[1] Dann das. Dann das."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seg := tt.seg
			marked, _ := ground([]string{part}, &genai.GroundingMetadata{GroundingChunks: chunks,
				GroundingSupports: []*genai.GroundingSupport{{Segment: &seg, GroundingChunkIndices: []int32{0}}}})
			if marked[0] != tt.want {
				t.Errorf("got %q, want %q", marked[0], tt.want)
			}
		})
	}
	// Offsets without text that cut a multi-byte character are moved to its end.
	cut := "Ein Bär."
	marked, _ := ground([]string{cut}, &genai.GroundingMetadata{GroundingChunks: chunks,
		GroundingSupports: []*genai.GroundingSupport{{Segment: &genai.Segment{EndIndex: 6}, GroundingChunkIndices: []int32{0}}}})
	if marked[0] != "Ein Bä[1]r." {
		t.Errorf("a cut character: got %q", marked[0])
	}
}

func TestGroundKeepsJSONValid(t *testing.T) {
	t.Parallel()
	part := `{"success": true, "report": "Er sagte \"ja\".\nDas Zeichen \u00e9 steht hier."}`
	chunks := []*genai.GroundingChunk{web("https://a.example", "a")}
	start := int32(strings.Index(part, "Er sagte"))
	for _, end := range []int{
		strings.Index(part, `\"ja`) + 1,   // between \ and "
		strings.Index(part, `\nDas`) + 1,  // between \ and n
		strings.Index(part, `\u00e9`) + 3, // inside \u00e9
	} {
		seg := genai.Segment{StartIndex: start, EndIndex: int32(end)}
		marked, _ := ground([]string{part}, &genai.GroundingMetadata{GroundingChunks: chunks,
			GroundingSupports: []*genai.GroundingSupport{{Segment: &seg, GroundingChunkIndices: []int32{0}}}})
		if !strings.Contains(marked[0], "[1]") || !jsonValid(marked[0]) {
			t.Errorf("segment ending at %d: the marked answer is not valid JSON: %s", end, marked[0])
		}
	}
}

func TestGroundPartsAndCaps(t *testing.T) {
	t.Parallel()
	parts := []string{"Teil eins. ", "Teil zwei ist belegt."}
	var chunks []*genai.GroundingChunk
	for i := range 15 {
		chunks = append(chunks, web(fmt.Sprintf("https://s%d.example", i), ""))
	}
	var queries []string
	for i := range 10 {
		queries = append(queries, fmt.Sprintf("query %d", i))
	}
	g := &genai.GroundingMetadata{GroundingChunks: chunks, WebSearchQueries: queries,
		GroundingSupports: []*genai.GroundingSupport{
			support(parts[1], "Teil zwei ist belegt.", 1, 13, 2),
			support(parts[0], "Teil eins.", 0, 14),                                                  // only a source beyond the 12 listed: no marker
			support(parts[0], "Teil eins.", 0),                                                      // no source at all: no marker
			{Segment: &genai.Segment{PartIndex: 5, EndIndex: 3}, GroundingChunkIndices: []int32{0}}, // no such part
		}}
	marked, got := ground(parts, g)
	if marked[0] != parts[0] || marked[1] != "Teil zwei ist belegt.[3]" {
		t.Errorf("marked: %q", marked)
	}
	if len(got.Sources) != backend.MaxSources || len(got.Queries) != backend.MaxQueries {
		t.Errorf("got %d sources and %d queries, want the caps %d and %d", len(got.Sources), len(got.Queries),
			backend.MaxSources, backend.MaxQueries)
	}
	if len(got.Citations) != 1 || !reflect.DeepEqual(got.Citations[0].Sources, []int{3}) {
		t.Errorf("citations: %+v", got.Citations)
	}
}

func jsonValid(s string) bool { return json.Valid([]byte(s)) }
