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

// TestDiffHidesTokens: the diff goes to a terminal or a CI log, so every bearer token in it, this server's, the old
// entry's and another server's next to it, shows only its last four characters, in each format; the file gets
// the token itself.
func TestDiffHidesTokens(t *testing.T) {
	t.Parallel()
	const token, old, others = "new-secret-token-9f3a", "old-secret-token-77c1", "their-secret-token-5e2b"
	s := server
	s.AuthToken = token
	files := map[string]string{
		"cursor": `{"mcpServers": {"other": {"url": "http://o", "headers": {"Authorization": "Bearer ` + others + `"}},` +
			"\n" + `"gemini-search": {"url": "http://127.0.0.1:3000/mcp", "headers": {"Authorization": "Bearer ` + old + `"}}}}`,
		"codex": "[mcp_servers.other]\nurl = \"http://o\"\nhttp_headers = { Authorization = \"Bearer " + others + "\" }\n",
		"continue": "name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: other\n    url: http://o\n" +
			"    requestOptions:\n      headers:\n        Authorization: bearer " + others + "\n",
		"goose": "extensions:\n  other:\n    uri: http://o\n    headers: {Authorization: Bearer short}\n",
	}
	for id, file := range files {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			c := client(t, t.TempDir(), id, s)
			writeFile(t, c.Path, file, 0o600)
			ch, err := c.PlanConnect()
			if err != nil {
				t.Fatal(err)
			}
			diff := ch.Diff()
			for _, secret := range []string{token, old, others, "short"} {
				if strings.Contains(diff, secret) {
					t.Errorf("the diff shows %s:\n%s", secret, diff)
				}
			}
			if !strings.Contains(diff, "\n+") || !strings.Contains(diff, "Bearer ••••9f3a") {
				t.Errorf("the diff does not show the new token as Bearer ••••9f3a:\n%s", diff)
			}
			if _, err := ch.Apply(time.Now()); err != nil {
				t.Fatal(err)
			}
			if data := readFile(t, c.Path); !strings.Contains(data, "Bearer "+token) {
				t.Errorf("the file does not hold the token:\n%s", data)
			}
		})
	}
}
