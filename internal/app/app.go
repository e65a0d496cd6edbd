// Package app wires one research server: configuration → workspace → Gemini CLI runner → research engine → MCP
// server, and serves it over stdio or HTTP (HTTP, a server that can be stopped, restarted and moved). A
// configuration change takes one road, Commit: the workspace and the engine are rebuilt for it, then the server
// moves and every Committer reacts. The views read one snapshot of it, State, and its change signal. The headless
// binary (internal/headless) and the tray (internal/trayapp) are thin shells around an App.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/activity"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/appstate"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/broadcast"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/checklist"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/config"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/doctor"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/gemini"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/library"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/mcpserver"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/research"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/restapi"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/tools/clientpath"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/warm"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/workspace"
)

// App is one research server. Its configuration can change while it serves (Commit); the MCP server, its HTTP
// handler, the activity registry, the queue of CLI runs and the joined calls stay the same.
type App struct {
	version  string
	env      config.Env
	log      *slog.Logger
	wrote    func(path string, data []byte)
	finish   func(Finished)
	activity *activity.Registry
	queue    *research.Queue
	joins    research.Joins
	cache    *research.Cache
	library  *library.Library        // finished reports and research jobs, on disk; nil keeps none
	runs     *runGate                // CLI runs in progress, so shutdown can wait until their processes are gone
	lifetime context.Context         // ends at Shutdown: work that outlives its request (MCP tasks) stops then
	end      context.CancelCauseFunc // ends lifetime
	tools    *tools.Tools
	mcp      *server.MCPServer
	mcpHTTP  http.Handler         // /mcp, /api and /healthz
	http     atomic.Pointer[HTTP] // the server over HTTP, once NewHTTP built it; nil over stdio
	calls    answering            // the tool calls over HTTP that have not answered yet
	sweeps   *sweeper             // drops what the stores keep past its time, until Shutdown
	stdioCmd string               // Options.StdioCommand

	commitMu   sync.Mutex // one configuration change at a time; guards committers and servers
	committers []Committer
	configured atomic.Pointer[configured]
	servers    warm.Server      // whether a server serves and Shutdown began: the App's part of the warm policy
	warmth     broadcast.Signal // the number of warm CLI processes changed
	changes    broadcast.Signal // State changed: the activity, the history, the warm CLIs, the server or the configuration
	retiring   sync.WaitGroup   // the backends of configurations replaced, ending their warm processes
}

// Options configure an App beyond its configuration.
type Options struct {
	Version string
	Logger  *slog.Logger
	Env     config.Env // the process environment, for the setup checks
	// WroteFile is told of every file the App writes (settings.json), so that a watcher of that file does not take
	// the App's own write for an edit. nil: nobody is told.
	WroteFile func(path string, data []byte)
	// Finished is told of every research call that ended, but for those the client cancelled and those the
	// cache answered; nil: nobody is told. It must not block.
	Finished func(Finished)
	// StdioCommand is the gemini-search-mcp executable the clients that start the server themselves run (Clients);
	// "" leaves their entries without one.
	StdioCommand string
}

// Finished is a research call that ended: a report (Err nil) or a failure.
type Finished struct {
	Tool, Topic string
	Took        time.Duration
	Report      research.Report
	Err         error
}

// A Committer reacts to a configuration the App has just put in force (syncthing's Committer). It runs inside Commit, after the workspace and the engine have been
// rebuilt for to, and must not call Commit.
type Committer interface {
	Committed(from, to config.Config)
}

// New prepares the config dir and research workspace for cfg, resolves the Gemini CLI, builds the engine and the
// MCP server, and logs what the setup checks find wrong. It fails only when the workspace cannot be made.
func New(cfg config.Config, o Options) (*App, error) {
	a := &App{version: o.Version, env: o.Env, log: o.Logger, wrote: o.WroteFile, finish: o.Finished, activity: activity.New(),
		queue: research.NewQueue(cfg.MaxConcurrent), cache: research.NewCache(cfg.CacheTTL), runs: newRunGate(),
		stdioCmd: o.StdioCommand}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.wrote == nil {
		a.wrote = func(string, []byte) {}
	}
	a.library = openLibrary(cfg, a.log)
	if cfg.RunsDir != "" { // before this server starts a CLI of its own
		gemini.SweepLeftovers(cfg.RunsDir, a.log)
	}
	login := gemini.Login(a.env.Home, cfg.Dir)
	if err := a.keepWorkspace(cfg, login, false); err != nil {
		return nil, err
	}
	c, err := a.configure(cfg, login)
	if err != nil {
		return nil, err
	}
	a.configured.Store(c)
	c.warn(a.log)

	a.lifetime, a.end = context.WithCancelCause(context.Background())
	a.changes.Follow(a.lifetime, a.activity.Changed)
	a.changes.Follow(a.lifetime, a.library.Changed)
	a.changes.Follow(a.lifetime, a.warmth.Changed)
	a.sweeps = newSweeper(func() bool { return len(a.activity.Snapshot().Running) == 0 })
	a.sweeps.Add(a.cache.Sweep)
	var lib tools.Library // none when there is no library: a nil *library.Library in it would count as one
	if a.library != nil {
		lib = a.library
		a.cache.SetStore(a.library)
	}
	a.tools = tools.New(engineOf{a}, tools.Options{Version: o.Version, Logger: a.log, Activity: a.activity,
		ResponseLimit: func() int { return a.Config().MaxResponseChars },
		CallWait:      func() time.Duration { return a.Config().CallWait },
		OutputDir:     func() string { return a.Config().OutputDir }, Status: a.status,
		Workspace: func() clientpath.Workspace {
			cfg := a.Config()
			return clientpath.Workspace{Roots: cfg.WorkspaceRoots, Private: cfg.PrivateDirs}
		},
		Sweeper: a.sweeps, Lifetime: a.lifetime, Library: lib,
	})
	a.mcp = mcpserver.New(a.tools, mcpserver.Options{Version: o.Version, Lifetime: a.lifetime, Sweeper: a.sweeps})
	a.mcpHTTP = mcpserver.HTTPHandler(a.mcp, mcpserver.HTTPOptions{
		AuthToken: func() string { return a.Config().AuthToken.Reveal() },
		Health:    func() any { return a.status() },
		Logger:    a.log,
		SessionEnded: func(id string) {
			a.activity.CancelSession(id, "the client ended its MCP session", "Call again in a new session.")
		},
		Working:   a.activity.Working,
		Answering: a.calls.begin,
		Sweeper:   a.sweeps,
		API:       restapi.Handler(a.tools),
	})
	a.library.OnOpen(a.resumeJobs) // a server nobody asks for a report or a job leaves the library shut
	go a.sweeps.run(a.lifetime)
	return a, nil
}

// Subscribe adds c to the Committers told of each configuration change.
func (a *App) Subscribe(c Committer) {
	a.commitMu.Lock()
	defer a.commitMu.Unlock()
	a.committers = append(a.committers, c)
}

// Commit puts to in force: the workspace's owned entries follow it (an unparseable settings.json is set aside as
// settings.json.bak and replaced, since the user asked for a change), the CLI is resolved again and the engine
// rebuilt, the server over HTTP moves when the address changed, then every Committer reacts and the views redraw.
// Searches already running finish with the settings they started with. On error the configuration in force stays,
// and no Committer hears of it. The Gemini CLI's sign-in is read once, for the workspace and the backends both.
func (a *App) Commit(to config.Config) error {
	a.commitMu.Lock()
	defer a.commitMu.Unlock()
	from := a.Config()
	login := gemini.Login(a.env.Home, to.Dir)
	if err := a.keepWorkspace(to, login, true); err != nil {
		return err
	}
	c, err := a.configure(to, login)
	if err != nil {
		return err
	}
	old := a.configured.Swap(c)
	a.retiring.Go(old.backends.Close)
	c.backends.KeepWarm(a.servers)
	a.log.Info("settings applied", "firecrawl", to.FirecrawlMode(), "addr", to.Addr())
	c.warn(a.log)
	if h := a.http.Load(); h != nil {
		h.committed(from, to)
	}
	for _, committer := range a.committers {
		committer.Committed(from, to)
	}
	a.changes.Notify()
	return nil
}

// RepairWorkspace gives settings.json back the entries the server owns after somebody edited or deleted it; the
// user's other edits stay, and an unparseable file is left alone and reported.
func (a *App) RepairWorkspace() {
	a.commitMu.Lock()
	defer a.commitMu.Unlock()
	if err := a.keepWorkspace(a.Config(), gemini.Login(a.env.Home, a.Config().Dir), false); err != nil {
		a.Problem("settings.json", backend.CodeSettings, err)
	}
	a.configured.Load().backends.Refresh() // warm CLIs read the settings at their start
}

// keepWarm tells the backends in force whether a server of the App serves (stdio from its start, HTTP while it
// runs): the warm policy (warm.Workers) decides from that, and from what the backends know, how many CLI processes
// they keep started ahead of their prompts.
func (a *App) keepWarm(serving bool) {
	a.commitMu.Lock()
	defer a.commitMu.Unlock()
	a.servers.Serving = serving
	a.configured.Load().backends.KeepWarm(a.servers)
}

// keepWorkspace brings the owned entries of settings.json in line with cfg and the CLI's sign-in login. With replaceInvalid an unparseable
// file is moved to settings.json.bak and replaced; otherwise it is left alone and reported as a problem. A file
// that cannot be rewritten (a read-only mount, say) is reported and used as it is. The error is one that leaves no
// settings.json at all: the folder cannot be made, or a missing file not written.
func (a *App) keepWorkspace(cfg config.Config, login string, replaceInvalid bool) error {
	path := workspace.SettingsPath(cfg.Dir)
	res, err := workspace.Regenerate(cfg.Dir, workspace.OptionsFor(cfg, login), replaceInvalid)
	if res.Wrote {
		a.wrote(path, res.Data)
		a.log.Info("updated the research workspace", "settings", path, "firecrawl", cfg.FirecrawlMode())
	}
	if res.Backup != "" {
		a.log.Warn("settings.json could not be parsed: replaced it and kept the old one", "backup", res.Backup)
	}
	var invalid *workspace.InvalidSettingsError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &invalid):
		err = fmt.Errorf("%w (left as it is; fix it, or delete it to have it written again)", err)
	case !isFile(path):
		return err
	default:
		err = fmt.Errorf("%w (the file is used as it is)", err)
	}
	a.Problem("settings.json", backend.CodeSettings, err)
	return nil
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// warn logs what the setup checks find wrong with a configuration put in force: no Gemini CLI, no credential.
func (c *configured) warn(log *slog.Logger) {
	for _, p := range *c.problems.Load() {
		log.Warn(p.Name + ": " + p.Detail)
	}
}

// Recheck puts the configuration in force again, as Commit does: the CLI is looked up again and the sign-in and
// keys checked again, so that a CLI installed or signed in since is found. Committers are told, as of any commit.
func (a *App) Recheck() error { return a.Commit(a.Config()) }

// Problem shows a problem of the app itself (a settings file it cannot use, say) among the last errors, and logs
// it.
func (a *App) Problem(what string, code backend.Code, err error) {
	a.log.Error(err.Error(), "code", code)
	a.activity.Record(activity.Failure{Tool: what, Code: code, Message: err.Error()})
}

// Config returns the configuration in force.
func (a *App) Config() config.Config { return a.configured.Load().cfg }

// Activity is the registry of running searches and recent failures.
func (a *App) Activity() *activity.Registry { return a.activity }

// Library is the research library, kept in the configuration's LibraryPath, where the App opened it (that path
// comes from the platform and does not change while the App runs). It is nil when there is no data dir to keep it
// in, or the library cannot be used.
func (a *App) Library() *library.Library { return a.library }

// Checklist runs doctor's checklist on the configuration in force, with the process environment the App started
// with; offline sends no query to the backends. The HTTP host needs no check: a configuration that exposes it
// without a token was refused at load.
func (a *App) Checklist(ctx context.Context, offline bool) []checklist.Check {
	c := a.configured.Load()
	checks := doctor.Run(ctx, c.cfg, doctor.Options{Env: a.env, Offline: offline})
	// What it found is what the tray and the status views show from now on, until the next configuration: one set
	// of checks for all of them.
	problems := checklist.Problems(checks)
	c.problems.Store(&problems)
	a.changes.Notify()
	return checks
}

// ServeStdio serves MCP over in/out until in closes or ctx is cancelled, then shuts the app down.
// The calls in progress when ctx ends are answered CANCELLED, saying the server is shutting down.
func (a *App) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	defer a.Shutdown()
	a.keepWarm(true)
	serveCtx, stop := a.serving(ctx)
	defer stop()
	return mcpserver.ServeStdio(serveCtx, a.mcp, in, out, a.log)
}

// ServeOn serves HTTP on ln until ctx is cancelled, then shuts the app down. The status page is there too,
// read-only, behind a token of this launch that the log gives with its link. The calls in progress at the end are
// answered CANCELLED, saying the server is shutting down, before the server stops.
func (a *App) ServeOn(ctx context.Context, ln net.Listener) error {
	defer a.Shutdown()
	h := a.NewHTTP(HTTPOptions{})
	base := "http://" + ln.Addr().String()
	a.log.Info("serving MCP over HTTP", "url", base+"/mcp", "status", h.pages.URL(base, "/status"))
	return h.serveOn(ctx, ln)
}

// serving is the context the stdio server serves with until ctx ends: then the calls in progress are ended, their
// clients told the server is shutting down, before it ends too. stop releases it.
func (a *App) serving(ctx context.Context) (serveCtx context.Context, stop func()) {
	serveCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	unregister := context.AfterFunc(ctx, func() {
		a.stopping("the server is shutting down", "Call again once the server runs again.")
		a.endCalls("the server is shutting down", "Call again once the server runs again.")
		cancel()
	})
	return serveCtx, func() { unregister(); cancel() }
}

// stopping begins the server's end, why, telling whoever waits what to do (fix): the App's lifetime ends, and the
// research jobs with it, kept interrupted; a run of Google's agent goes on without them, to be followed on at the
// next start. It comes before the calls in progress are ended (endCalls), which cancels their research, as a stop
// of the HTTP server from the menu does.
func (a *App) stopping(why, fix string) {
	a.tools.StopJobs(why, fix) // first: the lifetime's end would cancel them without saying why
	a.end(backend.ErrServerStopping)
}

// endCallsGrace bounds how long endCalls waits for answers: a cancelled CLI run is killed within its runner's grace.
const endCallsGrace = 8 * time.Second

// endCalls cancels every tool call in progress, telling its client why and what to do in a CANCELLED result
// ("the server was stopped from the tray menu"), and waits until their HTTP requests have answered (at most
// endCallsGrace), so that stopping the server next cuts no answer short.
func (a *App) endCalls(why, fix string) {
	a.activity.CancelAll(why, fix)
	a.calls.wait(endCallsGrace)
}

// Shutdown cancels the work that outlives its request (MCP tasks), refuses new CLI runs, and waits until every
// running one has ended with its processes, and the warm ones too. Requests' own searches end when their servers
// cancel them.
func (a *App) Shutdown() {
	a.stopping("the server is shutting down", "Call again once the server runs again.")
	a.runs.closeAndWait()
	a.commitMu.Lock()
	a.servers.ShutDown = true
	a.configured.Load().backends.Close()
	a.commitMu.Unlock()
	a.retiring.Wait()
	// The jobs' runs end with the lifetime; what they keep (their end, their report's link) goes in before the
	// library closes. An API call is cancelled at once; the bound is for one that is not.
	wait, cancel := context.WithTimeout(context.Background(), jobsGrace)
	a.tools.WaitJobs(wait)
	cancel()
	a.library.Close()
}

// jobsGrace bounds how long Shutdown waits for the research jobs' runs to end.
const jobsGrace = 10 * time.Second

// status is what ping answers and /healthz serves: the App's state, and what the research used today and this month.
func (a *App) status() tools.Status {
	st := statusOf(a.Glance())
	st.Usage = a.usage(time.Now())
	return st
}

// statusOf is the App's state st, in the fields of ping's result.
func statusOf(st appstate.State) tools.Status {
	return tools.Status{Status: "ok", Version: st.Version, GeminiCLI: cmp.Or(st.CLI, "missing"), CLISignedIn: st.SignedIn,
		Backend: st.Backend.Active, BackendMode: st.Backend.Mode, BackendReason: st.Backend.Reason,
		WarmWorkers: st.Backend.Warm, RunningSearches: st.Running, QueuedSearches: st.Queued}
}
