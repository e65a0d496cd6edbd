// Package runners builds the backends a configuration asks for (GEMINI_BACKEND) and the one runner the research
// engine uses: the Gemini CLI, the Gemini API, or auto's choice between them. The App and doctor build them here,
// so both see the same CLI, key and choice.
//
// auto uses the CLI when it is installed and signed in. It uses the API when the CLI is missing or has no login of
// its own, or, from the first such failure on, when a CLI run is refused for its sign-in or account (AUTH_ERROR) or
// a daily quota, provided a key is set. The switch and its reason are logged once and show in every result's
// metadata and in State.
package runners

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"sync"
	"sync/atomic"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/geminiapi"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/warm"
)

// defaultAPIModel is the API's model when GEMINI_MODEL is empty: fast, and served on the free tier.
const defaultAPIModel = config.AliasFlash

// Set is the backends of one configuration.
type Set struct {
	Mode    string         // GEMINI_BACKEND
	CLI     gemini.Command // the resolved CLI, when CLIErr is nil
	CLIErr  error          // why no CLI was found
	Login   string         // the CLI's own sign-in (gemini.Login); "" when it has none
	KeyFrom string         // the variable the Gemini API key came from; "" when none is set
	APIErr  error          // why the API backend could not be set up (no key, say)

	cli, api backend.Runner // api is nil when APIErr is set
	warm     *gemini.Runner // the CLI's runner, which keeps warm processes; nil when no CLI was found
	workers  int            // GEMINI_WARM_WORKERS
	warmMu   sync.Mutex     // one application of the warm policy at a time; guards servers
	servers  warm.Server    // what the App last said of its servers (KeepWarm)
	runner   backend.Runner
	agent    backend.Agent          // Google's Deep Research agent, or noAgent
	switched atomic.Pointer[string] // auto: why it uses the API; nil while it uses the CLI
	quota    atomic.Bool            // auto: a CLI daily quota sent a call to the API (logged once)
	log      *slog.Logger
}

// New builds the backends cfg asks for. login is the CLI's own sign-in (gemini.Login), which the caller reads once
// for everything it builds from cfg. It never fails: a backend that cannot run answers every call with an error saying why. onWarm is told whenever the
// number of warm CLI processes changes (KeepWarm); nil: nobody. It keeps none warm until KeepWarm.
func New(ctx context.Context, cfg config.Config, login string, logger *slog.Logger, onWarm func()) *Set {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Set{Mode: cfg.Backend, log: logger, workers: cfg.WarmWorkers}
	key, from := cfg.APIKey()
	s.KeyFrom = from
	s.CLI, s.CLIErr = gemini.Resolve(cfg.CLIPath, cfg.CLINpx, exec.LookPath)
	if s.CLIErr != nil {
		s.cli = missingCLI{err: s.CLIErr}
	} else {
		s.Login = login
		s.warm = gemini.NewRunner(gemini.Config{
			Command:  s.CLI,
			Dir:      cfg.Dir,
			RunsDir:  cfg.RunsDir,
			ExtraEnv: cfg.CLIEnv(),
			// As in the workspace settings (workspace.OptionsFor): Firecrawl's MCP server when it is configured.
			Firecrawl: cfg.FirecrawlEnabled(),
			Secrets:   cfg.Secrets(),
			KeyVar:    from, // cfg.CLIEnv gives the CLI the key
			Timeout:   cfg.SearchTimeout,
			Logger:    logger,
			WarmMax:   cfg.MaxConcurrent, // the queue's limit
			WarmIdle:  cfg.WarmIdle,
			OnWarm:    onWarm,
		})
		s.cli = withModels(s.warm, cfg.CLIModel)
		if s.CLI.Fetched() {
			s.cli = announcingFetch(s.cli)
		}
	}
	s.agent = noAgent{}
	if key == "" {
		s.APIErr = fmt.Errorf("no Gemini API key: set GEMINI_API_KEY")
	} else {
		if agent, err := geminiapi.NewAgent(geminiapi.AgentConfig{APIKey: key.Reveal(), BaseURL: cfg.APIBaseURL,
			Agent: cfg.DeepResearchAgent, MaxAgent: cfg.DeepResearchMaxAgent, Secrets: cfg.Secrets(), Logger: logger}); err == nil {
			s.agent = agent
		}
		var api *geminiapi.Runner
		api, s.APIErr = geminiapi.New(ctx, geminiapi.Config{
			APIKey:     key.Reveal(),
			BaseURL:    cfg.APIBaseURL,
			Model:      cfg.ResolveModel(defaultAPIModel),
			Timeout:    cfg.SearchTimeout,
			Secrets:    cfg.Secrets(),
			Logger:     logger,
			Prompts:    cfg.Prompts,
			JSONModels: cfg.APIJSONModels,
		})
		if s.APIErr == nil {
			s.api = withModels(api, cfg.ResolveModel)
		}
	}

	switch cfg.Backend {
	case backend.CLI:
		s.runner = s.cli
	case backend.API:
		s.runner = s.API()
	default:
		s.runner = backend.RunnerFunc(s.auto)
		if reason := s.startOnAPI(); reason != "" && s.api != nil {
			s.switched.Store(&reason) // the App logs the backend in use at start
		}
	}
	return s
}

// Runner is what the engine runs prompts on.
func (s *Set) Runner() backend.Runner { return s.runner }

// Agent is Google's Deep Research agent, on the Gemini API's key; without one it refuses every run with the fix.
func (s *Set) Agent() backend.Agent { return s.agent }

// CLIRunner is the CLI backend on its own (doctor's check of it).
func (s *Set) CLIRunner() backend.Runner { return s.cli }

// API is the API backend on its own; without a key, a runner that says so.
func (s *Set) API() backend.Runner {
	if s.api == nil {
		return noAPI{err: s.APIErr}
	}
	return s.api
}

// KeepWarm keeps the CLI warm as the warm policy says (warm.Workers) for srv, the App's servers, and what the Set
// knows: the backend serving research, whether the CLI has a sign-in or a key to serve with, GEMINI_WARM_WORKERS.
// auto's switch to the API applies the policy again. Nothing starts before a CLI search has succeeded: the CLI's
// runner starts its warm worker then (gemini.Runner.KeepWarm).
func (s *Set) KeepWarm(srv warm.Server) {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	s.servers = srv
	s.applyWarm()
}

// warmAgain applies the warm policy again, with what the App last said: something else it looks at changed.
func (s *Set) warmAgain() {
	s.warmMu.Lock()
	defer s.warmMu.Unlock()
	s.applyWarm()
}

// applyWarm gives the CLI's runner the number of warm processes the warm policy says. Called with warmMu held.
func (s *Set) applyWarm() {
	if s.warm == nil {
		return
	}
	s.warm.KeepWarm(warm.Workers(warm.Conditions{Server: s.servers, Backend: s.State().Active,
		CLIReady: s.Login != "" || s.KeyFrom != "", Workers: s.workers}))
}

// Refresh replaces the warm CLI processes: the workspace they started with has changed.
func (s *Set) Refresh() {
	if s.warm != nil {
		s.warm.Refresh()
	}
}

// Close ends the warm CLI processes and waits until they are gone.
func (s *Set) Close() {
	if s.warm != nil {
		s.warm.Close()
	}
}

// State reports the backend in use now.
func (s *Set) State() backend.State {
	st := backend.State{Mode: s.Mode, Active: backend.CLI}
	if s.warm != nil {
		st.Warm = s.warm.Warm()
	}
	switch {
	case s.Mode == backend.API:
		st.Active = backend.API
	case s.Mode == backend.Auto:
		if reason := s.switched.Load(); reason != nil {
			st.Active, st.Reason = backend.API, *reason
		}
	}
	return st
}

// startOnAPI is why auto starts on the API, before any call: the CLI cannot serve.
func (s *Set) startOnAPI() string {
	switch {
	case s.CLIErr != nil:
		return "the Gemini CLI is not installed"
	case s.Login == "":
		return "the Gemini CLI is not signed in"
	}
	return ""
}

// auto runs req on the CLI until the CLI cannot serve, then on the API. A daily quota sends only the call it
// stopped to the API: it may be one model's, and it resets.
func (s *Set) auto(ctx context.Context, req backend.Request) (backend.Result, error) {
	if reason := s.switched.Load(); reason != nil {
		return onAPI(ctx, s.api, req, *reason)
	}
	res, err := s.cli.Run(ctx, req)
	reason := SwitchReason(err)
	switch {
	case reason == "" || s.api == nil || ctx.Err() != nil:
		return res, err
	case backend.ErrorCode(err) == backend.CodeQuota:
		if s.quota.CompareAndSwap(false, true) {
			s.log.Warn("the Gemini CLI's daily quota ran out: such calls go to the Gemini API", "key", s.KeyFrom)
		}
	case s.switched.CompareAndSwap(nil, &reason):
		s.log.Warn("using the Gemini API instead of the Gemini CLI", "reason", reason, "key", s.KeyFrom)
		s.warmAgain() // the CLI serves no more calls
	}
	tried := res.Usage // the CLI's run, which the call spent too
	if e := (*backend.Error)(nil); tried == nil && errors.As(err, &e) {
		tried = e.Partial.Usage
	}
	res, err = onAPI(ctx, s.api, req, reason)
	res.Usage = tried.Plus(res.Usage)
	if e := (*backend.Error)(nil); errors.As(err, &e) {
		e.Partial.Usage = tried.Plus(e.Partial.Usage)
	}
	return res, err
}

// withModels is r with each request's model as its backend names it (model): an alias (pro, flash, flash-lite)
// stands for another model on the Gemini API than on the Gemini CLI, which resolves those names itself.
func withModels(r backend.Runner, model func(string) string) backend.Runner {
	return backend.RunnerFunc(func(ctx context.Context, req backend.Request) (backend.Result, error) {
		req.Model = model(req.Model)
		return r.Run(ctx, req)
	})
}

// onAPI runs req on the API and says why in the result, the partial one of a failure too.
func onAPI(ctx context.Context, api backend.Runner, req backend.Request, reason string) (backend.Result, error) {
	res, err := api.Run(ctx, req)
	res.Switched = reason
	var e *backend.Error
	if errors.As(err, &e) {
		e.Partial.Switched = reason
	}
	return res, err
}

// SwitchReason is why a failed CLI run makes auto switch to the API, or "" when it does not. doctor judges a CLI
// failure by it too.
func SwitchReason(err error) string {
	var e *backend.Error
	if !errors.As(err, &e) {
		return ""
	}
	switch {
	case e.Code == backend.CodeCLINotFound:
		return "the Gemini CLI is not installed"
	case e.Code == backend.CodeAuth:
		return "the Gemini CLI's sign-in or account was refused (" + e.Message + ")"
	case e.Code == backend.CodeQuota && e.Daily:
		return "the Gemini CLI's daily quota ran out"
	}
	return ""
}

// missingCLI answers every run with CLI_NOT_FOUND.
type missingCLI struct{ err error }

func (m missingCLI) Run(context.Context, backend.Request) (backend.Result, error) {
	return backend.Result{}, &backend.Error{
		Code:     backend.CodeCLINotFound,
		Message:  "The Gemini CLI was not found: " + m.err.Error(),
		Hint:     gemini.HintNotFound + " Or set GEMINI_API_KEY and GEMINI_BACKEND=api (or auto) to use the Gemini API.",
		ExitCode: -1,
	}
}

// noAgent answers every run of Google's Deep Research agent with why it cannot run: no API key.
type noAgent struct{}

func (noAgent) Research(context.Context, backend.AgentRequest) (backend.Result, error) {
	return backend.Result{}, &backend.Error{
		Code:    backend.CodeAuth,
		Message: "Google's Deep Research agent runs on the Gemini API, and no Gemini API key is set.",
		Hint: "Create a key at aistudio.google.com/apikey (a project with billing: the agent is paid) and set " +
			"GEMINI_API_KEY in the settings page or the .env file, or use deep_search with engine rounds.",
		ExitCode: -1,
	}
}

func (noAgent) Cancel(context.Context, string) error { return nil }

// noAPI answers every run with why the API backend is not set up.
type noAPI struct{ err error }

func (n noAPI) Run(context.Context, backend.Request) (backend.Result, error) {
	return backend.Result{}, &backend.Error{
		Code:     backend.CodeAuth,
		Message:  "The Gemini API backend is not set up: " + n.err.Error() + ".",
		Hint:     "Create a key at aistudio.google.com/apikey and set GEMINI_API_KEY (in the settings page or the .env file).",
		ExitCode: -1,
	}
}
