package gemini

import (
	"sync"
	"time"
)

// acpPool is a Runner's --acp workers, one per model in use (WarmACP). A worker starts after KeepWarm once a
// search of its model has succeeded cold, which shows that the CLI serves with the settings in force; it is offered
// to the searches that follow once it is ready, and stops after WarmIdle without a search of its model; the next
// search starts another. One worker serves up to WarmMax prompts at once, and is
// retired once spent (ACPMaxSessions, ACPMaxRSS) or when the settings change: the next search runs cold and starts
// another.
type acpPool struct {
	r      *Runner
	mu     sync.Mutex
	on     bool // KeepWarm was called, and Cool was not since
	models map[string]*acpModel
	live   sync.WaitGroup // workers not yet gone, for Close
}

// acpModel is the worker of one model.
type acpModel struct {
	worker    *acpWorker // the one offered to prompts, starting or ready; nil when none
	lastUse   time.Time
	idle      *time.Timer // checks lastUse
	deaths    int         // workers in a row that ended before they were ready, or did not start
	notBefore time.Time   // no worker starts before this, after deaths
}

func (a *acpPool) notify() {
	if a.r.cfg.OnWarm != nil {
		a.r.cfg.OnWarm()
	}
}

// keep turns the pool on or off; off retires every worker.
func (a *acpPool) keep(on bool) {
	defer a.notify()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.on = on
	if !on {
		for model, m := range a.models {
			a.drop(model, m)
		}
	}
}

// take notes a search of model and returns its worker, held for the search, when it is ready to take a prompt at
// once; else nil, and the search runs cold. A spent worker is retired: the cold search starts the next (used).
func (a *acpPool) take(model string) *acpWorker {
	defer a.notify()
	a.mu.Lock()
	defer a.mu.Unlock()
	m := a.models[model]
	if !a.on || m == nil || m.worker == nil {
		return nil
	}
	m.lastUse = time.Now()
	w := m.worker
	if w.isReady() && w.spent() {
		a.r.cfg.Logger.Debug("retiring a spent Gemini CLI --acp worker", "model", model, "pid", w.p.cmd.Process.Pid)
		m.worker = nil
		w.retire()
		return nil
	}
	if w.offer(a.r.cfg.WarmMax) {
		return w
	}
	return nil
}

// used notes a search of model that ran cold and succeeded: the CLI serves, and model's worker starts unless it has
// one. The worker reports the same of Firecrawl: the CLI 0.61.0 in --acp
// mode writes what it says of its MCP servers only when it exits, and the worker starts them as the cold run did,
// with the same settings and environment.
func (a *acpPool) used(model string) {
	defer a.notify()
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.on {
		return
	}
	m := a.model(model)
	m.lastUse = time.Now()
	if m.worker == nil {
		a.start(model, m)
	}
}

// model returns the entry of model, made when missing. Called with mu held.
func (a *acpPool) model(model string) *acpModel {
	if m := a.models[model]; m != nil {
		return m
	}
	if a.models == nil {
		a.models = make(map[string]*acpModel)
	}
	m := &acpModel{lastUse: time.Now()}
	m.idle = time.AfterFunc(a.r.cfg.WarmIdle, func() { a.expire(model, m) })
	a.models[model] = m
	return m
}

// start starts a worker for model, unless one failed lately. Called with mu held.
func (a *acpPool) start(model string, m *acpModel) {
	if time.Now().Before(m.notBefore) {
		return
	}
	w, err := a.r.startWorker(model)
	if err != nil {
		a.r.cfg.Logger.Debug("a Gemini CLI --acp worker did not start", "model", model, "err", err)
		a.died(m)
		return
	}
	m.worker = w
	a.live.Add(1)
	go a.serve(model, m, w)
}

// serve hands w its handshake, then waits until it is gone and forgets it.
func (a *acpPool) serve(model string, m *acpModel, w *acpWorker) {
	defer a.live.Done()
	err := w.handshake()
	if err == nil {
		a.r.cfg.Logger.Debug("a warm Gemini CLI --acp worker is ready", "model", model, "pid", w.p.cmd.Process.Pid,
			"after", time.Since(w.p.started).Round(time.Millisecond))
		a.notify()
	} else {
		w.retire()
		w.p.end()
	}
	<-w.p.done
	defer a.notify()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.models[model] != m || m.worker != w {
		return // retired: it was meant to end
	}
	m.worker = nil
	if err != nil {
		a.r.cfg.Logger.Warn("a Gemini CLI --acp worker did not get ready; searches run cold", "model", model, "err", err,
			"exit", w.p.exit.desc, "detail", a.r.detail(w.p.stderr.String(), nil))
		a.died(m)
		return
	}
	a.r.cfg.Logger.Warn("a Gemini CLI --acp worker ended; the next search starts another", "model", model,
		"exit", w.p.exit.desc, "detail", a.r.detail(w.p.stderr.String(), nil))
}

// died puts off the next start of a worker that failed: 1 s, 2 s, 4 s… up to WarmIdle. Called with mu held.
func (a *acpPool) died(m *acpModel) {
	m.deaths++
	if m.deaths > 1 {
		m.notBefore = time.Now().Add(min(time.Second<<min(m.deaths-2, 20), a.r.cfg.WarmIdle))
	}
}

// served notes that a worker of model answered a prompt: its starts are no longer put off.
func (a *acpPool) served(model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if m := a.models[model]; m != nil {
		m.deaths, m.notBefore = 0, time.Time{}
	}
}

// expire drops model's worker once it has gone unused for WarmIdle.
func (a *acpPool) expire(model string, m *acpModel) {
	defer a.notify()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.models[model] != m {
		return
	}
	if unused := time.Since(m.lastUse); unused < a.r.cfg.WarmIdle {
		m.idle.Reset(a.r.cfg.WarmIdle - unused)
		return
	}
	a.r.cfg.Logger.Debug("the warm Gemini CLI --acp worker is unused: stopping it", "model", model,
		"idle", a.r.cfg.WarmIdle)
	a.drop(model, m)
}

// drop retires model's worker and forgets the model. Called with mu held.
func (a *acpPool) drop(model string, m *acpModel) {
	if m.worker != nil {
		m.worker.retire()
	}
	m.idle.Stop()
	delete(a.models, model)
}

// refresh retires the workers: the settings they started with have changed. The next search of each model runs
// cold, with the new settings, and starts its next worker.
func (a *acpPool) refresh() {
	defer a.notify()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, m := range a.models {
		if m.worker != nil {
			m.worker.retire()
			m.worker = nil
		}
		m.deaths, m.notBefore = 0, time.Time{}
	}
}

// ready is the number of workers ready to take a prompt.
func (a *acpPool) ready() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.models {
		if m.worker != nil && m.worker.isReady() {
			n++
		}
	}
	return n
}

// close retires every worker and waits until they are gone: each once the prompts it serves are done.
func (a *acpPool) close() {
	a.keep(false)
	a.live.Wait()
}
