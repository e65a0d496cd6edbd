// Package doctor is the checklist of what the server needs: a writable config dir, a Gemini CLI that runs, a valid
// settings.json, Firecrawl and credentials. The doctor command prints it all (Run); the servers log the problems
// of the checks that run nothing (Setup) at start and after each configuration change.
package doctor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"

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
		checkAuth(cfg, env),
	}
}

// Setup runs the checks that start no program and write nothing: the Gemini CLI is found, and a credential is
// there. The servers run them at start and after each configuration change.
func Setup(cfg config.Config, env config.Env) []Check {
	c := Check{Name: "Gemini CLI"}
	if cmd, err := findCLI(cfg, &c); err == nil {
		c.OK, c.Detail = true, cmd.String()
	}
	return []Check{c, checkAuth(cfg, env)}
}

// Problems are the checks that did not pass, hints included.
func Problems(checks []Check) []Check {
	var problems []Check
	for _, c := range checks {
		if !c.OK {
			problems = append(problems, c)
		}
	}
	return problems
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
	cmd, err := findCLI(cfg, &c)
	if err != nil {
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

// findCLI resolves the Gemini CLI as the server does; when it is missing, c says so and how to install it.
func findCLI(cfg config.Config, c *Check) (gemini.Command, error) {
	cmd, err := gemini.Resolve(cfg.CLIPath, exec.LookPath)
	if err != nil {
		c.Detail = fmt.Sprintf("not found (%v); install it with `npm install -g @google/gemini-cli` or set GEMINI_CLI_PATH", err)
	}
	return cmd, err
}

// checkConfigDir creates the config dir, and settings.json when it is missing, as the servers do at start, then
// proves the dir is writable. An existing settings.json is left as it is: checkSettings and checkFirecrawl report
// on it.
func checkConfigDir(cfg config.Config) Check {
	c := Check{Name: "Config dir"}
	dir := cfg.Dir
	if _, err := os.Stat(workspace.SettingsPath(dir)); errors.Is(err, fs.ErrNotExist) {
		if _, err := workspace.Regenerate(dir, workspaceOptions(cfg), false); err != nil {
			c.Detail = err.Error()
			return c
		}
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

// workspaceOptions is what settings.json must hold for cfg.
func workspaceOptions(cfg config.Config) workspace.Options {
	return workspace.Options{Firecrawl: cfg.FirecrawlEnabled()}
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
	if inLine, err := workspace.InLine(cfg.Dir, workspaceOptions(cfg)); err == nil && !inLine {
		c.OK = false
		c.Detail += fmt.Sprintf("; %s does not match it yet: the servers bring it in line when they start (the tray "+
			"at once)", workspace.SettingsPath(cfg.Dir))
	}
	return c
}

// checkAuth looks for the credentials the Gemini CLI can use headless. It cannot prove they work without calling
// the API, so a missing credential is a hint, not a failure.
func checkAuth(cfg config.Config, env config.Env) Check {
	c := Check{Name: "Auth", Hint: true}
	for _, name := range []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"} {
		if env.Lookup == nil {
			break // no process environment
		}
		if v, _ := env.Lookup(name); strings.TrimSpace(v) != "" {
			c.OK, c.Detail = true, name+" is set"
			return c
		}
	}
	if cfg.InDotenv("GEMINI_API_KEY") {
		c.OK, c.Detail = true, "GEMINI_API_KEY is set in "+config.EnvPath(cfg.Dir)
		return c
	}
	if login := gemini.Login(env.Home); login != "" {
		c.OK, c.Detail = true, login
		return c
	}
	c.Detail = "no credentials found: run `gemini` once and log in with Google, or set GEMINI_API_KEY"
	return c
}
