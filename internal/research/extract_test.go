package research

import (
	"strings"
	"testing"
)

func TestExtractReport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		text       string
		wantOK     bool
		wantReport string
	}{
		{"fenced", "```json\n{\"success\": true, \"report\": \"# R\"}\n```", true, "# R"},
		{"fenced with prose around", "Here you go:\n```json\n{\"success\": true, \"report\": \"A\"}\n```\nDone.", true, "A"},
		{"fence inside the report string", "```json\n{\"success\": true, \"report\": \"code:\\n```go\\nx := 1\\n```\\nend\"}\n```", true, "code:\n```go\nx := 1\n```\nend"},
		{"bare object with prose", "Sure! {\"success\": true, \"report\": \"B\", \"metadata\": {\"iterations\": 2}} Hope it helps.", true, "B"},
		{"first object lacks fields, second has them", "{\"note\": 1} then {\"success\": false, \"report\": \"C\"}", true, "C"},
		{"invalid fenced block falls back to bare object", "```json\n{oops}\n```\n{\"success\": true, \"report\": \"D\"}", true, "D"},
		{"braces inside strings", "{\"success\": true, \"report\": \"a } and { b\"}", true, "a } and { b"},
		{"optional field of the wrong type", "```json\n{\"success\": true, \"report\": \"E\", \"metadata\": {\"iterations\": \"4\", \"sources_visited\": \"https://a\"}}\n```", true, "E"},
		{"no json", "I could not find anything.", false, ""},
		{"missing report", "{\"success\": true}", false, ""},
		{"success not boolean", "{\"success\": \"yes\", \"report\": \"x\"}", false, ""},
		{"truncated object", "```json\n{\"success\": true, \"report\": \"cut", false, ""},
		{"array is not an object", "[{\"success\": true}]", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := extractReport(tt.text)
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if ok && *got.Report != tt.wantReport {
				t.Errorf("report = %q, want %q", *got.Report, tt.wantReport)
			}
		})
	}
}

func TestExtractReportBoundsWorkOnBraceHeavyText(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("{ not json ", 100000) + `{"success": true, "report": "late"}`
	if _, ok := extractReport(text); ok {
		t.Fatal("found a report past the candidate limit; want the search bounded")
	}
}

func FuzzExtractReport(f *testing.F) {
	f.Add("```json\n{\"success\": true, \"report\": \"x\"}\n```")
	f.Add("{\"success\": true, \"report\": \"x\"}")
	f.Fuzz(func(t *testing.T, s string) {
		if r, ok := extractReport(s); ok && (r.Success == nil || r.Report == nil) {
			t.Fatal("accepted a report without success or report")
		}
	})
}

// BenchmarkExtractReport measures extraction from a large answer: 1 MiB of prose before a fenced report.
func BenchmarkExtractReport(b *testing.B) {
	text := strings.Repeat("Some prose the agent wrote before its answer. ", 1<<20/46) +
		"```json\n{\"success\": true, \"report\": \"# R\\n\\nBody.\", \"metadata\": {\"iterations\": 3}}\n```"
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, ok := extractReport(text); !ok {
			b.Fatal("no report")
		}
	}
}
