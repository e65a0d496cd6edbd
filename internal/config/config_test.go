package config

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// testEnv returns an Env whose config dir is a fresh temporary directory
// holding dotenv as its .env file (none when dotenv is "").
func testEnv(t *testing.T, env map[string]string, dotenv string) (Env, string) {
	t.Helper()
	dir := t.TempDir()
	if dotenv != "" {
		if err := os.WriteFile(filepath.Join(dir, ".env"), []byte(dotenv), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]string{DirVar: dir}
	maps.Copy(all, env)
	return Env{Lookup: envMap(all), GOOS: "linux", Home: "/nonexistent-home"}, dir
}

func TestLoadDefaults(t *testing.T) {
	t.Parallel()
	e, dir := testEnv(t, nil, "")
	got, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Dir:     dir,
		Backend: backend.Auto,
		Aliases: map[string]string{AliasPro: "gemini-pro-latest", AliasFlash: "gemini-flash-latest",
			AliasFlashLite: "gemini-flash-lite-latest"},
		APIJSONModels:        []string{"gemini-3*", "gemini-4*", "gemini-*-latest"},
		FallbackModel:        "flash-lite",
		SearchTimeout:        300 * time.Second,
		DeepSearchTimeout:    900 * time.Second,
		AskTimeout:           600 * time.Second,
		DeepResearchEngine:   "rounds",
		DeepResearchAgent:    "deep-research-preview-04-2026",
		DeepResearchMaxAgent: "deep-research-max-preview-04-2026",
		DeepResearchTimeout:  time.Hour,
		DeepResearchPlan:     "auto",
		Notify:               true,
		NotifyAfter:          30 * time.Second,
		Host:                 "127.0.0.1",
		Port:                 3000,
		ProgressLogInterval:  30 * time.Second,
		JSONMaxRetries:       3,
		MaxIterations:        10,
		MaxConcurrent:        3,
		QueueTimeout:         30 * time.Second,
		DeepSearchMaxRounds:  3,
		MaxResponseChars:     20000,
		WarmWorkers:          1,
		WarmIdle:             10 * time.Minute,
		CacheTTL:             15 * time.Minute,
		CallWait:             45 * time.Second,
		LibraryMaxReports:    1000,
		LibraryMaxAge:        365 * 24 * time.Hour,
		LibraryMaxBytes:      200 << 20,
		Prompts:              map[string]string{},
		PrivateDirs:          []string{dir},
		Overridden:           map[string]bool{DirVar: true},
	}
	got.shown, got.inDotenv = nil, nil // TestShown, TestInDotenv
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got.FirecrawlEnabled() || got.FirecrawlMode() != "off" || got.CLIEnv() != nil || got.Secrets() != nil {
		t.Errorf("firecrawl: got enabled=%v mode=%q env=%q secrets=%d, want off",
			got.FirecrawlEnabled(), got.FirecrawlMode(), got.CLIEnv(), len(got.Secrets()))
	}
	if got.Addr() != "127.0.0.1:3000" {
		t.Errorf("Addr: got %q, want %q", got.Addr(), "127.0.0.1:3000")
	}
}

func TestLoadPrecedence(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{
		"GEMINI_MODEL":          "gemini-2.5-pro",
		"MCP_SERVER_PORT":       " 4000 ",
		"JSON_MAX_RETRIES":      "", // empty counts as unset: .env applies
		"GEMINI_FALLBACK_MODEL": "None",
		"FIRECRAWL_API_KEY":     testKey,
	}, `
# the env beats these
GEMINI_MODEL=gemini-from-file
MCP_SERVER_PORT=5000
# these apply
JSON_MAX_RETRIES=0
MCP_SERVER_HOST=  ::1
DEBUG=Yes
GEMINI_CLI_NPX=On
GEMINI_SYSTEM_PROMPT="You research {topic}.\nBe brief.  "
GEMINI_SEARCH_TIMEOUT=
FIRECRAWL_API_URL=https://firecrawl.example.com/
UNKNOWN_NAME=ignored
`)
	got, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"Model from env", got.Model, "gemini-2.5-pro"},
		{"Port from env, trimmed", got.Port, 4000},
		{"FallbackModel none", got.FallbackModel, ""},
		{"JSONMaxRetries from file", got.JSONMaxRetries, 0},
		{"Host from file, trimmed", got.Host, "::1"},
		{"Debug from file", got.Debug, true},
		{"CLINpx from file", got.CLINpx, true},
		{"SystemPrompt from file", got.Prompts["research.md"], "You research {topic}.\nBe brief."},
		{"SearchTimeout default", got.SearchTimeout, 5 * time.Minute},
		{"FirecrawlAPIURL from file", got.FirecrawlAPIURL, "https://firecrawl.example.com/"},
		{"FirecrawlAPIKey from env", got.FirecrawlAPIKey.Reveal(), testKey},
		{"Addr", got.Addr(), "[::1]:4000"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
	wantOver := []string{"FIRECRAWL_API_KEY", "GEMINI_FALLBACK_MODEL", "GEMINI_MODEL", DirVar, "MCP_SERVER_PORT"}
	if over := slices.Sorted(maps.Keys(got.Overridden)); !slices.Equal(over, wantOver) {
		t.Errorf("Overridden: got %v, want %v", over, wantOver)
	}
	wantEnv := []string{"FIRECRAWL_API_KEY=" + testKey, "FIRECRAWL_API_URL=https://firecrawl.example.com/"}
	if !slices.Equal(got.CLIEnv(), wantEnv) {
		t.Errorf("CLIEnv: got %q, want %q", got.CLIEnv(), wantEnv)
	}
	if !slices.Equal(got.Secrets(), []string{testKey}) {
		t.Errorf("Secrets: got %d values, want the key", len(got.Secrets()))
	}
}

func TestFirecrawlMode(t *testing.T) {
	t.Parallel()
	tests := []struct {
		c    Config
		want string
	}{
		{Config{}, "off"},
		{Config{FirecrawlAPIKey: testKey}, "cloud (API key)"},
		{Config{FirecrawlAPIURL: "http://127.0.0.1:3002"}, "self-hosted (http://127.0.0.1:3002)"},
		{Config{FirecrawlAPIKey: testKey, FirecrawlAPIURL: "https://fc.example"}, "self-hosted (https://fc.example)"},
		{Config{FirecrawlAPIURL: "https://me:hunter2@fc.example"}, "self-hosted (https://me:xxxxx@fc.example)"},
	}
	for _, tt := range tests {
		got := tt.c.FirecrawlMode()
		if got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
		if !tt.c.FirecrawlEnabled() != (tt.want == "off") {
			t.Errorf("%q: FirecrawlEnabled is %v", tt.want, tt.c.FirecrawlEnabled())
		}
	}
}

func TestLoadInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value, want string
	}{
		{"GEMINI_SEARCH_TIMEOUT", "abc", `invalid GEMINI_SEARCH_TIMEOUT="abc": must be a whole number of milliseconds between 1000 and 1800000`},
		{"GEMINI_SEARCH_TIMEOUT", "5m", `invalid GEMINI_SEARCH_TIMEOUT="5m"`},
		{"GEMINI_SEARCH_TIMEOUT", "999", `invalid GEMINI_SEARCH_TIMEOUT="999"`},
		{"GEMINI_SEARCH_TIMEOUT", "1800001", `invalid GEMINI_SEARCH_TIMEOUT="1800001"`},
		{"MCP_SERVER_PORT", "0", `invalid MCP_SERVER_PORT="0": must be a port number between 1 and 65535`},
		{"MCP_SERVER_PORT", "70000", `invalid MCP_SERVER_PORT="70000": must be a port number between 1 and 65535`},
		{"MCP_SERVER_PORT", "http", `invalid MCP_SERVER_PORT="http"`},
		{"PROGRESS_LOG_INTERVAL", "500", `invalid PROGRESS_LOG_INTERVAL="500": must be a whole number of milliseconds, at least 1000`},
		{"PROGRESS_LOG_INTERVAL", "99999999999999999999", `invalid PROGRESS_LOG_INTERVAL="99999999999999999999"`},
		{"JSON_MAX_RETRIES", "-1", `invalid JSON_MAX_RETRIES="-1": must be a whole number between 0 and 10`},
		{"JSON_MAX_RETRIES", "11", `invalid JSON_MAX_RETRIES="11"`},
		{"GEMINI_CLI_MAX_ITERATIONS", "0", `invalid GEMINI_CLI_MAX_ITERATIONS="0": must be a whole number between 1 and 100`},
		{"GEMINI_CLI_MAX_ITERATIONS", "2.5", `invalid GEMINI_CLI_MAX_ITERATIONS="2.5"`},
		{"GEMINI_MAX_CONCURRENT", "33", `invalid GEMINI_MAX_CONCURRENT="33": must be a whole number between 1 and 32`},
		{"GEMINI_SYSTEM_PROMPT", "Research things.", `invalid GEMINI_SYSTEM_PROMPT="Research things.": must contain the {topic} placeholder, where the research question goes`},
		{"DEBUG", "maybe", `invalid DEBUG="maybe": must be true or false`},
		{"GEMINI_CLI_NPX", "true", `invalid GEMINI_CLI_NPX="true": must be on or off`},
		{"FIRECRAWL_API_URL", "firecrawl.example.com", `invalid FIRECRAWL_API_URL="firecrawl.example.com": must be an absolute http or https URL`},
		{"FIRECRAWL_API_URL", "ftp://firecrawl.example.com", `invalid FIRECRAWL_API_URL="ftp://firecrawl.example.com"`},
		{"FIRECRAWL_API_URL", "https://", `invalid FIRECRAWL_API_URL="https://"`},
		{"GEMINI_MODEL", "--yolo", `invalid GEMINI_MODEL="--yolo": must be a model name`},
		{"GEMINI_CORRECTION_MODEL", "gemini 2.5", `invalid GEMINI_CORRECTION_MODEL="gemini 2.5"`},
		{"GEMINI_FALLBACK_MODEL", "-m", `invalid GEMINI_FALLBACK_MODEL="-m"`},
		{"GEMINI_MODEL", "gemini;$(id)", `invalid GEMINI_MODEL="gemini;$(id)": must be a model name like gemini-2.5-pro: letters and digits`},
		{"GEMINI_ALIAS_PRO", "models/../../files", `invalid GEMINI_ALIAS_PRO="models/../../files"`},
		{"GEMINI_API_JSON_MODELS", "gemini-3*, -m", `invalid GEMINI_API_JSON_MODELS="gemini-3*, -m": "-m" is not a model name`},
		{"FIRECRAWL_API_KEY", "fc-abc def", `invalid FIRECRAWL_API_KEY="[redacted]": must not contain spaces`},
		{"MCP_AUTH_TOKEN", "tok\x00en", `invalid MCP_AUTH_TOKEN="[redacted]"`},
		{"GEMINI_HISTORY_MAX", "-1", `invalid GEMINI_HISTORY_MAX="-1": must be a whole number between 0 and 1000000`},
		{"GEMINI_HISTORY_MAX", "1000001", `invalid GEMINI_HISTORY_MAX="1000001"`},
		{"GEMINI_LIBRARY_MAX_REPORTS", "-1", `invalid GEMINI_LIBRARY_MAX_REPORTS="-1"`},
		{"GEMINI_LIBRARY_MAX_DAYS", "0", `invalid GEMINI_LIBRARY_MAX_DAYS="0"`},
		{"GEMINI_LIBRARY_MAX_MB", "0", `invalid GEMINI_LIBRARY_MAX_MB="0"`},
		{"GEMINI_WARM_WORKERS", "33", `invalid GEMINI_WARM_WORKERS="33": must be a whole number between 0 and 32`},
		{"GEMINI_WARM_IDLE", "999", `invalid GEMINI_WARM_IDLE="999"`},
	}
	for _, tt := range tests {
		for _, where := range []string{"env", "file"} {
			t.Run(tt.name+"="+tt.value+" in "+where, func(t *testing.T) {
				t.Parallel()
				var e Env
				if where == "env" {
					e, _ = testEnv(t, map[string]string{tt.name: tt.value}, "")
				} else {
					if strings.ContainsRune(tt.value, 0) {
						t.Skip("a NUL cannot be written in a .env line")
					}
					e, _ = testEnv(t, nil, tt.name+"='"+tt.value+"'\n")
				}
				_, err := Load(e)
				var inv *InvalidError
				if !errors.As(err, &inv) {
					t.Fatalf("got %v, want an *InvalidError", err)
				}
				if inv.Var != tt.name {
					t.Errorf("Var: got %q, want %q", inv.Var, tt.name)
				}
				if !strings.HasPrefix(err.Error(), tt.want) {
					t.Errorf("got %q, want it to start with %q", err, tt.want)
				}
				if strings.Contains(tt.name, "KEY") || strings.Contains(tt.name, "TOKEN") {
					if strings.Contains(err.Error(), tt.value) || inv.Value != "[redacted]" {
						t.Errorf("error shows the secret: %q (Value %q)", err, inv.Value)
					}
				}
			})
		}
	}
}

func TestLoadReportsEveryInvalidValue(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{"MCP_SERVER_PORT": "0", "DEBUG": "maybe"}, "")
	_, err := Load(e)
	for _, name := range []string{"MCP_SERVER_PORT", "DEBUG"} {
		if err == nil || !strings.Contains(err.Error(), "invalid "+name+"=") {
			t.Errorf("got %v, want it to name %s", err, name)
		}
	}
}

func TestLoadValidEdges(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{
		"GEMINI_SEARCH_TIMEOUT": "1800000", "MCP_SERVER_PORT": "65535", "JSON_MAX_RETRIES": "10",
		"GEMINI_CLI_MAX_ITERATIONS": "1", "GEMINI_MAX_CONCURRENT": "32", "PROGRESS_LOG_INTERVAL": "1000",
		"DEBUG": "OFF", "FIRECRAWL_API_URL": "HTTP://127.0.0.1:3002", "GEMINI_MODEL": "models/gemini-2.5-pro",
		"GEMINI_HISTORY_MAX": "10000", "GEMINI_WARM_WORKERS": "0", "GEMINI_WARM_IDLE": "1000",
	}, "")
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if c.SearchTimeout != 30*time.Minute || c.Port != 65535 || c.JSONMaxRetries != 10 || c.MaxIterations != 1 ||
		c.MaxConcurrent != 32 || c.ProgressLogInterval != time.Second || c.Debug || c.LibraryMaxReports != 10000 ||
		c.WarmWorkers != 0 || c.WarmIdle != time.Second {
		t.Errorf("got %+v", c)
	}
}

func TestLoadBool(t *testing.T) {
	t.Parallel()
	for value, want := range map[string]bool{
		"true": true, "TRUE": true, "1": true, "yes": true, "On": true,
		"false": false, "False": false, "0": false, "no": false, "off": false, "": false,
	} {
		e, _ := testEnv(t, map[string]string{"DEBUG": value}, "")
		c, err := Load(e)
		if err != nil {
			t.Fatalf("DEBUG=%q: %v", value, err)
		}
		if c.Debug != want {
			t.Errorf("DEBUG=%q: got %v, want %v", value, c.Debug, want)
		}
	}
}

func TestLoadDotenvErrors(t *testing.T) {
	t.Parallel()
	t.Run("malformed", func(t *testing.T) {
		t.Parallel()
		e, dir := testEnv(t, nil, "DEBUG=true\nthis is not a setting\n")
		_, err := Load(e)
		want := filepath.Join(dir, ".env") + ": line 2: expected KEY=VALUE"
		if err == nil || err.Error() != want {
			t.Errorf("got %v, want %q", err, want)
		}
	})
	t.Run("unreadable", func(t *testing.T) {
		t.Parallel()
		e, dir := testEnv(t, nil, "")
		if err := os.Mkdir(filepath.Join(dir, ".env"), 0o700); err != nil { // a directory cannot be read as a file, even by root
			t.Fatal(err)
		}
		_, err := Load(e)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ".env")) {
			t.Errorf("got %v, want an error naming the .env path", err)
		}
	})
}

func TestLoadWithDotenv(t *testing.T) {
	t.Parallel()
	e, dir := testEnv(t, map[string]string{"MCP_SERVER_PORT": "4000"}, "GEMINI_MODEL=on-disk\nMCP_AUTH_TOKEN=disk-token-123\n")
	got, err := LoadWithDotenv(e, []byte("GEMINI_MODEL=proposed\nMCP_SERVER_HOST=0.0.0.0\nMCP_SERVER_PORT=5000\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.Model != "proposed" || got.Host != "0.0.0.0" || got.Port != 4000 || got.AuthToken != "" || !got.Overridden["MCP_SERVER_PORT"] {
		t.Errorf("got model %q host %q port %d token set %v overridden %v; want the proposed file's values, the port from the environment, no token",
			got.Model, got.Host, got.Port, got.AuthToken != "", got.Overridden)
	}
	_, err = LoadWithDotenv(e, []byte("GEMINI_MAX_CONCURRENT=99\n"))
	var inv *InvalidError
	if !errors.As(err, &inv) || inv.Var != "GEMINI_MAX_CONCURRENT" {
		t.Errorf("got %v, want an *InvalidError for GEMINI_MAX_CONCURRENT", err)
	}
	_, err = LoadWithDotenv(e, []byte("not a setting\n"))
	if want := filepath.Join(dir, ".env") + ": line 1: expected KEY=VALUE"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestLoadCreatesNothing(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "missing", "dir")
	e := Env{Lookup: envMap(map[string]string{DirVar: dir}), GOOS: "linux"}
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dir != dir {
		t.Errorf("Dir: got %q, want %q", c.Dir, dir)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load created %s (stat: %v)", filepath.Dir(dir), err)
	}
}

func TestLoadNoHome(t *testing.T) {
	t.Parallel()
	_, err := Load(Env{GOOS: "linux"})
	if err == nil || !strings.Contains(err.Error(), DirVar) {
		t.Errorf("got %v, want an error suggesting %s", err, DirVar)
	}
}

func TestEnvVars(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, v := range EnvVars() {
		if seen[v.Name] || !validName(v.Name) || v.Name == DirVar {
			t.Errorf("bad or repeated name %q", v.Name)
		}
		seen[v.Name] = true
		if v.Description == "" {
			t.Errorf("%s has no description", v.Name)
		}
		if v.Secret && v.Default != "" {
			t.Errorf("secret %s has a default", v.Name)
		}
	}
	if len(seen) != 49 {
		t.Errorf("got %d variables, want 49", len(seen))
	}
}

func TestSecretsIncludeOtherCredentialsOfTheDotenv(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, nil, "GEMINI_API_KEY=vertex-express-key-0123\nGOOGLE_GENAI_USE_AUTH=true\nFIRECRAWL_API_KEY=fc-secret-123\n")
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Secrets()
	if !slices.Contains(got, "vertex-express-key-0123") || !slices.Contains(got, "fc-secret-123") {
		t.Errorf("Secrets() = %d values, want the .env's GEMINI_API_KEY and the Firecrawl key", len(got))
	}
	if slices.Contains(got, "true") {
		t.Error("a short flag value was taken for a credential")
	}
}

// TestLoadWithDotenvChecksEveryValue: a proposed .env file is refused for each bad value it holds, even one that the
// process environment overrides today (the file outlives this environment); unknown variables are kept out of it.
func TestLoadWithDotenvChecksEveryValue(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{"GEMINI_MAX_CONCURRENT": "4"}, "")
	if _, err := LoadWithDotenv(e, []byte("# ok\nGEMINI_MODEL=gemini-2.5-pro\nMCP_SERVER_PORT=3100\nUNKNOWN=whatever\n")); err != nil {
		t.Errorf("valid file: %v", err)
	}
	_, err := LoadWithDotenv(e, []byte("MCP_SERVER_PORT=99999\nFIRECRAWL_API_KEY=fc key\nGEMINI_MAX_CONCURRENT=99\n"))
	var bad []string
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var inv *InvalidError
		if errors.As(e, &inv) {
			bad = append(bad, inv.Var+"="+inv.Value)
		}
	}
	slices.Sort(bad)
	want := []string{"FIRECRAWL_API_KEY=[redacted]", "GEMINI_MAX_CONCURRENT=99", "MCP_SERVER_PORT=99999"}
	if !slices.Equal(bad, want) {
		t.Errorf("got %v, want %v", bad, want)
	}
}

// TestShown: the value in force of each variable, as the settings page shows it, whatever set it.
func TestShown(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{"GEMINI_MODEL": "from-env"}, "FIRECRAWL_API_KEY=fc-0123456789abcd\n")
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	c.Port = 0
	c.SetByFlag("MCP_SERVER_PORT", "--port", "0")
	for name, want := range map[string]string{"GEMINI_MODEL": "from-env", "FIRECRAWL_API_KEY": "••••abcd",
		"MCP_SERVER_PORT": "0", "GEMINI_MAX_CONCURRENT": "3", "FIRECRAWL_API_URL": ""} {
		if got := c.Shown(name); got != want {
			t.Errorf("Shown(%s) = %q, want %q", name, got, want)
		}
	}
}

func TestInDotenv(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, nil, "GEMINI_API_KEY=AIza-0123456789\nGEMINI_MODEL=\n")
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if !c.InDotenv("GEMINI_API_KEY") || c.InDotenv("GEMINI_MODEL") || c.InDotenv("FIRECRAWL_API_KEY") {
		t.Errorf("InDotenv: GEMINI_API_KEY %v, GEMINI_MODEL %v, FIRECRAWL_API_KEY %v; want true, false (empty), false",
			c.InDotenv("GEMINI_API_KEY"), c.InDotenv("GEMINI_MODEL"), c.InDotenv("FIRECRAWL_API_KEY"))
	}
}

func TestAPIJSONModels(t *testing.T) {
	t.Parallel()
	for value, want := range map[string][]string{"none": nil, " gemini-3.5-flash , gemini-4* ,": {"gemini-3.5-flash", "gemini-4*"}} {
		e, _ := testEnv(t, map[string]string{"GEMINI_API_JSON_MODELS": value}, "")
		c, err := Load(e)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(c.APIJSONModels, want) {
			t.Errorf("GEMINI_API_JSON_MODELS=%q: got %q, want %q", value, c.APIJSONModels, want)
		}
	}
}

func TestModelAliases(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{"GEMINI_MODEL": "pro"},
		"GEMINI_ALIAS_FLASH=gemini-2.5-flash\nGEMINI_FALLBACK_MODEL=flash\nGEMINI_CORRECTION_MODEL=flash-lite\n")
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if c.Model != "pro" || c.FallbackModel != "flash" || c.CorrectionModel != "flash-lite" {
		t.Errorf("models: got %q, %q, %q; want the aliases kept, for each backend to resolve",
			c.Model, c.FallbackModel, c.CorrectionModel)
	}
	// On the API each alias is a model: the API's -latest name, or the one the user set.
	for alias, want := range map[string]string{"pro": "gemini-pro-latest", "flash": "gemini-2.5-flash", "flash-lite": "gemini-flash-lite-latest"} {
		if got := c.ResolveModel(alias); got != want {
			t.Errorf("ResolveModel(%s) = %q, want %q", alias, got, want)
		}
	}
	// The CLI resolves an alias itself, for its account, unless the user set what it stands for.
	for alias, want := range map[string]string{"pro": "pro", "flash": "gemini-2.5-flash", "flash-lite": "flash-lite",
		"gemini-2.0-flash": "gemini-2.0-flash"} {
		if got := c.CLIModel(alias); got != want {
			t.Errorf("CLIModel(%s) = %q, want %q", alias, got, want)
		}
	}
	if got := c.ResolveModel("gemini-2.0-flash"); got != "gemini-2.0-flash" {
		t.Errorf("ResolveModel of a model name = %q, want it unchanged", got)
	}
	if c.Shown("GEMINI_MODEL") != "pro" {
		t.Errorf("Shown(GEMINI_MODEL) = %q, want the alias as the user wrote it", c.Shown("GEMINI_MODEL"))
	}
}

func TestBackendAndAPIKey(t *testing.T) {
	t.Parallel()
	e, _ := testEnv(t, map[string]string{"GEMINI_BACKEND": "API", "GOOGLE_API_KEY": "google-key-0123"}, "")
	c, err := Load(e)
	if err != nil {
		t.Fatal(err)
	}
	if key, from := c.APIKey(); c.Backend != backend.API || key.Reveal() != "google-key-0123" || from != "GOOGLE_API_KEY" {
		t.Errorf("got backend %q, key from %q", c.Backend, from)
	}
	e, _ = testEnv(t, map[string]string{"GOOGLE_API_KEY": "google-key-0123"}, "GEMINI_API_KEY=gemini-key-4567\n")
	if c, err = Load(e); err != nil {
		t.Fatal(err)
	}
	if key, from := c.APIKey(); key.Reveal() != "gemini-key-4567" || from != "GEMINI_API_KEY" {
		t.Errorf("GEMINI_API_KEY must win over GOOGLE_API_KEY; got the key from %q", from)
	}
	if !slices.Contains(c.CLIEnv(), "GEMINI_API_KEY=gemini-key-4567") {
		t.Errorf("CLIEnv lacks the key in force: %d entries", len(c.CLIEnv()))
	}
	if !slices.Contains(c.Secrets(), "google-key-0123") || !slices.Contains(c.Secrets(), "gemini-key-4567") {
		t.Error("both keys must be masked")
	}
	for value, want := range map[string]string{"vertex": "must be auto, cli or api"} {
		e, _ := testEnv(t, map[string]string{"GEMINI_BACKEND": value}, "")
		if _, err := Load(e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("GEMINI_BACKEND=%s: got %v, want %q", value, err, want)
		}
	}
	e, _ = testEnv(t, map[string]string{"GEMINI_OUTPUT_DIR": "reports"}, "")
	if _, err := Load(e); err == nil || !strings.Contains(err.Error(), "absolute") {
		t.Errorf("relative GEMINI_OUTPUT_DIR: got %v", err)
	}
}

// TestWorkspaceRoots: GEMINI_WORKSPACE_ROOTS is a list of existing folders by absolute paths, separated as PATH
// is; each wrong entry is named with what is wrong with it.
func TestWorkspaceRoots(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	file := filepath.Join(a, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	list := func(dirs ...string) string { return strings.Join(dirs, string(os.PathListSeparator)) }
	tests := []struct {
		name, value string
		want        []string
		wantErr     []string
	}{
		{"unset", "", nil, nil},
		{"one", a, []string{a}, nil},
		{"two, blanks and repeats dropped, cleaned", list(a, " ", b+string(filepath.Separator), a), []string{a, b}, nil},
		{"relative", list(a, "src"), nil, []string{`"src" is not an absolute path`}},
		{"missing", filepath.Join(a, "gone"), nil, []string{filepath.Join(a, "gone") + `" does not exist`}},
		{"a file", file, nil, []string{file + `" is not a folder`}},
		{"every problem", list("src", file), nil, []string{`"src" is not an absolute path`, "is not a folder",
			"give absolute paths of existing folders, separated by"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _ := testEnv(t, map[string]string{"GEMINI_WORKSPACE_ROOTS": tt.value}, "")
			c, err := Load(e)
			var invalid *InvalidError
			switch {
			case tt.wantErr == nil && err != nil:
				t.Fatalf("got %v, want no error", err)
			case tt.wantErr != nil && !errors.As(err, &invalid):
				t.Fatalf("got %v, want an *InvalidError", err)
			case tt.wantErr != nil:
				for _, want := range tt.wantErr {
					if invalid.Var != "GEMINI_WORKSPACE_ROOTS" || !strings.Contains(invalid.Reason, want) {
						t.Errorf("got %v, want it to say %q", err, want)
					}
				}
			case !slices.Equal(c.WorkspaceRoots, tt.want):
				t.Errorf("got %q, want %q", c.WorkspaceRoots, tt.want)
			}
		})
	}
}

// TestPrivateDirs: the config dir and the user's config, data, state and cache dirs (and %APPDATA%, and on macOS
// ~/Library) are private; unknown and relative ones are left out, and none is listed twice.
func TestPrivateDirs(t *testing.T) {
	t.Parallel()
	got := privateDirs(Env{XDGConfigHome: "/h/.config", XDGDataHome: "/h/.local/share", XDGStateHome: "/h/.local/state/",
		XDGCacheHome: "cache", AppData: ""}, "/h/.config/gemini-search-mcp")
	want := []string{"/h/.config/gemini-search-mcp", "/h/.config", "/h/.local/share", "/h/.local/state"}
	for i := range want {
		want[i] = filepath.FromSlash(want[i])
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	mac := "/Users/u/Library/Application Support"
	got = privateDirs(Env{GOOS: "darwin", Home: "/Users/u", XDGConfigHome: mac, XDGDataHome: mac, XDGStateHome: mac,
		XDGCacheHome: "/Users/u/Library/Caches"}, filepath.Join(mac, "gemini-search-mcp"))
	if want := []string{filepath.Join(mac, "gemini-search-mcp"), filepath.Clean(mac), filepath.Clean("/Users/u/Library/Caches"),
		filepath.Clean("/Users/u/Library")}; !slices.Equal(got, want) {
		t.Errorf("macOS: got %q, want %q", got, want)
	}
}

// TestLibraryPath: the research library lives in the data dir adrg/xdg finds (XDG_DATA_HOME replaces it on every
// platform); without an absolute one there is no library.
func TestLibraryPath(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, data, want string
	}{
		{"data dir", "/home/u/.local/share", filepath.Join("/home/u/.local/share", "gemini-search-mcp", "library.db")},
		{"none", "", ""},
		{"relative", "share", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _ := testEnv(t, nil, "")
			e.XDGDataHome = tt.data
			c, err := Load(e)
			if err != nil {
				t.Fatal(err)
			}
			if c.LibraryPath != tt.want {
				t.Errorf("got %q, want %q", c.LibraryPath, tt.want)
			}
		})
	}
}

// TestHistoryMax: GEMINI_HISTORY_MAX, the earlier name of GEMINI_LIBRARY_MAX_REPORTS, applies when the new name is
// not set, from the environment or the .env file; the new name wins.
func TestHistoryMax(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		env    map[string]string
		dotenv string
		want   int
	}{
		{"neither", nil, "", 1000},
		{"old name in .env", nil, "GEMINI_HISTORY_MAX=200\n", 200},
		{"old name in env", map[string]string{"GEMINI_HISTORY_MAX": "0"}, "", 0},
		{"new name in .env wins", nil, "GEMINI_HISTORY_MAX=200\nGEMINI_LIBRARY_MAX_REPORTS=50\n", 50},
		{"new name in env wins", map[string]string{"GEMINI_LIBRARY_MAX_REPORTS": "70"}, "GEMINI_HISTORY_MAX=200\n", 70},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _ := testEnv(t, tt.env, tt.dotenv)
			c, err := Load(e)
			if err != nil {
				t.Fatal(err)
			}
			if c.LibraryMaxReports != tt.want || c.Shown("GEMINI_LIBRARY_MAX_REPORTS") != strconv.Itoa(tt.want) {
				t.Errorf("got %d (shown %q), want %d", c.LibraryMaxReports, c.Shown("GEMINI_LIBRARY_MAX_REPORTS"), tt.want)
			}
		})
	}
	e, _ := testEnv(t, map[string]string{"GEMINI_HISTORY_MAX": "-1"}, "")
	if _, err := Load(e); err == nil || !strings.Contains(err.Error(), "GEMINI_HISTORY_MAX") {
		t.Errorf("a malformed old name: %v, want an error naming it", err)
	}
}

// TestHistoryDir: the report history lives in the cache dir adrg/xdg finds (XDG_CACHE_HOME replaces it on every
// platform); without an absolute one there is no history.
func TestHistoryDir(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, cache, want string
	}{
		{"cache dir", "/home/u/.cache", filepath.Join("/home/u/.cache", "gemini-search-mcp", "history")},
		{"none", "", ""},
		{"relative", "cache", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e, _ := testEnv(t, nil, "")
			e.XDGCacheHome = tt.cache
			c, err := Load(e)
			if err != nil {
				t.Fatal(err)
			}
			if c.HistoryDir != tt.want {
				t.Errorf("got %q, want %q", c.HistoryDir, tt.want)
			}
		})
	}
}

// TestPromptFiles: the config dir's prompts folder replaces built-in prompts; GEMINI_SYSTEM_PROMPT wins for the
// research prompt; a file that cannot serve stops the load with its name.
func TestPromptFiles(t *testing.T) {
	t.Parallel()
	e, dir := testEnv(t, nil, "")
	folder := PromptsDir(dir)
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(folder, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("research.md", "Research {topic} from the file.")
	write("verify.md", "Verify {draft} about {topic}.")
	c, err := Load(e)
	if err != nil || c.Prompts["research.md"] != "Research {topic} from the file." || c.Prompts["verify.md"] == "" {
		t.Fatalf("got %q, %v", c.Prompts, err)
	}

	e.Lookup = envMap(map[string]string{DirVar: dir, "GEMINI_SYSTEM_PROMPT": "Research {topic} from the variable."})
	if c, err = Load(e); err != nil || c.Prompts["research.md"] != "Research {topic} from the variable." {
		t.Errorf("GEMINI_SYSTEM_PROMPT: got %q, %v", c.Prompts, err)
	}

	write("verify.md", "Verify the draft about {topic}.")
	_, err = Load(e)
	if want := filepath.Join(folder, "verify.md") + ": must contain the {draft} placeholder"; err == nil ||
		!strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want %q", err, want)
	}
}

// TestHeldAsWritten: a refusal is only of values the file held as they stay (a hand edit kept until the user
// changes it), or it is not.
func TestHeldAsWritten(t *testing.T) {
	t.Parallel()
	old := []byte("# mine\nGEMINI_SEARCH_TIMEOUT=abc\n")
	bad := func(name, value string) error {
		return &InvalidError{Var: name, Value: value, Reason: "bad"}
	}
	for _, tt := range []struct {
		name    string
		updated string
		err     error
		want    bool
	}{
		{"kept, another value added", "# mine\nGEMINI_SEARCH_TIMEOUT=abc\nGEMINI_MODEL=pro\n", bad("GEMINI_SEARCH_TIMEOUT", "abc"), true},
		{"changed to another bad value", "GEMINI_SEARCH_TIMEOUT=xyz\n", bad("GEMINI_SEARCH_TIMEOUT", "xyz"), false},
		{"a new bad value", "GEMINI_SEARCH_TIMEOUT=abc\nMCP_SERVER_PORT=0\n",
			errors.Join(bad("GEMINI_SEARCH_TIMEOUT", "abc"), bad("MCP_SERVER_PORT", "0")), false},
		{"not a value's error", "GEMINI_SEARCH_TIMEOUT=abc\n", errors.New("MCP_SERVER_HOST is not loopback"), false},
		{"no error", "GEMINI_SEARCH_TIMEOUT=abc\n", nil, false},
	} {
		if got := HeldAsWritten(old, []byte(tt.updated), tt.err); got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}
