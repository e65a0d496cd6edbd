package research

import (
	"reflect"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// The segments come from the answer as the model wrote it, often JSON; the report is decoded from it.
func TestCitePlacesMarkersInTheDecodedReport(t *testing.T) {
	t.Parallel()
	report := "# Titel\n\nEr sagte \"ja\" zum Föhn.\nZweite Zeile: 東京。 Dann das. Dann das.\n\n- Ein Punkt mit Beleg. Und einer ohne."
	g := &backend.Grounding{Citations: []backend.Citation{
		{Text: `Er sagte \"ja\" zum Föhn.`, Sources: []int{1}}, // escaped quotes, as in the JSON answer
		{Text: `Föhn.\nZweite Zeile: 東京。`, Sources: []int{2}},  // spans a line break, escaped
		{Text: "Dann das.", Sources: []int{1}},                 // said twice: cited in order
		{Text: "Dann das.", Sources: []int{2}},                 //
		{Text: `Ein Punkt mit Beleg."`, Sources: []int{1}},     // with the JSON string's closing quote
		{Text: "Nie gesagt.", Sources: []int{3}},               // found nowhere: not placed
	}}
	marked, placed, supported, unsupported := cite(report, g, 0)
	want := "# Titel\n\nEr sagte \"ja\" zum Föhn.[1]\nZweite Zeile: 東京。[2] Dann das.[1] Dann das.[2]\n\n- Ein Punkt mit Beleg.[1] Und einer ohne."
	if marked != want {
		t.Errorf("marked:\n got %q\nwant %q", marked, want)
	}
	if len(placed) != 5 || !reflect.DeepEqual(placed[4], g.Citations[4]) {
		t.Errorf("placed %+v", placed)
	}
	// Sentences: the quote, "Zweite Zeile: 東京。", two "Dann das.", the two of the list item; the heading is none.
	if supported != 5 || unsupported != 1 {
		t.Errorf("claims: %d supported, %d unsupported; want 5 and 1", supported, unsupported)
	}
}

func TestCiteAMarkerTheModelWroteIsNoSource(t *testing.T) {
	t.Parallel()
	report := "Belegt ist dies. Unbelegt ist das [1]. Auch os.Args[1] bleibt stehen."
	marked, _, supported, unsupported := cite(report, &backend.Grounding{Citations: []backend.Citation{
		{Text: "Belegt ist dies.", Sources: []int{1}}}}, 0)
	if marked != "Belegt ist dies.[1] Unbelegt ist das [1]. Auch os.Args[1] bleibt stehen." {
		t.Errorf("marked %q", marked)
	}
	if supported != 1 || unsupported != 2 {
		t.Errorf("claims: %d supported, %d unsupported; want 1 and 2", supported, unsupported)
	}
}

// In a follow-up's answer the markers of the prior sources (1 to own) are the answer's own: a segment that carries
// one, in it or right after it, gets no second for that source; a [n] in code is no marker. In any other answer a
// marker the model wrote means nothing, and the grounding's stands beside it.
func TestCiteTheAnswersOwnMarkers(t *testing.T) {
	t.Parallel()
	report := "Warm [1]. Dry.[2] Cold. [1] Wet `x [2]`. New [3]."
	g := &backend.Grounding{Citations: []backend.Citation{
		{Text: "Warm [1].", Sources: []int{1, 3}},
		{Text: "Dry.", Sources: []int{2}},
		{Text: "Cold.", Sources: []int{1}},
		{Text: "Wet `x [2]`.", Sources: []int{2}},
		{Text: "New [3].", Sources: []int{3}}, // 3 is no prior source: the answer's [3] is not its marker
	}}
	for _, tc := range []struct {
		own  int
		want string
	}{
		{2, "Warm [1].[3] Dry.[2] Cold. [1] Wet `x [2]`.[2] New [3].[3]"},
		{0, "Warm [1].[1][3] Dry.[2][2] Cold.[1] [1] Wet `x [2]`.[2] New [3].[3]"},
	} {
		if marked, placed, _, _ := cite(report, g, tc.own); marked != tc.want || len(placed) != 5 {
			t.Errorf("own %d: marked %q with %d citations placed, want %q and 5", tc.own, marked, len(placed), tc.want)
		}
	}
}
