package gemini

import (
	"strings"
	"testing"
)

func TestRelevantLines(t *testing.T) {
	t.Parallel()
	stderr := "Warning: 256-color support not detected.\n" +
		"Ripgrep is not available. Falling back to GrepTool.\n" +
		"[STARTUP] Phase 'x' took 3ms\n" +
		"Loaded cached credentials.\n" +
		"YOLO mode is enabled.\n" +
		"\n  \r\n" +
		"Attempt 1 failed with status 429.\r\n" +
		"    at f (file:///home/u/.npm/gemini-cli/bundle/chunk.js:1:2)\n" +
		"Full report available at: /tmp/gemini-run-1/gemini-client-error-x.json\n" +
		"last line without newline"
	got := relevantLines(stderr)
	want := []string{"Attempt 1 failed with status 429.", "last line without newline"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestDetail(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 200 {
		lines = append(lines, strings.Repeat("x", 40)+" line "+string(rune('a'+i%26)))
	}
	lines = append(lines, "final", "final")
	got := detail(lines)
	if len(got) > maxDetail || !strings.HasSuffix(got, "\nfinal") || strings.Count(got, "final") != 1 {
		t.Errorf("got %d bytes ending %q, want at most %d ending with one \"final\"", len(got), got[max(0, len(got)-20):], maxDetail)
	}
	long := detail([]string{"short", strings.Repeat("é", 3000)})
	if len(long) > maxDetail || !strings.HasSuffix(long, "…") || strings.Contains(long, "short") {
		t.Errorf("got %d bytes, want one long line cut to at most %d bytes ending with …", len(long), maxDetail)
	}
}

func TestBuffers(t *testing.T) {
	t.Parallel()
	tail := &tailBuffer{max: 16}
	for _, s := range []string{"first line\n", "second\n", "third\n"} {
		tail.Write([]byte(s))
	}
	if got := tail.String(); got != "second\nthird\n" {
		t.Errorf("tail: got %q, want %q", got, "second\nthird\n")
	}
	tail.Write([]byte(strings.Repeat("y", 40)))
	if got := tail.String(); len(got) > 16 {
		t.Errorf("tail: got %d bytes, want at most 16", len(got))
	}
	head := &headBuffer{max: 5}
	head.Write([]byte("0.61"))
	head.Write([]byte(".0\nmore"))
	if got := head.String(); got != "0.61." {
		t.Errorf("head: got %q, want %q", got, "0.61.")
	}
}
