package gemini

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

// WarmMode is how a Runner keeps the CLI warm for the searches to come.
type WarmMode string

const (
	// WarmACP keeps one long-lived `gemini --acp` process per model in use, serving concurrent prompts in sessions
	// of their own: a warm prompt costs the CPU of the prompt alone (the default).
	WarmACP WarmMode = "acp"
	// WarmOneShot keeps one-shot processes started ahead of their prompt (GEMINI_WARM_WORKERS per model): a warm
	// search skips the start's wait but not its CPU. Kept to measure ACP against.
	WarmOneShot WarmMode = "one-shot"
)

// acpServes reports whether a worker can run req as a one-shot run would. Folders are part of a one-shot run's
// command line (--include-directories, @path documents), which a session cannot carry; and a prompt that starts
// with / or $ would be taken for one of the CLI's commands.
func acpServes(req backend.Request) bool {
	prompt := strings.TrimSpace(req.Prompt)
	return len(req.Dirs) == 0 && !strings.HasPrefix(prompt, "/") && !strings.HasPrefix(prompt, "$")
}

// acpQuickQuota is how soon a 429 must come back to be taken for a daily quota, which the API refuses at the first
// request (1.5 s measured); the CLI answers a per-minute rate limit only after its retries, the first 5 s in.
const acpQuickQuota = 3 * time.Second

// runOnWorker runs req in a session of w, which take held for it, and lets go of w. ok is false when the run
// should go cold instead: w ended before it answered, it could not open a session, or the API refused the prompt
// at once for a quota (the CLI's ACP answer says only "Rate limit exceeded", and a one-shot run tells a daily
// quota, on which auto switches to the API, from a rate limit). A 429 that came back late came after the CLI's
// retries, which it makes only on a rate limit: a cold run would retry as long again, past the time limit.
func (r *Runner) runOnWorker(ctx, runCtx context.Context, w *acpWorker, req backend.Request, start time.Time,
	limit time.Duration, limitVar string) (res backend.Result, ok bool, err error) {
	defer w.release()
	session, err := w.session(runCtx)
	if err != nil {
		if runCtx.Err() == nil {
			r.cfg.Logger.Debug("a warm Gemini CLI --acp worker opened no session; running cold", "err", err)
			return backend.Result{}, false, nil
		}
	}
	r.cfg.Logger.Debug("gemini run start", "command", r.mask.Mask(r.cfg.Command.Path), "acp", true,
		"pid", w.p.cmd.Process.Pid, "model", w.model, "dir", w.cwd, "prompt_bytes", len(req.Prompt))

	out := newCollector(r.cfg.MaxOutput, r.onEvent(req))
	run := newACPRun(out, w.model)
	var pr promptResult
	prompted := time.Now()
	if err == nil {
		pr = w.prompt(runCtx, session, req.Prompt, run) // no @ guard: ACP reads no @path in a text prompt
	} else {
		pr.cancelled = true
	}
	rateLimited := pr.err != nil && pr.err.Code == 429
	quick := time.Since(prompted) < acpQuickQuota
	if pr.gone && !pr.cancelled || rateLimited && quick {
		run.close()
		r.cfg.Logger.Warn("the warm Gemini CLI could not answer; running the search cold", "pid", w.p.cmd.Process.Pid,
			"error", r.mask.Mask(fmt.Sprint(pr.err)), "exit", exitDesc(w.p))
		return backend.Result{}, false, nil
	}
	run.finish(pr)
	res = out.result().Masked(r.mask.Mask)
	res.Duration, res.Backend = time.Since(start), backend.CLI
	r.cfg.Logger.Debug("gemini run end", "acp", true, "stop_reason", pr.stopReason, "duration", res.Duration,
		"answer_bytes", len(res.Text), "truncated", res.Truncated)

	switch {
	case ctx.Err() != nil:
		return res, true, fmt.Errorf("gemini run: %w", ctx.Err())
	case pr.cancelled:
		e := backend.Timeout(backend.CodeTimeout, limit, limitVar, runCtx.Err())
		e.Detail, e.Partial = r.detail("", out), res
		return res, true, e
	}
	r.acp.served(w.model)
	o := outcome{streamed: true, sawResult: true, status: out.status, resultError: out.resultError,
		errorEvents: out.errorEvents, text: res.Text, truncated: res.Truncated, maxOutput: r.cfg.MaxOutput, keyVar: r.cfg.KeyVar}
	if pr.err != nil {
		// The CLI answers an API failure with its HTTP status as the error's code; a one-shot run exits with the
		// status & 0xFF, which classify reads.
		o.exitCode, o.exitDesc = 1, "error "+fmt.Sprint(pr.err.Code)
		if pr.err.Code >= 400 && pr.err.Code < 600 {
			o.exitCode = pr.err.Code & 0xFF
		}
	}
	e := classify(o)
	if e == nil {
		return res, true, nil
	}
	if rateLimited && e.Code == backend.CodeQuota {
		e.Message, e.Daily = backend.MessagePerMinuteQuota, false // late: after the CLI's retries (acpQuickQuota)
	}
	e.Message = r.mask.Mask(e.Message)
	e.Detail, e.Partial = r.detail("", out), res
	r.cfg.Logger.Debug("gemini run failed", "code", e.Code, "message", e.Message)
	return res, true, e
}

// exitDesc is how p ended, or "running".
func exitDesc(p *process) string {
	if !p.exited() {
		return "running"
	}
	return p.exit.desc
}

// onEvent is what a run of req does with each event: mask it, log a failed tool, pass it on to req.OnEvent.
func (r *Runner) onEvent(req backend.Request) func(backend.Event) {
	return func(ev backend.Event) {
		ev = ev.Masked(r.mask.Mask)
		if ev.Kind == backend.EventFailed {
			// A failed tool (Firecrawl unreachable, say) does not fail the run, but the user should know.
			r.cfg.Logger.Warn("research tool failed; the agent goes on without it", "tool", ev.Tool, "error", ev.Error)
		}
		if req.OnEvent != nil {
			req.OnEvent(ev)
		}
	}
}
