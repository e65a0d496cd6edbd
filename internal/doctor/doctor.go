// Package doctor is the checklist of what the server needs: a configuration it accepts, a writable config dir, a
// valid settings.json, Firecrawl, credentials, an HTTP host it may serve, and backends that answer. The doctor
// command prints it all (Run), after a real one-line query to each backend the configuration uses; the servers log
// the problems of the checks that start nothing (Setup) at start and after each configuration change.
package doctor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/runners"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// Options are what a doctor run needs besides the configuration.
type Options struct {
	Env     config.Env // the process environment and the user's home folder (the Gemini CLI's sign-in)
	Offline bool       // send no query: check only what can be checked without calling Gemini
	// Exposure is the servers' rule for serving HTTP beyond this machine: the error `--http` refuses the
	// configuration with, or nil. Without it the HTTP host is not checked.
	Exposure func(config.Config) error
}

// Run runs every check for cfg, in the order people read them, the queries to the backends last.
func Run(ctx context.Context, cfg config.Config, o Options) []checklist.Check {
	login := gemini.Login(o.Env.Home, cfg.Dir)
	checks := []checklist.Check{
		checkConfigDir(cfg, login), // first: it prepares the dir the CLI runs in
		checkSettings(cfg, login),
		checkFirecrawl(cfg),
		checkAuth(cfg, login),
	}
	auth := len(checks) - 1
	if o.Exposure != nil {
		checks = append(checks, checkHTTP(cfg, o.Exposure))
	}
	set := runners.New(ctx, cfg, login, nil, nil)
	found, answered := checkBackends(ctx, cfg, set, o.Offline)
	if answered != "" && !checks[auth].OK {
		checks[auth].Hint = true // the query proved a credential Auth cannot see
		checks[auth].Detail = "no credentials doctor can see, but the " + answered + " answered the query below, " +
			"which proves it signs in some other way (~/.gemini/.env, say, or Vertex AI or application default credentials)"
	}
	return append(checks, found...)
}

// notFound says why the Gemini CLI was not found, without repeating that it was not: "not found (neither gemini nor
// npx is on PATH)".
func notFound(err error) string {
	return "not found (" + strings.TrimPrefix(err.Error(), gemini.ErrCLINotFound.Error()+": ") + ")"
}

// Setup runs the checks that start no program and write nothing, on the backends set built for cfg with the CLI's
// sign-in login: each backend in use as Run judges it, without its version check and query, and the credentials.
// The servers run them at start and after each configuration change, and the tray and the pages show what they
// find, so that they agree with doctor: under auto, a CLI that is missing or not signed in where a key lets the
// Gemini API serve is a hint, not a problem.
func Setup(cfg config.Config, set *runners.Set, login string) []checklist.Check {
	b := backends{cfg: cfg, set: set, still: true}
	var checks []checklist.Check
	if cfg.Backend != backend.API {
		checks = append(checks, b.cli(context.Background()).Check)
	}
	if set.State().Active == backend.API {
		checks = append(checks, b.api(context.Background()).Check)
	}
	return append(checks, checkAuth(cfg, login))
}

// Print writes checks as a checklist and reports whether nothing is broken. The further lines of a detail are
// indented under its first.
func Print(w io.Writer, checks []checklist.Check) bool {
	const width = 13
	indent := strings.Repeat(" ", 2+width+1) // under the first line's detail: mark and space, name, space
	healthy := true
	for _, c := range checks {
		healthy = healthy && !c.Broken()
		first, rest, _ := strings.Cut(c.Detail, "\n")
		fmt.Fprintf(w, "%s %-*s %s\n", c.Mark(), width, c.Name, first)
		for line := range strings.Lines(rest) {
			fmt.Fprint(w, indent+line)
		}
		if rest != "" && !strings.HasSuffix(rest, "\n") {
			fmt.Fprintln(w)
		}
	}
	if !healthy {
		fmt.Fprintln(w, "\nSomething above is broken (✗): searches will fail until it is fixed.")
	}
	return healthy
}

// checkConfigDir creates the config dir, and settings.json when it is missing, as the servers do at start, then
// proves the dir is writable. An existing settings.json is left as it is: checkSettings reports on it.
func checkConfigDir(cfg config.Config, login string) checklist.Check {
	c := checklist.Check{Name: "Config dir"}
	dir := cfg.Dir
	if _, err := os.Stat(workspace.SettingsPath(dir)); errors.Is(err, fs.ErrNotExist) {
		if _, err := workspace.Regenerate(dir, workspace.OptionsFor(cfg, login), false); err != nil {
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

// checkSettings reports a settings.json that the CLI cannot read, and one whose owned entries (Firecrawl, key
// auth) do not match the configuration yet.
func checkSettings(cfg config.Config, login string) checklist.Check {
	c := checklist.Check{Name: "settings.json"}
	path := workspace.SettingsPath(cfg.Dir)
	if err := workspace.Check(cfg.Dir); err != nil {
		c.Detail = fmt.Sprintf("%v; delete it to have it regenerated", err)
		return c
	}
	c.OK, c.Detail = true, path+" (valid)"
	if inLine, err := workspace.InLine(cfg.Dir, workspace.OptionsFor(cfg, login)); err == nil && !inLine {
		c.OK, c.Hint = false, true
		c.Detail += "; it does not match the configuration yet: the servers bring it in line when they start (the " +
			"tray at once)"
	}
	return c
}

func checkFirecrawl(cfg config.Config) checklist.Check {
	c := checklist.Check{Name: "Firecrawl", Hint: true, OK: true, Detail: cfg.FirecrawlMode()}
	if !cfg.FirecrawlEnabled() {
		c.Detail = "off: set FIRECRAWL_API_KEY (cloud) or FIRECRAWL_API_URL (self-hosted) to scrape JavaScript-heavy pages"
	}
	return c
}

// checkAuth lists the credentials there are: the Gemini API key in force (its variable and last four characters,
// never more) and the Gemini CLI's own sign-in (login, gemini.Login's). It fails when there is neither: every search would fail, unless the
// CLI signs in some way it cannot see (Run makes it a hint when the active backend answers its query).
func checkAuth(cfg config.Config, login string) checklist.Check {
	c := checklist.Check{Name: "Auth"}
	var found []string
	if key, from := cfg.APIKey(); key != "" {
		found = append(found, fmt.Sprintf("%s %s (%s)", from, cfg.Shown(from), origin(cfg, from)))
	}
	if login != "" {
		found = append(found, login)
	}
	if len(found) == 0 {
		c.Detail = "no credentials found\nfix: " + gemini.HintAuth
		return c
	}
	c.OK, c.Detail = true, strings.Join(found, "; ")
	return c
}

// origin says where the value in force of the variable name comes from.
func origin(cfg config.Config, name string) string {
	switch {
	case cfg.Overridden[name]:
		return "from the environment"
	case cfg.InDotenv(name):
		return "in " + config.EnvPath(cfg.Dir)
	}
	return "default"
}

// checkHTTP applies the servers' rule for the HTTP host (exposure) to cfg, so that doctor fails on a host that
// `--http` would refuse, then binds the address it reports for a moment: a port another program holds fails too.
func checkHTTP(cfg config.Config, exposure func(config.Config) error) checklist.Check {
	c := checklist.Check{Name: "HTTP", OK: true, Detail: "--http serves http://" + cfg.Addr() + "/mcp"}
	if cfg.AuthToken != "" {
		c.Detail += " (MCP_AUTH_TOKEN required)"
	}
	if err := exposure(cfg); err != nil {
		c.OK, c.Detail = false, "--http would refuse to start: "+err.Error()
		return c
	}
	ln, err := net.Listen("tcp", cfg.Addr())
	switch {
	case err == nil:
		ln.Close()
	case servedHere(cfg):
		c.Detail = "http://" + cfg.Addr() + "/mcp is served by a running gemini-search-mcp (the tray app, or a " +
			"server started with --http): clients reach it there; another --http would find the port taken"
	default:
		c.OK, c.Detail = false, fmt.Sprintf("--http cannot listen on %s: %v\nfix: quit the program that holds port "+
			"%d, or set MCP_SERVER_PORT to a free port", cfg.Addr(), err, cfg.Port)
	}
	return c
}

// servedHere reports whether cfg's address is served by this program already: its /healthz answers as ours does.
func servedHere(cfg config.Config) bool {
	req, err := http.NewRequest(http.MethodGet, "http://"+cfg.Addr()+"/healthz", nil)
	if err != nil {
		return false
	}
	if cfg.AuthToken != "" {
		req.Header.Set("Authorization", "Bearer "+cfg.AuthToken.Reveal())
	}
	resp, err := (&http.Client{Timeout: 3 * time.Second}).Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var status struct {
		Status, Version string
		Backend         string `json:"backend_mode"`
	}
	return resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&status) == nil &&
		status.Status != "" && status.Version != "" && status.Backend != ""
}
