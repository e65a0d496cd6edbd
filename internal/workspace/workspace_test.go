package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/npm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// settings is the part of settings.json this package is responsible for.
type settings struct {
	General struct {
		MaxAttempts int `json:"maxAttempts"`
	} `json:"general"`
	IDE struct {
		Enabled *bool `json:"enabled"`
	} `json:"ide"`
	Tools struct {
		Core []string `json:"core"`
	} `json:"tools"`
	Security struct {
		Auth struct {
			SelectedType string `json:"selectedType"`
		} `json:"auth"`
	} `json:"security"`
	MCPServers map[string]struct {
		Command      string            `json:"command"`
		Args         []string          `json:"args"`
		Env          map[string]string `json:"env"`
		IncludeTools []string          `json:"includeTools"`
		Trust        bool              `json:"trust"`
		Timeout      int               `json:"timeout"`
	} `json:"mcpServers"`
}

func TestRenderGolden(t *testing.T) {
	t.Parallel()
	for name, o := range map[string]Options{"plain": {}, "firecrawl": {Firecrawl: true}, "keyauth": {KeyAuth: true}} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := render(o)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "settings."+name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("render(%+v) differs from %s (run go test -update if intended):\ngot:\n%s\nwant:\n%s", o, golden, got, want)
			}
		})
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	webTools := []string{"google_web_search", "web_fetch"}
	firecrawlTools := []string{"mcp_firecrawl_firecrawl_scrape", "mcp_firecrawl_firecrawl_search", "mcp_firecrawl_firecrawl_map"}
	tests := []struct {
		name     string
		o        Options
		wantCore []string
	}{
		{"plain", Options{}, webTools},
		{"firecrawl", Options{Firecrawl: true}, slices.Concat(webTools, firecrawlTools)},
		{"key auth", Options{KeyAuth: true}, webTools},
		{"firecrawl and key auth", Options{Firecrawl: true, KeyAuth: true}, slices.Concat(webTools, firecrawlTools)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := render(tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(data) {
				t.Fatalf("not valid JSON:\n%s", data)
			}
			var indented bytes.Buffer
			if err := json.Indent(&indented, bytes.TrimSpace(data), "", "  "); err != nil {
				t.Fatal(err)
			}
			if want := indented.String() + "\n"; string(data) != want {
				t.Errorf("not 2-space indented with one trailing newline:\n%q", data)
			}

			var s settings
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields() // nothing beyond what this test knows of
			if err := dec.Decode(&s); err != nil {
				t.Fatal(err)
			}
			if s.General.MaxAttempts != 3 {
				t.Errorf("general.maxAttempts: got %d, want 3", s.General.MaxAttempts)
			}
			if s.IDE.Enabled == nil || *s.IDE.Enabled {
				t.Errorf("ide.enabled: got %v, want false", s.IDE.Enabled)
			}
			if !slices.Equal(s.Tools.Core, tt.wantCore) {
				t.Errorf("tools.core: got %q, want %q", s.Tools.Core, tt.wantCore)
			}
			if want := map[bool]string{true: "gemini-api-key"}[tt.o.KeyAuth]; s.Security.Auth.SelectedType != want {
				t.Errorf("security.auth.selectedType: got %q, want %q", s.Security.Auth.SelectedType, want)
			}
			for _, bad := range []string{"HTTP_STREAMABLE_SERVER", "SSE_LOCAL", "CLOUD_SERVICE", `"PORT"`,
				"shell", "write_file", "replace"} {
				if strings.Contains(string(data), bad) {
					t.Errorf("settings mention %s", bad)
				}
			}
			if !tt.o.Firecrawl {
				if s.MCPServers != nil {
					t.Errorf("mcpServers: got %v, want none", s.MCPServers)
				}
				return
			}
			if len(s.MCPServers) != 1 {
				t.Fatalf("mcpServers: got %d servers, want only firecrawl", len(s.MCPServers))
			}
			fc, ok := s.MCPServers["firecrawl"]
			if !ok {
				t.Fatal("no firecrawl server")
			}
			wantEnv := map[string]string{
				"FIRECRAWL_API_KEY": "${FIRECRAWL_API_KEY}",
				"FIRECRAWL_API_URL": "${FIRECRAWL_API_URL}",
			}
			if fc.Command != "npx" || !slices.Equal(fc.Args, []string{"-y", npm.FirecrawlMCP}) ||
				!fc.Trust || fc.Timeout != 30000 || len(fc.Env) != len(wantEnv) ||
				fc.Env["FIRECRAWL_API_KEY"] != wantEnv["FIRECRAWL_API_KEY"] ||
				fc.Env["FIRECRAWL_API_URL"] != wantEnv["FIRECRAWL_API_URL"] {
				t.Errorf("firecrawl server: got %+v", fc)
			}
			for i, tool := range fc.IncludeTools {
				if want := "mcp_firecrawl_" + tool; i >= len(firecrawlTools) || firecrawlTools[i] != want {
					t.Errorf("includeTools[%d] = %q does not match tools.core", i, tool)
				}
			}
			if len(fc.IncludeTools) != len(firecrawlTools) {
				t.Errorf("includeTools: got %q, want the three tools in tools.core", fc.IncludeTools)
			}
		})
	}
}

// TestTemplateReadsAsOutput keeps the template laid out like the file it
// renders, so that reading one is reading the other.
func TestTemplateReadsAsOutput(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{}, {Firecrawl: true}, {KeyAuth: true}, {Firecrawl: true, KeyAuth: true}} {
		var raw bytes.Buffer
		if err := settingsTmpl.Execute(&raw, templateData{o, npm.FirecrawlMCP}); err != nil {
			t.Fatal(err)
		}
		rendered, err := render(o)
		if err != nil {
			t.Fatal(err)
		}
		if raw.String() != string(rendered) {
			t.Errorf("%+v: template output is not laid out as render's:\n%s", o, raw.String())
		}
	}
}

func TestRenderHasNoSecret(t *testing.T) {
	t.Parallel()
	const key = "fc-live-0123456789abcdef"
	dir := t.TempDir()
	e := config.Env{GOOS: "linux", Lookup: func(name string) (string, bool) {
		v, ok := map[string]string{config.DirVar: dir, "FIRECRAWL_API_KEY": key,
			"FIRECRAWL_API_URL": "https://fc.example"}[name]
		return v, ok
	}}
	cfg, err := config.Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Regenerate(cfg.Dir, Options{Firecrawl: cfg.FirecrawlEnabled()}, false); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(SettingsPath(cfg.Dir))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("firecrawl-mcp")) {
		t.Fatalf("firecrawl is enabled but the settings lack it:\n%s", data)
	}
	for _, secret := range cfg.Secrets() {
		if bytes.Contains(data, []byte(secret)) {
			t.Errorf("settings.json holds the key:\n%s", data)
		}
	}
	if bytes.Contains(data, []byte("fc.example")) {
		t.Errorf("settings.json holds the URL instead of ${FIRECRAWL_API_URL}:\n%s", data)
	}
}

func TestOptionsFor(t *testing.T) {
	t.Parallel()
	// homes: the Gemini CLI's own sign-in, as gemini.Login finds it in ~/.gemini.
	homes := map[string]map[string]string{
		"no sign-in":   {},
		"google login": {"oauth_creds.json": `{"refresh_token":"r"}`},
		// The e2e suite's HOME: key auth selected in the user settings, so the workspace needs none.
		"key auth of its own": {"settings.json": `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`},
	}
	tests := []struct {
		name, home string
		vars       map[string]string
		want       Options
	}{
		{"a key and no sign-in selects key auth", "no sign-in", map[string]string{"GEMINI_API_KEY": "k-1234567890"}, Options{KeyAuth: true}},
		{"GOOGLE_API_KEY counts too", "no sign-in", map[string]string{"GOOGLE_API_KEY": "k-1234567890"}, Options{KeyAuth: true}},
		{"no key, no key auth", "no sign-in", nil, Options{}},
		{"a Google login keeps its own auth", "google login", map[string]string{"GEMINI_API_KEY": "k-1234567890"}, Options{}},
		{"an auth type of its own stays in charge", "key auth of its own", map[string]string{"GEMINI_API_KEY": "k-1234567890"}, Options{}},
		{"firecrawl", "no sign-in", map[string]string{"FIRECRAWL_API_URL": "http://127.0.0.1:3002"}, Options{Firecrawl: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
				t.Fatal(err)
			}
			for name, data := range homes[tt.home] {
				if err := os.WriteFile(filepath.Join(home, ".gemini", name), []byte(data), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			vars := map[string]string{config.DirVar: t.TempDir()}
			for k, v := range tt.vars {
				vars[k] = v
			}
			cfg, err := config.Load(config.Env{GOOS: "linux", Lookup: func(name string) (string, bool) {
				v, ok := vars[name]
				return v, ok
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := OptionsFor(cfg, gemini.Login(home, cfg.Dir)); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestSettingsPath(t *testing.T) {
	t.Parallel()
	if got, want := SettingsPath("/cfg"), filepath.Join("/cfg", ".gemini", "settings.json"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestRegenerateMakesAPrivateWorkspace: a missing config dir gets the rendered template, readable by its owner only.
func TestRegenerateMakesAPrivateWorkspace(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a", "gemini-search-mcp")
	res, err := Regenerate(dir, Options{Firecrawl: true}, false)
	if err != nil || !res.Wrote {
		t.Fatalf("got %+v, %v; want the file written", res, err)
	}
	want, _ := render(Options{Firecrawl: true})
	got, err := os.ReadFile(SettingsPath(dir))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("settings.json: got %q (%v), want the rendered template", got, err)
	}
	for path, mode := range map[string]fs.FileMode{
		dir: 0o700, filepath.Join(dir, ".gemini"): 0o700, SettingsPath(dir): 0o600,
	} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: got mode %v (%v), want %v", path, fi.Mode().Perm(), err, mode)
		}
	}
	if err := Check(dir); err != nil {
		t.Errorf("Check after Regenerate: %v", err)
	}
}

func TestRegenerateUnwritable(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()

	t.Run("under a file", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(tmp, "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(file, "sub")
		res, err := Regenerate(dir, Options{}, false)
		want := "create config dir " + dir + ": not a directory"
		if res.Wrote || err == nil || err.Error() != want {
			t.Errorf("got %+v, %v; want %q", res, err, want)
		}
	})

	t.Run("read-only parent", func(t *testing.T) {
		t.Parallel()
		if os.Geteuid() == 0 {
			t.Skip("root can write into a read-only directory; the subtest above covers the error")
		}
		parent := filepath.Join(tmp, "ro")
		if err := os.Mkdir(parent, 0o500); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(parent, "sub")
		_, err := Regenerate(dir, Options{}, false)
		want := "create config dir " + dir + ": permission denied"
		if err == nil || err.Error() != want || !errors.Is(err, fs.ErrPermission) {
			t.Errorf("got %v, want %q", err, want)
		}
	})
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content, want string // want: the error after "<path>", "" for none
	}{
		{"valid", `{"tools": {"core": []}}`, ""},
		{"comments", "{\n  // the CLI allows comments\n  \"a\": \"http://x\", /* here too */ \"b\": 1\n}\n", ""},
		{"missing comma", "{\n  \"a\": 1\n  \"b\": 2\n}\n", ":3:3: invalid JSON: invalid character '\"' after object key:value pair"},
		{"trailing comma", "{\n  \"a\": [1, 2,],\n}", ":2:14: invalid JSON: invalid character ']'"},
		{"unicode column", "{\"é\": x}", ":1:7: invalid JSON: invalid character 'x'"},
		{"empty", "", ":1:1: invalid JSON: unexpected end of JSON input"},
		{"truncated", "{\n  \"a\": 1,\n", ":3:1: invalid JSON: unexpected end of JSON input"},
		{"array", "[]", ": must hold a JSON object"},
		{"null", "null", ": must hold a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			path := SettingsPath(dir)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := Check(dir)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("got %v, want no error", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), path+tt.want)):
				t.Errorf("got %v, want %q", err, path+tt.want)
			}
		})
	}

	t.Run("missing", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		err := Check(dir)
		want := "read " + SettingsPath(dir) + ": no such file or directory"
		if err == nil || err.Error() != want || !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("got %v, want %q matching fs.ErrNotExist", err, want)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.MkdirAll(SettingsPath(dir), 0o700); err != nil { // a directory in its place
			t.Fatal(err)
		}
		err := Check(dir)
		if err == nil || !strings.Contains(err.Error(), SettingsPath(dir)) {
			t.Errorf("got %v, want an error naming the path", err)
		}
	})
}

func TestStripComments(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{`{"a": "//not a comment", "b": "/* nor this */"}`, `{"a": "//not a comment", "b": "/* nor this */"}`},
		{"{\"a\": 1} // end", "{\"a\": 1}       "},
		{"{/* a\nb */}", "{    \n    }"},
		{`{"a\"//": 1}`, `{"a\"//": 1}`},
		{"/* open", "/* open"},
		{"/", "/"},
	}
	for _, tt := range tests {
		if got := string(stripComments([]byte(tt.in))); got != tt.want {
			t.Errorf("stripComments(%q): got %q, want %q", tt.in, got, tt.want)
		}
	}
}
