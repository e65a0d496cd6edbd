// Package doctor is the checklist of what the server needs: a writable config dir, a Gemini CLI that runs, a valid
// settings.json, Firecrawl and credentials. The doctor command prints it; the servers log its problems at start.
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// Check is one line of the checklist. A failed check makes doctor exit non-zero; a hint does not.
type Check struct {
	Name   string
	OK     bool
	Hint   bool // informational: shown with "!" instead of "✗" and never fails the run
	Detail string
}

// Run runs every check for cfg, in the order people read them.
func Run(ctx context.Context, cfg config.Config, env config.Env) []Check {
	return []Check{
		checkConfigDir(cfg), // first: it prepares the dir the CLI check runs in
		checkCLI(ctx, cfg),
		checkSettings(cfg),
		checkFirecrawl(cfg),
		checkAuth(cfg.Dir, env),
	}
}

// Print writes checks as a checklist and reports whether nothing is broken.
func Print(w io.Writer, checks []Check) bool {
	healthy := true
	for _, c := range checks {
		mark := "✓"
		switch {
		case !c.OK && c.Hint:
			mark = "!"
		case !c.OK:
			mark, healthy = "✗", false
		}
		fmt.Fprintf(w, "%s %-13s %s\n", mark, c.Name, c.Detail)
	}
	if !healthy {
		fmt.Fprintln(w, "\nSomething above is broken (✗): searches will fail until it is fixed.")
	}
	return healthy
}

func checkCLI(ctx context.Context, cfg config.Config) Check {
	c := Check{Name: "Gemini CLI"}
	cmd, err := gemini.Resolve(cfg.CLIPath, exec.LookPath)
	if err != nil {
		c.Detail = fmt.Sprintf("not found (%v); install it with `npm install -g @google/gemini-cli` or set GEMINI_CLI_PATH", err)
		return c
	}
	version, err := gemini.NewRunner(gemini.Config{Command: cmd, Dir: cfg.Dir}).Version(ctx)
	if err != nil {
		c.Detail = fmt.Sprintf("%s does not run: %v", cmd, err)
		return c
	}
	c.OK, c.Detail = true, fmt.Sprintf("%s (version %s)", cmd, version)
	return c
}

// checkConfigDir prepares the config dir and workspace as the server would at startup, then proves the dir is
// writable.
func checkConfigDir(cfg config.Config) Check {
	c := Check{Name: "Config dir"}
	dir := cfg.Dir
	if _, err := workspace.Prepare(dir, workspace.Options{Firecrawl: cfg.FirecrawlEnabled()}); err != nil {
		c.Detail = err.Error()
		return c
	}
	f, err := os.CreateTemp(dir, ".doctor-*")
	if err != nil {
		c.Detail = fmt.Sprintf("%s is not writable: %v", dir, err)
		return c
	}
	f.Close()
	os.Remove(f.Name())
	c.OK, c.Detail = true, dir+" (writable)"
	return c
}

func checkSettings(cfg config.Config) Check {
	c := Check{Name: "settings.json"}
	path := workspace.SettingsPath(cfg.Dir)
	if err := workspace.Check(cfg.Dir); err != nil {
		c.Detail = fmt.Sprintf("%v; delete it to have it regenerated", err)
		return c
	}
	c.OK, c.Detail = true, path+" (valid)"
	return c
}

func checkFirecrawl(cfg config.Config) Check {
	c := Check{Name: "Firecrawl", Hint: true, OK: true, Detail: cfg.FirecrawlMode()}
	if !cfg.FirecrawlEnabled() {
		c.Detail = "off: set FIRECRAWL_API_KEY (cloud) or FIRECRAWL_API_URL (self-hosted) to scrape JavaScript-heavy pages"
	}
	if problem := FirecrawlMismatch(cfg); problem != "" {
		c.OK, c.Detail = false, problem
	}
	return c
}

// FirecrawlMismatch explains how settings.json and the Firecrawl variables disagree, or returns "". The headless
// server never rewrites an existing settings.json, so a Firecrawl variable set after it was written has no effect
// until the file is regenerated.
func FirecrawlMismatch(cfg config.Config) string {
	has, err := workspace.HasFirecrawl(cfg.Dir)
	switch {
	case err != nil:
		return ""
	case cfg.FirecrawlEnabled() && !has:
		return fmt.Sprintf("%s is set, but %s has no firecrawl server (it was written before): delete the file to "+
			"have it written again with Firecrawl (the tray app updates it by itself)", firecrawlVar(cfg), workspace.SettingsPath(cfg.Dir))
	case !cfg.FirecrawlEnabled() && has:
		return fmt.Sprintf("%s starts firecrawl-mcp, but neither FIRECRAWL_API_KEY nor FIRECRAWL_API_URL is set: it "+
			"runs keyless against the cloud API; set one, or delete the file to have it written again without Firecrawl",
			workspace.SettingsPath(cfg.Dir))
	}
	return ""
}

func firecrawlVar(cfg config.Config) string {
	if cfg.FirecrawlAPIURL != "" {
		return "FIRECRAWL_API_URL"
	}
	return "FIRECRAWL_API_KEY"
}

// checkAuth looks for the credentials the Gemini CLI can use headless. It cannot prove they work without calling
// the API, so a missing credential is a hint, not a failure.
func checkAuth(dir string, env config.Env) Check {
	c := Check{Name: "Auth", Hint: true}
	for _, name := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		if v, ok := env.Lookup(name); ok && v != "" {
			c.OK, c.Detail = true, name+" is set"
			return c
		}
	}
	if dotenv, err := os.Open(filepath.Join(dir, ".env")); err == nil {
		vars, _ := config.ParseDotenv(dotenv)
		dotenv.Close()
		if vars["GEMINI_API_KEY"] != "" {
			c.OK, c.Detail = true, "GEMINI_API_KEY is set in "+filepath.Join(dir, ".env")
			return c
		}
	}
	gemini := filepath.Join(env.Home, ".gemini")
	if _, err := os.Stat(filepath.Join(gemini, "oauth_creds.json")); err == nil {
		c.OK, c.Detail = true, "Google login found in "+gemini
		return c
	}
	if t := selectedAuthType(filepath.Join(gemini, "settings.json")); t != "" {
		c.OK, c.Detail = true, fmt.Sprintf("auth type %q selected in %s", t, filepath.Join(gemini, "settings.json"))
		return c
	}
	c.Detail = "no credentials found: run `gemini` once and log in with Google, or set GEMINI_API_KEY"
	return c
}

func selectedAuthType(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var s struct {
		Security struct {
			Auth struct {
				SelectedType string `json:"selectedType"`
			} `json:"auth"`
		} `json:"security"`
	}
	_ = json.Unmarshal(b, &s)
	return s.Security.Auth.SelectedType
}
