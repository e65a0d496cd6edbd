package clients

import (
	"testing"
	"time"
)

// TestUpdateKeepsTheClientsSettings: "Update to this server" after a change of port, with the token gone, writes
// the new address and removes the bearer header, in each format; every other member of the entry (what the client
// or the person set there) stays as it was, and so does every other byte of the file. The entry is then current,
// and connecting again changes nothing.
func TestUpdateKeepsTheClientsSettings(t *testing.T) {
	t.Parallel()
	moved := Server{URL: "http://127.0.0.1:3100/mcp"}
	tests := []struct{ name, id, file, want string }{
		{"JSON", "cline",
			`{"mcpServers": {"gemini-search": {"type": "streamableHttp", "url": "http://127.0.0.1:3000/mcp", ` +
				`"headers": {"Authorization": "Bearer old-token", "X-Team": "a"}, "disabled": false, "autoApprove": ["search"]}}}`,
			`{"mcpServers": {"gemini-search": {"type": "streamableHttp", "url": "http://127.0.0.1:3100/mcp", ` +
				`"headers": {"X-Team": "a"}, "disabled": false, "autoApprove": ["search"]}}}`},
		{"JSONC", "zed",
			"{\n  \"context_servers\": {\n    \"gemini-search\": {\n      // local\n      \"url\": \"http://127.0.0.1:3000/mcp\",\n" +
				"      \"headers\": {\"Authorization\": \"Bearer old-token\"},\n      \"settings\": {},\n    },\n  },\n}\n",
			"{\n  \"context_servers\": {\n    \"gemini-search\": {\n      // local\n      \"url\": \"http://127.0.0.1:3100/mcp\",\n" +
				"      \"settings\": {},\n    },\n  },\n}\n"},
		{"TOML", "codex",
			"model = \"o3\"\n\n[mcp_servers.gemini-search]\nurl = \"http://127.0.0.1:3000/mcp\"\ntool_timeout_sec = 300\nenabled = false\n" +
				"http_headers = { Authorization = \"Bearer old-token\" }\n\n[mcp_servers.z]\ncommand = \"z\"\n",
			"model = \"o3\"\n\n[mcp_servers.gemini-search]\nurl = \"http://127.0.0.1:3100/mcp\"\ntool_timeout_sec = 300\nenabled = false\n" +
				"\n[mcp_servers.z]\ncommand = \"z\"\n"},
		{"YAML", "goose",
			"extensions:\n  gemini-search:\n    enabled: false\n    type: streamable_http\n    name: gemini-search\n" +
				"    description: Mine\n    uri: http://127.0.0.1:3000/mcp\n    headers:\n      Authorization: Bearer old-token\n" +
				"    envs: {}\n    env_keys: []\n    timeout: 600\nGOOSE_MODE: auto\n",
			"extensions:\n  gemini-search:\n    enabled: false\n    type: streamable_http\n    name: gemini-search\n" +
				"    description: Mine\n    uri: http://127.0.0.1:3100/mcp\n    envs: {}\n    env_keys: []\n    timeout: 600\nGOOSE_MODE: auto\n"},
		{"YAML list", "continue",
			"name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: gemini-search\n    type: streamable-http\n" +
				"    url: http://127.0.0.1:3000/mcp\n    requestOptions:\n      timeout: 30\n      headers:\n        Authorization: Bearer old-token\n",
			"name: c\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: gemini-search\n    type: streamable-http\n" +
				"    url: http://127.0.0.1:3100/mcp\n    requestOptions:\n      timeout: 30\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := client(t, t.TempDir(), tt.id, moved)
			writeFile(t, c.Path, tt.file, 0o600)
			if st := c.Status(); st.State != Outdated {
				t.Errorf("status before %s, want %s", st, Outdated)
			}
			if _, err := c.Connect(time.Now()); err != nil {
				t.Fatal(err)
			}
			if got := readFile(t, c.Path); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
			if st := c.Status(); st.State != Connected {
				t.Errorf("status after %s, want %s", st, Connected)
			}
			if ch, err := c.PlanConnect(); err != nil || ch.Changed() {
				t.Errorf("connecting again: changed %v, %v:\n%s", ch.Changed(), err, ch.Diff())
			}
		})
	}
}

// TestUpdateAddsTheToken: a token set since the entry was written is added as the bearer header, beside the
// client's other headers; a stdio entry's command and config dir follow the server, and the person's variables stay.
func TestUpdateAddsTheToken(t *testing.T) {
	t.Parallel()
	withToken := Server{URL: server.URL, AuthToken: "new-token"}
	c := client(t, t.TempDir(), "cursor", withToken)
	writeFile(t, c.Path, `{"mcpServers": {"gemini-search": {"url": "http://127.0.0.1:3000/mcp", "headers": {"X-Team": "a"}}}}`, 0o600)
	if _, err := c.Connect(time.Now()); err != nil {
		t.Fatal(err)
	}
	want := "{\"mcpServers\": {\"gemini-search\": {\"url\": \"http://127.0.0.1:3000/mcp\", \"headers\": {\"X-Team\": \"a\", " +
		"\"Authorization\": \"Bearer new-token\"}}}}"
	if got := readFile(t, c.Path); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}

	stdio := Server{URL: server.URL, StdioCommand: "/new/gemini-search-mcp", ConfigDir: "/new/config"}
	c = client(t, t.TempDir(), "claude-desktop", stdio)
	writeFile(t, c.Path, `{"mcpServers": {"gemini-search": {"command": "/old/gemini-search-mcp", "args": [], `+
		`"env": {"GEMINI_SEARCH_CONFIG_DIR": "/old/config", "HTTPS_PROXY": "http://proxy"}}}}`, 0o600)
	if _, err := c.Connect(time.Now()); err != nil {
		t.Fatal(err)
	}
	want = `{"mcpServers": {"gemini-search": {"command": "/new/gemini-search-mcp", "args": [], ` +
		`"env": {"GEMINI_SEARCH_CONFIG_DIR": "/new/config", "HTTPS_PROXY": "http://proxy"}}}}`
	if got := readFile(t, c.Path); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
