package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini/geminitest"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mockgemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/runners"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/testkit"
)

// envNodeMissing makes the test binary play a Gemini CLI whose interpreter is missing: the shell's complaint on
// stderr, exit 127.
const envNodeMissing = "DOCTOR_TEST_NODE_MISSING"

// nodeMissing is what a CLI without Node prints.
const nodeMissing = "/usr/bin/env: 'node': No such file or directory"

// envNpxRan names the file where the test binary, playing npx, notes each time it is run.
const envNpxRan = "DOCTOR_TEST_NPX_RAN"

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "npx" {
		f, err := os.OpenFile(os.Getenv(envNpxRan), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, strings.Join(os.Args[1:], " "))
			f.Close()
		}
		os.Exit(1)
	}
	geminitest.Main()
	if os.Getenv(envNodeMissing) != "" {
		fmt.Fprintln(os.Stderr, nodeMissing)
		os.Exit(127)
	}
	os.Exit(m.Run())
}

// world is what one doctor run sees: the process environment (vars), a home folder with or without the CLI's own
// sign-in, and a private config dir.
func world(t *testing.T, vars map[string]string, signedIn bool) (config.Config, config.Env) {
	t.Helper()
	home := t.TempDir()
	if signedIn {
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, ".gemini", "oauth_creds.json"), []byte(`{}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	all := map[string]string{config.DirVar: t.TempDir()}
	for k, v := range vars {
		all[k] = v
	}
	env := config.Env{GOOS: "linux", Home: home, Lookup: func(name string) (string, bool) {
		v, ok := all[name]
		return v, ok
	}}
	cfg, err := config.Load(env)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, env
}

// mockAPI serves the mock Gemini API on loopback; chat (the doctor's Plain query) answers with r, or the default.
func mockAPI(t *testing.T, r mockgemini.Responder) (*mockgemini.Server, string) {
	t.Helper()
	mock := mockgemini.New()
	if r != nil {
		mock.Handle(mockgemini.KindChat, r)
	}
	srv := httptest.NewServer(mock)
	t.Cleanup(func() {
		mock.Close() // first: releases hanging requests, which srv.Close waits for
		srv.Close()
	})
	return mock, srv.URL
}

const (
	testKey   = "AIza-test-key-wxyz"
	testLast4 = "••••wxyz"
)

// TestRun runs doctor against the fake CLI and the mock API, one configuration at a time. Not parallel: the fake
// CLI's scenario is in the process environment.
func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		cli      string // fake scenario; "" for no CLI, "node-missing" for one that cannot start
		vars     map[string]string
		signedIn bool
		api      mockgemini.Responder
		offline  bool

		healthy          bool
		want, unwant     []string
		cliRuns, apiRuns int // queries each backend got
	}{
		{name: "cli answers", cli: geminitest.ScenarioOK, vars: map[string]string{"GEMINI_BACKEND": "cli"}, signedIn: true,
			healthy: true, cliRuns: 1,
			want:   []string{"✓ Backend       Gemini CLI\n", "(version 0.61.0) answered in ", "(model gemini-2.5-flash)"},
			unwant: []string{"Gemini API"}},
		{name: "api answers", vars: map[string]string{"GEMINI_BACKEND": "api", "GEMINI_API_KEY": testKey},
			healthy: true, apiRuns: 1,
			want: []string{"✓ Auth          GEMINI_API_KEY " + testLast4 + " (from the environment)", "✓ Backend       Gemini API\n",
				"✓ Gemini CLI    not used (GEMINI_BACKEND=api)", "✓ Gemini API    answered in ", "(model gemini-flash-latest)"}},
		{name: "api key rejected (400)", vars: map[string]string{"GEMINI_BACKEND": "api", "GEMINI_API_KEY": testKey},
			api: mockgemini.Always(mockgemini.InvalidKey()), apiRuns: 1,
			want: []string{"✗ Gemini API    did not answer (AUTH_ERROR): the key in GEMINI_API_KEY (" + testLast4 + ") was rejected",
				"fix: Check the key in GEMINI_API_KEY against aistudio.google.com/apikey"},
			unwant: []string{"set GEMINI_API_KEY"}},
		{name: "api key rejected (401) names GOOGLE_API_KEY", vars: map[string]string{"GEMINI_BACKEND": "api", "GOOGLE_API_KEY": testKey},
			api: mockgemini.Always(mockgemini.Unauthenticated()), apiRuns: 1,
			want: []string{"the key in GOOGLE_API_KEY (" + testLast4 + ") was rejected", "fix: Check the key in GOOGLE_API_KEY"}},
		{name: "api key refused (403)", vars: map[string]string{"GEMINI_BACKEND": "api", "GEMINI_API_KEY": testKey},
			api: mockgemini.Always(mockgemini.PermissionDenied()), apiRuns: 1,
			want: []string{"the key in GEMINI_API_KEY (" + testLast4 + ") was refused", "fix: The key is valid but"}},
		{name: "api daily quota", vars: map[string]string{"GEMINI_BACKEND": "api", "GEMINI_API_KEY": testKey},
			api: mockgemini.Always(mockgemini.QuotaDaily()), apiRuns: 1,
			want: []string{"✗ Gemini API    did not answer (QUOTA_ERROR): ", "daily quota", "fix: "}},
		{name: "api without a key", vars: map[string]string{"GEMINI_BACKEND": "api"}, signedIn: true,
			want: []string{"✗ Gemini API    no key: GEMINI_BACKEND=api needs one", "aistudio.google.com/apikey"}},
		{name: "api hangs past GEMINI_SEARCH_TIMEOUT",
			vars: map[string]string{"GEMINI_BACKEND": "api", "GEMINI_API_KEY": testKey, "GEMINI_SEARCH_TIMEOUT": "1000"},
			api:  mockgemini.Always(mockgemini.Hang()), apiRuns: 1,
			want: []string{"✗ Gemini API    did not answer", "1s"}},
		{name: "cli not signed in, no key", cli: geminitest.ScenarioAuth, vars: map[string]string{"GEMINI_BACKEND": "cli"},
			cliRuns: 1,
			want: []string{"✗ Auth          no credentials found\n                fix: " + gemini.HintAuth,
				"did not answer (AUTH_ERROR): The Gemini CLI is not signed in", "  Invalid auth method selected.", "fix: " + gemini.HintAuth}},
		{name: "cli key rejected", cli: geminitest.ScenarioAuth401, vars: map[string]string{"GEMINI_BACKEND": "cli", "GEMINI_API_KEY": testKey},
			cliRuns: 1,
			want:    []string{"✗ Gemini CLI", "(AUTH_ERROR)", "fix: The Gemini API rejected the key in GEMINI_API_KEY"},
			unwant:  []string{"or set GEMINI_API_KEY", testKey}},
		{name: "cli cannot start node", cli: "node-missing", vars: map[string]string{"GEMINI_BACKEND": "cli", "GEMINI_API_KEY": testKey},
			want: []string{"✗ Gemini CLI", "does not run (CLI_ERROR): `gemini --version` failed (exit status 127)", "  " + nodeMissing, "fix: " + hintNode}},
		{name: "cli missing", vars: map[string]string{"GEMINI_BACKEND": "cli", "GEMINI_API_KEY": testKey},
			want: []string{"✗ Gemini CLI    not found", "fix: " + gemini.HintNotFound}},
		{name: "auto: a refused CLI, an API that answers", cli: geminitest.ScenarioAuth, signedIn: true,
			vars: map[string]string{"GEMINI_API_KEY": testKey}, healthy: true, cliRuns: 1, apiRuns: 1,
			want: []string{"✓ Backend       Gemini CLI (auto)", "! Gemini CLI", "auto switches to the Gemini API at the first search",
				"✓ Gemini API    answered in"}},
		{name: "auto: both answer", cli: geminitest.ScenarioOK, signedIn: true, vars: map[string]string{"GEMINI_API_KEY": testKey},
			healthy: true, cliRuns: 1, apiRuns: 1,
			want: []string{"✓ Gemini CLI", "(version 0.61.0) answered in", "✓ Gemini API    answered in"}},
		{name: "auto: CLI not signed in, a key", cli: geminitest.ScenarioOK, vars: map[string]string{"GEMINI_API_KEY": testKey},
			healthy: true, apiRuns: 1,
			want: []string{"✓ Backend       Gemini API (auto: the Gemini CLI is not signed in)",
				"! Gemini CLI", "not signed in, so auto uses the Gemini API", "✓ Gemini API    answered in"}},
		{name: "auto: signed in, no key", cli: geminitest.ScenarioOK, signedIn: true, healthy: true, cliRuns: 1,
			want: []string{"✓ Gemini CLI", "answered in", "! Gemini API    no key, so auto has nothing to fall back on"}},
		{name: "auto: the CLI answers, the API's daily quota", cli: geminitest.ScenarioOK, signedIn: true,
			vars: map[string]string{"GEMINI_API_KEY": testKey}, api: mockgemini.Always(mockgemini.QuotaDaily()),
			healthy: true, cliRuns: 1, apiRuns: 1,
			want: []string{"✓ Backend       Gemini CLI (auto)", "✓ Gemini CLI", "answered in",
				"! Gemini API    did not answer (QUOTA_ERROR): ", "\n                fix: ",
				"\n                searches are served by the Gemini CLI, which answered\n"}},
		{name: "auto: both fail", cli: geminitest.ScenarioAuth, signedIn: true,
			vars: map[string]string{"GEMINI_API_KEY": testKey}, api: mockgemini.Always(mockgemini.QuotaDaily()),
			cliRuns: 1, apiRuns: 1,
			want: []string{"✓ Backend       Gemini CLI (auto)", "✗ Gemini CLI", "did not answer (AUTH_ERROR): ",
				"\n                fix: The Gemini CLI selected no auth method", "✗ Gemini API    did not answer (QUOTA_ERROR): ",
				"\n                fix: The daily quota", "searches will fail until it is fixed"},
			unwant: []string{"auto switches", "searches are served by"}},
		{name: "auto: the CLI not signed in, the API's daily quota", cli: geminitest.ScenarioOK,
			vars: map[string]string{"GEMINI_API_KEY": testKey}, api: mockgemini.Always(mockgemini.QuotaDaily()), apiRuns: 1,
			want: []string{"✓ Backend       Gemini API (auto: the Gemini CLI is not signed in)", "! Gemini CLI",
				"✗ Gemini API    did not answer (QUOTA_ERROR): "},
			unwant: []string{"searches are served by"}},
		// The CLI may sign in where gemini.Login does not look (~/.gemini/.env, Vertex AI variables): auto still
		// starts on it, so doctor asks it, and its answer settles Auth.
		{name: "auto: no key, no sign-in doctor can see, a CLI that answers", cli: geminitest.ScenarioOK,
			healthy: true, cliRuns: 1,
			want: []string{"! Auth          no credentials doctor can see, but the Gemini CLI answered the query below",
				"✓ Backend       Gemini CLI (auto)\n", "✓ Gemini CLI", "(version 0.61.0) answered in ",
				"! Gemini API    no key, so auto has nothing to fall back on"},
			unwant: []string{"✗"}},
		{name: "cli: no key, no sign-in doctor can see, a CLI that answers", cli: geminitest.ScenarioOK,
			vars: map[string]string{"GEMINI_BACKEND": "cli"}, healthy: true, cliRuns: 1,
			want: []string{"! Auth          no credentials doctor can see, but the Gemini CLI answered the query below",
				"✓ Gemini CLI", "answered in "}},
		{name: "auto: no credentials at all", cli: geminitest.ScenarioAuth, cliRuns: 1,
			want: []string{"✗ Auth          no credentials found\n                fix: Run `gemini` once in a terminal and sign in, or set GEMINI_API_KEY (aistudio.google.com/apikey).",
				"✓ Backend       Gemini CLI (auto)\n", "✗ Gemini CLI", "did not answer (AUTH_ERROR): ", "fix: " + gemini.HintAuth,
				"! Gemini API    no key"}},
		{name: "auto: no CLI, a key", vars: map[string]string{"GEMINI_API_KEY": testKey}, offline: true, healthy: true,
			want: []string{"✓ Backend       Gemini API (auto: the Gemini CLI is not installed)\n",
				"! Gemini CLI    not found (", "), so auto uses the Gemini API\n", "fix: " + gemini.HintNotFound,
				"✓ Gemini API    not queried (--offline)"}},
		{name: "auto: no CLI, no key", offline: true,
			want: []string{"✗ Backend       none can serve: no Gemini CLI is installed and no Gemini API key is set\n",
				"✗ Gemini CLI    not found (", "npm install -g @google/gemini-cli", "auto then uses the Gemini API"},
			unwant: []string{"Gemini CLI (auto)"}},
		{name: "offline: no credentials is not proved otherwise", cli: geminitest.ScenarioOK, offline: true,
			want: []string{"✗ Auth          no credentials found\n", "(version 0.61.0); not queried (--offline)"}},
		{name: "offline queries nothing", cli: geminitest.ScenarioOK, signedIn: true, vars: map[string]string{"GEMINI_API_KEY": testKey},
			offline: true, healthy: true,
			want: []string{"(version 0.61.0); not queried (--offline)", "✓ Gemini API    not queried (--offline)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"GEMINI_CLI_PATH": filepath.Join(t.TempDir(), "no-gemini")}
			var fake *geminitest.Fake
			switch tt.cli {
			case "":
			case "node-missing":
				vars["GEMINI_CLI_PATH"] = os.Args[0]
				t.Setenv(envNodeMissing, "1")
			default:
				fake = geminitest.New(t, tt.cli)
				vars["GEMINI_CLI_PATH"] = fake.Path
			}
			mock, url := mockAPI(t, tt.api)
			vars["GOOGLE_GEMINI_BASE_URL"] = url
			for k, v := range tt.vars {
				vars[k] = v
			}
			cfg, env := world(t, vars, tt.signedIn)

			var out bytes.Buffer
			healthy := Print(&out, Run(context.Background(), cfg, Options{Env: env, Offline: tt.offline}))
			if healthy != tt.healthy {
				t.Errorf("healthy = %v, want %v", healthy, tt.healthy)
			}
			for _, want := range tt.want {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q", want)
				}
			}
			for _, unwant := range append(tt.unwant, testKey) {
				if strings.Contains(out.String(), unwant) {
					t.Errorf("output holds %q", unwant)
				}
			}
			cliRuns := 0
			if fake != nil {
				for _, c := range fake.Calls() {
					if !slices.Contains(c.Args, "--version") {
						cliRuns++
					}
				}
			}
			if cliRuns != tt.cliRuns || len(mock.RequestsOf(mockgemini.KindChat)) != tt.apiRuns || len(mock.Requests()) != tt.apiRuns {
				t.Errorf("the CLI got %d queries and the API %d requests (%d chat), want %d and %d",
					cliRuns, len(mock.Requests()), len(mock.RequestsOf(mockgemini.KindChat)), tt.cliRuns, tt.apiRuns)
			}
			if t.Failed() {
				t.Logf("output:\n%s", out.String())
			}
		})
	}
}

// TestNpxIsNoInstalledCLI: with npx but no Gemini CLI on PATH, doctor names the install command and never runs
// npx, whose first run is a download that a time limit would leave half done: with GEMINI_CLI_NPX off the CLI is
// missing; on, it is fetched at the first search, which doctor does not run, --offline or not. Not parallel: PATH.
func TestNpxIsNoInstalledCLI(t *testing.T) {
	bin := t.TempDir()
	if err := os.Symlink(os.Args[0], filepath.Join(bin, "npx")); err != nil {
		t.Fatal(err)
	}
	ran := filepath.Join(t.TempDir(), "npx-ran")
	t.Setenv("PATH", bin)
	t.Setenv(envNpxRan, ran)
	for _, tt := range []struct {
		npx     string
		offline bool
		key     string
		healthy bool
		want    []string
	}{
		{"off", true, "", false, []string{"✗ Gemini CLI    not found (gemini is not on PATH; npx is, and could fetch the CLI",
			"fix: Install the Gemini CLI with `npm install -g @google/gemini-cli`"}},
		{"on", true, "", true, []string{"! Gemini CLI    " + filepath.Join(bin, "npx") + " -y @google/gemini-cli@",
			"npx fetches it at the first search (GEMINI_CLI_NPX=on)", "fix: install the CLI, and searches start at once: " +
				"`npm install -g @google/gemini-cli`"}},
		{"on", false, "", true, []string{"! Gemini CLI", "so doctor does not run it\n"}},
		{"on", false, testKey, true, []string{"✓ Backend       Gemini API (auto: ", "so doctor does not run it, so auto uses the Gemini API\n"}},
	} {
		mock, url := mockAPI(t, nil)
		cfg, env := world(t, map[string]string{"GEMINI_CLI_NPX": tt.npx, "GEMINI_API_KEY": tt.key, "GOOGLE_GEMINI_BASE_URL": url}, tt.key == "")
		var out bytes.Buffer
		healthy := Print(&out, Run(t.Context(), cfg, Options{Env: env, Offline: tt.offline}))
		for _, want := range tt.want {
			if !strings.Contains(out.String(), want) {
				t.Errorf("GEMINI_CLI_NPX=%s, offline %v: the output lacks %q:\n%s", tt.npx, tt.offline, want, out.String())
			}
		}
		if healthy != tt.healthy {
			t.Errorf("GEMINI_CLI_NPX=%s, offline %v: healthy %v, want %v:\n%s", tt.npx, tt.offline, healthy, tt.healthy, out.String())
		}
		if tt.key != "" && len(mock.RequestsOf(mockgemini.KindChat)) != 1 {
			t.Errorf("the Gemini API got %d queries, want 1: it serves", len(mock.RequestsOf(mockgemini.KindChat)))
		}
	}
	if data, err := os.ReadFile(ran); err == nil {
		t.Errorf("doctor ran npx: %q", data)
	}
}

func TestHTTPCheck(t *testing.T) {
	t.Parallel()
	refuse := func(c config.Config) error {
		if c.Host != "127.0.0.1" && c.AuthToken == "" {
			return errors.New("refusing to serve on a non-loopback host without a token")
		}
		return nil
	}
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() })
	takenPort := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	// A running server of ours (the tray, say) holds a port too, and answers /healthz as ours does.
	ours := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && r.Header.Get("Authorization") == "Bearer tok-1234567" {
			_, _ = io.WriteString(w, `{"status":"ok","version":"1.2.3","backend_mode":"auto"}`)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(ours.Close)
	oursPort := strconv.Itoa(ours.Listener.Addr().(*net.TCPAddr).Port)
	tests := []struct {
		name   string
		vars   map[string]string
		ok     bool
		detail string
	}{
		{"loopback", nil, true, "--http serves http://127.0.0.1:<port>/mcp"},
		{"exposed without a token", map[string]string{"MCP_SERVER_HOST": "0.0.0.0"}, false, "--http would refuse to start: refusing"},
		{"exposed with a token", map[string]string{"MCP_SERVER_HOST": "localhost", "MCP_AUTH_TOKEN": "tok-1234567"}, true, "(MCP_AUTH_TOKEN required)"},
		{"port taken", map[string]string{"MCP_SERVER_PORT": takenPort}, false,
			"--http cannot listen on 127.0.0.1:" + takenPort + ": "},
		{"port taken: the fix", map[string]string{"MCP_SERVER_PORT": takenPort}, false,
			"\nfix: quit the program that holds port " + takenPort},
		{"port served by a running server of ours", map[string]string{"MCP_SERVER_PORT": oursPort, "MCP_AUTH_TOKEN": "tok-1234567"},
			true, "is served by a running gemini-search-mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			vars := map[string]string{"MCP_SERVER_PORT": testkit.FreePort(t)}
			maps.Copy(vars, tt.vars)
			cfg, _ := world(t, vars, false)
			detail := strings.ReplaceAll(tt.detail, "<port>", vars["MCP_SERVER_PORT"])
			c := checkHTTP(cfg, refuse)
			if c.OK != tt.ok || !strings.Contains(c.Detail, detail) || strings.Contains(c.Detail, "tok-1234567") {
				t.Errorf("got %+v, want OK %v with %q", c, tt.ok, detail)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	reload := func(env config.Env, dotenv []byte) (config.Config, error) { return config.LoadWithDotenv(env, dotenv) }
	tests := []struct {
		name     string
		dotenv   string
		vars     map[string]string
		want     []string // the checks' details, in order; each as a substring
		wantPort int
	}{
		{name: "a valid configuration", dotenv: "MCP_SERVER_PORT=3100\n", wantPort: 3100},
		{name: "a bad value in .env", dotenv: "GEMINI_SEARCH_TIMEOUT=abc\nMCP_SERVER_PORT=3100\n",
			want:     []string{`invalid GEMINI_SEARCH_TIMEOUT="abc" in <dir>/.env: must be`},
			wantPort: 3100},
		{name: "a bad value in the environment", vars: map[string]string{"MCP_SERVER_PORT": "70000"},
			want:     []string{`invalid MCP_SERVER_PORT="70000" set in the process environment: must be`},
			wantPort: 3000},
		{name: "bad in both: the environment's first, then the file's",
			dotenv: "MCP_SERVER_PORT=abc\n", vars: map[string]string{"MCP_SERVER_PORT": "70000"},
			want:     []string{`invalid MCP_SERVER_PORT="70000" set in the process environment`, `invalid MCP_SERVER_PORT="abc" in <dir>/.env`},
			wantPort: 3000},
		{name: "a bad file value the environment overrides is not in force",
			dotenv: "MCP_SERVER_PORT=abc\nJSON_MAX_RETRIES=-1\n", vars: map[string]string{"MCP_SERVER_PORT": "3200"},
			want:     []string{`invalid JSON_MAX_RETRIES="-1" in <dir>/.env`},
			wantPort: 3200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(config.EnvPath(dir), []byte(tt.dotenv), 0o600); err != nil {
				t.Fatal(err)
			}
			vars := map[string]string{config.DirVar: dir}
			for k, v := range tt.vars {
				vars[k] = v
			}
			env := config.Env{GOOS: "linux", Lookup: func(name string) (string, bool) {
				v, ok := vars[name]
				return v, ok
			}}
			first, err := config.Load(env)
			cfg, checks, err := Load(env, first, err, reload)
			if err != nil {
				t.Fatal(err)
			}
			if len(checks) != len(tt.want) {
				t.Fatalf("got checks %+v, want %d", checks, len(tt.want))
			}
			for i, want := range tt.want {
				want = strings.ReplaceAll(want, "<dir>", dir)
				if c := checks[i]; c.OK || c.Name != "Config" || !strings.Contains(c.Detail, want) || !strings.Contains(c.Detail, "\nfix: ") {
					t.Errorf("check %d: got %+v, want a failed Config check with %q and a fix", i, c, want)
				}
			}
			if cfg.Dir != dir || cfg.Port != tt.wantPort || cfg.SearchTimeout <= 0 {
				t.Errorf("got dir %q, port %d, timeout %v; want %q, %d and the default timeout", cfg.Dir, cfg.Port, cfg.SearchTimeout, dir, tt.wantPort)
			}
		})
	}

	t.Run("other errors stop it", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if err := os.WriteFile(config.EnvPath(dir), []byte("not a line\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		env := config.Env{GOOS: "linux", Lookup: func(name string) (string, bool) { return dir, name == config.DirVar }}
		first, err := config.Load(env)
		if _, _, err := Load(env, first, err, reload); err == nil || !strings.Contains(err.Error(), config.EnvPath(dir)) {
			t.Errorf("got %v, want the .env file's own error", err)
		}
	})
}

// TestSetup checks what the tray and the pages show between doctor runs: a setup is broken only when the backend
// in force cannot serve.
func TestSetup(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	noCLI := filepath.Join(dir, "no-gemini")
	tests := []struct {
		name   string
		cfg    config.Config
		login  string
		broken []string // the names of the broken checks, in order
		hints  []string // the names of the hints, in order
		want   string   // in the details
	}{
		{name: "auto: no CLI, a key", cfg: config.Config{Dir: dir, Backend: backend.Auto, CLIPath: noCLI, GeminiAPIKey: "k"},
			hints: []string{"Gemini CLI"}, want: "so auto uses the Gemini API"},
		{name: "auto: no CLI, no key", cfg: config.Config{Dir: dir, Backend: backend.Auto, CLIPath: noCLI},
			broken: []string{"Gemini CLI", "Auth"}, want: "npm install -g @google/gemini-cli"},
		{name: "auto: a CLI not signed in, a key", cfg: config.Config{Dir: dir, Backend: backend.Auto, CLIPath: os.Args[0], GeminiAPIKey: "k"},
			hints: []string{"Gemini CLI"}, want: "not signed in, so auto uses the Gemini API"},
		{name: "auto: a CLI signed in", cfg: config.Config{Dir: dir, Backend: backend.Auto, CLIPath: os.Args[0]},
			login: "Google login found"},
		{name: "auto: a CLI with its key in ~/.gemini/.env", cfg: config.Config{Dir: dir, Backend: backend.Auto, CLIPath: os.Args[0]},
			login: "GEMINI_API_KEY in /home/u/.gemini/.env"},
		{name: "cli: a CLI and a key", cfg: config.Config{Dir: dir, Backend: backend.CLI, CLIPath: os.Args[0], GeminiAPIKey: "k"}},
		{name: "cli: no CLI", cfg: config.Config{Dir: dir, Backend: backend.CLI, CLIPath: noCLI, GeminiAPIKey: "k"},
			broken: []string{"Gemini CLI"}, want: gemini.HintNotFound},
		{name: "api: a key, no CLI", cfg: config.Config{Dir: dir, Backend: backend.API, CLIPath: noCLI, GeminiAPIKey: "k"}},
		{name: "api: no key", cfg: config.Config{Dir: dir, Backend: backend.API, CLIPath: noCLI}, login: "Google login found",
			broken: []string{"Gemini API"}, want: "GEMINI_BACKEND=api needs one"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			set := runners.New(t.Context(), tt.cfg, tt.login, nil, nil)
			t.Cleanup(set.Close)
			checks := Setup(tt.cfg, set, tt.login)
			var broken, hints []string
			var details strings.Builder
			for _, c := range checks {
				switch {
				case c.Broken():
					broken = append(broken, c.Name)
				case !c.OK:
					hints = append(hints, c.Name)
				}
				details.WriteString(c.Detail + "\n")
			}
			if !slices.Equal(broken, tt.broken) || !slices.Equal(hints, tt.hints) || !strings.Contains(details.String(), tt.want) {
				t.Errorf("got broken %q, hints %q, details\n%s\nwant broken %q, hints %q and %q", broken, hints,
					details.String(), tt.broken, tt.hints, tt.want)
			}
		})
	}
}

func TestPrint(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	healthy := Print(&out, []checklist.Check{{Name: "Config dir", OK: true, Detail: "/cfg"}, {Name: "Auth", Hint: true, Detail: "none"}})
	if !healthy || !strings.Contains(out.String(), "✓ Config dir") || !strings.Contains(out.String(), "! Auth") {
		t.Errorf("a hint must not fail the checklist: healthy=%v\n%s", healthy, out.String())
	}
	out.Reset()
	if Print(&out, []checklist.Check{{Name: "Gemini CLI", Detail: "not found\n  it said\nfix: install it"}}) {
		t.Errorf("a failed check must fail the checklist:\n%s", out.String())
	}
	want := "✗ Gemini CLI    not found\n                  it said\n                fix: install it\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("got\n%s\nwant the further lines under the first line's detail:\n%s", out.String(), want)
	}
}
