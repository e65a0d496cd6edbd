package app

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/web"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// load loads a configuration for a fresh config dir with vars as the whole process environment.
func load(t *testing.T, dir string, vars map[string]string) config.Config {
	t.Helper()
	env := map[string]string{config.DirVar: dir, "GEMINI_CLI_PATH": os.Args[0]}
	for k, v := range vars {
		env[k] = v
	}
	cfg, err := config.Load(config.Env{Lookup: func(n string) (string, bool) { v, ok := env[n]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// start starts an App on dir, until the test ends, with a Committer that records what it is told.
func start(t *testing.T, dir string) (*App, *committed) {
	t.Helper()
	a, err := New(load(t, dir, nil), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	seen := &committed{}
	a.Subscribe(seen)
	return a, seen
}

type committed struct{ from, to []config.Config }

func (c *committed) Committed(from, to config.Config) {
	c.from = append(c.from, from)
	c.to = append(c.to, to)
}

// healthz asks a's HTTP handler for /healthz with token ("": none) and returns the status code.
func healthz(a *App, token string) int {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:3000/healthz", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	surface(a.mcpHTTP, web.New(a, web.Forms{}, web.NewToken(), slog.New(slog.DiscardHandler))).ServeHTTP(rec, req)
	return rec.Code
}

// TestCommitIsTheOneRoad: a committed configuration reaches everything at once: the workspace's owned entries,
// the engine's settings, the token the HTTP handler checks, and each Committer, which is told from and to.
func TestCommitIsTheOneRoad(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, seen := start(t, dir)
	if got := healthz(a, ""); got != http.StatusOK {
		t.Fatalf("healthz without a token configured: %d, want 200", got)
	}

	to := load(t, dir, map[string]string{"FIRECRAWL_API_KEY": "fc-0123456789abcdef", "MCP_AUTH_TOKEN": "a-token-of-16-chars",
		"GEMINI_MODEL": "gemini-2.5-pro"})
	if err := a.Commit(to); err != nil {
		t.Fatal(err)
	}
	if a.Config().Model != "gemini-2.5-pro" {
		t.Errorf("model in force %q, want the committed one", a.Config().Model)
	}
	settings, _ := os.ReadFile(workspace.SettingsPath(dir))
	if !strings.Contains(string(settings), `"firecrawl"`) || strings.Contains(string(settings), "fc-0123456789abcdef") {
		t.Errorf("settings.json after the commit:\n%s\nwant the firecrawl server, without the key", settings)
	}
	if got := healthz(a, ""); got != http.StatusUnauthorized {
		t.Errorf("healthz without the new token: %d, want 401", got)
	}
	if got := healthz(a, "a-token-of-16-chars"); got != http.StatusOK {
		t.Errorf("healthz with the new token: %d, want 200", got)
	}
	if len(seen.to) != 1 || seen.from[0].Model != "" || seen.to[0].Model != "gemini-2.5-pro" {
		t.Errorf("the Committer saw %d commits (from %+v), want one from the old configuration to the new", len(seen.to), seen.from)
	}
}

// TestFailedCommitChangesNothing: when the workspace cannot be kept (a file stands where .gemini should be), the
// configuration in force stays and no Committer hears of the change.
func TestFailedCommitChangesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, seen := start(t, dir)
	gemini := filepath.Join(dir, ".gemini")
	if err := os.RemoveAll(gemini); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemini, []byte("in the way"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := a.Commit(load(t, dir, map[string]string{"GEMINI_MODEL": "gemini-2.5-pro"})); err == nil {
		t.Fatal("the commit succeeded without a workspace")
	}
	if a.Config().Model != "" || len(seen.to) != 0 {
		t.Errorf("model %q, %d commits seen: want the old configuration in force and no Committer told", a.Config().Model, len(seen.to))
	}
}

// TestUnparseableSettingsAtStart: the start leaves an unparseable settings.json alone and shows the problem among
// the last errors; a later commit (the user changed a setting) replaces it and keeps the old one as a backup.
func TestUnparseableSettingsAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := workspace.SettingsPath(dir)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, _ := start(t, dir)
	if f := a.Activity().Snapshot().Failures; len(f) != 1 || f[0].Code != "SETTINGS_ERROR" {
		t.Errorf("failures %+v, want the SETTINGS_ERROR of settings.json", f)
	}
	if got, _ := os.ReadFile(path); string(got) != "{oops" {
		t.Errorf("settings.json is %q, want it left alone at start", got)
	}
	if err := a.Commit(load(t, dir, map[string]string{"GEMINI_MODEL": "m"})); err != nil {
		t.Fatal(err)
	}
	if err := workspace.Check(dir); err != nil {
		t.Errorf("settings.json after the commit: %v, want a fresh one", err)
	}
	if got, _ := os.ReadFile(path + ".bak"); string(got) != "{oops" {
		t.Errorf("the backup holds %q, want the old file", got)
	}
}

// TestReadOnlySettingsAreUsedAsTheyAre: a settings.json the App cannot rewrite (an immutable folder here, a
// read-only mount for users) does not stop the start nor a change: it is reported and used as it is.
func TestReadOnlySettingsAreUsedAsTheyAre(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gemini := filepath.Join(dir, ".gemini")
	if err := os.MkdirAll(gemini, 0o700); err != nil {
		t.Fatal(err)
	}
	const mine = `{"general": {"maxAttempts": 3}}`
	if err := os.WriteFile(workspace.SettingsPath(dir), []byte(mine), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chattr", "+i", gemini).CombinedOutput(); err != nil {
		t.Skipf("cannot make a folder immutable here (chattr +i needs root on a file system that has it): %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", gemini).Run() })

	a, err := New(load(t, dir, map[string]string{"FIRECRAWL_API_KEY": "fc-0123456789abcdef"}), Options{Version: "test"})
	if err != nil {
		t.Fatalf("the start failed on a read-only settings.json: %v", err)
	}
	t.Cleanup(a.Shutdown)
	if err := a.Commit(load(t, dir, map[string]string{"GEMINI_MODEL": "m"})); err != nil {
		t.Fatalf("a change failed on a read-only settings.json: %v", err)
	}
	if a.Config().Model != "m" {
		t.Errorf("model %q, want the change in force", a.Config().Model)
	}
	if f := a.Activity().Snapshot().Failures; len(f) == 0 || f[0].Code != "SETTINGS_ERROR" || !strings.Contains(f[0].Message, "used as it is") {
		t.Errorf("failures %+v, want a SETTINGS_ERROR saying the file is used as it is", f)
	}
}

// TestChecklistIsWhatTheTrayShows: a Gemini CLI that is installed but does not run (its interpreter missing) is no
// problem the setup can see without starting it; once the pages run the checklist, the tray and the status views
// show what it found: one set of checks for all of them.
func TestChecklistIsWhatTheTrayShows(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("the CLI that does not run is a shell script")
	}
	dir := t.TempDir()
	cli := filepath.Join(t.TempDir(), "gemini")
	if err := os.WriteFile(cli, []byte("#!/bin/sh\necho \"/usr/bin/env: 'node': No such file or directory\" >&2\nexit 127\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	a, err := New(load(t, dir, map[string]string{"GEMINI_CLI_PATH": cli, "GEMINI_BACKEND": "cli"}), Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Shutdown)
	broken := func(checks []checklist.Check) []string {
		var names []string
		for _, c := range checks {
			if c.Broken() {
				names = append(names, c.Name)
			}
		}
		return names
	}
	if got := broken(a.State().Setup); slices.Contains(got, "Gemini CLI") {
		t.Fatalf("before any check ran the CLI, the setup says %q", got)
	}
	found := broken(a.Checklist(t.Context(), true))
	if !slices.Contains(found, "Gemini CLI") {
		t.Fatalf("the checklist found %q, want the CLI that does not run", found)
	}
	if got := broken(a.State().Setup); !slices.Equal(got, found) {
		t.Errorf("the tray shows %q, the pages %q", got, found)
	}
}
