package geminitest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// scenarioSleeper is the internal scenario of ScenarioHang's grandchild.
const scenarioSleeper = "_sleeper"

// hugeSize is how much assistant text the huge scenarios stream.
const hugeSize = 20 << 20

// cli is one run of the fake CLI.
type cli struct {
	args      []string
	prompt    string
	out       *bufio.Writer
	calls     int  // prompts recorded before this one in the same record dir
	mcpIssues bool // the stderr lines of an MCP server that did not start were written
}

// runCLI plays scenario and returns the exit code.
func runCLI(scenario string) int {
	if scenario == scenarioSleeper {
		sleepForever()
	}
	c := &cli{args: os.Args[1:], out: bufio.NewWriterSize(os.Stdout, 64<<10)}
	defer c.out.Flush()
	call := Call{Args: c.args, PID: os.Getpid(), Env: recordedEnv()}
	call.Dir, _ = os.Getwd()

	if slices.Contains(c.args, "--version") {
		c.record(call)
		fmt.Fprintln(c.out, Version)
		return 0
	}
	recordStart()
	if scenario == ScenarioHangStart { // stuck in its startup: the prompt is never read
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		c.record(call)
		sleepForever()
	}
	if server := mcpServerDown(scenario); server != "" { // the CLI connects its MCP servers before it reads its prompt
		c.reportMCPIssues(server)
	}
	if slices.Contains(c.args, "--acp") {
		return runACP(scenario, c.args)
	}
	stdin, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake gemini: read stdin:", err)
		return 1
	}
	c.prompt, call.Stdin = string(stdin), string(stdin)
	call.Refs = readRefs(c.prompt)
	if scenario == ScenarioScript {
		if scenario, err = c.scriptStep(); err != nil {
			fmt.Fprintln(os.Stderr, "fake gemini:", err)
			return 2
		}
	}
	if scenario == ScenarioIgnoreCancel || scenario == ScenarioDeaf {
		scenario = ScenarioHang
	}
	if scenario == ScenarioHang || scenario == ScenarioOrphan || scenario == ScenarioOrphanDetached {
		if scenario == ScenarioHang {
			signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		}
		pid, err := startSleeper(scenario == ScenarioOrphanDetached)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fake gemini: start grandchild:", err)
			return 1
		}
		call.ChildPIDs = []int{pid}
	}
	c.record(call)
	return c.play(scenario)
}

func (c *cli) play(scenario string) int {
	switch scenario {
	case ScenarioOK, ScenarioPermission:
		c.stream(answer(), 0)
	case ScenarioSlow:
		delay := 2 * time.Second
		if d, err := time.ParseDuration(os.Getenv(EnvDelay)); err == nil {
			delay = d
		}
		c.stream(answer(), delay)
	case ScenarioProse:
		object := DefaultJSON
		if a := os.Getenv(EnvAnswer); a != "" {
			object = a
		}
		c.stream("Here is what I found after searching.\n\n"+object+"\n\nI hope this helps with the research.", 0)
	case ScenarioInvalid:
		c.stream(InvalidAnswer, 0)
	case ScenarioInvalidThenValid:
		if c.calls == 0 {
			c.stream(InvalidAnswer, 0)
		} else {
			c.stream(answer(), 0)
		}
	case ScenarioPlain:
		fmt.Fprintln(c.out, answer())
	case ScenarioHang:
		c.init()
		c.search()
		c.event("message", "role", "assistant", "content", "Partial answer before the hang.", "delta", true)
		c.out.Flush()
		sleepForever()
	case ScenarioQuota, ScenarioRateLimited:
		writeErrorReport()
		c.init()
		fmt.Fprintln(os.Stderr, "Attempt 1 failed with status 429. Retrying with backoff... ApiError: RESOURCE_EXHAUSTED")
		c.result("error", `[API Error: {"error":{"code":429,"message":"You have exhausted your daily quota on this model.","status":"RESOURCE_EXHAUSTED"}}]`)
		return 173
	case ScenarioAuth:
		fmt.Fprintln(os.Stderr, "Loaded cached credentials.")
		fmt.Fprintln(os.Stderr, "Invalid auth method selected.")
		return 41
	case ScenarioAuth401:
		writeErrorReport()
		c.init()
		c.result("error", `[API Error: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}]`)
		return 145
	case ScenarioUntrusted:
		fmt.Fprintln(os.Stderr, "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`, "+
			"set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory in interactive mode.")
		return 55
	case ScenarioEmpty:
		c.init()
		c.event("message", "role", "user", "content", c.prompt)
		c.event("error", "severity", "error", "message", "The model returned an empty response. Please try again.")
		c.result("error", "The model returned an empty response")
	case ScenarioCrash:
		writeErrorReport()
		c.init()
		c.event("message", "role", "assistant", "content", "Partial text before the crash.", "delta", true)
		c.out.Flush()
		c.crashTrace()
		return 1
	case ScenarioHuge:
		c.init()
		chunk := hugeText(64 << 10)
		for range hugeSize / len(chunk) {
			c.event("message", "role", "assistant", "content", chunk, "delta", true)
		}
		c.result("success", "")
	case ScenarioHugeLine:
		c.init()
		// Written as is, not through json.Marshal: the text needs no escaping, and a test binary built with
		// -race marshals 20 MiB slowly.
		c.out.WriteString(`{"type":"message","timestamp":` + quote(time.Now().UTC().Format(time.RFC3339Nano)) +
			`,"role":"assistant","content":"` + hugeText(hugeSize) + "\"}\n")
		c.result("success", "")
	case ScenarioHangStart: // a step of ScenarioScript: the prompt was read already
		sleepForever()
	case ScenarioCrashEarly:
		c.crashTrace()
		return 1
	case ScenarioKilled:
		c.init()
		c.search()
		c.event("message", "role", "assistant", "content", "Partial text before the kill.", "delta", true)
		c.out.Flush()
		kill(os.Getpid())
		sleepForever()
	case ScenarioStderrFlood:
		floodStderr(StderrFloodSize)
		c.stream(answer(), 0)
	case ScenarioGarbage:
		c.init()
		c.out.Write(binaryJunk)
		c.out.WriteString(brokenEvents)
		// A search whose query holds invalid UTF-8, as raw bytes inside the JSON string.
		c.out.WriteString(`{"type":"tool_use","tool_name":"google_web_search","tool_id":"search-0","parameters":{"query":"` +
			GarbageQuery + "\"}}\n")
		c.answerEvents(answer())
	case ScenarioBinary:
		c.out.Write(binaryJunk)
	case ScenarioOrphan, ScenarioOrphanDetached:
		c.stream(answer(), 0)
	case ScenarioNoFirecrawl, ScenarioUserMCPDown:
		c.reportMCPIssues(mcpServerDown(scenario)) // a step of ScenarioScript: not written before the prompt
		c.stream(answer(), 0)
	case ScenarioExit:
		code, err := strconv.Atoi(os.Getenv(EnvExit))
		if err != nil {
			fmt.Fprintf(os.Stderr, "fake gemini: %s must be an exit code: %v\n", EnvExit, err)
			return 2
		}
		return c.exit(code)
	default:
		fmt.Fprintf(os.Stderr, "fake gemini: unknown scenario %q\n", scenario)
		return 2
	}
	return 0
}

// mcpServerDown is the MCP server of its settings that does not start in scenario; "" for none.
func mcpServerDown(scenario string) string {
	switch scenario {
	case ScenarioNoFirecrawl:
		return "firecrawl"
	case ScenarioUserMCPDown:
		return UserMCPServer
	}
	return ""
}

// reportMCPIssues writes, once, what the real CLI writes on stderr when the MCP server server of its settings did
// not start: the reason (only with DEBUG=true, among the CLI's debug lines) and the one line it always writes.
// Nothing when its flags keep the server from starting at all.
func (c *cli) reportMCPIssues(server string) {
	if c.mcpIssues || !c.mcpAllowed(server) {
		return
	}
	c.mcpIssues = true
	if debug := os.Getenv("DEBUG"); debug == "true" || debug == "1" {
		fmt.Fprintf(os.Stderr, "[DEBUG] [MCP STDERR (%s)]:  starting %s\n", server, server)
		fmt.Fprintln(os.Stderr, strings.ReplaceAll(MCPErrorLine, "'firecrawl'", "'"+server+"'"))
		fmt.Fprintln(os.Stderr, "    at _McpError.fromError (file:///usr/lib/node_modules/@google/gemini-cli/bundle/chunk-FAKE.js:303741:12)")
		fmt.Fprintln(os.Stderr, "  code: -32001,")
	}
	fmt.Fprintln(os.Stderr, MCPIssuesLine)
}

// mcpAllowed reports whether the CLI's flags let the MCP server server start, as the real CLI 0.61.0 reads them:
// without --allowed-mcp-server-names every server may; with it, only those it names (its values may be lists
// separated by commas).
func (c *cli) mcpAllowed(server string) bool {
	var names []string
	given := false
	for i, arg := range c.args {
		if arg == "--allowed-mcp-server-names" && i+1 < len(c.args) {
			given = true
			for name := range strings.SplitSeq(c.args[i+1], ",") {
				names = append(names, strings.TrimSpace(name))
			}
		}
	}
	return !given || slices.Contains(names, server)
}

// exit fails as the CLI does on its way to exit code code, in its own words, and returns code.
func (c *cli) exit(code int) int {
	fatal := func(msg string) int { // the CLI's fatal errors of a run in stream-json: a result event
		c.init()
		c.event("message", "role", "user", "content", c.prompt)
		c.result("error", msg)
		return code
	}
	apiError := func(status int, name, msg string) int { // an API error, once the CLI's retries (if any) ran out
		writeErrorReport()
		c.init()
		c.result("error", fmt.Sprintf(`[API Error: {"error":{"code":%d,"message":%s,"status":%q}}]`, status, quote(msg), name))
		return code
	}
	switch code {
	case 0: // stopped by SIGTERM under no-relaunch: exit 0, and no result event
		c.init()
		c.event("message", "role", "assistant", "content", "Partial text before SIGTERM.", "delta", true)
		return 0
	case 1: // a usage error
		fmt.Fprintln(os.Stderr, "Cannot use both a positional prompt and the --prompt (-p) flag together")
		return 1
	case 41:
		return c.play(ScenarioAuth)
	case 42:
		fmt.Fprintln(os.Stderr, "No input provided via stdin. Input can be provided by piping data into gemini or using the --prompt option.")
		return 42
	case 44:
		fmt.Fprintln(os.Stderr, "Sandbox image 'us-docker.pkg.dev/gemini-code-dev/gemini-cli/sandbox:"+Version+"' is missing or could not be pulled.")
		return 44
	case 52:
		fmt.Fprintln(os.Stderr, "Error in .gemini/settings.json: Unexpected token '}', \"{\"tools\": }\" is not valid JSON")
		return 52
	case 53:
		return fatal("Reached max session turns for this session. Increase the number of turns by specifying maxSessionTurns in settings.json.")
	case 54:
		fmt.Fprintln(os.Stderr, "Error executing tool write_file: ENOSPC: no space left on device, write")
		return 54
	case 55:
		return c.play(ScenarioUntrusted)
	case 130:
		return fatal("Operation cancelled.")
	case 145:
		return c.play(ScenarioAuth401)
	case 147:
		return apiError(403, "PERMISSION_DENIED", "Permission denied on resource project fake-project.")
	case 148:
		return apiError(404, "NOT_FOUND", "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.")
	case 173:
		return c.play(ScenarioQuota)
	case 244:
		return apiError(500, "INTERNAL", "Internal error encountered.")
	case 246:
		return apiError(502, "BAD_GATEWAY", "Bad Gateway")
	case 247:
		return apiError(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")
	default:
		fmt.Fprintf(os.Stderr, "fake gemini: exit %d\n", code)
		return code
	}
}

// scriptStep picks this run's step of ScenarioScript from the prompts recorded so far, and applies its answer.
func (c *cli) scriptStep() (string, error) {
	var steps []Step
	if err := json.Unmarshal([]byte(os.Getenv(EnvScript)), &steps); err != nil || len(steps) == 0 {
		return "", fmt.Errorf("%s must be a non-empty JSON list of steps: %v", EnvScript, err)
	}
	dir := os.Getenv(EnvRecordDir)
	runs := 0
	if entries, err := os.ReadDir(dir); err == nil {
		runs = countPrompts(dir, len(entries)+1)
	}
	step := steps[min(runs, len(steps)-1)]
	if step.Answer != "" {
		os.Setenv(EnvAnswer, step.Answer)
	}
	return step.Scenario, nil
}

// answer is the answer of the answering scenarios.
func answer() string {
	if a := os.Getenv(EnvAnswer); a != "" {
		return a
	}
	return DefaultAnswer
}

// stream plays a whole successful run answering text, pausing after init.
func (c *cli) stream(text string, pause time.Duration) {
	c.init()
	c.out.Flush()
	time.Sleep(pause)
	c.answerEvents(text)
}

// answerEvents plays a successful run answering text after init: the prompt, a search and a fetch, the answer in
// deltas, the result.
func (c *cli) answerEvents(text string) {
	c.event("message", "role", "user", "content", c.prompt)
	c.search()
	c.event("tool_use", "tool_name", "web_fetch", "tool_id", "fetch-1", "parameters", map[string]any{"url": FakeURL})
	c.event("tool_result", "tool_id", "fetch-1", "status", "success", "output", "Content fetched from "+FakeURL)
	for _, part := range split(text, 3) {
		c.event("message", "role", "assistant", "content", part, "delta", true)
	}
	c.result("success", "")
}

func (c *cli) init() {
	model := os.Getenv(EnvModel)
	if i := slices.Index(c.args, "-m"); model == "" && i >= 0 && i+1 < len(c.args) {
		model = c.args[i+1]
	}
	if model == "" {
		model = DefaultModel
	}
	c.event("init", "session_id", fmt.Sprintf("fake-session-%d", os.Getpid()), "model", model)
}

func (c *cli) search() {
	c.event("tool_use", "tool_name", "google_web_search", "tool_id", "search-1", "parameters", map[string]any{"query": FakeQuery})
	c.event("tool_result", "tool_id", "search-1", "status", "success", "output", `Search results for "`+FakeQuery+`" returned.`)
}

func (c *cli) result(status, errorMessage string) {
	fields := []any{"status", status, "stats", map[string]any{"total_tokens": 38, "input_tokens": 24, "output_tokens": 14, "duration_ms": 92, "tool_calls": 2}}
	if errorMessage != "" {
		fields = append(fields, "error", map[string]any{"type": "unknown", "message": errorMessage})
	}
	c.event("result", fields...)
}

// event writes one stream-json line: type and timestamp, then the fields
// (name, value pairs) in order.
func (c *cli) event(typ string, fields ...any) {
	var b strings.Builder
	b.WriteString(`{"type":` + quote(typ) + `,"timestamp":` + quote(time.Now().UTC().Format(time.RFC3339Nano)))
	for i := 0; i+1 < len(fields); i += 2 {
		value, err := json.Marshal(fields[i+1])
		if err != nil {
			panic(err)
		}
		b.WriteString("," + quote(fields[i].(string)) + ":" + string(value))
	}
	b.WriteString("}\n")
	c.out.WriteString(b.String())
	c.out.Flush() // one event at a time, like the CLI
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// crashTrace prints the CLI's stderr noise and a stack trace that leaks
// credentials from the environment, for masking tests.
func (c *cli) crashTrace() {
	lines := []string{
		"Warning: 256-color support not detected. Using a terminal with at least 256-color support is recommended for a better visual experience.",
		"Ripgrep is not available. Falling back to GrepTool.",
		"[STARTUP] Phase 'load_settings' took 3.1ms",
		"Loaded cached credentials.",
		"",
		"TypeError: Cannot read properties of undefined (reading 'candidates')",
		"    at parseResponse (file:///usr/lib/node_modules/@google/gemini-cli/bundle/chunk-FAKE.js:429:12)",
		"    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
	}
	if key := os.Getenv("GEMINI_API_KEY"); key != "" {
		lines = append(lines,
			"Request: POST https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse&key="+key,
			`Headers: {"x-goog-api-key":"`+key+`"}`)
	}
	if key := os.Getenv("FIRECRAWL_API_KEY"); key != "" {
		lines = append(lines, "MCP firecrawl: Authorization: Bearer "+key, "FIRECRAWL_API_KEY="+key)
	}
	if url := os.Getenv("FIRECRAWL_API_URL"); url != "" {
		lines = append(lines, "FIRECRAWL_API_URL="+url)
	}
	lines = append(lines, "An unexpected critical error occurred: TypeError: Cannot read properties of undefined (reading 'candidates')")
	fmt.Fprintln(os.Stderr, strings.Join(lines, "\n"))
}

// writeErrorReport leaves a file in TMPDIR like the CLI's API error reports.
func writeErrorReport() {
	if dir := os.Getenv("TMPDIR"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "gemini-client-error-fake.json"), []byte(`{"error":"fake"}`), 0o600)
	}
}

// GarbageQuery is the query of ScenarioGarbage's search: invalid UTF-8 (raw bytes, not JSON escapes).
const GarbageQuery = "caf\xe9 \xc3\x28 \xed\xa0\x80 query"

// binaryJunk is what ScenarioBinary prints, and ScenarioGarbage among its events: NUL bytes, invalid UTF-8 and
// every byte value, newlines among them, on four lines.
var binaryJunk = func() []byte {
	b := []byte("\x00\x00\x00\x00\n\xff\xfe\xfd invalid UTF-8: \xc3\x28 \xe2\x82 \xf0\x28\x8c\x28 \xed\xa0\x80\n")
	for i := range 256 {
		b = append(b, byte(i))
	}
	return append(b, '\n')
}()

// brokenEvents are ScenarioGarbage's broken events: cut off, of the wrong shape, a result cut off by NULs.
const brokenEvents = `{"type":"message","role":"assistant","content":"cut off` + "\n" +
	`{"type":"message","role":"assistant","content":42,"delta":true}` + "\n" +
	`{"type":"result","status":"succ` + "\x00\x00\n"

// floodStderr writes n bytes of log lines to stderr.
func floodStderr(n int) {
	line := "[DEBUG] [MemoryDiscovery] " + strings.Repeat("loading context from a very deep folder tree ", 22) + "\n"
	w := bufio.NewWriterSize(os.Stderr, 64<<10)
	for written := 0; written < n; written += len(line) {
		w.WriteString(line)
	}
	w.Flush()
}

// split cuts s into n nearly equal parts without splitting a character.
func split(s string, n int) []string {
	var parts []string
	runes := []rune(s)
	for i := range n {
		part := string(runes[i*len(runes)/n : (i+1)*len(runes)/n])
		if part != "" {
			parts = append(parts, part)
		}
	}
	return parts
}

// hugeText returns n bytes of printable text.
func hugeText(n int) string {
	const line = "The fake Gemini CLI writes a great deal of text here. "
	return strings.Repeat(line, n/len(line)+1)[:n]
}

// startSleeper starts the grandchild of ScenarioHang and the orphan scenarios: the test binary again, sharing
// stdout and stderr, ignoring SIGTERM, and when detached in a session of its own. It returns once the grandchild
// ignores SIGTERM.
func startSleeper(detached bool) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	ready, readyW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer ready.Close()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), EnvScenario+"="+scenarioSleeper)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{readyW} // fd 3
	if detached {
		detach(cmd)
	}
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return 0, err
	}
	if _, err := ready.Read(make([]byte, 1)); err != nil {
		return 0, fmt.Errorf("grandchild not ready: %w", err)
	}
	return cmd.Process.Pid, nil
}

// sleepForever ignores SIGTERM and never returns. As ScenarioHang's
// grandchild it first tells its parent it is ready on fd 3.
func sleepForever() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
	if os.Getenv(EnvScenario) == scenarioSleeper {
		ready := os.NewFile(3, "ready")
		_, _ = ready.Write([]byte{1})
		ready.Close()
	}
	for {
		time.Sleep(time.Hour)
	}
}

// readRefs reads the files that prompt's @ references name by an absolute path, as the CLI does when it puts them
// into the prompt: a reference runs to a blank, one of ,;!?()[]{}, or a dot before a blank or the end; a backslash
// takes the next character into it. Only regular files of at most 1 MiB are read.
func readRefs(prompt string) map[string]string {
	refs := map[string]string{}
	for i := 0; i < len(prompt); i++ {
		if prompt[i] != '@' || i > 0 && prompt[i-1] == '\\' {
			continue
		}
		var path strings.Builder
		k := i + 1
		for ; k < len(prompt); k++ {
			c := prompt[k]
			if c == '\\' && k+1 < len(prompt) {
				k++
				path.WriteByte(prompt[k])
				continue
			}
			if strings.IndexByte(" \t\r\n,;!?()[]{}", c) >= 0 ||
				c == '.' && (k+1 == len(prompt) || strings.IndexByte(" \t\r\n", prompt[k+1]) >= 0) {
				break
			}
			path.WriteByte(c)
		}
		if p := path.String(); filepath.IsAbs(p) {
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Size() <= 1<<20 {
				if b, err := os.ReadFile(p); err == nil {
					refs[p] = string(b)
				}
			}
		}
		i = k - 1
	}
	if len(refs) == 0 {
		return nil
	}
	return refs
}

// recordedEnv returns the variables a Call keeps.
func recordedEnv() map[string]string {
	env := make(map[string]string)
	for _, kv := range os.Environ() {
		k, v, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GEMINI_") || strings.HasPrefix(k, "FIRECRAWL_") ||
			slices.Contains([]string{"TMPDIR", "HTTP_STREAMABLE_SERVER", "PORT", "SSE_LOCAL", "CLOUD_SERVICE"}, k) {
			env[k] = v
		}
	}
	return env
}

// record saves call in EnvRecordDir as the next call-NNNN.json, and counts
// the prompts recorded before it. The file appears whole: it is written
// aside, then linked to the first free number (link fails if it exists).
func (c *cli) record(call Call) {
	dir := os.Getenv(EnvRecordDir)
	if dir == "" {
		return
	}
	data, err := json.MarshalIndent(call, "", "  ")
	if err != nil {
		panic(err)
	}
	tmp, err := os.CreateTemp(dir, "tmp-*")
	if err != nil {
		fmt.Fprintln(os.Stderr, "fake gemini: record:", err)
		return
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	for n := 1; err == nil; n++ {
		err = os.Link(tmp.Name(), callFile(dir, n))
		if err == nil {
			c.calls = countPrompts(dir, n)
			return
		}
		if errors.Is(err, fs.ErrExist) {
			err = nil
		}
	}
	fmt.Fprintln(os.Stderr, "fake gemini: record:", err)
}

// recordStart notes in EnvRecordDir that this process started, before it reads its prompt: a warm process may
// be ended before it ever gets one.
func recordStart() {
	if dir := os.Getenv(EnvRecordDir); dir != "" {
		stamp := []byte(strconv.FormatInt(time.Now().UnixNano(), 10))
		if err := os.WriteFile(startFile(dir, os.Getpid()), stamp, 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "fake gemini: record:", err)
		}
	}
}

// countPrompts counts the recorded calls before number n that were prompts.
func countPrompts(dir string, n int) int {
	count := 0
	for i := 1; i < n; i++ {
		data, err := os.ReadFile(callFile(dir, i))
		if err != nil {
			continue
		}
		var c Call
		if json.Unmarshal(data, &c) == nil && !slices.Contains(c.Args, "--version") {
			count++
		}
	}
	return count
}
