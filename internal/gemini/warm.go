package gemini

import (
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gemini-search-mcp/gemini-search-mcp/internal/backend"
)

const defaultWarmIdle = 10 * time.Minute

// prelude is written to the stdin of every prompt run right after its start. A CLI whose stdin stays empty
// gives up after about 2 s (exit 42); one that has read a line waits for the rest, its start done. A cold run
// sends it too, so warm and cold runs give the CLI the same bytes; the real CLI's e2e test shows the answer does
// not change.
const prelude = "\n"

// launch starts the CLI for a prompt run with args, exactly as every run starts: the prompt is to follow, and
// Firecrawl's is the only MCP server it may start (mcpArgs).
func (r *Runner) launch(args []string) (*process, error) {
	p, err := r.start(slices.Concat(args, mcpArgs(r.cfg.Firecrawl)))
	if err != nil {
		return nil, err
	}
	_, _ = io.WriteString(p.stdin, prelude) // an empty pipe takes it at once; a CLI that died shows at its end
	return p, nil
}

// take returns a warm process for model when one is waiting, else one started now; warm says which. A run that
// includes folders starts its own: they are part of the command line, fixed at the start.
func (r *Runner) take(model string, dirs []string) (p *process, warm bool, err error) {
	if len(dirs) == 0 {
		if p = r.warm.take(model); p != nil {
			return p, true, nil
		}
	}
	p, err = r.launch(buildArgs(r.cfg.Command, model, dirs))
	return p, false, err
}

// warmServes reports whether a warm process could have run req: a session of a worker (acpServes), or a one-shot
// process, started with no folders.
func (r *Runner) warmServes(req backend.Request) bool {
	if r.cfg.Warm == WarmACP {
		return acpServes(req)
	}
	return len(req.Dirs) == 0
}

// used notes a search of model that succeeded, and which a warm process could have served (warmServes): the CLI
// serves, and model's warm processes start unless they are there.
func (r *Runner) used(model string) {
	if r.cfg.Warm == WarmACP {
		r.acp.used(model)
		return
	}
	r.warm.used(model)
}

// KeepWarm keeps the CLI warm for the searches to come, until Cool or Close; n is the warm policy's (warm.Workers),
// and 0 is Cool. Nothing starts until a search: the first search of a model that succeeded (cold) starts its warm
// processes, and they stop after cfg.WarmIdle without a search of that model, until the next one. WarmACP keeps
// one --acp worker per model, whatever n; WarmOneShot (and WarmACP while Firecrawl is on) keeps n processes per
// model, replacing one that ends before its prompt (at growing intervals when that keeps happening), never more
// than cfg.WarmMax in all.
func (r *Runner) KeepWarm(n int) {
	if n <= 0 {
		r.Cool()
		return
	}
	if r.cfg.Warm == WarmACP {
		r.acp.keep(true)
		return
	}
	w := &r.warm
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.on, w.n = true, n
	for model, m := range w.models {
		w.fill(model, m)
	}
}

// Cool stops keeping processes warm and ends those waiting (a worker once the prompts it serves are done). It does
// not wait for them to be gone: Close does.
func (r *Runner) Cool() {
	r.warm.cool()
	r.acp.keep(false)
}

// Refresh replaces the waiting processes with new ones: they started with a workspace that has changed since.
func (r *Runner) Refresh() {
	r.acp.refresh()
	w := &r.warm
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	for model, m := range w.models {
		w.end(m)
		m.deaths = 0
		if m.retry != nil {
			m.retry.Stop()
			m.retry = nil
		}
		w.fill(model, m)
	}
}

// Close is Cool, then waits until the warm processes and those starting are gone, their process groups
// killed. Runs in progress end on their own; a worker ends once the prompts it serves are done.
func (r *Runner) Close() {
	ended := r.warm.cool()
	r.acp.close()
	r.warm.starting.Wait()
	for _, p := range ended {
		<-p.done
	}
}

// Warm is the number of processes ready for a prompt: --acp workers that answered their handshake, one-shot
// processes waiting.
func (r *Runner) Warm() int {
	w := &r.warm
	w.mu.Lock()
	defer w.mu.Unlock()
	n := r.acp.ready()
	for _, m := range w.models {
		n += len(m.waiting)
	}
	return n
}

// warmPool is a Runner's warm processes, by model.
type warmPool struct {
	r      *Runner
	mu     sync.Mutex
	on     bool                  // KeepWarm was called, and Cool was not since
	n      int                   // processes to keep per model, while on (KeepWarm)
	gen    int                   // bumped when waiting processes turn stale: starts in flight then are discarded
	models map[string]*warmModel // by model, "" for the CLI's default
	total  int                   // processes waiting or starting, all models

	starting sync.WaitGroup // spawns in flight; Add only while on, so that Close can wait after cool
}

// warmModel is the warm processes of one model.
type warmModel struct {
	waiting  []*process
	starting int
	lastUse  time.Time
	idle     *time.Timer // checks lastUse
	deaths   int         // processes in a row that ended before their prompt, or did not start
	retry    *time.Timer // the next start, put off after deaths; nil when none is
}

func (w *warmPool) notify() {
	if w.r.cfg.OnWarm != nil {
		w.r.cfg.OnWarm()
	}
}

// cool is Cool, returning the processes it ended.
func (w *warmPool) cool() []*process {
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.on = false
	w.gen++
	var ended []*process
	for model, m := range w.models {
		ended = append(ended, m.waiting...)
		w.drop(model, m)
	}
	return ended
}

// take hands out a waiting process of model that is still alive, or nil, and starts its replacement. A model
// with no search that succeeded yet (used) has none.
func (w *warmPool) take(model string) *process {
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	m := w.models[model]
	if !w.on || m == nil {
		return nil
	}
	m.lastUse = time.Now()
	var p *process
	for p == nil && len(m.waiting) > 0 {
		p, m.waiting = m.waiting[0], m.waiting[1:]
		w.total--
		if p.exited() { // its watch finds it gone and says nothing: this run starts a new one anyway
			p = nil
		}
	}
	if p != nil {
		m.deaths = 0
	}
	w.fill(model, m)
	return p
}

// used notes a search of model that succeeded: the CLI serves, and model's processes start unless they are there.
func (w *warmPool) used(model string) {
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.on {
		return
	}
	m := w.model(model)
	m.lastUse = time.Now()
	w.fill(model, m)
}

// model returns the entry of model, made when missing. Called with mu held.
func (w *warmPool) model(model string) *warmModel {
	if m := w.models[model]; m != nil {
		return m
	}
	if w.models == nil {
		w.models = make(map[string]*warmModel)
	}
	m := &warmModel{lastUse: time.Now()}
	m.idle = time.AfterFunc(w.r.cfg.WarmIdle, func() { w.expire(model, m) })
	w.models[model] = m
	return m
}

// fill starts processes until model has its share. Called with mu held.
func (w *warmPool) fill(model string, m *warmModel) {
	limit := w.n
	if w.r.cfg.WarmMax > 0 {
		limit = w.r.cfg.WarmMax
	}
	for w.on && m.retry == nil && len(m.waiting)+m.starting < w.n && w.total < limit {
		m.starting++
		w.total++
		w.starting.Add(1)
		go w.spawn(model, m, w.gen)
	}
}

// spawn starts one warm process of model and puts it in line, unless it turned stale meanwhile: then it ends it
// and waits until it is gone.
func (w *warmPool) spawn(model string, m *warmModel, gen int) {
	defer w.starting.Done()
	p, err := w.r.launch(buildArgs(w.r.cfg.Command, model, nil))
	if stale := w.enlist(model, m, gen, p, err); stale {
		p.end()
		<-p.done
	}
}

// enlist puts a process spawn started in line and reports whether it is stale instead.
func (w *warmPool) enlist(model string, m *warmModel, gen int, p *process, err error) (stale bool) {
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	m.starting--
	w.total--
	current := w.on && w.models[model] == m
	switch {
	case err != nil:
		w.r.cfg.Logger.Debug("a warm Gemini CLI did not start", "model", model, "err", err)
		if current {
			w.died(model, m)
		}
		return false
	case !current || gen != w.gen:
		if current {
			w.fill(model, m)
		}
		return true
	}
	m.waiting = append(m.waiting, p)
	w.total++
	w.r.cfg.Logger.Debug("a warm Gemini CLI is waiting", "model", model, "pid", p.cmd.Process.Pid)
	go w.watch(model, m, p)
	return false
}

// watch replaces p when it ends while waiting for its prompt.
func (w *warmPool) watch(model string, m *warmModel, p *process) {
	<-p.done
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	i := slices.Index(m.waiting, p)
	if i < 0 { // taken, or ended by us
		return
	}
	m.waiting = slices.Delete(m.waiting, i, i+1)
	w.total--
	log := w.r.cfg.Logger.Debug
	if m.deaths == 0 {
		log = w.r.cfg.Logger.Warn
	}
	log("a warm Gemini CLI ended before its prompt; starting another", "model", model, "exit", p.exit.desc,
		"after", time.Since(p.started).Round(time.Millisecond), "detail", w.r.detail(p.stderr.String(), nil))
	w.died(model, m)
}

// died starts the replacement of a warm process that ended or did not start: at once the first time, then
// after 1 s, 2 s, 4 s… up to WarmIdle, so that a CLI that cannot start is not started over and over. Called
// with mu held.
func (w *warmPool) died(model string, m *warmModel) {
	m.deaths++
	if m.deaths == 1 {
		w.fill(model, m)
		return
	}
	delay := min(time.Second<<min(m.deaths-2, 20), w.r.cfg.WarmIdle)
	m.retry = time.AfterFunc(delay, func() {
		defer w.notify()
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.models[model] == m {
			m.retry = nil
			w.fill(model, m)
		}
	})
}

// expire drops model's processes once it has gone unused for WarmIdle.
func (w *warmPool) expire(model string, m *warmModel) {
	defer w.notify()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.models[model] != m {
		return
	}
	if unused := time.Since(m.lastUse); unused < w.r.cfg.WarmIdle {
		m.idle.Reset(w.r.cfg.WarmIdle - unused)
		return
	}
	w.r.cfg.Logger.Debug("warm Gemini CLIs unused: stopping them", "model", model, "idle", w.r.cfg.WarmIdle)
	w.drop(model, m)
}

// drop ends model's waiting processes and forgets it. Called with mu held.
func (w *warmPool) drop(model string, m *warmModel) {
	w.end(m)
	m.idle.Stop()
	if m.retry != nil {
		m.retry.Stop()
	}
	delete(w.models, model)
}

// end ends m's waiting processes. Called with mu held.
func (w *warmPool) end(m *warmModel) {
	for _, p := range m.waiting {
		p.end()
	}
	w.total -= len(m.waiting)
	m.waiting = nil
}
