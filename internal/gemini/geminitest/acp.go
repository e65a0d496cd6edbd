package geminitest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// EnvTogether, over --acp, makes each prompt wait before it answers until the process has received that many
// prompts: a client that sends them one at a time never sees an answer.
const EnvTogether = "FAKE_GEMINI_ACP_TOGETHER"

// ScenarioPermission is ScenarioOK that, over --acp, asks the client's permission (session/request_permission)
// before its fetch and records the answer (Fake.Permissions); the fetch runs only when allowed. A one-shot run
// plays ScenarioOK.
const ScenarioPermission = "permission"

// ScenarioIgnoreCancel is ScenarioHang that, over --acp, never answers its prompt, not even after session/cancel:
// a stuck prompt. A one-shot run plays ScenarioHang.
const ScenarioIgnoreCancel = "ignore-cancel"

// ScenarioDeaf is ScenarioHang that, over --acp, stops reading its input when its prompt comes and never answers:
// a worker whose stdin fills up. A one-shot run plays ScenarioHang.
const ScenarioDeaf = "deaf"

// ScenarioRateLimited is ScenarioQuota that, over --acp, answers its 429 only after EnvDelay (default 4s), as the
// real CLI does after its retries on a per-minute rate limit (~242 s); a daily quota fails on its first request. A
// one-shot run plays ScenarioQuota.
const ScenarioRateLimited = "rate-limited"

// The fake's --acp mode (the CLI's Agent Client Protocol: JSON-RPC 2.0 over stdin and stdout, one JSON object a
// line) plays the same scenarios as its one-shot runs, one per session/prompt, each recorded as a Call whose Stdin
// is the prompt's text and whose Dir is the session's cwd. Prompts run concurrently. As the real CLI 0.61.0 does:
// initialize, then session/new {cwd, mcpServers} answers {sessionId}; session/prompt sends session/update
// notifications (tool_call, tool_call_update, agent_message_chunk) and answers {stopReason, _meta.quota}; an API
// failure answers a JSON-RPC error whose code is the HTTP status; session/cancel makes the prompt answer
// {stopReason:"cancelled"}. ScenarioCrash and ScenarioKilled kill the whole process in the middle of a prompt.

// acpFake is the fake CLI's --acp process.
type acpFake struct {
	args []string

	writeMu sync.Mutex
	out     *bufio.Writer

	mu       sync.Mutex
	sessions map[string]*acpFakeSession
	calls    map[int]chan json.RawMessage // our requests to the client, by id
	nextID   int
	prompts  sync.WaitGroup
	received int        // prompts received
	arrived  *sync.Cond // on mu: a prompt was received
}

type acpFakeSession struct {
	id, cwd   string
	cancelled chan struct{}
	once      sync.Once
}

type acpFakeMessage struct {
	ID     *int            `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// runACP serves --acp until stdin closes.
func runACP(scenario string, args []string) int {
	a := &acpFake{args: args, out: bufio.NewWriter(os.Stdout), sessions: map[string]*acpFakeSession{},
		calls: map[int]chan json.RawMessage{}}
	a.arrived = sync.NewCond(&a.mu)
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			a.handle(scenario, line)
		}
		if err == io.EOF {
			a.prompts.Wait()
			return 0
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake gemini --acp: read:", err)
			return 1
		}
	}
}

func (a *acpFake) handle(scenario string, line []byte) {
	var m acpFakeMessage
	if err := json.Unmarshal(line, &m); err != nil {
		fmt.Fprintln(os.Stderr, "fake gemini --acp: bad line:", err)
		return
	}
	switch {
	case m.Method == "" && m.ID != nil: // the client's answer to our request
		a.mu.Lock()
		ch := a.calls[*m.ID]
		delete(a.calls, *m.ID)
		a.mu.Unlock()
		if ch != nil {
			ch <- m.Result
		}
	case m.Method == "initialize":
		a.reply(*m.ID, map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}})
	case m.Method == "session/new":
		var p struct {
			Cwd string `json:"cwd"`
		}
		_ = json.Unmarshal(m.Params, &p)
		a.mu.Lock()
		s := &acpFakeSession{id: fmt.Sprintf("fake-acp-%d-%d", os.Getpid(), len(a.sessions)+1), cwd: p.Cwd,
			cancelled: make(chan struct{})}
		a.sessions[s.id] = s
		a.mu.Unlock()
		a.reply(*m.ID, map[string]any{"sessionId": s.id})
	case m.Method == "session/prompt":
		a.mu.Lock()
		a.received++
		a.arrived.Broadcast()
		a.mu.Unlock()
		a.prompts.Add(1)
		played := make(chan string, 1) // the scenario the prompt plays, once it is recorded
		go func() {
			defer a.prompts.Done()
			a.prompt(scenario, *m.ID, m.Params, played)
		}()
		if <-played == ScenarioDeaf {
			select {} // reads nothing more
		}
	case m.Method == "session/cancel":
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(m.Params, &p)
		a.mu.Lock()
		s := a.sessions[p.SessionID]
		a.mu.Unlock()
		if s != nil {
			s.once.Do(func() { close(s.cancelled) })
		}
	case m.ID != nil:
		a.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "error": map[string]any{"code": -32601, "message": "Method not found"}})
	}
}

// prompt plays scenario for one session/prompt.
func (a *acpFake) prompt(scenario string, id int, params json.RawMessage, played chan<- string) {
	var p struct {
		SessionID string `json:"sessionId"`
		Prompt    []struct {
			Text string `json:"text"`
		} `json:"prompt"`
	}
	_ = json.Unmarshal(params, &p)
	a.mu.Lock()
	s := a.sessions[p.SessionID]
	a.mu.Unlock()
	if s == nil {
		played <- ""
		a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": -32602, "message": "Session not found"}})
		return
	}
	var text strings.Builder
	for _, part := range p.Prompt {
		text.WriteString(part.Text)
	}
	c := &cli{args: a.args, prompt: text.String()}
	call := Call{Args: a.args, Stdin: c.prompt, Dir: s.cwd, PID: os.Getpid(), Env: recordedEnv()}
	if scenario == ScenarioScript {
		var err error
		if scenario, err = c.scriptStep(); err != nil {
			fmt.Fprintln(os.Stderr, "fake gemini:", err)
		}
	}
	c.record(call)
	played <- scenario
	if together, _ := strconv.Atoi(os.Getenv(EnvTogether)); together > 0 {
		a.mu.Lock()
		for a.received < together {
			a.arrived.Wait()
		}
		a.mu.Unlock()
	}
	a.play(scenario, s, id, c)
}

func (a *acpFake) play(scenario string, s *acpFakeSession, id int, c *cli) {
	switch scenario {
	case ScenarioQuota:
		a.fail(id, 429, "Rate limit exceeded. Try again later.")
		return
	case ScenarioRateLimited:
		delay := 4 * time.Second
		if d, err := time.ParseDuration(os.Getenv(EnvDelay)); err == nil {
			delay = d
		}
		select {
		case <-time.After(delay):
			a.fail(id, 429, "Rate limit exceeded. Try again later.")
		case <-s.cancelled:
			a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "cancelled"}})
		}
		return
	case ScenarioAuth401:
		a.fail(id, 401, "API key not valid. Please pass a valid API key.")
		return
	case ScenarioEmpty:
		a.done(id, "end_turn")
		return
	case ScenarioDeaf:
		select {} // until the process ends
	case ScenarioIgnoreCancel:
		a.search(s)
		a.chunk(s, "Partial answer before the end.")
		select {} // until the process ends
	case ScenarioHang, ScenarioCrash, ScenarioKilled:
		a.search(s)
		a.chunk(s, "Partial answer before the end.")
		if scenario != ScenarioHang {
			a.flush()
			kill(os.Getpid())
		}
		<-s.cancelled
		a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "cancelled"}})
		return
	case ScenarioSlow:
		delay := 2 * time.Second
		if d, err := time.ParseDuration(os.Getenv(EnvDelay)); err == nil {
			delay = d
		}
		select {
		case <-time.After(delay):
		case <-s.cancelled:
			a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": "cancelled"}})
			return
		}
	}
	text := answer()
	switch scenario {
	case ScenarioProse:
		object := DefaultJSON
		if a := os.Getenv(EnvAnswer); a != "" {
			object = a
		}
		text = "Here is what I found after searching.\n\n" + object + "\n\nI hope this helps with the research."
	case ScenarioInvalid:
		text = InvalidAnswer
	case ScenarioInvalidThenValid:
		if c.calls == 0 {
			text = InvalidAnswer
		}
	}
	a.search(s)
	fetch := map[string]any{"sessionUpdate": "tool_call", "toolCallId": "web_fetch__fake-2", "status": "in_progress",
		"title": "Fetching content from: " + FakeURL, "content": []any{}, "kind": "fetch"}
	allowed := true
	if scenario == ScenarioPermission {
		fetch["status"] = "pending"
		outcome := a.request(s, "session/request_permission", map[string]any{"sessionId": s.id, "toolCall": fetch,
			"options": []any{
				map[string]any{"optionId": "proceed_once", "name": "Allow", "kind": "allow_once"},
				map[string]any{"optionId": "cancel", "name": "Reject", "kind": "reject_once"},
			}})
		recordPermission(string(outcome))
		var o struct {
			Outcome struct {
				Outcome  string `json:"outcome"`
				OptionID string `json:"optionId"`
			} `json:"outcome"`
		}
		_ = json.Unmarshal(outcome, &o)
		allowed = o.Outcome.Outcome == "selected" && o.Outcome.OptionID == "proceed_once"
		fetch["status"] = "in_progress"
	}
	if allowed {
		a.update(s, fetch)
		a.update(s, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "web_fetch__fake-2", "status": "completed",
			"title": "Fetching content from: " + FakeURL, "content": []any{textContent("Content fetched from " + FakeURL)}, "kind": "fetch"})
	}
	for _, part := range split(text, 3) {
		a.chunk(s, part)
	}
	a.done(id, "end_turn")
}

// search plays the google_web_search of every answer, as the real CLI reports it over ACP.
func (a *acpFake) search(s *acpFakeSession) {
	title := `Searching the web for: "` + FakeQuery + `"`
	a.update(s, map[string]any{"sessionUpdate": "tool_call", "toolCallId": "google_web_search__fake-1", "status": "in_progress",
		"title": title, "content": []any{}, "kind": "search"})
	a.update(s, map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": "google_web_search__fake-1", "status": "completed",
		"title": title, "content": []any{textContent(`Search results for "` + FakeQuery + `" returned.`)}, "kind": "search"})
}

func textContent(text string) map[string]any {
	return map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": text}}
}

func (a *acpFake) chunk(s *acpFakeSession, text string) {
	a.update(s, map[string]any{"sessionUpdate": "agent_message_chunk", "content": map[string]any{"type": "text", "text": text}})
}

func (a *acpFake) update(s *acpFakeSession, update map[string]any) {
	a.send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": s.id, "update": update}})
}

// done answers a prompt with stopReason and the usage of ScenarioOK's result event.
func (a *acpFake) done(id int, stopReason string) {
	model := os.Getenv(EnvModel)
	if i := slices.Index(a.args, "-m"); model == "" && i >= 0 && i+1 < len(a.args) {
		model = a.args[i+1]
	}
	if model == "" {
		model = DefaultModel
	}
	tokens := map[string]any{"input_tokens": 24, "output_tokens": 14}
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"stopReason": stopReason,
		"_meta": map[string]any{"quota": map[string]any{"token_count": tokens,
			"model_usage": []any{map[string]any{"model": model, "token_count": tokens}}}}}})
}

// fail answers a prompt with the JSON-RPC error the real CLI sends for an API failure: the HTTP status as its code.
func (a *acpFake) fail(id, status int, message string) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": status, "message": message}})
}

// request sends the client a request and waits for its answer, or for the session's cancel.
func (a *acpFake) request(s *acpFakeSession, method string, params any) json.RawMessage {
	a.mu.Lock()
	a.nextID++
	id := a.nextID
	ch := make(chan json.RawMessage, 1)
	a.calls[id] = ch
	a.mu.Unlock()
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case result := <-ch:
		return result
	case <-s.cancelled:
		return json.RawMessage(`{"outcome":{"outcome":"cancelled"}}`)
	}
}

func (a *acpFake) reply(id int, result any) {
	a.send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
}

func (a *acpFake) send(msg any) {
	b, err := json.Marshal(msg)
	if err != nil {
		panic(err)
	}
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	a.out.Write(append(b, '\n'))
	a.out.Flush()
}

func (a *acpFake) flush() {
	a.writeMu.Lock()
	defer a.writeMu.Unlock()
	a.out.Flush()
}

// recordPermission keeps the client's answer to a permission request in EnvRecordDir (Fake.Permissions).
func recordPermission(outcome string) {
	dir := os.Getenv(EnvRecordDir)
	if dir == "" {
		return
	}
	f, err := os.CreateTemp(dir, "permission-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake gemini: record:", err)
		return
	}
	defer f.Close()
	_, _ = f.WriteString(outcome)
}

// Permissions returns the answers the client gave to the fake's permission requests (ScenarioPermission over
// --acp), as JSON, in no particular order.
func (f *Fake) Permissions() []string {
	f.t.Helper()
	names, _ := filepath.Glob(filepath.Join(f.RecordDir, "permission-*"))
	var outcomes []string
	for _, name := range names {
		if b, err := os.ReadFile(name); err == nil {
			outcomes = append(outcomes, string(b))
		}
	}
	return outcomes
}
