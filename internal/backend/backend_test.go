package backend

import (
	"fmt"
	"strings"
	"testing"
)

// A masked result carries the secret nowhere: not in the answer, the queries or URLs, the tools' errors, nor the
// API's grounding; the original is left as it was.
func TestResultMasked(t *testing.T) {
	const secret = "fc-0123456789abcdef"
	mask := func(s string) string { return strings.ReplaceAll(s, secret, "[redacted]") }
	r := Result{Text: "key " + secret, Queries: []string{secret}, URLs: []string{"https://x.example/?k=" + secret},
		ToolErrors: []ToolError{{Tool: "t", Message: secret}},
		Grounding: &Grounding{Queries: []string{secret}, Sources: []Source{{URL: "https://" + secret, Title: secret, Snippet: secret}},
			Citations: []Citation{{Text: "key " + secret, Sources: []int{1}}}}}
	masked := r.Masked(mask)
	if got := fmt.Sprintf("%+v %+v", masked, *masked.Grounding); strings.Contains(got, secret) {
		t.Errorf("the masked result holds the secret: %s", got)
	}
	if masked.Grounding.Citations[0].Text != "key [redacted]" || masked.Text != "key [redacted]" {
		t.Errorf("a cited segment no longer matches the answer: %q in %q", masked.Grounding.Citations[0].Text, masked.Text)
	}
	if !strings.Contains(r.Grounding.Sources[0].Title, secret) || r.ToolErrors[0].Message != secret {
		t.Error("Masked changed the original")
	}
}
