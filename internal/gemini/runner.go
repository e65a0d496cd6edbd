package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
	"github.com/gemini-search-mcp/gemini-search-mcp/internal/credential"
)

const (
	defaultKillGrace = 5 * time.Second
	defaultMaxOutput = 16 << 20
	maxStderr        = 64 << 10
	versionTimeout   = 15 * time.Second
)

// Config is what a Runner needs, fixed for its lifetime. Build a new Runner
// when the configuration changes.
type Config struct {
	Command   Command
	Dir       string        // cwd of the CLI: the config folder holding .gemini/settings.json
	ExtraEnv  []string      // KEY=VALUE added to the child's environment (Firecrawl variables)
	Secrets   []string      // values to mask in any message, detail or log line
	KeyVar    string        // the variable the Gemini API key in ExtraEnv was set in, for advice; "" when none is
	Timeout   time.Duration // whole-run limit; 0 means none
	KillGrace time.Duration // SIGTERM → SIGKILL grace; default 5s
	MaxOutput int           // answer bytes kept; default 16 MiB
	Logger    *slog.Logger  // nil discards
}

// Runner starts the Gemini CLI, one process per request. It is safe for
// concurrent use.
type Runner struct {
	cfg  Config
	mask credential.Masker
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
	return &Runner{cfg: cfg, mask: credential.NewMasker(cfg.Secrets, slices.Concat(os.Environ(), cfg.ExtraEnv))}
}

// Config returns the configuration in use, defaults filled in.
func (r *Runner) Config() Config { return r.cfg }

// Run starts the CLI with req's prompt on stdin and waits for it to finish,
// time out (an *Error with CodeTimeout) or for ctx to be cancelled (an error
// wrapping ctx.Err(), not an *Error). Every other failure is an *Error. The
// Result holds whatever was produced, on failure too.
//
// Every process the CLI started is killed when Run returns.
func (r *Runner) Run(ctx context.Context, req backend.Request) (backend.Result, error) {
	if strings.TrimSpace(req.Prompt) == "" {
		return backend.Result{}, errors.New("gemini run: empty prompt")
	}
	start := time.Now()
	runCtx, cancel := backend.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()

	args := buildArgs(r.cfg.Command, req.Model)
	r.cfg.Logger.Debug("gemini run start", "command", r.mask.Mask(r.cfg.Command.Path),
		"args", r.maskAll(args), "dir", r.cfg.Dir, "prompt_bytes", len(req.Prompt))

	stdout := newCollector(r.cfg.MaxOutput, func(ev backend.Event) {
		if ev.Kind == backend.EventFailed {
			ev.Error = r.mask.Mask(ev.Error)
			// A failed tool (Firecrawl unreachable, say) does not fail the run, but the user should know.
			r.cfg.Logger.Warn("research tool failed; the agent goes on without it", "tool", ev.Tool, "error", ev.Error)
		}
		if req.OnEvent != nil {
			req.OnEvent(ev)
		}
	})
	stderr := &tailBuffer{max: maxStderr}
	exit, err := r.execute(runCtx, args, strings.NewReader(req.Prompt), stdout, stderr)
	stdout.Close()
	res := stdout.result()
	res.Duration, res.Backend = time.Since(start), backend.CLI
	for i := range res.ToolErrors {
		res.ToolErrors[i].Message = r.mask.Mask(res.ToolErrors[i].Message)
	}
	r.cfg.Logger.Debug("gemini run end", "exit_code", exit.code, "exit", exit.desc, "duration", res.Duration,
		"streamed", res.Streamed, "stdout_bytes", stdout.total, "answer_bytes", len(res.Text), "truncated", res.Truncated)

	switch {
	case ctx.Err() != nil:
		return res, fmt.Errorf("gemini run: %w", ctx.Err())
	case runCtx.Err() != nil:
		e := backend.Timeout(backend.CodeTimeout, r.cfg.Timeout, runCtx.Err())
		e.Detail, e.Partial = r.detail(stderr.String(), stdout), res
		return res, e
	case err != nil:
		return res, err
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
	args := slices.Concat(r.cfg.Command.Args, []string{"--version"})
	stdout := &headBuffer{max: 64 << 10}
	stderr := &tailBuffer{max: maxStderr}
	exit, err := r.execute(runCtx, args, nil, stdout, stderr)
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
	case err != nil:
		return "", err
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

// exitStatus is how the CLI's process ended.
type exitStatus struct {
	code int    // -1: killed by a signal, or never started
	desc string // "exit status 1", "signal: killed"
}

// execute runs the CLI once with a private temp folder, in its own process
// group, copying its output to stdout and stderr as it arrives. When ctx is
// done the group gets SIGTERM, and SIGKILL after KillGrace. When the CLI has
// exited, in any way, whatever is left of its group is killed, so no MCP
// server it started outlives it. The error is for a CLI that could not start.
func (r *Runner) execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (exitStatus, error) {
	notStarted := exitStatus{code: -1, desc: "not started"}
	if err := checkDir(r.cfg.Dir); err != nil {
		return notStarted, &backend.Error{
			Code:     backend.CodeCLI,
			Message:  "The Gemini CLI's working folder cannot be used.",
			Hint:     "Check that the config folder exists and is a readable folder.",
			ExitCode: -1,
			Detail:   r.mask.Mask(err.Error()),
			Cause:    err,
		}
	}
	tmpDir, err := os.MkdirTemp("", "gemini-run-")
	if err != nil {
		return notStarted, fmt.Errorf("create temp dir: %w", err)
	}
	defer os.RemoveAll(tmpDir) // runs after the whole group is gone

	// Own pipes rather than exec's copying goroutines: Wait then returns as
	// soon as the CLI exits, and the group is killed right away instead of
	// after WaitDelay when a grandchild holds the pipes.
	outR, outW, err := os.Pipe()
	if err != nil {
		return notStarted, fmt.Errorf("stdout pipe: %w", err)
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return notStarted, fmt.Errorf("stderr pipe: %w", err)
	}
	defer errR.Close()

	cmd := exec.CommandContext(ctx, r.cfg.Command.Path, args...)
	cmd.Dir = r.cfg.Dir
	cmd.Env = buildEnv(os.Environ(), r.cfg.ExtraEnv, tmpDir)
	cmd.Stdin = stdin
	cmd.Stdout, cmd.Stderr = outW, errW
	setProcessGroup(cmd)
	cmd.Cancel = func() error { return terminate(cmd.Process) }
	cmd.WaitDelay = r.cfg.KillGrace // then exec kills the CLI; killGroup below gets the rest

	err = cmd.Start()
	outW.Close() // the child holds its own copies
	errW.Close()
	if err != nil {
		return notStarted, r.startError(err)
	}

	var copies sync.WaitGroup
	copies.Go(func() { _, _ = io.Copy(stdout, outR) })
	copies.Go(func() { _, _ = io.Copy(stderr, errR) })

	waitErr := cmd.Wait()
	killGroup(cmd.Process)

	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(r.cfg.KillGrace):
		// A process that left the group still holds the pipes: stop reading.
		outR.Close()
		errR.Close()
		<-drained
	}

	exit := exitStatus{code: -1, desc: "unknown"}
	if cmd.ProcessState != nil {
		exit = exitStatus{code: cmd.ProcessState.ExitCode(), desc: cmd.ProcessState.String()}
	}
	if waitErr != nil && !errors.As(waitErr, new(*exec.ExitError)) {
		r.cfg.Logger.Debug("gemini wait", "err", waitErr)
	}
	return exit, nil
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

func (r *Runner) maskAll(words []string) []string {
	masked := make([]string, len(words))
	for i, w := range words {
		masked[i] = r.mask.Mask(w)
	}
	return masked
}
