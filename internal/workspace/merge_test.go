package workspace

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// settingsOf decodes settings.json contents for comparisons that ignore formatting.
func settingsOf(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(stripComments(data), &m); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
	return m
}

func rendered(t *testing.T, o Options) map[string]any {
	t.Helper()
	data, err := render(o)
	if err != nil {
		t.Fatal(err)
	}
	return settingsOf(t, data)
}

func TestRegenerate(t *testing.T) {
	t.Parallel()
	firecrawlEntry := rendered(t, Options{Firecrawl: true})["mcpServers"].(map[string]any)["firecrawl"]
	tests := []struct {
		name      string
		existing  string // "" for no file
		firecrawl bool
		keyAuth   bool
		wantWrote bool
		check     func(t *testing.T, got map[string]any)
	}{
		{name: "missing file is rendered", firecrawl: true, wantWrote: true, check: func(t *testing.T, got map[string]any) {
			if want := rendered(t, Options{Firecrawl: true}); !reflect.DeepEqual(got, want) {
				t.Errorf("got %v, want %v", got, want)
			}
		}},
		{name: "up to date file is not rewritten", existing: "{\n  // mine\n  \"general\": {\"maxAttempts\": 3},\n  \"ide\": {\"enabled\": false},\n  \"tools\": {\"core\": [\"google_web_search\", \"web_fetch\"]}\n}\n",
			wantWrote: false},
		{name: "turning Firecrawl on keeps the user's entries",
			existing:  `{"ui":{"theme":"x"},"general":{"maxAttempts":7,"vimMode":true},"tools":{"core":["google_web_search"]},"mcpServers":{"mine":{"command":"x"}}}`,
			firecrawl: true, wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if got["ui"].(map[string]any)["theme"] != "x" {
					t.Error("ui.theme lost")
				}
				general := got["general"].(map[string]any)
				if general["maxAttempts"] != 3.0 || general["vimMode"] != true {
					t.Errorf("general = %v, want maxAttempts 3 and vimMode kept", general)
				}
				core := got["tools"].(map[string]any)["core"]
				want := []any{"google_web_search", "mcp_firecrawl_firecrawl_scrape", "mcp_firecrawl_firecrawl_search", "mcp_firecrawl_firecrawl_map"}
				if !reflect.DeepEqual(core, want) {
					t.Errorf("core = %v, want %v", core, want)
				}
				servers := got["mcpServers"].(map[string]any)
				if servers["mine"] == nil || !reflect.DeepEqual(servers["firecrawl"], firecrawlEntry) {
					t.Errorf("mcpServers = %v, want mine kept and firecrawl from the template", servers)
				}
			}},
		{name: "turning Firecrawl off removes only its entries",
			existing:  `{"tools":{"core":["web_fetch","mcp_firecrawl_firecrawl_map","mcp_other_x"]},"mcpServers":{"firecrawl":{"command":"old"}}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if _, ok := got["mcpServers"]; ok {
					t.Errorf("mcpServers = %v, want it gone once empty", got["mcpServers"])
				}
				if core := got["tools"].(map[string]any)["core"]; !reflect.DeepEqual(core, []any{"web_fetch", "mcp_other_x"}) {
					t.Errorf("core = %v", core)
				}
			}},
		{name: "an edited firecrawl entry is regenerated", firecrawl: true,
			existing:  `{"general":{"maxAttempts":3},"tools":{"core":["mcp_firecrawl_firecrawl_scrape","mcp_firecrawl_firecrawl_search","mcp_firecrawl_firecrawl_map"]},"mcpServers":{"firecrawl":{"command":"evil"}}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if !reflect.DeepEqual(got["mcpServers"].(map[string]any)["firecrawl"], firecrawlEntry) {
					t.Errorf("firecrawl = %v", got["mcpServers"])
				}
			}},
		{name: "a missing tools.core is rebuilt, never left open", existing: `{"tools":{"core":"everything"}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if core := got["tools"].(map[string]any)["core"]; !reflect.DeepEqual(core, []any{"google_web_search", "web_fetch"}) {
					t.Errorf("core = %v", core)
				}
			}},
		{name: "a null tools.core is rebuilt too", existing: `{"tools":{"core":null}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if core := got["tools"].(map[string]any)["core"]; !reflect.DeepEqual(core, []any{"google_web_search", "web_fetch"}) {
					t.Errorf("core = %v", core)
				}
			}},
		{name: "key auth is added to a file without it", keyAuth: true,
			existing:  `{"ui":{"theme":"x"},"general":{"maxAttempts":3},"tools":{"core":["google_web_search","web_fetch"]}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if got["ui"].(map[string]any)["theme"] != "x" {
					t.Error("ui.theme lost")
				}
				if want := rendered(t, Options{KeyAuth: true})["security"]; !reflect.DeepEqual(got["security"], want) {
					t.Errorf("security = %v, want %v", got["security"], want)
				}
			}},
		{name: "key auth replaces another auth type and keeps the rest of security", keyAuth: true,
			existing:  `{"security":{"folderTrust":{"enabled":true},"auth":{"selectedType":"oauth-personal","useExternal":false}}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				want := map[string]any{"folderTrust": map[string]any{"enabled": true},
					"auth": map[string]any{"selectedType": "gemini-api-key", "useExternal": false}}
				if !reflect.DeepEqual(got["security"], want) {
					t.Errorf("security = %v, want %v", got["security"], want)
				}
			}},
		{name: "key auth no longer needed is removed with what only held it",
			existing:  `{"general":{"maxAttempts":3},"tools":{"core":["google_web_search","web_fetch"]},"security":{"auth":{"selectedType":"gemini-api-key"}}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if _, ok := got["security"]; ok {
					t.Errorf("security = %v, want it gone once empty", got["security"])
				}
			}},
		{name: "key auth no longer needed leaves the user's other security entries",
			existing:  `{"security":{"folderTrust":{"enabled":false},"auth":{"selectedType":"gemini-api-key","useExternal":true}}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				want := map[string]any{"folderTrust": map[string]any{"enabled": false}, "auth": map[string]any{"useExternal": true}}
				if !reflect.DeepEqual(got["security"], want) {
					t.Errorf("security = %v, want %v", got["security"], want)
				}
			}},
		{name: "an IDE the user turned on is turned off for the agent",
			existing:  `{"general":{"maxAttempts":3},"ide":{"enabled":true,"hasSeenNudge":true},"tools":{"core":["google_web_search","web_fetch"]}}`,
			wantWrote: true, check: func(t *testing.T, got map[string]any) {
				if ide := got["ide"].(map[string]any); ide["enabled"] != false || ide["hasSeenNudge"] != true {
					t.Errorf("ide = %v, want enabled false and the user's other entry kept", ide)
				}
			}},
		{name: "an auth type the user chose stays when key auth is not needed",
			existing:  "{\n  \"general\": {\"maxAttempts\": 3},\n  \"ide\": {\"enabled\": false},\n  \"tools\": {\"core\": [\"google_web_search\", \"web_fetch\"]},\n  \"security\": {\"auth\": {\"selectedType\": \"oauth-personal\"}}\n}\n",
			wantWrote: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := SettingsPath(dir)
			if tt.existing != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.existing), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			o := Options{Firecrawl: tt.firecrawl, KeyAuth: tt.keyAuth}
			res, err := Regenerate(dir, o, false)
			if err != nil {
				t.Fatal(err)
			}
			if res.Wrote != tt.wantWrote {
				t.Errorf("Wrote = %v, want %v", res.Wrote, tt.wantWrote)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != string(res.Data) {
				t.Errorf("Data = %s, file holds %s", res.Data, data)
			}
			if !tt.wantWrote && string(data) != tt.existing {
				t.Errorf("file changed to %s", data)
			}
			if tt.check != nil {
				tt.check(t, settingsOf(t, data))
			}
			if err := Check(dir); err != nil {
				t.Errorf("Check after Regenerate: %v", err)
			}
			again, err := Regenerate(dir, o, false)
			if err != nil || again.Wrote {
				t.Errorf("second Regenerate wrote %v (err %v), want no change", again.Wrote, err)
			}
		})
	}
}

func TestRegenerateInvalid(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := SettingsPath(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	broken := "{\n  \"general\": {\"maxAttempts\": 3,}\n"
	if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
		t.Fatal(err)
	}

	_, err := Regenerate(dir, Options{Firecrawl: true}, false)
	var invalid *InvalidSettingsError
	if !errors.As(err, &invalid) || !strings.Contains(err.Error(), "settings.json:2:") {
		t.Fatalf("got %v, want an *InvalidSettingsError with the line", err)
	}
	if data, _ := os.ReadFile(path); string(data) != broken {
		t.Errorf("the broken file was touched: %q", data)
	}

	res, err := Regenerate(dir, Options{Firecrawl: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Wrote || res.Backup != path+".bak" {
		t.Errorf("got %+v, want a rewrite with a backup", res)
	}
	if data, _ := os.ReadFile(path + ".bak"); string(data) != broken {
		t.Errorf("backup holds %q, want the broken file", data)
	}
	if err := Check(dir); err != nil {
		t.Errorf("Check after the replacement: %v", err)
	}
}
