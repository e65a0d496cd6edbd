package gemini

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
)

const (
	// defaultKillGrace is how long a CLI asked to stop has before it is killed: the real one, relaunching itself,
	// ignores SIGTERM for 8 s. With the rest of its output read, a run then ends within its deadline + 5 s.
	defaultKillGrace = 3 * time.Second
	defaultMaxOutput = 16 << 20
	maxStderr        = 64 << 10
	versionTimeout   = 15 * time.Second
)

// Config is what a Runner needs, fixed for its lifetime. Build a new Runner
// when the configuration changes.
type Config struct {
	Command  Command
	Dir      string   // cwd of the CLI: the config folder holding .gemini/settings.json
	RunsDir  string   // where runs in progress keep their records and documents for SweepLeftovers; "" records none
	ExtraEnv []string // KEY=VALUE added to the child's environment (the Firecrawl variables)
	// Firecrawl says the CLI's settings start Firecrawl's MCP server (config.FirecrawlEnabled, as
	// workspace.OptionsFor writes them): it is then the only MCP server a run may start (mcpArgs), and a run whose
	// Firecrawl did not start says so (Result.FirecrawlDown). Without it, a run starts no MCP server at all.
	Firecrawl bool
	Secrets   []string      // values to mask in any message, detail or log line
	KeyVar    string        // the variable the Gemini API key in ExtraEnv was set in, for advice; "" when none is
	Timeout   time.Duration // whole-run limit; 0 means none
	KillGrace time.Duration // SIGTERM → SIGKILL grace; default 5s
	MaxOutput int           // answer bytes kept; default 16 MiB
	Logger    *slog.Logger  // nil discards

	// Warm workers (KeepWarm): CLI processes started ahead of their prompts, from the first search on.
	Warm     WarmMode      // how; default WarmACP, which becomes WarmOneShot while Firecrawl is on (NewRunner)
	WarmMax  int           // WarmACP: prompts one worker serves at once; one-shot: processes in all (the queue's limit); 0: no limit
	WarmIdle time.Duration // a model's warm processes stop after this long without a search; default 10 min
	OnWarm   func()        // told whenever the number of warm processes changes; nil: nobody

	ACPMaxSessions int   // WarmACP: sessions a worker opens before it is replaced; default 50
	ACPMaxRSS      int64 // WarmACP: resident bytes past which a worker is replaced (Linux); default 600 MB
}

// Runner runs prompts on the Gemini CLI: in a session of its warm --acp worker when one is ready (WarmACP), else
// in a process of their own, taken from the warm ones when one is waiting (WarmOneShot). It is safe for concurrent
// use.
type Runner struct {
	cfg  Config
	mask credential.Masker
	warm warmPool
	acp  acpPool
}

// NewRunner returns a Runner for cfg, with defaults filled in. Values of
// variables with secret-looking names (…KEY, …TOKEN) in the child's
// environment are masked like cfg.Secrets.
func NewRunner(cfg Config) *Runner {
	if cfg.KillGrace <= 0 {
		cfg.KillGrace = defaultKillGrace
	}
	if cfg.MaxOutput <= 0 {
		cfg.MaxOutput = defaultMaxOutput
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.WarmIdle <= 0 {
		cfg.WarmIdle = defaultWarmIdle
	}
	if cfg.Warm == "" {
		cfg.Warm = WarmACP
	}
	if cfg.Firecrawl && cfg.Warm == WarmACP {
		// The CLI (0.61.0) starts the settings' MCP servers for every ACP session and never frees one: a worker
		// would hold a Firecrawl MCP server (~130 MB) per session it ever opened. Processes of their own start one each.
		cfg.Warm = WarmOneShot
	}
	if cfg.ACPMaxSessions <= 0 {
		cfg.ACPMaxSessions = defaultACPMaxSessions
	}
	if cfg.ACPMaxRSS <= 0 {
		cfg.ACPMaxRSS = defaultACPMaxRSS
	}
	r := &Runner{cfg: cfg, mask: credential.NewMasker(cfg.Secrets, slices.Concat(os.Environ(), cfg.ExtraEnv))}
	r.warm.r, r.acp.r = r, r
	return r
}

// Config returns the configuration in use, defaults filled in.
func (r *Runner) Config() Config { return r.cfg }

// Run starts the CLI with req's prompt on stdin and waits for it to finish,
// time out (an *Error with CodeTimeout) or for ctx to be cancelled (an error
// wrapping ctx.Err(), not an *Error). Every other failure is an *Error. The
// Result holds whatever was produced, on failure too. The request's documents
// that the prompt names reach the CLI as files of the run's own
// (withDocuments). A prompt that a ready --acp worker can serve (acpServes) runs
// there, and cold if the worker ends before it answers.
//
// Every process a one-shot run of the CLI started is killed when Run returns.
func (r *Runner) Run(ctx context.Context, req backend.Request) (backend.Result, error) {
	if strings.TrimSpace(req.Prompt) == "" {
		return backend.Result{}, errors.New("gemini run: empty prompt")
	}
	if err := ctx.Err(); err != nil {
		return backend.Result{}, fmt.Errorf("gemini run: %w", err)
	}
	start := time.Now()
	limit, limitVar := req.Limit(r.cfg.Timeout)
	runCtx, cancel := req.Bound(ctx, limit)
	defer cancel()

	req, removeDocuments, err := withDocuments(req, r.cfg.RunsDir)
	if err != nil {
		return backend.Result{Backend: backend.CLI}, err
	}
	defer removeDocuments() // after the CLI's whole group is gone: wait returns only then
	if r.cfg.Warm == WarmACP && acpServes(req) {
		if w := r.acp.take(req.Model); w != nil {
			if res, ok, err := r.runOnWorker(ctx, runCtx, w, req, start, limit, limitVar); ok {
				return res, err
			}
		}
	}
	res, err := r.runProcess(ctx, runCtx, req, start, limit, limitVar)
	if err == nil && r.warmServes(req) {
		r.used(req.Model) // the CLI serves: its warm processes start with its first search that succeeded
	}
	return res, err
}

// runProcess runs req in a process of its own, a one-shot run of the CLI: one waiting warm when there is one.
func (r *Runner) runProcess(ctx, runCtx context.Context, req backend.Request, start time.Time, limit time.Duration,
	limitVar string) (backend.Result, error) {
	p, warm, err := r.take(req.Model, req.Dirs)
	if err != nil {
		return backend.Result{Backend: backend.CLI}, err
	}
	r.cfg.Logger.Debug("gemini run start", "command", r.mask.Mask(r.cfg.Command.Path),
		"args", backend.MaskAll(r.mask.Mask, p.cmd.Args[1:]), "dir", r.cfg.Dir, "warm", warm, "prompt_bytes", len(req.Prompt))

	stdout := newCollector(r.cfg.MaxOutput, r.onEvent(req))
	p.stdout.attach(stdout)
	p.send(cliPrompt(req.Prompt, req.Dirs)) // no @path outside the run's folders
	exit := p.wait(runCtx)
	stderr := &p.stderr
	stdout.Close()
	res := stdout.result().Masked(r.mask.Mask)
	res.Duration, res.Backend = time.Since(start), backend.CLI
	if down := p.mcp.firecrawlDown(); down != "" && r.cfg.Firecrawl {
		res.FirecrawlDown = r.mask.Mask(down)
		r.cfg.Logger.Warn("Firecrawl did not start; the agent researched without it", "reason", res.FirecrawlDown)
	}
	r.cfg.Logger.Debug("gemini run end", "exit_code", exit.code, "exit", exit.desc, "duration", res.Duration,
		"streamed", res.Streamed, "stdout_bytes", stdout.total, "answer_bytes", len(res.Text), "truncated", res.Truncated)

	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("gemini run: %w", ctx.Err())
	case p.endedBy(runCtx):
		e := backend.Timeout(backend.CodeTimeout, limit, limitVar, runCtx.Err())
		e.Detail, e.Partial = r.detail(stderr.String(), stdout), res
		return res, e
	}
	e := classify(outcome{
		exitCode:    exit.code,
		exitDesc:    exit.desc,
		stderr:      strings.Join(relevantLines(stderr.String()), "\n"),
		streamed:    stdout.streamed(),
		sawResult:   stdout.sawResult,
		status:      stdout.status,
		resultError: stdout.resultError,
		errorEvents: stdout.errorEvents,
		text:        res.Text,
		truncated:   res.Truncated,
		maxOutput:   r.cfg.MaxOutput,
		keyVar:      r.cfg.KeyVar,
	})
	if e == nil {
		return res, nil
	}
	e.Message = r.mask.Mask(e.Message)
	e.Detail, e.Partial = r.detail(stderr.String(), stdout), res
	r.cfg.Logger.Debug("gemini run failed", "code", e.Code, "message", e.Message)
	return res, e
}

// Version runs `<command> --version` (limited to 15 s) and returns the first
// line it prints.
func (r *Runner) Version(ctx context.Context) (string, error) {
	runCtx, cancel := backend.WithTimeout(ctx, versionTimeout)
	defer cancel()
	p, err := r.start(slices.Concat(r.cfg.Command.Args, []string{"--version"}))
	if err != nil {
		return "", err
	}
	stdout := &headBuffer{max: 64 << 10}
	p.stdout.attach(stdout)
	p.stdin.Close()
	exit := p.wait(runCtx)
	stderr := &p.stderr
	version, _, _ := strings.Cut(strings.TrimSpace(stdout.String()), "\n")
	version = strings.TrimSpace(version)
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("gemini --version: %w", ctx.Err())
	case runCtx.Err() != nil:
		return "", &backend.Error{
			Code:     backend.CodeTimeout,
			Message:  fmt.Sprintf("The Gemini CLI did not report its version within %s.", versionTimeout),
			Hint:     "Check that the CLI starts by hand; the first `npx` run downloads it.",
			ExitCode: -1,
			Detail:   r.detail(stderr.String(), nil),
			Cause:    runCtx.Err(),
		}
	case exit.code != 0 || version == "":
		return "", &backend.Error{
			Code:     backend.CodeCLI,
			Message:  fmt.Sprintf("`gemini --version` failed (%s).", exit.desc),
			Hint:     hintCLI,
			ExitCode: exit.code,
			Detail:   r.detail(stderr.String(), nil),
		}
	}
	return version, nil
}

// checkDir checks the CLI's working folder before the start: with
// SysProcAttr set, exec reports a missing folder like a missing executable.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("config folder: %w", err)
	}
	if !info.IsDir() {
		return fmt.Errorf("config folder %s is not a folder", dir)
	}
	return nil
}

// startError classifies a failure to start the CLI.
func (r *Runner) startError(err error) error {
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, exec.ErrDot),
		errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.ENOEXEC):
		e := notFoundError(r.cfg.Command, err)
		e.Message = r.mask.Mask(e.Message)
		e.Detail = r.mask.Mask(err.Error())
		return e
	default:
		return fmt.Errorf("start gemini: %w", err)
	}
}

// detail is Error.Detail: the relevant stderr lines, then the error events
// and the result's error message, masked and cut to about 2 KB.
func (r *Runner) detail(stderr string, out *collector) string {
	lines := relevantLines(r.mask.Mask(stderr))
	if out != nil {
		for _, msg := range out.errorEvents {
			lines = append(lines, "error event: "+r.mask.Mask(msg))
		}
		if out.resultError != "" {
			lines = append(lines, "result error: "+r.mask.Mask(out.resultError))
		}
	}
	return detail(lines)
}
