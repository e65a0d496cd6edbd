package runners_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/runners"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/warm"
)

func TestMain(m *testing.M) {
	geminitest.Main()
	os.Exit(m.Run())
}

// setup is one configuration's world: a mock Gemini API, a HOME, and the config pointing at both.
type setup struct {
	cfg  config.Config
	home string
	mock *mockgemini.Server
	log  bytes.Buffer
}

func newSetup(t *testing.T, mode string, key string, cliPath string, signedIn bool) *setup {
	t.Helper()
	s := &setup{home: t.TempDir(), mock: mockgemini.New()}
	srv := httptest.NewServer(s.mock)
	t.Cleanup(srv.Close)
	t.Cleanup(s.mock.Close)
	if signedIn {
		dir := filepath.Join(s.home, ".gemini")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "oauth_creds.json"), []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.cfg = config.Config{Dir: t.TempDir(), Backend: mode, GeminiAPIKey: config.Secret(key), APIBaseURL: srv.URL,
		CLIPath: cliPath, SearchTimeout: time.Minute}
	return s
}

func (s *setup) set(t *testing.T) *runners.Set {
	return runners.New(t.Context(), s.cfg, gemini.Login(s.home, s.cfg.Dir), slog.New(slog.NewTextHandler(&s.log, nil)), nil)
}

const key = "AIzaRunnersTestKey-0123456789-abcdefghij"

// A CLI run refused for its account switches auto to the API within the same call, and every later call goes
// straight to the API; the switch is logged once. A daily quota sends each call it stops to the API, and only those.
func TestAutoSwitchesWhenTheCLIIsRefused(t *testing.T) {
	for _, tt := range []struct {
		scenario string
		sticky   bool
		logLine  string
	}{
		{geminitest.ScenarioAuth, true, "using the Gemini API instead of the Gemini CLI"},
		{geminitest.ScenarioAuth401, true, "using the Gemini API instead of the Gemini CLI"},
		{geminitest.ScenarioQuota, false, "daily quota ran out"},
	} {
		t.Run(tt.scenario, func(t *testing.T) {
			fake := geminitest.New(t, tt.scenario)
			s := newSetup(t, backend.Auto, key, fake.Path, true)
			set := s.set(t)
			if st := set.State(); st.Active != backend.CLI || st.String() != "Gemini CLI (auto)" {
				t.Fatalf("before any call: %+v", st)
			}
			// Calls at once: one switch, one log line, every result saying why.
			var wg sync.WaitGroup
			results := make([]backend.Result, 4)
			errs := make([]error, len(results))
			for i := range results {
				wg.Go(func() { results[i], errs[i] = set.Runner().Run(t.Context(), backend.Request{Prompt: "q"}) })
			}
			wg.Wait()
			for i, res := range results {
				if errs[i] != nil || res.Backend != backend.API || !strings.Contains(res.Switched, "Gemini CLI") || res.Text == "" {
					t.Errorf("call %d: got backend %q, reason %q, text %q, err %v", i, res.Backend, res.Switched, res.Text, errs[i])
				}
			}
			if n := strings.Count(s.log.String(), tt.logLine); n != 1 {
				t.Errorf("logged %d times, want once:\n%s", n, s.log.String())
			}
			st := set.State()
			if tt.sticky != (st.Active == backend.API) || (tt.sticky && !strings.HasPrefix(st.String(), "Gemini API (auto: the Gemini CLI")) ||
				strings.Contains(st.String(), "((") {
				t.Errorf("state after the switch: %+v %q", st, st.String())
			}
			calls := len(fake.Calls())
			res, err := set.Runner().Run(t.Context(), backend.Request{Prompt: "q2"})
			if err != nil || res.Backend != backend.API || res.Switched == "" {
				t.Errorf("next call: %+v, %v", res, err)
			}
			if grew := len(fake.Calls()) > calls; grew == tt.sticky {
				t.Errorf("the next call ran the CLI: %v; want it to go straight to the API: %v", grew, tt.sticky)
			}
			if strings.Contains(s.log.String(), key) {
				t.Error("the key is in the log")
			}
		})
	}
}

func TestAutoStaysOnTheCLI(t *testing.T) {
	t.Run("it serves", func(t *testing.T) {
		fake := geminitest.New(t, geminitest.ScenarioOK)
		s := newSetup(t, backend.Auto, key, fake.Path, true)
		res, err := s.set(t).Runner().Run(t.Context(), backend.Request{Prompt: "q"})
		if err != nil || res.Backend != backend.CLI || res.Switched != "" {
			t.Errorf("got %+v, %v", res, err)
		}
		if n := len(s.mock.Requests()); n != 0 {
			t.Errorf("%d API requests, want none", n)
		}
	})
	t.Run("refused, but no key", func(t *testing.T) {
		fake := geminitest.New(t, geminitest.ScenarioAuth)
		s := newSetup(t, backend.Auto, "", fake.Path, true)
		if _, err := s.set(t).Runner().Run(t.Context(), backend.Request{Prompt: "q"}); backend.ErrorCode(err) != backend.CodeAuth {
			t.Errorf("got %v, want the CLI's AUTH_ERROR", err)
		}
	})
	t.Run("a per-minute limit or other failure does not switch", func(t *testing.T) {
		fake := geminitest.New(t, geminitest.ScenarioUntrusted)
		s := newSetup(t, backend.Auto, key, fake.Path, true)
		set := s.set(t)
		if _, err := set.Runner().Run(t.Context(), backend.Request{Prompt: "q"}); backend.ErrorCode(err) != backend.CodeUntrusted {
			t.Errorf("got %v", err)
		}
		if set.State().Active != backend.CLI {
			t.Error("switched")
		}
	})
}

func TestAutoStartsOnTheAPI(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	for name, s := range map[string]*setup{
		"the Gemini CLI is not installed": newSetup(t, backend.Auto, key, filepath.Join(t.TempDir(), "no-gemini"), true),
		"the Gemini CLI is not signed in": newSetup(t, backend.Auto, key, fake.Path, false),
	} {
		set := s.set(t)
		if st := set.State(); st.Active != backend.API || st.Reason != name {
			t.Errorf("%s: got %+v", name, st)
		}
		res, err := set.Runner().Run(t.Context(), backend.Request{Prompt: "q"})
		if err != nil || res.Backend != backend.API || res.Switched != name {
			t.Errorf("%s: got %+v, %v", name, res, err)
		}
	}
	if n := len(fake.Calls()); n != 0 {
		t.Errorf("the CLI ran %d times", n)
	}
}

func TestFixedBackends(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioAuth)
	s := newSetup(t, backend.CLI, key, fake.Path, false)
	if _, err := s.set(t).Runner().Run(t.Context(), backend.Request{Prompt: "q"}); backend.ErrorCode(err) != backend.CodeAuth {
		t.Errorf("cli: got %v, want the CLI's own AUTH_ERROR and no switch", err)
	}
	if n := len(s.mock.Requests()); n != 0 {
		t.Errorf("cli: %d API requests", n)
	}

	s = newSetup(t, backend.API, "", fake.Path, true)
	_, err := s.set(t).Runner().Run(t.Context(), backend.Request{Prompt: "q"})
	var e *backend.Error
	if !errors.As(err, &e) || e.Code != backend.CodeAuth || !strings.Contains(e.Message, "GEMINI_API_KEY") ||
		!strings.Contains(e.Hint, "aistudio.google.com/apikey") {
		t.Errorf("api without a key: got %+v", err)
	}
	if st := s.set(t).State(); st.String() != "Gemini API" {
		t.Errorf("api: state %q", st.String())
	}
}

// The CLI is kept warm only while it serves research, and only after a search: no CLI starts at launch nor on the
// API; the first CLI search runs cold and starts the warm worker, which serves the next; auto's switch to the API
// ends it.
func TestKeepWarmOnlyAfterACLISearch(t *testing.T) {
	warmSetup := func(mode, path string) *runners.Set {
		s := newSetup(t, mode, key, path, true)
		s.cfg.WarmWorkers, s.cfg.MaxConcurrent, s.cfg.Model = 1, 3, "m1"
		set := s.set(t)
		t.Cleanup(set.Close)
		set.KeepWarm(warm.Server{Serving: true})
		return set
	}
	search := func(set *runners.Set) backend.Result {
		t.Helper()
		res, err := set.Runner().Run(t.Context(), backend.Request{Prompt: "q", Model: "m1"})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	fake := geminitest.New(t, geminitest.ScenarioOK)
	set := warmSetup(backend.API, fake.Path)
	if res := search(set); set.State().Warm != 0 || len(fake.Started()) != 0 || res.Backend != backend.API {
		t.Fatalf("api: got %+v, %d CLI starts", set.State(), len(fake.Started()))
	}

	set = warmSetup(backend.CLI, fake.Path)
	if n := len(fake.Started()); n != 0 {
		t.Fatalf("cli: %d CLI starts at launch, want none", n)
	}
	search(set)
	testkit.WaitFor(t, "a warm CLI", func() bool { return set.State().Warm == 1 && len(fake.Started()) == 2 })
	if st := set.State().String(); st != "Gemini CLI, 1 warm" {
		t.Errorf("got %q", st)
	}
	search(set)
	if calls := fake.Calls(); len(calls) != 2 || slices.Contains(calls[0].Args, "--acp") || !slices.Contains(calls[1].Args, "--acp") {
		t.Errorf("got calls %+v, want a cold search, then one on the warm worker", calls)
	}
	set.Close()

	refused := geminitest.New(t, geminitest.ScenarioAuth)
	set = warmSetup(backend.Auto, refused.Path)
	if n := len(refused.Started()); n != 0 {
		t.Fatalf("auto: %d CLI starts at launch, want none", n)
	}
	if res := search(set); res.Backend != backend.API {
		t.Fatalf("got %+v; want the CLI refused, then the API", res)
	}
	testkit.WaitFor(t, "no CLI left", func() bool { return set.State().Warm == 0 && len(refused.LivePIDs()) == 0 })
	search(set)
	set.KeepWarm(warm.Server{Serving: true})
	if n := len(refused.Started()); n != 1 || set.State().Warm != 0 {
		t.Errorf("%d CLI starts, %d warm after the switch; want the refused search's alone", n, set.State().Warm)
	}
}

// The CLI's runs learn from the configuration whether Firecrawl is set up (config.FirecrawlEnabled): then its MCP
// server alone may start, and one that did not start is reported; otherwise none may, and none is blamed.
func TestTheCLIRunsFirecrawlOnlyWhenConfigured(t *testing.T) {
	t.Setenv("DEBUG", "false")
	for _, tt := range []struct {
		name    string
		url     string // FIRECRAWL_API_URL
		allowed string // --allowed-mcp-server-names
		down    bool   // the result says Firecrawl did not start
	}{
		{"configured", "http://127.0.0.1:3002", "firecrawl", true},
		{"not configured", "", "gemini-search-mcp-none", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fake := geminitest.New(t, geminitest.ScenarioNoFirecrawl)
			s := newSetup(t, backend.CLI, "", fake.Path, true)
			s.cfg.FirecrawlAPIURL = tt.url
			res, err := s.set(t).Runner().Run(t.Context(), backend.Request{Prompt: "q"})
			if err != nil || (res.FirecrawlDown != "") != tt.down {
				t.Fatalf("got FirecrawlDown %q, %v; want it said: %v", res.FirecrawlDown, err, tt.down)
			}
			if calls := fake.Calls(); len(calls) != 1 || !slices.Contains(calls[0].Args, tt.allowed) {
				t.Errorf("got calls %+v, want one that allows the MCP server %q", calls, tt.allowed)
			}
		})
	}
}

// TestAliasesPerBackend: an alias is the API's -latest model on the API, and stays an alias for the CLI, which
// resolves it for its own account; an alias the user pointed at a model is that model on both.
func TestAliasesPerBackend(t *testing.T) {
	fake := geminitest.New(t, geminitest.ScenarioOK)
	aliases := map[string]string{"pro": "gemini-pro-latest", "flash": "gemini-2.5-flash"}
	for _, mode := range []string{backend.CLI, backend.API} {
		s := newSetup(t, mode, key, fake.Path, true)
		s.cfg.Aliases, s.cfg.Overridden = aliases, map[string]bool{"GEMINI_ALIAS_FLASH": true}
		set := s.set(t)
		for _, model := range []string{"pro", "flash"} {
			if _, err := set.Runner().Run(t.Context(), backend.Request{Prompt: "q", Model: model}); err != nil {
				t.Fatalf("%s, %s: %v", mode, model, err)
			}
		}
		if mode == backend.API {
			reqs := s.mock.Requests()
			if len(reqs) != 2 || reqs[0].Model != "gemini-pro-latest" || reqs[1].Model != "gemini-2.5-flash" {
				t.Errorf("the API was asked for %+v, want gemini-pro-latest then gemini-2.5-flash", reqs)
			}
		}
	}
	calls := fake.Calls()
	if len(calls) != 2 || !slices.Contains(calls[0].Args, "pro") || !slices.Contains(calls[1].Args, "gemini-2.5-flash") {
		t.Errorf("the CLI ran with %+v, want -m pro (its own alias), then -m gemini-2.5-flash (the user's)", calls)
	}
}
