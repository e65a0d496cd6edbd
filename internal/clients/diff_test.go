package clients

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestDiffOfALargeFile: Claude Code's ~/.claude.json keeps every project it has opened and grows to 100,000 lines;
// the diff of adding the entry shows the entry's lines and three lines around them, as for a small file.
func TestDiffOfALargeFile(t *testing.T) {
	t.Parallel()
	c := client(t, t.TempDir(), "claude-code", server)
	var file strings.Builder
	file.WriteString("{\n  \"numStartups\": 412,\n  \"projects\": {\n")
	const projects = 33_330 // three lines each: 100,000 lines in all
	for i := range projects {
		fmt.Fprintf(&file, "    \"/home/me/src/p%d\": {\n      \"allowedTools\": []\n    },\n", i)
	}
	file.WriteString("    \"/home/me/src/last\": {}\n  },\n  \"mcpServers\": {\n    \"other\": {\n" +
		"      \"url\": \"http://x\"\n    }\n  }\n}\n")
	lines := strings.Count(file.String(), "\n")
	if lines < 100_000 {
		t.Fatalf("the file has %d lines, want 100,000", lines)
	}
	writeFile(t, c.Path, file.String(), 0o600)

	ch, err := c.PlanConnect()
	if err != nil {
		t.Fatal(err)
	}
	at := lines - 5 // the line of "mcpServers", three lines above the change
	want := fmt.Sprintf("--- ~/.claude.json\n+++ ~/.claude.json\n@@ -%d,6 +%d,10 @@\n", at, at) +
		"   \"mcpServers\": {\n     \"other\": {\n       \"url\": \"http://x\"\n+    },\n" +
		"+    \"gemini-search\": {\n+      \"type\": \"http\",\n+      \"url\": \"http://127.0.0.1:3000/mcp\"\n" +
		"     }\n   }\n }\n"
	if got := ch.Diff(); got != want {
		t.Errorf("diff:\n%s\nwant:\n%s", got, want)
	}

	if _, err := ch.Apply(time.Now()); err != nil {
		t.Fatal(err)
	}
	ch, err = c.PlanDisconnect()
	if err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(strings.ReplaceAll(want, "\n+ ", "\n- "), fmt.Sprintf("-%d,6 +%d,10", at, at),
		fmt.Sprintf("-%d,10 +%d,6", at, at), 1)
	if got := ch.Diff(); got != want {
		t.Errorf("diff of disconnect:\n%s\nwant:\n%s", got, want)
	}
}

// TestDiffOfALargeChange: when the changed lines are many, and differ throughout, they are shown as removed and
// then added rather than compared line by line.
func TestDiffOfALargeChange(t *testing.T) {
	t.Parallel()
	var a, b []string
	for i := range 2000 {
		a = append(a, fmt.Sprintf("old %d", i))
		b = append(b, fmt.Sprintf("new %d", i))
	}
	a = append(append([]string{"start"}, a...), "end")
	b = append(append([]string{"start"}, b...), "end")
	ops := diffOps(a, b)
	if len(ops) != 2+4000 || ops[0] != (diffOp{' ', "start"}) || ops[1] != (diffOp{'-', "old 0"}) ||
		ops[2001] != (diffOp{'+', "new 0"}) || ops[4001] != (diffOp{' ', "end"}) {
		t.Errorf("%d ops, from %v, %v, %v to %v", len(ops), ops[0], ops[1], ops[2001], ops[len(ops)-1])
	}
}
