package research

import (
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// A report's Summary is its text without the notice, the sources list and the footers, and a part of the report in
// memory, not a copy that whoever keeps the report would keep too.
func TestReportSummaryIsAPartOfTheReport(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	g := &backend.Grounding{Sources: []backend.Source{{URL: "https://a.example", Title: "a"}},
		Citations: []backend.Citation{{Text: "The finding holds.", Sources: []int{1}}}}
	b := newBuilder("topic", "", start)
	b.freeText = true
	b.use(roundResult{res: backend.Result{Text: "The finding holds. More text.", Grounding: g, Truncated: true},
		fallbackFrom: "gemini-2.5-pro", timedOut: 5 * time.Second})
	rep := b.report(start.Add(time.Minute))
	if want := "The finding holds.[1] More text."; rep.Summary != want {
		t.Errorf("summary %q, want %q", rep.Summary, want)
	}
	if !strings.HasPrefix(rep.Report, "[Partial response, timed out after 5s]\n\n"+rep.Summary+"\n\n") ||
		!strings.Contains(rep.Report, "ran out of quota") || !strings.HasSuffix(rep.Report, "capture limit.]") {
		t.Errorf("report %q: want the notice, the summary, the sources and the footers", rep.Report)
	}
	if !inMemoryOf(rep.Summary, rep.Report) {
		t.Error("the summary is a copy of its own, not a part of the report")
	}
}

// inMemoryOf reports whether part lies in the memory of whole.
func inMemoryOf(part, whole string) bool {
	p, w := uintptr(unsafe.Pointer(unsafe.StringData(part))), uintptr(unsafe.Pointer(unsafe.StringData(whole)))
	return w <= p && p < w+uintptr(len(whole))
}

// A report with nothing around its text (no notice, sources or footer) is a copy, not a slice of the answer it came
// from, which whoever keeps the report would keep too.
func TestReportIsAStringOfItsOwn(t *testing.T) {
	t.Parallel()
	answer := "The answer. " + strings.Repeat("Then the rest of the output. ", 100)
	b := newBuilder("topic", "", time.Time{})
	b.freeText = true
	b.use(roundResult{res: backend.Result{Text: answer[:len("The answer.")]}})
	rep := b.report(time.Time{})
	if rep.Report != "The answer." || rep.Summary != rep.Report {
		t.Fatalf("report %q, summary %q, want the answer's text", rep.Report, rep.Summary)
	}
	if inMemoryOf(rep.Report, answer) {
		t.Error("the report is a slice of the answer")
	}
}
