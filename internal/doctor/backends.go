package doctor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/runners"
)

const (
	// queryPrompt is the query doctor sends each backend: one line, Plain, so that no search tool runs.
	queryPrompt = "Reply with the word OK."
	// queryTimeout bounds each query; GEMINI_SEARCH_TIMEOUT does when it is shorter.
	queryTimeout = 30 * time.Second
	// maxSaid is how many of the last lines a backend printed doctor shows.
	maxSaid = 8
	// hintNode is the fix for a CLI that exits 127: its interpreter, node, was not found.
	hintNode = "The Gemini CLI runs on Node.js, which was not found: install Node.js 20 or later (nodejs.org) and " +
		"make sure `node` is on the PATH the server runs with."
)

// backends checks the backends of one configuration with the runners the servers would use.
type backends struct {
	cfg     config.Config
	set     *runners.Set
	offline bool          // no query: only the version check of an installed CLI
	still   bool          // start nothing, not even the version check (Setup)
	limit   time.Duration // of each query
}

// probe is what doctor found of one backend.
type probe struct {
	checklist.Check
	shown   bool  // the line belongs in the checklist
	queried bool  // a query was sent
	err     error // the query's error
}

// checkBackends is the backend in use now (auto's choice, and why), then a line for the Gemini CLI and for the
// Gemini API, each with the answer to a real query unless offline: the active backend is always queried, and the
// other one too when the configuration sets it up (auto: the CLI when it is signed in, the API when a key is set).
// Both queries run at once. answered names the active backend when it answered its query, "" otherwise.
func checkBackends(ctx context.Context, cfg config.Config, set *runners.Set, offline bool) (checks []checklist.Check, answered string) {
	b := backends{cfg: cfg, set: set, offline: offline, limit: queryTimeout}
	if cfg.SearchTimeout > 0 {
		b.limit = min(b.limit, cfg.SearchTimeout)
	}
	var cli, api probe
	var wg sync.WaitGroup
	wg.Go(func() { cli = b.cli(ctx) })
	wg.Go(func() { api = b.api(ctx) })
	wg.Wait()

	state := set.State()
	active, other := &cli, &api
	if state.Active == backend.API {
		active, other = &api, &cli
	}
	if active.queried && active.err == nil {
		answered = active.Name
	}
	switch {
	case cfg.Backend != backend.Auto:
	case answered != "" && !other.OK && !other.Hint:
		// auto serves from the active backend, which answered: the other one failing stops no search.
		other.Hint = true
		other.Detail += "\nsearches are served by the " + answered + ", which answered"
	case state.Active == backend.CLI && api.queried && api.err == nil:
		// auto goes on to the API when a CLI run is refused for its sign-in, account or daily quota: with an API
		// that answers, such a failure does not stop searches.
		if reason := runners.SwitchReason(cli.err); reason != "" {
			cli.Hint = true
			cli.Detail += "\nauto switches to the Gemini API at the first search: " + reason
		}
	}
	checks = []checklist.Check{serving(set)}
	for _, p := range []probe{cli, api} {
		if p.shown {
			checks = append(checks, p.Check)
		}
	}
	return checks, answered
}

// serving is the line that names the backend the next search goes to (auto's choice, and why), or says that none
// can serve: the one auto or GEMINI_BACKEND chose cannot start. The line below it says why, with the fix.
func serving(set *runners.Set) checklist.Check {
	state := set.State()
	c := checklist.Check{Name: "Backend", OK: true, Detail: state.String()}
	switch {
	case state.Active == backend.CLI && set.CLIErr != nil && set.Mode == backend.Auto:
		c.OK, c.Detail = false, "none can serve: no Gemini CLI is installed and no Gemini API key is set"
	case state.Active == backend.CLI && set.CLIErr != nil:
		c.OK, c.Detail = false, "none can serve: no Gemini CLI is installed (GEMINI_BACKEND=cli)"
	case state.Active == backend.API && set.APIErr != nil:
		c.OK, c.Detail = false, "none can serve: the Gemini API is not set up (GEMINI_BACKEND=api)"
	}
	return c
}

// fetchedNote and fetchedFix are what doctor says of a CLI that npx fetches at its first run. doctor never runs it:
// a download cut short at doctor's time limit is left half done, and every later npx run waits on it.
const (
	fetchedNote = "; npx fetches it at the first search (GEMINI_CLI_NPX=on), a download of a minute or more, so " +
		"doctor does not run it"
	fetchedFix = "install the CLI, and searches start at once: `npm install -g @google/gemini-cli`"
)

// cli checks the Gemini CLI: it is found, it runs, and it answers when it is the active backend or signed in.
// Where auto serves from the API anyway, its problems are hints. An installed CLI's version check runs unless
// still; a CLI that npx fetches is never run.
func (b backends) cli(ctx context.Context) probe {
	p := probe{Check: checklist.Check{Name: "Gemini CLI"}, shown: true}
	if b.cfg.Backend == backend.API {
		p.OK, p.Detail = true, "not used (GEMINI_BACKEND=api)"
		return p
	}
	inUse := b.set.State().Active == backend.CLI // auto: unless it is missing or not signed in and a key is set
	instead := ""
	if !inUse {
		instead = ", so auto uses the Gemini API"
	}
	p.Hint = !inUse
	if b.set.CLIErr != nil {
		fix := gemini.HintNotFound
		if inUse && b.cfg.Backend == backend.Auto {
			fix += " Or set GEMINI_API_KEY (aistudio.google.com/apikey): auto then uses the Gemini API."
		}
		p.Detail = fmt.Sprintf("%s%s\nfix: %s", notFound(b.set.CLIErr), instead, fix)
		return p
	}
	cmd := b.set.CLI.String()
	if b.set.CLI.Fetched() {
		p.Hint, p.Detail = true, cmd+fetchedNote+instead+"\nfix: "+fetchedFix
		return p
	}
	if !b.still {
		version, err := b.set.CLIVersion(ctx)
		if err != nil {
			p.Detail = b.failure(cmd+" does not run", err)
			return p
		}
		cmd += " (version " + version + ")"
	}
	switch {
	case !inUse && b.set.Login == "":
		p.Hint, p.Detail = true, cmd+"; not signed in"+instead
		return p
	case b.still:
		p.OK, p.Detail = true, cmd
		return p
	case b.offline:
		p.OK, p.Detail = true, cmd+"; not queried (--offline)"
		return p
	}
	return b.query(ctx, p, cmd, b.set.CLIRunner())
}

// api checks the Gemini API: a key is set, and the API answers it.
func (b backends) api(ctx context.Context) probe {
	p := probe{Check: checklist.Check{Name: "Gemini API"}, shown: true}
	switch {
	case b.cfg.Backend == backend.CLI:
		p.shown = false
		return p
	case b.set.KeyFrom == "" && b.cfg.Backend == backend.Auto:
		p.Hint, p.Detail = true, "no key, so auto has nothing to fall back on when the Gemini CLI fails\n"+
			"fix: set GEMINI_API_KEY (aistudio.google.com/apikey) to have it"
		return p
	case b.set.KeyFrom == "":
		p.Detail = "no key: GEMINI_BACKEND=api needs one\nfix: create one at aistudio.google.com/apikey and set GEMINI_API_KEY"
		return p
	case b.set.APIErr != nil:
		p.Detail = "cannot be set up: " + b.set.APIErr.Error()
		return p
	case b.still:
		p.OK, p.Detail = true, "the key in "+b.set.KeyFrom
		return p
	case b.offline:
		p.OK, p.Detail = true, "not queried (--offline)"
		return p
	}
	return b.query(ctx, p, "", b.set.API())
}

// query sends the one-line query to r. about says what the line is about ("" for nothing).
func (b backends) query(ctx context.Context, p probe, about string, r backend.Runner) probe {
	ctx, cancel := context.WithTimeout(ctx, b.limit)
	defer cancel()
	start := time.Now()
	res, err := r.Run(ctx, backend.Request{Prompt: queryPrompt, Model: b.cfg.Model, Plain: true})
	p.queried, p.err = true, err
	if err != nil {
		p.Detail = b.failure(join(about, "did not answer"), err)
		return p
	}
	p.OK = true
	p.Detail = join(about, fmt.Sprintf("answered in %.1fs", time.Since(start).Seconds()))
	if res.Model != "" {
		p.Detail += " (model " + res.Model + ")"
	}
	return p
}

// failure describes a failed call: what went wrong, the last lines the backend printed (the CLI's own stderr) and
// the fix. A key the Gemini API turns down is named by its variable, never shown.
func (b backends) failure(what string, err error) string {
	var e *backend.Error
	if !errors.As(err, &e) {
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Sprintf("%s within %s\nfix: check the network connection, then run doctor again", what, b.limit)
		}
		return what + ": " + err.Error()
	}
	message, fix := e.Message, e.Hint
	switch {
	case e.ExitCode == 127:
		fix = hintNode
	case e.Code == backend.CodeAuth && geminiapi.KeyRejected(err):
		message = b.key() + " was rejected: " + message
		fix = "Check the key in " + b.set.KeyFrom + " against aistudio.google.com/apikey (a missing character is " +
			"the usual cause), or create a new one there."
	case e.Code == backend.CodeAuth && geminiapi.Denied(err):
		message = b.key() + " was refused: " + message
	}
	lines := []string{fmt.Sprintf("%s (%s): %s", what, e.Code, message)}
	for _, line := range lastLines(e.Detail, maxSaid) {
		if !strings.Contains(message, strings.TrimSpace(line)) {
			lines = append(lines, "  "+line)
		}
	}
	if fix != "" {
		lines = append(lines, "fix: "+fix)
	}
	return strings.Join(lines, "\n")
}

// lastLines returns the last n non-blank lines of s.
func lastLines(s string, n int) []string {
	var lines []string
	for line := range strings.Lines(s) {
		if line = strings.TrimRight(line, " \t\r\n"); strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	return lines[max(len(lines)-n, 0):]
}

// key names the API key in force by its variable, never its value: "the key in GEMINI_API_KEY (••••abcd)".
func (b backends) key() string {
	return fmt.Sprintf("the key in %s (%s)", b.set.KeyFrom, b.cfg.Shown(b.set.KeyFrom))
}

func join(about, what string) string {
	if about == "" {
		return what
	}
	return about + " " + what
}
