package geminiapi

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"

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

func TestGroundReadsSegmentsByByteOffsets(t *testing.T) {
	t.Parallel()
	// Multi-byte text before and inside the cited segments: rune or UTF-16 offsets would land elsewhere.
	part := "Über München: der Föhn weht oft. 東京は大きい都市です。 Unbelegt bleibt dies."
	g := &genai.GroundingMetadata{
		GroundingChunks: []*genai.GroundingChunk{web("https://a.example/föhn", "a.example"), web("https://b.example/tokyo", "b.example"),
			web("https://a.example/föhn", "a.example")}, // a duplicate URL: one source
		GroundingSupports: []*genai.GroundingSupport{
			support(part, "東京は大きい都市です。", 0, 1, 0), // out of order: citations follow the answer
			support(part, "der Föhn weht oft.", 0, 0, 2),
		},
		WebSearchQueries: []string{"föhn münchen", "東京 人口", "föhn münchen"},
	}
	want := &backend.Grounding{
		Sources: []backend.Source{{URL: "https://a.example/föhn", Title: "a.example"}, {URL: "https://b.example/tokyo", Title: "b.example"}},
		Queries: []string{"föhn münchen", "東京 人口"},
		Citations: []backend.Citation{
			{Text: "der Föhn weht oft.", Sources: []int{1}},
			{Text: "東京は大きい都市です。", Sources: []int{1, 2}},
		},
	}
	if got := ground([]string{part}, g); !reflect.DeepEqual(got, want) {
		t.Errorf("grounding:\n got %+v\nwant %+v", got, want)
	}
}

func TestGroundChecksOffsetsAgainstTheSegmentText(t *testing.T) {
	t.Parallel()
	part := "Erst dies. Dann das. Dann das."
	chunks := []*genai.GroundingChunk{web("https://a.example", "a")}
	tests := []struct {
		name string
		seg  genai.Segment
		want []backend.Citation
	}{
		{"offsets in runes, not bytes: the text is found nearest to them",
			genai.Segment{StartIndex: 21, EndIndex: 30, Text: "Dann das."}, []backend.Citation{{Text: "Dann das.", Sources: []int{1}}}},
		{"offsets beyond the part: found by text", genai.Segment{StartIndex: 90, EndIndex: 99, Text: "Erst dies."},
			[]backend.Citation{{Text: "Erst dies.", Sources: []int{1}}}},
		{"text found nowhere: not cited", genai.Segment{StartIndex: 0, EndIndex: 9, Text: "Nie gesagt."}, nil},
		{"no text: the offsets", genai.Segment{StartIndex: 0, EndIndex: 10}, []backend.Citation{{Text: "Erst dies.", Sources: []int{1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			seg := tt.seg
			got := ground([]string{part}, &genai.GroundingMetadata{GroundingChunks: chunks,
				GroundingSupports: []*genai.GroundingSupport{{Segment: &seg, GroundingChunkIndices: []int32{0}}}})
			if !reflect.DeepEqual(got.Citations, tt.want) {
				t.Errorf("got %+v, want %+v", got.Citations, tt.want)
			}
		})
	}
	// Offsets without text that cut a multi-byte character are moved to its end.
	got := ground([]string{"Ein Bär."}, &genai.GroundingMetadata{GroundingChunks: chunks,
		GroundingSupports: []*genai.GroundingSupport{{Segment: &genai.Segment{EndIndex: 6}, GroundingChunkIndices: []int32{0}}}})
	if len(got.Citations) != 1 || got.Citations[0].Text != "Ein Bä" {
		t.Errorf("a cut character: got %+v", got.Citations)
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
			support(parts[0], "Teil eins.", 0, 14),                                                  // only a source beyond the 12 listed: not cited
			support(parts[0], "Teil eins.", 0),                                                      // no source at all: not cited
			{Segment: &genai.Segment{PartIndex: 5, EndIndex: 3}, GroundingChunkIndices: []int32{0}}, // no such part
		}}
	got := ground(parts, g)
	if len(got.Sources) != backend.MaxSources || len(got.Queries) != backend.MaxQueries {
		t.Errorf("got %d sources and %d queries, want the caps %d and %d", len(got.Sources), len(got.Queries),
			backend.MaxSources, backend.MaxQueries)
	}
	if want := []backend.Citation{{Text: "Teil zwei ist belegt.", Sources: []int{3}}}; !reflect.DeepEqual(got.Citations, want) {
		t.Errorf("citations: %+v", got.Citations)
	}
}

// A citation's text is a copy: a slice of the answer would keep all of it in memory for as long as the report's
// citations are kept.
func TestGroundCitationsDoNotPinTheAnswer(t *testing.T) {
	t.Parallel()
	part := "A cited sentence. " + strings.Repeat("The rest of a long answer. ", 100)
	g := &genai.GroundingMetadata{GroundingChunks: []*genai.GroundingChunk{web("https://a.example", "a")},
		GroundingSupports: []*genai.GroundingSupport{support(part, "A cited sentence.", 0, 0)}}
	got := ground([]string{part}, g)
	if len(got.Citations) != 1 || got.Citations[0].Text != "A cited sentence." {
		t.Fatalf("citations %+v, want the cited sentence", got.Citations)
	}
	text, answer := uintptr(unsafe.Pointer(unsafe.StringData(got.Citations[0].Text))), uintptr(unsafe.Pointer(unsafe.StringData(part)))
	if answer <= text && text < answer+uintptr(len(part)) { // it lies in the answer's memory
		t.Error("the citation's text is a slice of the answer")
	}
}
