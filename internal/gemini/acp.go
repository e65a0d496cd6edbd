package gemini

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The CLI's --acp mode (the Agent Client Protocol: JSON-RPC 2.0 over stdin and stdout, one JSON object a line)
// keeps one process serving many prompts, each in a session of its own: initialize, session/new {cwd, mcpServers}
// → {sessionId}, session/prompt {sessionId, prompt} → session/update notifications → {stopReason, _meta.quota}.
// A warm prompt then costs the CPU of the prompt alone, not of a CLI start (see shared/notes/gemini-cli.md).

const (
	// acpStartLimit bounds a worker's start, initialize and first session/new: past it the worker is given up.
	acpStartLimit = 2 * time.Minute
	// defaultACPMaxSessions is how many sessions a worker opens before it is replaced: the CLI never frees a
	// session (RSS 215 MB fresh, 434 MB after 50 sessions, 918 MB after 300, and session/new slows down).
	defaultACPMaxSessions = 50
	// defaultACPMaxRSS is the resident size past which a worker is replaced, where it can be read (Linux).
	defaultACPMaxRSS = 600 << 20
)

// errWorkerGone is a call whose worker ended before it answered.
var errWorkerGone = errors.New("the Gemini CLI's --acp worker ended")

// rpcMessage is one JSON-RPC 2.0 message: a request (Method and ID), a notification (Method alone) or a response
// (ID with Result or Error).
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error. The CLI answers a prompt that failed on the API with the HTTP status as its code.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (%d)", e.Message, e.Code) }

// acpWorker is one `gemini --acp` process: started with the model and MCP flags of a prompt run, ready once it has
// answered initialize and opened a first session (measured, so that a prompt given to it runs at once), serving
// concurrent prompts, each in a session of its own.
type acpWorker struct {
	r     *Runner
	model string
	p     *process
	cwd   string        // every session's folder: the config folder, whose .gemini/settings.json applies
	ready chan struct{} // closed once it has answered initialize and opened its first session

	writeMu sync.Mutex // one message at a time on its stdin

	mu       sync.Mutex
	nextID   int64
	calls    map[int64]chan rpcMessage // requests awaiting their response
	sessions map[string]*acpRun        // prompts in progress, by session
	spares   []string                  // sessions opened ahead of their prompt
	making   bool                      // a spare's session/new is in flight
	opened   int                       // sessions opened in all: none is ever freed
	busy     int                       // prompts holding the worker
	retired  bool                      // takes no more prompts and ends once none holds it

	out lines // stdout, a message a line, each at most maxACPLine; only the reader touches it
}

// startWorker starts a worker for model, or returns why it could not start. It starts no MCP server: no worker runs
// while Firecrawl is on (NewRunner).
func (r *Runner) startWorker(model string) (*acpWorker, error) {
	cwd, err := filepath.Abs(cmp.Or(r.cfg.Dir, "."))
	if err != nil {
		return nil, fmt.Errorf("config folder: %w", err)
	}
	p, err := r.start(slices.Concat(acpArgs(r.cfg.Command, model), mcpArgs(false)))
	if err != nil {
		return nil, err
	}
	w := &acpWorker{r: r, model: model, p: p, cwd: cwd, ready: make(chan struct{}),
		calls: map[int64]chan rpcMessage{}, sessions: map[string]*acpRun{}}
	p.stdout.attach(w)
	return w, nil
}

// acpArgs are a worker's arguments after the executable: the command's own, --acp, and the model when one was asked
// for. No output format: the protocol is the output.
func acpArgs(cmd Command, model string) []string {
	args := slices.Concat(cmd.Args, []string{"--acp"})
	if model != "" {
		args = append(args, "-m", model)
	}
	return args
}

// handshake initializes the worker and opens its first session; ready is closed once both are answered.
func (w *acpWorker) handshake() error {
	ctx, cancel := context.WithTimeout(context.Background(), acpStartLimit)
	defer cancel()
	if _, err := w.call(ctx, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	id, err := w.newSession(ctx)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.spares = append(w.spares, id)
	w.mu.Unlock()
	close(w.ready)
	return nil
}

// isReady reports whether the worker answered its handshake and is still running.
func (w *acpWorker) isReady() bool {
	select {
	case <-w.ready:
		return !w.p.exited()
	default:
		return false
	}
}

// offer holds the worker for one prompt, unless it is not ready, retired, or serving maxBusy prompts already.
func (w *acpWorker) offer(maxBusy int) bool {
	if !w.isReady() {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.retired || maxBusy > 0 && w.busy >= maxBusy {
		return false
	}
	w.busy++
	return true
}

// release lets go of a prompt's hold, ending a retired worker that nothing holds any more.
func (w *acpWorker) release() {
	w.mu.Lock()
	w.busy--
	end := w.retired && w.busy == 0
	w.mu.Unlock()
	if end {
		w.p.end()
	}
}

// retire takes the worker out of service: it ends once the prompts it serves are done.
func (w *acpWorker) retire() {
	w.mu.Lock()
	w.retired = true
	end := w.busy == 0
	w.mu.Unlock()
	if end {
		w.p.end()
	}
}

// spent reports whether the worker should be replaced: it opened its share of sessions, or grew past its size.
func (w *acpWorker) spent() bool {
	w.mu.Lock()
	opened := w.opened
	w.mu.Unlock()
	if opened >= w.r.cfg.ACPMaxSessions {
		return true
	}
	rss, ok := groupRSS(w.p.cmd.Process.Pid)
	return ok && rss > w.r.cfg.ACPMaxRSS
}

// session returns a session for one prompt: one opened ahead when there is one (and another is opened for the
// next prompt), else one opened now.
func (w *acpWorker) session(ctx context.Context) (string, error) {
	w.mu.Lock()
	if n := len(w.spares); n > 0 {
		id := w.spares[n-1]
		w.spares = w.spares[:n-1]
		w.mu.Unlock()
		w.makeSpare()
		return id, nil
	}
	w.mu.Unlock()
	return w.newSession(ctx)
}

// makeSpare opens a session ahead of the next prompt, unless one is there or being opened, or the worker is
// retired or spent.
func (w *acpWorker) makeSpare() {
	w.mu.Lock()
	if w.retired || w.making || len(w.spares) > 0 || w.opened+1 >= w.r.cfg.ACPMaxSessions {
		w.mu.Unlock()
		return
	}
	w.making = true
	w.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), acpStartLimit)
		defer cancel()
		id, err := w.newSession(ctx)
		w.mu.Lock()
		defer w.mu.Unlock()
		w.making = false
		if err == nil && !w.retired {
			w.spares = append(w.spares, id)
		}
	}()
}

// newSession opens a session in the config folder: its .gemini/settings.json (the research tools alone, in
// tools.core) is the only workspace settings file that applies to it.
func (w *acpWorker) newSession(ctx context.Context) (string, error) {
	res, err := w.call(ctx, "session/new", map[string]any{"cwd": w.cwd, "mcpServers": []any{}})
	if err != nil {
		return "", fmt.Errorf("session/new: %w", err)
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &s); err != nil || s.SessionID == "" {
		return "", fmt.Errorf("session/new: no session in %.200s", res)
	}
	w.mu.Lock()
	w.opened++
	w.mu.Unlock()
	return s.SessionID, nil
}

// call sends a request and waits for its result, until ctx is done or the worker ends (errWorkerGone).
func (w *acpWorker) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id, ch, err := w.request(ctx, method, params)
	if err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return nil, m.Error
		}
		return m.Result, nil
	case <-ctx.Done():
		w.forget(id)
		return nil, ctx.Err()
	case <-w.p.done:
		return nil, errWorkerGone
	}
}

// request sends a request and returns the channel its response comes on.
func (w *acpWorker) request(ctx context.Context, method string, params any) (int64, chan rpcMessage, error) {
	w.mu.Lock()
	w.nextID++
	id := w.nextID
	ch := make(chan rpcMessage, 1)
	w.calls[id] = ch
	w.mu.Unlock()
	if err := w.send(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		w.forget(id)
		return 0, nil, err
	}
	return id, ch, nil
}

func (w *acpWorker) forget(id int64) {
	w.mu.Lock()
	delete(w.calls, id)
	w.mu.Unlock()
}

// send writes one message on the worker's stdin, unless ctx ends first. A write that had not started then (another
// was stuck, or it was not scheduled yet) is dropped; one under way is given KillGrace to end, as a cancel is (a
// loaded machine may not have reported a write that ended), and counts if it does: else the worker does not read
// its stdin, and is retired, and the write goes on until it has read the message or ended.
func (w *acpWorker) send(ctx context.Context, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	const pending, writing, dropped = 0, 1, 2
	var state atomic.Int32
	written := make(chan error, 1)
	go func() {
		w.writeMu.Lock()
		defer w.writeMu.Unlock()
		if !state.CompareAndSwap(pending, writing) {
			return
		}
		_, err := w.p.stdin.Write(append(b, '\n'))
		written <- err
	}()
	wrote := func(err error) error {
		if err != nil {
			return errWorkerGone
		}
		return nil
	}
	select {
	case err := <-written:
		return wrote(err)
	case <-w.p.done:
		return errWorkerGone
	case <-ctx.Done():
	}
	if state.CompareAndSwap(pending, dropped) {
		return ctx.Err()
	}
	grace := time.NewTimer(w.r.cfg.KillGrace)
	defer grace.Stop()
	select {
	case err := <-written:
		return wrote(err)
	case <-w.p.done:
		return errWorkerGone
	case <-grace.C:
	}
	w.r.cfg.Logger.Warn("the Gemini CLI's --acp worker does not read its input; retiring it", "pid", w.p.cmd.Process.Pid)
	w.retire()
	return ctx.Err()
}

// maxACPLine bounds a line of the worker's output; a longer one is dropped.
const maxACPLine = 32 << 20

// Write reads the worker's stdout as it comes, a message a line.
func (w *acpWorker) Write(p []byte) (int, error) {
	w.out.write(p, maxACPLine, w.handle)
	return len(p), nil
}

// handle acts on one message from the worker.
func (w *acpWorker) handle(line []byte) {
	var m rpcMessage
	if json.Unmarshal(bytes.TrimSpace(line), &m) != nil {
		return // the CLI's own noise
	}
	switch {
	case m.Method == "session/update":
		var u struct {
			SessionID string    `json:"sessionId"`
			Update    acpUpdate `json:"update"`
		}
		if json.Unmarshal(m.Params, &u) == nil {
			w.mu.Lock()
			run := w.sessions[u.SessionID]
			w.mu.Unlock()
			if run != nil {
				run.update(u.Update)
			}
		}
	case m.Method != "" && len(m.ID) > 0:
		go w.answer(m) // not on the reader: a write can wait for the CLI to read
	case m.Method == "" && len(m.ID) > 0:
		var id int64
		if json.Unmarshal(m.ID, &id) != nil {
			return
		}
		w.mu.Lock()
		ch := w.calls[id]
		delete(w.calls, id)
		w.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// answer answers a request of the worker's. A permission is always refused: a research run has its tools in
// tools.core, which the CLI runs without asking, and any other tool is one it must not run. Nothing is left
// unanswered, or the prompt would hang.
func (w *acpWorker) answer(m rpcMessage) {
	if m.Method != "session/request_permission" {
		_ = w.send(context.Background(), map[string]any{"jsonrpc": "2.0", "id": m.ID,
			"error": rpcError{Code: -32601, Message: "Method not found"}})
		return
	}
	var p struct {
		SessionID string    `json:"sessionId"`
		ToolCall  acpUpdate `json:"toolCall"`
		Options   []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	_ = json.Unmarshal(m.Params, &p)
	w.mu.Lock()
	run := w.sessions[p.SessionID]
	w.mu.Unlock()
	if run != nil {
		run.refused(p.ToolCall)
	}
	w.r.cfg.Logger.Warn("the Gemini CLI asked permission to run a tool outside the research tools; refused",
		"tool", acpToolName(p.ToolCall))
	// The request's own "reject once" option says no; "cancelled" means the prompt was cancelled, and is left for
	// a request that offers no way to say no.
	outcome := map[string]any{"outcome": "cancelled"}
	for _, o := range p.Options {
		if o.Kind == "reject_once" {
			outcome = map[string]any{"outcome": "selected", "optionId": o.OptionID}
			break
		}
	}
	_ = w.send(context.Background(), map[string]any{"jsonrpc": "2.0", "id": m.ID,
		"result": map[string]any{"outcome": outcome}})
}

// promptResult is how a session/prompt ended.
type promptResult struct {
	stopReason string
	usage      acpQuota
	err        *rpcError // the CLI's error answer
	gone       bool      // the worker ended before it answered
	cancelled  bool      // ctx ended it: before it was sent, or then session/cancel was sent
}

// acpQuota is the usage the CLI reports in a prompt's result (_meta.quota).
type acpQuota struct {
	TokenCount struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"token_count"`
	ModelUsage []struct {
		Model      string `json:"model"`
		TokenCount struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"token_count"`
	} `json:"model_usage"`
}

// prompt runs text in session, its updates going to run, until the CLI answers, the worker ends, or ctx is done:
// then session/cancel asks the CLI to stop, and a worker that has not answered within KillGrace is retired.
func (w *acpWorker) prompt(ctx context.Context, session, text string, run *acpRun) promptResult {
	w.mu.Lock()
	w.sessions[session] = run
	w.mu.Unlock()
	defer func() {
		w.mu.Lock()
		delete(w.sessions, session)
		w.mu.Unlock()
	}()
	id, ch, err := w.request(ctx, "session/prompt", map[string]any{"sessionId": session,
		"prompt": []any{map[string]any{"type": "text", "text": text}}})
	if err != nil {
		return promptResult{gone: ctx.Err() == nil, cancelled: ctx.Err() != nil} // not sent: nothing to cancel
	}
	var res promptResult
	var m rpcMessage
	select {
	case m = <-ch:
	case <-w.p.done:
		return promptResult{gone: true}
	case <-ctx.Done():
		res.cancelled = true
		grace, cancel := context.WithTimeout(context.Background(), w.r.cfg.KillGrace)
		defer cancel()
		_ = w.send(grace, map[string]any{"jsonrpc": "2.0", "method": "session/cancel",
			"params": map[string]any{"sessionId": session}})
		select {
		case m = <-ch:
		case <-w.p.done:
			return res
		case <-grace.Done():
			// The other prompts it serves go on: it ends once the last of them lets go of it.
			w.r.cfg.Logger.Warn("the Gemini CLI's --acp worker did not stop a cancelled prompt; retiring it",
				"pid", w.p.cmd.Process.Pid)
			w.forget(id)
			w.retire()
			return res
		}
	}
	if m.Error != nil {
		res.err = m.Error
		return res
	}
	var r struct {
		StopReason string `json:"stopReason"`
		Meta       struct {
			Quota acpQuota `json:"quota"`
		} `json:"_meta"`
	}
	_ = json.Unmarshal(m.Result, &r)
	res.stopReason, res.usage = r.StopReason, r.Meta.Quota
	return res
}

// acpUpdate holds the fields of a session/update (and of a permission request's toolCall) the runner uses.
type acpUpdate struct {
	SessionUpdate string          `json:"sessionUpdate"`
	Content       json.RawMessage `json:"content"` // {type, text} for a chunk; a list for a tool call
	ToolCallID    string          `json:"toolCallId"`
	Status        string          `json:"status"`
	Title         string          `json:"title"`
	Kind          string          `json:"kind"`
	RawInput      json.RawMessage `json:"rawInput"`
}

// acpRun is one prompt's updates, turned into the stream-json events a one-shot run prints (see stream.go), so
// that both kinds of run give the same Result and the same progress events. The worker's reader hands the updates
// over and goes on; a goroutine of the run's own reads them in order, so that a slow reader of one run's events
// (a client taking its progress notifications slowly) holds up no other prompt of the worker.
type acpRun struct {
	out *collector // only the run's goroutine touches it, until done is closed

	mu      sync.Mutex
	more    *sync.Cond
	queue   []map[string]any // events not yet read
	closed  bool             // no more events come
	drained chan struct{}    // closed once every event was read
}

func newACPRun(out *collector, model string) *acpRun {
	run := &acpRun{out: out, drained: make(chan struct{})}
	run.more = sync.NewCond(&run.mu)
	run.event(map[string]any{"type": "init", "model": model})
	go run.read()
	return run
}

// read writes the events into the collector as they come, until the run is closed.
func (run *acpRun) read() {
	defer close(run.drained)
	for {
		run.mu.Lock()
		for len(run.queue) == 0 && !run.closed {
			run.more.Wait()
		}
		events, closed := run.queue, run.closed
		run.queue = nil
		run.mu.Unlock()
		for _, ev := range events {
			b, err := json.Marshal(ev)
			if err == nil {
				_, _ = run.out.Write(append(b, '\n'))
			}
		}
		if closed && len(events) == 0 {
			_ = run.out.Close()
			return
		}
	}
}

// event queues one stream-json event; none after close.
func (run *acpRun) event(ev map[string]any) {
	run.mu.Lock()
	defer run.mu.Unlock()
	if !run.closed {
		run.queue = append(run.queue, ev)
		run.more.Signal()
	}
}

func (run *acpRun) update(u acpUpdate) {
	switch u.SessionUpdate {
	case "agent_message_chunk":
		var c struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(u.Content, &c) == nil && c.Type == "text" {
			run.event(map[string]any{"type": "message", "role": "assistant", "content": c.Text, "delta": true})
		}
	case "tool_call":
		run.event(map[string]any{"type": "tool_use", "tool_name": acpToolName(u), "tool_id": u.ToolCallID,
			"parameters": acpToolParameters(u)})
		if u.Status == "failed" {
			run.failed(u, contentText(u.Content))
		}
	case "tool_call_update":
		if u.Status == "failed" {
			run.failed(u, contentText(u.Content))
		}
	}
}

// failed records the failed tool call u. Its tool_id is the tool's name: the collector names a failed tool by the
// tool_use of its id, which a call that failed before the CLI announced it (a refused one) has none of.
func (run *acpRun) failed(u acpUpdate, message string) {
	run.event(map[string]any{"type": "tool_result", "tool_id": acpToolName(u), "status": "error", "output": message})
}

// refused records a tool the CLI asked permission for, which was refused: a failed tool, named.
func (run *acpRun) refused(tool acpUpdate) {
	run.failed(tool, "refused: a research run may use only its research tools (tools.core)")
}

// close ends the run's events and waits until they are read. Later updates are dropped.
func (run *acpRun) close() {
	run.mu.Lock()
	run.closed = true
	run.more.Signal()
	run.mu.Unlock()
	<-run.drained
}

// finish ends the events with the result event of res, and closes the run.
func (run *acpRun) finish(res promptResult) {
	ev := map[string]any{"type": "result", "status": "success"}
	switch {
	case res.err != nil:
		ev["status"] = "error"
		ev["error"] = map[string]any{"message": "[API Error: " + res.err.Message + "]"}
	case res.stopReason == "max_turn_requests":
		ev["status"] = "error"
		ev["error"] = map[string]any{"message": "Reached max session turns for this session."}
	case res.stopReason != "end_turn":
		ev["status"] = "error"
		ev["error"] = map[string]any{"message": "The Gemini CLI stopped its answer (" + res.stopReason + ")."}
	}
	// The CLI (0.61.0) counts a prompt's output as the answer's tokens alone (candidatesTokenCount): a thinking
	// model's thoughts, which a one-shot run's total_tokens includes, are reported nowhere over ACP.
	if q := res.usage; q.TokenCount.InputTokens+q.TokenCount.OutputTokens > 0 {
		models := map[string]any{}
		for _, m := range q.ModelUsage {
			models[m.Model] = map[string]any{"total_tokens": m.TokenCount.InputTokens + m.TokenCount.OutputTokens}
		}
		ev["stats"] = map[string]any{"input_tokens": q.TokenCount.InputTokens, "output_tokens": q.TokenCount.OutputTokens,
			"total_tokens": q.TokenCount.InputTokens + q.TokenCount.OutputTokens, "models": models}
	}
	run.event(ev)
	run.close()
}

// acpToolName is the name of the tool of a tool call: the CLI (0.61.0) starts every call id with the tool's name
// and "__" (google_web_search__…, mcp_firecrawl_firecrawl_scrape__…); else it is read from the title and kind.
func acpToolName(u acpUpdate) string {
	if name, _, ok := strings.Cut(u.ToolCallID, "__"); ok && name != "" {
		return name
	}
	switch {
	case strings.HasPrefix(u.Title, webSearchTitle):
		return "google_web_search"
	case u.Kind == "fetch":
		return "web_fetch"
	}
	return cmp.Or(u.Title, u.ToolCallID)
}

// The titles the CLI (0.61.0) gives its web tools' calls, which are all an ACP update says of their arguments.
const (
	webSearchTitle   = `Searching the web for: "`
	webFetchTitle    = "Fetching content from: "
	webPromptTitle   = `Processing URLs and instructions from prompt: "`
	promptTitleLimit = 100 // the CLI cuts the prompt in that title to 97 characters and "..."
)

// acpToolParameters reads a tool call's arguments from what the update gives: rawInput when the CLI sends it,
// else the title of a web tool, else an MCP tool's explanation, which is its arguments as JSON.
func acpToolParameters(u acpUpdate) map[string]any {
	var params map[string]any
	if len(u.RawInput) > 0 && json.Unmarshal(u.RawInput, &params) == nil && params != nil {
		return params
	}
	switch {
	case strings.HasPrefix(u.Title, webSearchTitle):
		return map[string]any{"query": strings.TrimSuffix(strings.TrimPrefix(u.Title, webSearchTitle), `"`)}
	case strings.HasPrefix(u.Title, webFetchTitle):
		return map[string]any{"url": strings.TrimPrefix(u.Title, webFetchTitle)}
	case strings.HasPrefix(u.Title, webPromptTitle):
		prompt := strings.TrimSuffix(strings.TrimPrefix(u.Title, webPromptTitle), `"`)
		if cut, ok := strings.CutSuffix(prompt, "..."); ok && len(prompt) >= promptTitleLimit {
			// Cut short: a URL at its end may be cut too, so the last word goes.
			if i := strings.LastIndexAny(cut, " \t\n"); i >= 0 {
				prompt = cut[:i]
			} else {
				prompt = ""
			}
		}
		return map[string]any{"prompt": prompt}
	}
	if json.Unmarshal([]byte(contentText(u.Content)), &params) == nil && params != nil {
		return params
	}
	return map[string]any{}
}

// contentText is the text of a tool call's content list.
func contentText(raw json.RawMessage) string {
	var parts []struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		if p.Content.Text != "" {
			texts = append(texts, p.Content.Text)
		}
	}
	return strings.Join(texts, "\n")
}

var _ io.Writer = (*acpWorker)(nil)
